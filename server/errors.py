"""The error the lobby and rooms raise for a request they refuse."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from protocol.errors import Code


def retry_delay(seconds: float) -> float:
    """A wait as clients are told it: seconds, rounded up to the millisecond, never 0."""
    return max(0.001, math.ceil(seconds * 1000) / 1000)


def spoken(words: Sequence[str], last: str = "or") -> str:
    """``words`` as a sentence lists them: ``waiting, playing or finished`` (with
    ``last="and"``: ``greedy and random``); never a Python list."""
    if len(words) < 2:
        return "".join(words)
    return f"{', '.join(words[:-1])} {last} {words[-1]}"


UNAVAILABLE_RETRY = 0.5
"""Seconds after which a request refused as ``store_unavailable`` or
``owner_unavailable`` may be sent again, where that is safe: an intent (its id is
applied once), a read, a room's creation, a request with an ``Idempotency-Key``. The
refusal says so as ``retry_after`` (and ``Retry-After: 1`` over HTTP), so clients ride
a Redis restart or a master's failover out."""
UNAVAILABLE = (Code.STORE_UNAVAILABLE, Code.OWNER_UNAVAILABLE)
"""The codes of a refusal for now (:data:`UNAVAILABLE_RETRY`)."""


class ApiError(Exception):
    """A refused request: HTTP ``status``, stable ``code`` and a human message.

    ``retry_after`` (seconds): when the same request may succeed; sent as the body's
    ``retry_after`` and as a ``Retry-After`` header (whole seconds, rounded up)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        headers: dict[str, str] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})
        """HTTP headers of the answer (``Retry-After``)."""
        self.retry_after = None if retry_after is None else retry_delay(retry_after)
        if self.retry_after is not None:
            self.headers["retry-after"] = str(math.ceil(self.retry_after))

    def body(self) -> dict[str, dict[str, Any]]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.retry_after is not None:
            error["retry_after"] = self.retry_after
        return {"error": error}


def rematch_seat_taken(seat: int, room_id: str) -> ApiError:
    """A former player's seat in the rematch ``room_id`` is someone's already."""
    return ApiError(
        409,
        "seat_taken",
        f"seat {seat} of the rematch {room_id} is taken already: by you if you asked before "
        "(that answer's token holds it; send an Idempotency-Key to be answered it again), "
        "else its hold for you had ended",
    )
