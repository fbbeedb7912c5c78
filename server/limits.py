"""Limits that protect the process from one client: token buckets, connection counts,
and the HTTP middleware that bounds lobby request rates and body sizes.

Every number comes from :class:`~server.settings.Settings` (docs/operations.md).
Buckets are plain arithmetic on a monotonic clock read by the caller; nothing
here starts a task or a timer.

* :class:`TokenBucket`: ``rate`` tokens a second, at most ``burst`` saved up.
* :func:`address_key`: the key of a client address (an IPv6 one's /64), what every
  limit per address counts.
* :class:`Buckets`: one bucket per key (a client address); a bucket that has
  refilled completely is the same as a new one, so idle keys are dropped and
  the table stays as small as the set of recently active clients.
* :class:`FrameLimits`: what a WebSocket connection may send after ``hello``:
  intents, queries (``legal``, ``resync``), pings, chat lines and frames refused as
  bad, each limited per connection and per client address.
* :class:`Gate`: the process's WebSocket connections, counted per process and
  refused above ``max_connections``; handshakes limited per address.
* :class:`HttpLimits`: ASGI middleware for ``/api/`` requests: a rate per
  client address (429 ``rate_limited``) and the body size, refused by
  ``Content-Length`` before the body is read (413 ``body_too_large``) and
  while it streams in. Other middleware (a cap on rooms, say) composes with it
  like any ASGI middleware.
"""

from __future__ import annotations

import ipaddress
import json
import re
import time
from collections.abc import Callable
from enum import StrEnum
from typing import Any, Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.errors import ApiError
from server.metrics import RATE_LIMITED
from server.proxies import Networks, load_testers
from server.settings import Settings

Clock = Callable[[], float]


class TokenBucket:
    """``rate`` tokens a second, holding at most ``burst``; starts full."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = now

    def take(self, now: float) -> bool:
        """Spend one token if there is one."""
        tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if tokens < 1.0:
            self.tokens = tokens
            return False
        self.tokens = tokens - 1.0
        return True

    def spend(self, now: float, tokens: float) -> None:
        """Take ``tokens`` more, even those there are not (the debt delays what follows)."""
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate) - tokens
        self.stamp = now

    def full(self, now: float) -> bool:
        return self.tokens + (now - self.stamp) * self.rate >= self.burst

    def wait(self, now: float) -> float:
        """Seconds until a token is there (0 if one is)."""
        tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        return max(0.0, (1.0 - tokens) / self.rate)


class Buckets:
    """A :class:`TokenBucket` per key; ``rate`` 0 means unlimited."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = max(1.0, burst)
        self._buckets: dict[str, TokenBucket] = {}
        self._pruned = 0.0

    def take(self, key: str, now: float) -> bool:
        if self.rate <= 0:
            return True
        bucket = self._buckets.get(key)
        if bucket is None:
            self._prune(now)
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, now)
        return bucket.take(now)

    def spend(self, key: str, now: float, tokens: float) -> None:
        """``key`` takes ``tokens`` more (:meth:`TokenBucket.spend`)."""
        bucket = self._buckets.get(key)
        if bucket is not None and self.rate > 0:
            bucket.spend(now, tokens)

    def wait(self, key: str, now: float) -> float:
        """Seconds until ``key`` may take a token."""
        bucket = self._buckets.get(key)
        return 0.0 if bucket is None or self.rate <= 0 else bucket.wait(now)

    def _prune(self, now: float) -> None:
        """Drop the buckets that are full again (at most once per refill time)."""
        if now - self._pruned < self.burst / self.rate:
            return
        self._pruned = now
        for key in [key for key, bucket in self._buckets.items() if bucket.full(now)]:
            del self._buckets[key]

    def __len__(self) -> int:
        return len(self._buckets)


class Kind(StrEnum):
    """The kinds of client frames that are rate limited, each with its own buckets."""

    INTENT = "intent"
    QUERY = "query"
    PING = "ping"
    CHAT = "chat"
    REFUSED = "refused"
    """Frames refused as bad (malformed, an unknown type, a bad field)."""


class AddressLimits:
    """The per-address buckets of one process, shared by all its connections."""

    def __init__(self, settings: Settings) -> None:
        factor = settings.address_factor
        self.frames = {
            kind: Buckets(rate * factor, burst * factor)
            for kind, (rate, burst) in _frame_rates(settings).items()
        }
        self.connects = Buckets(settings.connect_rate, settings.connect_burst)


