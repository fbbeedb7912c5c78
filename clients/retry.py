"""Waiting out the server's limits: the one retry loop of every Python client.

A server over one of its limits says how long to wait (docs/protocol.md §8):
an HTTP 429, or a 503 ``too_many_rooms``, carries ``Retry-After`` (whole
seconds) and ``retry_after`` in its error body; a WebSocket ``reject`` or
``error`` frame with the code ``rate_limited`` carries ``retry_after``. A
request refused so was not served, so the same request is sent again once
the wait is over. An intent refused because the room's store or owner did not
answer (``store_unavailable``, ``owner_unavailable``: a Redis restart, a
failover, a slot moving) is sent again with its id every :data:`UNAVAILABLE_WAIT`
seconds too: the server applies an intent id once. :func:`retrying` does this for
the lobby's HTTP calls and the room's intents and queries alike; :class:`Patience`
bounds it, so that a server that keeps refusing ends the call with its last
refusal, and ``on_wait`` lets the caller show each wait (``tablewire`` prints a
line).
"""

from __future__ import annotations

import asyncio
import errno
import itertools
import math
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
from websockets.exceptions import ConnectionClosed, InvalidMessage, InvalidStatus

DEFAULT_WAIT = 1.0
"""Seconds to wait when a refusal does not say (an older server)."""
UNAVAILABLE = frozenset({"store_unavailable", "owner_unavailable"})
"""Reject codes of an intent the server could not record or forward for now."""
UNAVAILABLE_WAIT = 0.5
"""Seconds between two tries of an intent refused with one of :data:`UNAVAILABLE` when
the reject does not say (a server before the reject's ``retry_after``; within the
patience: 30 tries, about 15 s, by default)."""
RECONNECTABLE = frozenset(
    {
        "too_slow",
        "store_unavailable",
        "owner_unavailable",
        "too_many_connections",
        "rate_limited",
        "internal_error",
        "hello_timeout",
        "closed",
    }
)
"""Codes of fatal connection errors a client survives by reconnecting, as
docs/protocol.md §2 (How a connection ends) says (``closed``: the client's own, a
connection closed before ``welcome`` with no close code of :data:`PROTOCOL_CLOSES`:
:func:`closed_before_welcome`); the others are final (``room_closed``: the room is
over; ``no_such_room``, ``bad_token``, a bad frame: the same hello would fail again)."""
PROTOCOL_CLOSES = {1002: "protocol error", 1007: "invalid payload", 1009: "message too big"}
"""WebSocket close codes that end a connection for good (docs/protocol.md §2): the frames
broke the protocol, and the same frames would again, so a client does not retry."""
BUSY_STATUSES = {429, 503}
"""HTTP statuses retried when the answer says when to come back (``Retry-After``)."""

PROXY_DOWN = frozenset({502, 504})
"""Statuses a reverse proxy answers, without tablewire's JSON, when no server behind it
answers: the server cannot be reached, as with none at all (the lobby client's
``Unreachable``)."""

T = TypeVar("T")


@dataclass(frozen=True)
class Patience:
    """How long a request is sent again: at most ``attempts`` tries in all, and no wait
    that would take the time spent waiting past ``within`` seconds."""

    attempts: int = 30
    within: float = 120.0


@dataclass(frozen=True)
class Wait:
    """One wait before a request is sent again: what was refused, why, for how long."""

    what: str
    """The request: ``POST /api/rooms``, ``intent``, ``legal``."""
    code: str
    """The refusal's code: ``rate_limited``, ``too_many_rooms``."""
    seconds: float
    attempt: int
    """The try that was refused (1: the first)."""

    def __str__(self) -> str:
        why = "the room's server did not answer" if self.code in UNAVAILABLE else "server busy"
        return f"{why} ({self.code}): waiting {round(self.seconds, 1):g} s"


OnWait = Callable[[Wait], None]


