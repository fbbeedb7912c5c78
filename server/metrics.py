"""Prometheus metrics of one process, served at ``GET /metrics`` (docs/operations.md).

Counted where the events happen, kept cheap on the hot path: frames and bytes
out and intents in are plain integers in :data:`COUNTS` (an attribute
increment per frame), and the intent latency a :class:`Tallied` histogram,
turned into metrics only when scraped; rarer events
(rejects, closes by :class:`Ending`, store calls, lease changes) use ``prometheus_client``
metrics directly. Rooms and connections are read from the live objects at
scrape time.

The metric objects are module-level, like loggers: one process, one set.
Each app builds its own registry over them plus a collector of its own rooms and
connections (:mod:`server.scrape`, which reads the lobby; this module imports no
other part of the server), so several apps in one process (tests) do not collide.
"""

from __future__ import annotations

import asyncio
from bisect import bisect_left
from enum import StrEnum
from typing import Final

from prometheus_client import Counter, Gauge, Histogram, disable_created_metrics
from prometheus_client.core import HistogramMetricFamily

# No ``*_created`` series: every counter starts with the process.
disable_created_metrics()  # type: ignore[no-untyped-call]

LATENCY_BUCKETS: Final[tuple[float, ...]] = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
)


class Counts:
    """Hot-path tallies: plain integers, exported as counters at scrape time."""

    __slots__ = ("bytes_out", "frames_in", "frames_out", "intents")

    def __init__(self) -> None:
        self.frames_out = 0
        self.bytes_out = 0
        self.frames_in = 0
        self.intents = 0


COUNTS: Final = Counts()

REJECTS: Final = Counter(
    "tablewire_rejects", "Intents refused with a reject frame, by code", ["code"], registry=None
)
ERRORS: Final = Counter(
    "tablewire_errors", "Error frames sent to clients, by code", ["code"], registry=None
)
RATE_LIMITED: Final = Counter(
    "tablewire_rate_limited",
    "Client frames refused as rate_limited, by kind (intent, query, ping, chat, refused,"
    " room_chat), and lobby requests (http) and rooms (rooms) refused with a 429",
    ["kind"],
    registry=None,
)
SLOW_CLOSES: Final = Counter(
    "tablewire_slow_client_closes",
    "Connections closed as too_slow (send_buffer exceeded or no progress in send_timeout)",
    registry=None,
)
ABORTS: Final = Counter(
    "tablewire_connection_aborts",
    "Closing connections aborted after close_timeout without taking their last frames",
    registry=None,
)


class Ending(StrEnum):
    """Why a WebSocket connection ended: the ``reason`` of :data:`CLOSES`, and of the
    ``closed`` log line (docs/protocol.md §2 has the table). A fixed set, so the metric
    has a fixed set of series; the ``error`` code in the log line says more."""

    CLIENT_CLOSED = "client_closed"
    """The client closed the WebSocket or dropped the connection."""
    SHUTDOWN = "shutdown"
    """The server process is stopping (close code 1012)."""
    KEEPALIVE_TIMEOUT = "keepalive_timeout"
    """No pong to the server's keepalive ping within ``ws_ping_timeout`` (1011)."""
    TOO_SLOW = "too_slow"
    RATE_LIMITED = "rate_limited"
    TOO_MANY_CONNECTIONS = "too_many_connections"
    HELLO_TIMEOUT = "hello_timeout"
    REFUSED = "refused"
    """``no_such_room`` or ``bad_token``."""
    PROTOCOL_ERROR = "protocol_error"
    """A fatal frame error before ``welcome``, or the WebSocket layer's own refusal
    (close code 1002, 1007, 1009)."""
    ROOM_CLOSED = "room_closed"
    STORE_UNAVAILABLE = "store_unavailable"
    INTERNAL_ERROR = "internal_error"
    """A server fault: a fatal ``internal_error``, or the session failed."""


CLOSES: Final = Counter(
    "tablewire_closes",
    "WebSocket connections ended, by reason (every reason is exported, from 0)",
    ["reason"],
    registry=None,
)
for _reason in Ending:
    CLOSES.labels(_reason)