def _frame_rates(settings: Settings) -> dict[Kind, tuple[float, float]]:
    return {
        Kind.INTENT: (settings.intent_rate, settings.intent_burst),
        Kind.QUERY: (settings.query_rate, settings.query_burst),
        Kind.PING: (settings.ping_rate, settings.ping_burst),
        Kind.CHAT: (settings.chat_rate, settings.chat_burst),
        Kind.REFUSED: (settings.refused_rate, settings.refused_burst),
    }


class FrameLimits:
    """The rate limits of one connection: its own buckets, then its address's.

    :meth:`allow` answers whether a frame of a kind may be served now; refused
    frames in a row are counted, and :attr:`exhausted` says the connection
    should be closed (``rate_strikes`` of them).
    """

    __slots__ = ("_address", "_addresses", "_mine", "clock", "strikes", "strikes_allowed")

    def __init__(
        self,
        settings: Settings,
        address: str,
        addresses: AddressLimits | None,
        clock: Clock = time.monotonic,
    ) -> None:
        now = clock()
        self.clock = clock
        self._mine = {
            kind: TokenBucket(rate, max(1.0, burst), now) if rate > 0 else None
            for kind, (rate, burst) in _frame_rates(settings).items()
        }
        self._address = address
        self._addresses = addresses
        self.strikes = 0
        self.strikes_allowed = settings.rate_strikes

    def wait(self, kind: Kind) -> float:
        """Seconds until a frame of ``kind`` would be served (after a refusal)."""
        now = self.clock()
        mine = self._mine[kind]
        wait = 0.0 if mine is None else mine.wait(now)
        if self._addresses is not None:
            wait = max(wait, self._addresses.frames[kind].wait(self._address, now))
        return wait

    def allow(self, kind: Kind) -> bool:
        """Whether a frame of ``kind`` is within the rates (taken from them); one that is
        sets the strikes back to 0, one that is not adds a strike."""
        if self._take(kind):
            self.strikes = 0
            return True
        self.strikes += 1
        return False

    def charge(self, kind: Kind) -> bool:
        """Like :meth:`allow`, for a frame that is not served (refused as bad): one
        within the rate does not set the strikes back to 0."""
        if self._take(kind):
            return True
        self.strikes += 1
        return False

    def _take(self, kind: Kind) -> bool:
        """Take a frame of ``kind`` from the connection's rate and its address's."""
        now = self.clock()
        mine = self._mine[kind]
        addresses = self._addresses
        return (mine is None or mine.take(now)) and (
            addresses is None or addresses.frames[kind].take(self._address, now)
        )

    @property
    def exhausted(self) -> bool:
        return self.strikes >= self.strikes_allowed


class Gate:
    """The WebSocket connections of one process: counted, and refused above the limits."""

    def __init__(self, settings: Settings, clock: Clock = time.monotonic) -> None:
        self.settings = settings
        self.clock = clock
        self.addresses = AddressLimits(settings)
        self.load_testers = load_testers(settings)
        """The load generators' addresses (``load_test_clients``)."""
        self.open = 0
        """WebSocket connections open now."""
        self.by_address: dict[str, int] = {}
        """Of those, how many each client address holds (load tests' included)."""

    def frame_limits(self, address: str, load_test: bool = False) -> FrameLimits:
        """The connection's limits; a ``load_test`` connection (:func:`load_test`) has
        only its own, not its address's."""
        addresses = None if load_test else self.addresses
        return FrameLimits(self.settings, address_key(address), addresses, self.clock)

    def admit(self, address: str, load_test: bool = False) -> str | None:
        """Why a new connection from ``address`` is refused, or None to admit it (counted:
        :meth:`leave` when it ends)."""
        settings = self.settings
        address = address_key(address)
        if self.open >= settings.max_connections:
            return f"this server holds {settings.max_connections} connections; retry later"
        held = self.by_address.get(address, 0)
        if not load_test:
            cap = settings.address_connections
            if cap and held >= cap:
                return f"your address holds {cap} connections to this server; close some first"
            if not self.addresses.connects.take(address, self.clock()):
                return "too many connections from your address; slow down"
        self.open += 1
        self.by_address[address] = held + 1
        return None

    def leave(self, address: str) -> None:
        address = address_key(address)
        self.open -= 1
        held = self.by_address.pop(address) - 1
        if held:
            self.by_address[address] = held


def address_key(address: str) -> str:
    """What the limits per client address count ``address`` under: an IPv6 address by
    its /64 (one subscriber's block: each of its 2⁶⁴ addresses is the same client), an
    IPv4-mapped one as its IPv4 address, any other as it is."""
    if ":" not in address:
        return address
    try:
        ip = ipaddress.IPv6Address(address.split("%", 1)[0])
    except ValueError:
        return address
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return f"{ipaddress.IPv6Address(int(ip) >> 64 << 64)}/64"