class WaitNotices:
    """An ``on_wait`` for people: one line (``tablewire: ...``) for a wait they would
    notice (``least`` seconds or more), at most one every ``every`` seconds; the many
    short waits of a busy run (an intent sent again at once) are not told one by one."""

    def __init__(self, show: Callable[[str], None], least: float = 1.0, every: float = 5.0) -> None:
        self.show, self.least, self.every = show, least, every
        self._last = -math.inf

    def __call__(self, wait: Wait) -> None:
        now = time.monotonic()
        if round(wait.seconds, 1) < self.least or now - self._last < self.every:  # as shown
            return
        self._last = now
        self.show(f"tablewire: {wait}")


PATIENCE = Patience()
"""The default: up to 30 tries and two minutes of waiting."""


def seconds_given(value: Any) -> float | None:
    """A wait the server gave (a number, or the text of a header), if it is one."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def protocol_close(lost: BaseException) -> str | None:
    """What to say of a connection the server closed with one of :data:`PROTOCOL_CLOSES`
    ("WebSocket close code 1009 (message too big)"): it ends for good; None for any other
    end."""
    close = lost.rcvd if isinstance(lost, ConnectionClosed) else None
    if close is None or close.code not in PROTOCOL_CLOSES:
        return None
    return f"WebSocket close code {close.code} ({PROTOCOL_CLOSES[close.code]})"


def closed_before_welcome(lost: ConnectionClosed) -> dict[str, Any]:
    """The error of a connection closed before ``welcome``: with a close code of
    :data:`PROTOCOL_CLOSES`, a fatal ``protocol_error`` (final: the same hello would be
    refused again, a reconnect's as much as a first connection's); otherwise ``closed``,
    a code to retry (:data:`RECONNECTABLE`)."""
    said = protocol_close(lost)
    if said is not None:
        message = f"the server ended the connection before welcome with the {said}"
        return {"code": "protocol_error", "message": message, "fatal": True}
    return {"code": "closed", "message": f"closed before welcome: {lost}"}


def reconnect_pause(frame: dict[str, Any]) -> float:
    """Seconds to wait before reconnecting after the fatal error ``frame``: after a
    ``rate_limited``, its ``retry_after``, else :data:`DEFAULT_WAIT` (docs/protocol.md §2:
    reconnect after a pause); after any other, none."""
    if frame.get("code") != "rate_limited":
        return 0.0
    wait = seconds_given(frame.get("retry_after"))
    return DEFAULT_WAIT if wait is None else wait


def http_refusal(response: httpx.Response) -> tuple[str, float] | None:
    """The code and the wait of a lobby answer that asks to come back later (a 429, or
    a 503 with ``Retry-After``); None for any other answer. The wait is the body's
    ``retry_after``, else the ``Retry-After`` header, else :data:`DEFAULT_WAIT`."""
    if response.status_code not in BUSY_STATUSES:
        return None
    header = response.headers.get("retry-after")
    try:
        data = response.json()
    except ValueError:
        data = None
    error = data.get("error") if isinstance(data, dict) else None
    error = error if isinstance(error, dict) else {}
    body = error.get("retry_after")
    if response.status_code == 503 and header is None and body is None:
        return None  # a failure that does not say it will pass
    wait = seconds_given(body)
    if wait is None:
        wait = seconds_given(header)
    code = error.get("code") or ("rate_limited" if response.status_code == 429 else "busy")
    return str(code), DEFAULT_WAIT if wait is None else wait


def frame_refusal(frame: dict[str, Any]) -> tuple[str, float] | None:
    """The code and the wait of a ``reject`` or non-fatal ``error`` frame ``rate_limited``
    (its ``retry_after``, else :data:`DEFAULT_WAIT`), or of a ``reject`` with a code of
    :data:`UNAVAILABLE` (its ``retry_after``, else :data:`UNAVAILABLE_WAIT`); None for
    any other frame."""
    if frame.get("t") == "reject" and frame.get("code") in UNAVAILABLE:
        wait = seconds_given(frame.get("retry_after"))
        return str(frame["code"]), UNAVAILABLE_WAIT if wait is None else wait
    if frame.get("t") not in ("reject", "error") or frame.get("code") != "rate_limited":
        return None
    if frame.get("fatal"):
        return None
    wait = seconds_given(frame.get("retry_after"))
    return "rate_limited", DEFAULT_WAIT if wait is None else wait


async def retrying(
    what: str,
    attempt: Callable[[], Awaitable[T]],
    refusal: Callable[[T], tuple[str, float] | None],
    patience: Patience = PATIENCE,
    on_wait: OnWait | None = None,
) -> T:
    """Run ``attempt`` until ``refusal`` finds no wait to make in its outcome, waiting
    as the server says between tries; past ``patience``, the last outcome (a refusal)."""
    waited = 0.0
    for tries in itertools.count(1):
        outcome = await attempt()
        refused = refusal(outcome)
        if refused is None or tries >= patience.attempts or waited + refused[1] > patience.within:
            return outcome
        wait = Wait(what, refused[0], refused[1], tries)
        if on_wait is not None:
            on_wait(wait)
        await asyncio.sleep(wait.seconds)
        waited += wait.seconds
    raise AssertionError("unreachable")


def proxy_reason(status: int) -> str:
    """Why a proxy's answer (one of :data:`PROXY_DOWN`) means that no server answered."""
    return f"the proxy there answered HTTP {status}: no server behind it answered"


