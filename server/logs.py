"""Structured logging: one JSON object per line on stderr.

Call sites log an event name and pass fields in ``extra={"fields": {...}}``;
the formatter merges them into the line, so logs can be filtered by room,
seat or code without parsing prose.
"""

from __future__ import annotations

import json
import logging
import math
import sys
import time
from typing import Any

EVERY = 10.0
"""Seconds between two lines of one :class:`Throttled` warning."""

clock = time.monotonic
"""What :class:`Throttled` reads the time from (looked up at each call: tests set it)."""


class Throttled:
    """A warning every request of an outage would repeat (``store unavailable`` while
    Redis is away, as its clients retry every 0.5 s): logged at once, then at most once
    every :data:`EVERY` seconds, the next line saying how many it stands for."""

    def __init__(self) -> None:
        self.next = -math.inf
        self.held = 0

    def due(self) -> int | None:
        """None while this warning is held; else how many were held since the last."""
        now = clock()
        if now < self.next:
            self.held += 1
            return None
        self.next = now + EVERY
        more, self.held = self.held, 0
        return more


class JsonFormatter(logging.Formatter):
    """Formats a record as ``{"ts", "level", "logger", "event", ...fields}``."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        line.update(getattr(record, "fields", {}))
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


PER_CONNECTION = (
    '"WebSocket ',  # uvicorn: a handshake accepted, refused (403) or answered
    "connection open",  # websockets, on the same logger
    "connection closed",
    "connection rejected",
)
"""The starts of uvicorn's and websockets' ``info`` lines (after the peer) about one
WebSocket: one or two for every client that comes, however many."""


AT_THE_CAP = "Exceeded concurrency limit."
"""uvicorn's warning for every request it refuses at ``limit_concurrency``
(``max_connections``)."""


class PerConnection(logging.Filter):
    """uvicorn's lines about one connection or one request (``uvicorn.access``, and the
    WebSocket handshake lines on ``uvicorn.error``) at ``debug``, not ``info``: the
    server logs what it ends itself (docs/operations.md, "How connections end"), and a
    busy server's log was otherwise mostly these. Its warning for each request refused
    at ``max_connections`` is :class:`Throttled`."""

    def __init__(self) -> None:
        super().__init__()
        self.at_the_cap = Throttled()

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.WARNING and record.getMessage() == AT_THE_CAP:
            if (more := self.at_the_cap.due()) is None:
                return False
            if more:
                record.fields = {**getattr(record, "fields", {}), "more": more}
            return True
        if record.levelno != logging.INFO:
            return True
        if record.name != "uvicorn.access":
            message = record.getMessage()
            if not any(word in message for word in PER_CONNECTION):
                return True
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)


def configure(level: str = "info") -> None:
    """Send ``tablewire`` and uvicorn logs to stderr as JSON lines; uvicorn's lines about
    one connection or request at ``debug`` (:class:`PerConnection`)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    quiet = PerConnection()
    for name in ("tablewire", "uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level.upper())
        logger.propagate = False
        if name.startswith("uvicorn."):  # (one filter, however often this is called)
            others = [f for f in logger.filters if not isinstance(f, PerConnection)]
            logger.filters[:] = [*others, quiet]


def fields(**values: Any) -> dict[str, Any]:
    """The ``extra`` argument for a structured log call."""
    return {"fields": values}