def client_address(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "?"


CHARGE: Final = "tablewire.charge"
"""The scope key of :class:`HttpLimits`'s charge for a request's time (:func:`charge`)."""
COST_UNIT: Final = 0.005
"""Seconds of the server's CPU one lobby request is worth (:func:`charge`)."""


def charge(scope: Scope, seconds: float) -> None:
    """Count a request that took ``seconds`` of the server's CPU against its address's
    lobby rate as one request for every :data:`COST_UNIT` of it (the first counted
    already): a game's record, replayed from its log, may take a tenth of a second."""
    spend = scope.get(CHARGE)
    if spend is not None and seconds > COST_UNIT:
        spend(seconds / COST_UNIT - 1.0)


LIMITED: Final = frozenset({"/metrics"})
"""Requests outside ``/api/`` limited as the lobby's: a scrape on the public port. The
health checks never are (a probe refused would take a healthy process out of service):
``/healthz`` asks nothing, and ``/readyz`` shares one store ping among its askers
(:class:`server.app.Readiness`)."""

ROOM_PATH: Final = re.compile(r"^/api/rooms/([^/]+)(?:/|$)")


def load_test(address: str, benchmark: bool, testers: Networks) -> bool:
    """Whether a client's request concerns a benchmark room and comes from an address the
    operator named a load generator's (``load_test_clients``): exempt from the limits
    per client address (never for a game; ``max_benchmark_rooms`` caps such rooms). No
    address is exempt by default, and none by what a client writes in a header."""
    return benchmark and address in testers


class HttpLimits:
    """ASGI middleware: per-address request rate and body size for ``/api/`` requests.

    ``benchmark(room_id)`` says whether a room is a benchmark room: a load
    generator's requests about one (:func:`load_test`) do not count against its
    address. A load generator's room creations are left to the lobby's own
    per-address limit (the lobby knows the engine, this middleware does not).
    ``GET /metrics`` on the public port counts like a lobby request. A handler may count
    the time its request took too (:func:`charge`).
    """

    def __init__(
        self,
        app: ASGIApp,
        settings: Settings,
        benchmark: Callable[[str], bool] = lambda room_id: False,
        clock: Clock = time.monotonic,
    ) -> None:
        self.app = app
        self.max_body = settings.max_body
        self.clock = clock
        self.benchmark = benchmark
        self.testers = load_testers(settings)
        self.requests = Buckets(settings.http_rate, settings.http_burst)

    def _exempt(self, scope: Scope, address: str) -> bool:
        if not self.testers or address not in self.testers:
            return False
        path = scope.get("path", "")
        if path == "/api/rooms" and scope.get("method") == "POST":
            return True
        room = ROOM_PATH.match(path)
        return room is not None and self.benchmark(room.group(1))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not (path.startswith("/api/") or path in LIMITED):
            await self.app(scope, receive, send)
            return
        address = client_address(scope)
        now = self.clock()
        key = address_key(address)
        exempt = self._exempt(scope, address)
        if not exempt and not self.requests.take(key, now):
            RATE_LIMITED.labels("http").inc()
            wait = self.requests.wait(key, now)
            error = ApiError(
                429,
                "rate_limited",
                "too many requests from your address; slow down",
                retry_after=wait,
            )
            await _refuse(send, error, error.headers)
            return
        length = _content_length(scope)
        if length is not None and length > self.max_body:
            await _refuse(send, self._too_large(), {"connection": "close"})
            return
        seen = 0

        async def bounded() -> Message:
            """Raises 413 (answered by the app's ApiError handler) once the body streamed
            in passes the limit: nothing past it is read or kept."""
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:
                    raise self._too_large()
            return message

        async def closing(message: Message) -> None:
            """The rest of a refused body is not read: the connection closes after the answer."""
            if message["type"] == "http.response.start" and seen > self.max_body:
                message = {**message, "headers": [*message["headers"], (b"connection", b"close")]}
            await send(message)

        if not exempt:
            requests, clock = self.requests, self.clock

            def spend(tokens: float) -> None:
                requests.spend(key, clock(), tokens)

            scope = {**scope, CHARGE: spend}
        await self.app(scope, bounded, closing)

    def _too_large(self) -> ApiError:
        return ApiError(
            413, "body_too_large", f"request bodies are limited to {self.max_body} bytes"
        )


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _refuse(send: Send, error: ApiError, headers: dict[str, str]) -> None:
    body = json.dumps(error.body()).encode()
    raw: list[Any] = [(b"content-type", b"application/json")]
    raw += [(k.encode(), v.encode()) for k, v in headers.items()]
    raw.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": error.status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