def tablewire_shaped(method: str, path: str, data: Any) -> bool:
    """Whether ``data``, a lobby's answer to ``method path``, has the shape of tablewire's
    (the fields the commands read): another service's JSON on the port (``{"status":
    "ok"}``) is no server of tablewire's, not an answer to read (it was a ``TypeError``)."""
    if (method, path) == ("GET", "/api/rooms"):  # the listing
        return isinstance(data, list) and all(
            isinstance(room, dict) and isinstance(room.get("id"), str) for room in data
        )
    if path != "/api/games":
        return isinstance(data, dict)
    return isinstance(data, list) and all(
        isinstance(game, dict)
        and isinstance(game.get("id"), str)
        and isinstance(game.get("title"), str)
        and isinstance(game.get("min_players"), int)
        and isinstance(game.get("max_players"), int)
        and isinstance(options := game.get("options"), dict)
        and all(
            isinstance(spec, dict) and isinstance(spec.get("choices"), list) and "default" in spec
            for spec in options.values()
        )
        for game in data
    )


def plain_refusal(status: int) -> str:
    """The code of an HTTP error answered without tablewire's JSON: ``server_busy`` for a
    503 (uvicorn's own at ``max_connections``, a server starting or stopping),
    ``server_failed`` for another 5xx but 501 (a plain HTTP server's), else
    ``not_tablewire``."""
    if status == 503:
        return "server_busy"
    return "server_failed" if status >= 500 and status != 501 else "not_tablewire"


def no_server(exc: BaseException) -> bool:
    """Whether a failed WebSocket handshake found no server: no connection (refused,
    unknown host, no answer), a proxy's :data:`PROXY_DOWN`, or a peer that hung up
    unanswered. Any other answer came from something that is not tablewire."""
    if isinstance(exc, InvalidStatus):
        return exc.response.status_code in PROXY_DOWN
    if isinstance(exc, InvalidMessage):
        return isinstance(exc.__cause__, EOFError)
    return isinstance(exc, OSError)


def os_reason(exc: BaseException) -> str:
    """Why a connection failed, in words, from the exception or its causes (a WebSocket
    handshake a proxy answered with :data:`PROXY_DOWN`'s status among them)."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, InvalidStatus) and cause.response.status_code in PROXY_DOWN:
            return proxy_reason(cause.response.status_code)
        if isinstance(cause, socket.gaierror):
            return "unknown host"
        refused = isinstance(cause, OSError) and cause.errno == errno.ECONNREFUSED
        if refused or isinstance(cause, ConnectionRefusedError) or "refused" in str(cause):
            return "connection refused"
        if isinstance(cause, EOFError):
            return "it closed the connection without sending a response"
        if isinstance(cause, TimeoutError):
            return "no answer in time"
        cause = cause.__cause__ or cause.__context__
    return str(exc) or type(exc).__name__


def http_reason(exc: httpx.TransportError, timeout: float) -> str:
    """Why a request found no server, in words (``timeout``: the client's, in seconds)."""
    if isinstance(exc, httpx.TimeoutException):
        return f"no answer within {timeout:g} s"
    return os_reason(exc)