class Cutoff(StrEnum):
    """Why the server closed an HTTP connection before its request was whole: the
    ``reason`` of :data:`HTTP_CUTOFFS` and of the ``request cut off`` log line."""

    HEADER_TIMEOUT = "header_timeout"
    """No whole request line and headers within ``header_timeout`` (408)."""
    HEADERS_TOO_LARGE = "headers_too_large"
    """Request line and headers past ``max_header_bytes`` (431)."""
    BODY_TIMEOUT = "body_timeout"
    """No whole body within ``body_timeout`` (the connection aborted)."""


HTTP_CUTOFFS: Final = Counter(
    "tablewire_http_cutoffs",
    "HTTP connections closed before their request was whole, by reason (each exported from 0)",
    ["reason"],
    registry=None,
)
for _cutoff in Cutoff:
    HTTP_CUTOFFS.labels(_cutoff)


class Tallied:
    """A histogram kept as plain integers (one list item and a float per observation,
    no lock), exported as a Prometheus histogram at scrape time: for once a move."""

    def __init__(
        self,
        name: str,
        documentation: str,
        buckets: tuple[float, ...],
        labels: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.documentation = documentation
        self.labels = labels or {}
        """Labels of the one series it keeps (``{"op": "append"}``), if any."""
        self.bounds = buckets
        self.counts = [0] * (len(buckets) + 1)
        """Observations per bucket, not cumulative; the last one is above every bound."""
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect_left(self.bounds, value)] += 1
        self.sum += value

    def family(self) -> HistogramMetricFamily:
        cumulative, buckets = 0, []
        for bound, count in zip((*map(repr, self.bounds), "+Inf"), self.counts, strict=True):
            cumulative += count
            buckets.append((bound, cumulative))
        if not self.labels:
            return HistogramMetricFamily(
                self.name, self.documentation, buckets=buckets, sum_value=self.sum
            )
        family = HistogramMetricFamily(self.name, self.documentation, labels=list(self.labels))
        family.add_metric(list(self.labels.values()), buckets, self.sum)
        return family


INTENT_LATENCY: Final = Tallied(
    "tablewire_intent_patch_seconds",
    "From an intent's arrival at its room to its patch queued on every connection",
    LATENCY_BUCKETS,
)
STORE_APPEND: Final = Tallied(
    "tablewire_store_seconds",
    "Latency of the room store's calls on the move path, by operation",
    LATENCY_BUCKETS,
    labels={"op": "append"},
)
STORE_ERRORS: Final = Counter(
    "tablewire_store_errors",
    "Store calls that failed (store unavailable), by operation",
    ["op"],
    registry=None,
)
STORE_REDIRECTS: Final = Counter(
    "tablewire_store_redirects",
    "Cluster answers to the store's script calls that named another try: ask (sent to the"
    " importing master), tryagain (keys split by a slot move), moved (a slot moved)",
    ["answer"],
    registry=None,
)
LEASES: Final = Counter(
    "tablewire_lease_changes",
    "Room ownership leases acquired and lost by this process",
    ["change"],
    registry=None,
)
LOOP_LAG: Final = Histogram(
    "tablewire_event_loop_lag_seconds",
    "How late the event loop ran a 0.5 s timer (sampled every 0.5 s)",
    buckets=LATENCY_BUCKETS,
    registry=None,
)
LOOP_LAG_LAST: Final = Gauge(
    "tablewire_event_loop_lag_last_seconds", "The last event-loop lag sample", registry=None
)

STORE_APPEND_ERRORS: Final = STORE_ERRORS.labels(op="append")
LAG_INTERVAL: Final = 0.5


async def watch_loop_lag(interval: float = LAG_INTERVAL) -> None:
    """Sample how late a timer fires, forever (run as a task; cancel it to stop)."""
    loop = asyncio.get_running_loop()
    while True:
        start = loop.time()
        await asyncio.sleep(interval)
        lag = max(0.0, loop.time() - start - interval)
        LOOP_LAG.observe(lag)
        LOOP_LAG_LAST.set(lag)
