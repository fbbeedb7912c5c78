"""Server settings, from defaults, ``TABLEWIRE_*`` environment variables and flags."""

from __future__ import annotations

import difflib
import math
import os
import re
from dataclasses import dataclass, fields, replace
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

from server.origins import parse_origins
from server.proxies import Networks, allowed_host_names, host_or_address


@dataclass(frozen=True)
class Settings:
    """Every tunable of the server; each can be set by ``TABLEWIRE_<NAME>``."""

    host: str = "127.0.0.1"
    port: int = 8000
    finished_ttl: float = 600.0
    """Seconds a finished room (and its result) is kept."""
    waiting_ttl: float = 3600.0
    """Seconds a room may wait for its seats to fill before it is removed."""
    rematch_hold: float = 120.0
    """Seconds a rematch keeps each former player's seat for them (their old token)."""
    presence_rate: float = 0.1
    """Changes of one seat's presence (connected or away) logged per second once
    ``presence_burst`` have been: a player reconnecting in a loop costs the room's log
    one entry every 10 s, the latest state winning; 0: every change is logged."""
    presence_burst: int = 4
    sweep_interval: float = 30.0
    """Seconds between clean-up passes."""
    max_frame: int = 64 * 1024
    """Largest client frame in bytes; larger ones get ``frame_too_large``."""
    hello_timeout: float = 10.0
    """Seconds a new connection has to send ``hello``."""
    send_queue: int = 512
    """Frames queued for one connection before it is dropped as ``too_slow`` (queued path)."""
    send_buffer: int = 256 * 1024
    """Bytes unsent to one connection before it is dropped as ``too_slow`` (direct path)."""
    history: int = 64
    """Patches kept per view for resyncing a client that fell behind."""
    log_level: str = "info"
    redis_url: str = ""
    """Empty: the embedded in-memory store. ``redis://host:port/db``: the Redis store."""
    redis_prefix: str = "tw"
    """Namespace of every Redis key and channel of this service."""
    redis_durability: str = "master"
    """When a move is acknowledged: ``master``, once the Redis master has it (a master
    that dies before its replica copied the last writes loses them: docs/operations.md);
    ``replica``, once a replica has it too (``WAIT``), or else the move is refused with
    ``store_unavailable``."""
    redis_pool: int = 64
    """Connections to a single Redis per process, at most. A request finding them all
    busy waits for one (``redis_pool_timeout``) instead of failing; a follower's
    blocking read and the pub/sub listener hold one each. (On a Redis Cluster the
    client opens the connections each master needs.)"""
    redis_batch_interval: float = 0.003
    """Least seconds between the starts of two group-commit batches (0: none). An append
    that finds Redis idle for longer goes at once; under load each batch holds what
    arrived in the interval: fewer round trips and fsyncs a move, for at most this much
    more latency (benchmarks/README.md)."""
    redis_pool_timeout: float = 20.0
    """Seconds a request waits for a free Redis connection before it fails as
    ``store_unavailable``."""
    gc_thresholds: str = "20000,10,10"
    """Garbage-collector thresholds ``"g0,g1,g2"`` (``gc.set_threshold``); empty keeps
    Python's (700,10,10). A young generation of 20,000 objects lets most of a move's
    objects die before a pass: 5–7 % less CPU a move (benchmarks/README.md); the server
    leaves no cyclic garbage for a rarer pass to pile up."""
    gc_freeze: int = 1
    """1: after each of the garbage collector's full passes, move everything alive out of
    its reach (``gc.freeze``), so the next full pass scans only what is new; 0: only at
    startup. Frozen objects are still freed when nothing refers to them."""
    shutdown_timeout: int = 10
    """Seconds a stopping server waits for its connections to end before closing them."""
    lease_ttl: float = 5.0
    """Seconds a room's owner lease lasts without renewal (renewed every third of it)."""
    snapshot_every: int = 50
    """The owner stores a snapshot of the state every this many versions."""
    token_ttl: float = 7 * 86400.0
    """Seconds a seat token stays valid (Redis store)."""
    forward_timeout: float = 5.0
    """Seconds a replica waits for the owner's answer to a forwarded intent or seat request."""
    node: str = ""
    """This process's name in leases and channels; empty: a random one."""
    trusted_proxies: str = "127.0.0.1"
    """Addresses and networks (``10.0.0.2``, ``172.28.0.0/16``; comma-separated) of the
    reverse proxies in front of this server. For a request from one of them, the client
    is the rightmost ``X-Forwarded-For`` entry that is not itself a trusted proxy
    (server/proxies.py): what a client writes in the header is never believed. ``*``
    trusts every peer, so that every client can choose its address: never on a server
    that clients reach directly."""
    allowed_hosts: str = ""
    """Names this server answers to in ``Host`` (comma-separated, port not included;
    ``*``: any). Empty: the bound address, ``localhost``, ``127.0.0.1`` and ``::1``. A
    request for another host gets 400 ``bad_host`` (a rebinding page's own name)."""
    load_test_clients: str = ""
    """Addresses and networks whose benchmark rooms (turn-relay) are exempt from the limits
    per client address, for a load generator that runs thousands of clients from one
    address; ``max_benchmark_rooms`` caps such rooms. Empty: nobody is exempt."""
    metrics_port: int = 0
    """A listener of its own for ``GET /metrics`` (Prometheus), on ``metrics_host``; 0:
    none. On the public port ``/metrics`` answers only a peer on this machine."""
    metrics_host: str = "127.0.0.1"
    """The address of the metrics listener (``metrics_port``)."""
    allowed_origins: str = ""
    """Other web origins (``https://host[:port]``, comma-separated; ``*``: any) whose pages
    may use the lobby and the WebSocket and frame the pages; empty: this server's only."""

    # -- limits (docs/operations.md lists them all in one table) --------------
    max_connections: int = 10_000
    """WebSocket connections one process serves; more are refused with
    ``too_many_connections``. Also uvicorn's ``limit_concurrency`` (HTTP 503 above it;
    never to the health probes)."""
    address_connections: int = 256
    """WebSocket connections one client address may hold open at once (benchmark rooms
    from the server's own machine aside); more are refused with ``too_many_connections``,
    so that one address cannot take the whole ``max_connections``. 0: no cap."""
    max_room_connections: int = 2_000
    """Spectators one room admits on this process (seat holders always get in)."""
    socket_send_buffer: int = 64 * 1024
    """Kernel send buffer (``SO_SNDBUF``) of each WebSocket; 0 keeps the kernel's
    autotuning (up to megabytes a socket, where a non-reader's backlog hides unseen)."""
    send_timeout: float = 5.0
    """Seconds a connection may leave unsent frames waiting without taking a byte of
    them before it is closed as ``too_slow``."""
    close_timeout: float = 2.0
    """Seconds a closing connection has to take its last frames; then the socket is
    aborted and everything it held is freed."""
    ws_ping_interval: float = 20.0
    """Seconds between the WebSocket pings (the keepalive) the server sends each
    connection; 0: none."""
    ws_ping_timeout: float = 20.0
    """Seconds a connection has to answer a keepalive ping (a pong) before it is closed
    as ``keepalive_timeout`` (close code 1011) and its socket reset; 0: no limit."""
    intent_rate: float = 50.0
    """Intents per second one connection may send (token bucket, ``intent_burst`` deep)."""
    intent_burst: int = 100
    query_rate: float = 20.0
    """``legal`` and ``resync`` requests per second per connection (``query_burst`` deep)."""
    query_burst: int = 50
    ping_rate: float = 10.0
    """``ping`` frames per second per connection (``ping_burst`` deep)."""
    ping_burst: int = 20
    chat_rate: float = 0.2
    """Chat lines (``say``) per second per connection (``chat_burst`` deep): with the
    defaults, 5 lines at once, then one every 5 s."""
    chat_burst: int = 5
    room_chat_rate: float = 2.0
    """Chat lines per second one room takes from everyone in it together
    (``room_chat_burst`` deep), lines said on other processes counted too: however many
    connections and addresses talk, a room's chat moves no faster; 0: no limit."""
    room_chat_burst: int = 20
    refused_rate: float = 5.0
    """Frames refused as bad after ``hello`` (not msgpack, an unknown type, a bad field,
    too large) per second one connection may send (``refused_burst`` deep): each is
    answered with its error; past the rate, ``rate_limited``, a strike like any."""
    refused_burst: int = 20
    ws_frame_rate: float = 10.0
    """WebSocket frames that are no whole message (continuation frames, a fragmented
    message's first, pings, pongs) per second one connection may send (``ws_frame_burst``
    deep): each costs a parse, and none is a message the other limits count; past it the
    connection is closed (1008); 0: no limit."""
    ws_frame_burst: int = 100
    address_factor: float = 20.0
    """Every client address shares buckets this many times a connection's rate and
    depth for intents, queries, pings, chat lines and refused frames; 0 turns the
    per-address limits off."""
    rate_strikes: int = 20
    """Frames refused as ``rate_limited`` in a row after which the connection is closed."""
    http_rate: float = 50.0
    """Lobby requests (``/api/...``) per second per client address; 0: no limit."""
    http_burst: int = 200
    connect_rate: float = 50.0
    """WebSocket handshakes per second per client address; 0: no limit."""
    connect_burst: int = 200
    max_body: int = 16 * 1024
    """Largest HTTP request body in bytes (413 ``body_too_large``)."""
    header_timeout: float = 10.0
    """Seconds a client has to send a request's headers, from its first byte (or
    from connecting); then the connection is closed."""
    max_header_bytes: int = 16 * 1024
    """Largest request line and headers in bytes (431, then close)."""
    body_timeout: float = 10.0
    """Seconds a client has to send a request's body once its headers are in."""
    keepalive_timeout: int = 5
    """Seconds an idle HTTP keep-alive connection is kept between requests."""
    room_rate: float = 20 / 60
    """Rooms one client address may create per second (``room_burst`` deep): 20 a
    minute; 0: no limit. Quick play counts when it opens a room."""
    room_burst: int = 20
    max_rooms: int = 10_000
    """Rooms one process holds (owned or followed); more are refused with ``too_many_rooms``."""
    max_benchmark_rooms: int = 2_000
    """Of those, rooms of a benchmark engine (turn-relay). A load generator on the server's
    own machine holds thousands of clients from one address, so for benchmark rooms the
    limits per client address do not count loopback clients; this cap does."""
    list_limit: int = 100
    """Most rooms in one page of ``GET /api/rooms`` (and the rooms quick play considers)."""
    sweep_batch: int = 200
    """Rooms the sweep and the adoption pass handle between two yields to the event loop."""
    memory_log: int = 1_000
    """Log entries the memory store keeps before a room's latest snapshot (older ones go)."""
    max_moves: int = 200_000
    """A room's log ends at this version: the game stops with the ``move_limit`` result."""

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides: Any) -> Settings:
        """Defaults, then ``TABLEWIRE_*`` variables, then the given overrides (None skipped),
        every value checked (:func:`validate`): a wrong one is a :class:`SettingsError`
        naming its variable (or, for an override, its flag ``--name``) and what it takes."""
        environ = dict(os.environ if environ is None else environ)
        values: dict[str, Any] = {}
        names: dict[str, str] = {}
        for f in fields(cls):
            name = f"TABLEWIRE_{f.name.upper()}"
            raw = environ.get(name)
            if raw is not None:
                takes = PORTS.get(f.name) or _least(f.name)
                values[f.name] = _parsed(name, type(getattr(cls, f.name)), raw, takes)
                names[f.name] = name
        for key, value in overrides.items():
            if value is not None:
                values[key] = value
                names[key] = "--" + key.replace("_", "-")
        settings = replace(cls(), **values)
        validate(settings, names)
        return replace(settings, log_level=settings.log_level.lower())  # uvicorn's spelling


OTHER_VARIABLES = frozenset(
    f"TABLEWIRE_{name}"
    for name in [
        "GAMES",
        "SERVER",
        "DEBUG",
        "PURE",
        "TEST_REDIS_URL",
        "PLAYOUTS",
        "SCREENSHOTS",
        "BIN",
        "DIR",
    ]
)
"""``TABLEWIRE_*`` variables that are no server setting: the game folders, the client
commands', the build's, the tests' (README.md) and the benchmarks' (benchmarks/)."""


def unknown_variables(environ: dict[str, str] | None = None) -> list[tuple[str, str | None]]:
    """The ``TABLEWIRE_*`` variables of ``environ`` that are no setting (nor one of
    :data:`OTHER_VARIABLES`): a misspelt setting would otherwise change nothing unseen.
    Each comes with the setting's variable it most resembles, if one does."""
    known = [f.name.upper() for f in fields(Settings)]
    given = set(os.environ if environ is None else environ)
    unknown = sorted(given - {f"TABLEWIRE_{k}" for k in known} - OTHER_VARIABLES)
    return [
        (name, next((f"TABLEWIRE_{k}" for k in difflib.get_close_matches(name[10:], known)), None))
        for name in unknown
        if name.startswith("TABLEWIRE_")
    ]


class SettingsError(ValueError):
    """A ``TABLEWIRE_*`` variable (or a flag of ``tablewire serve``) that is not a value
    of its setting."""


MOST = 2**31 - 1
"""The largest number any setting takes: a socket option's C ``int`` (``SO_SNDBUF``),
and durations (68 years) that every timer, thread wait and Redis expiry can hold."""


LOG_LEVELS = ("debug", "info", "warning", "error")

AT_LEAST_ONE = frozenset(
    {
        "snapshot_every",
        "max_connections",
        "max_frame",
        "max_body",
        "max_header_bytes",
        "send_queue",
        "send_buffer",
        "redis_pool",
        "rate_strikes",
        "max_rooms",
        "list_limit",
        "sweep_batch",
        "max_moves",
        "intent_burst",
        "query_burst",
        "ping_burst",
        "chat_burst",
        "room_chat_burst",
        "refused_burst",
        "ws_frame_burst",
        "http_burst",
        "connect_burst",
        "room_burst",
    }
)
"""Whole-number settings whose 0 would make the server unusable (every frame, body or
connection refused, a division by zero): 1 is the least. Those whose 0 means "none"
or "no limit" (documented in docs/operations.md) keep 0."""

MORE_THAN_ZERO = frozenset(
    {
        "hello_timeout",
        "header_timeout",
        "body_timeout",
        "send_timeout",
        "sweep_interval",
        "lease_ttl",
        "token_ttl",
        "forward_timeout",
        "redis_pool_timeout",
    }
)
"""Durations whose 0 would close every connection, or expire every lease or token, at
once: they must be more than 0."""


RATES = frozenset(
    {
        "presence_rate",
        "intent_rate",
        "query_rate",
        "ping_rate",
        "chat_rate",
        "http_rate",
        "connect_rate",
        "room_rate",
        "room_chat_rate",
        "refused_rate",
        "ws_frame_rate",
        "address_factor",
    }
)
"""Rates (and the factor of the rates per address) whose 0 means "no limit": any other
value is at least :data:`LEAST_RATE`."""

LEAST_RATE = 1 / MOST
"""The least rate: one in :data:`MOST` seconds. A smaller one's wait (1 / rate) is more
than any timer or ``Retry-After`` holds, infinite below about 1e-308: the first request
it refused was a 500."""


def _least(field: str) -> str | None:
    """What a setting of :data:`AT_LEAST_ONE` or :data:`MORE_THAN_ZERO` takes (None for
    the others), said alike for a value that is no number and for one too small."""
    if field in AT_LEAST_ONE:
        return f"a whole number of 1 or more (up to {MOST})"
    if field in MORE_THAN_ZERO:
        return f"a number of seconds more than 0 (up to {MOST})"
    if field in RATES:
        return f"0 (no limit) or a number of at least {LEAST_RATE:.3g} (up to {MOST})"
    return None


HOST = (
    "an IP address or a host name, without a port or scheme "
    "(0.0.0.0: every IPv4 address; ::, every IPv6 one, without brackets)"
)
"""What ``host`` and ``metrics_host`` take."""

PORTS = {
    "port": "a port from 1 to 65535",
    "metrics_port": "a port from 1 to 65535 (or 0: no metrics listener)",
}
"""The port settings, and what each takes."""


def validate(settings: Settings, names: dict[str, str] | None = None) -> None:
    """Raise a :class:`SettingsError` for the first setting that is not a value it takes;
    ``names`` says where each came from (default: its ``TABLEWIRE_*`` variable)."""
    names = names or {}

    def wrong(field: str, takes: str) -> SettingsError:
        where = names.get(field, f"TABLEWIRE_{field.upper()}")
        return SettingsError(f"{where} must be {takes}, not {getattr(settings, field)!r}")

    for field in AT_LEAST_ONE:
        if getattr(settings, field) < 1:
            raise wrong(field, _least(field) or "")
    for field in MORE_THAN_ZERO:
        if not getattr(settings, field) > 0:
            raise wrong(field, _least(field) or "")
    for field in RATES:
        if 0 < getattr(settings, field) < LEAST_RATE:
            raise wrong(field, _least(field) or "")
    for field in ("host", "metrics_host"):
        if not host_or_address(getattr(settings, field)):
            raise wrong(field, HOST)
    if not 1 <= settings.port <= 65535:
        raise wrong("port", PORTS["port"])
    if not 0 <= settings.metrics_port <= 65535:
        raise wrong("metrics_port", PORTS["metrics_port"])
    if settings.metrics_port == settings.port:
        raise wrong("metrics_port", f"another port than the server's ({settings.port})")
    if settings.log_level.lower() not in LOG_LEVELS:
        raise wrong("log_level", " or ".join((", ".join(LOG_LEVELS[:-1]), LOG_LEVELS[-1])))
    if settings.gc_thresholds:
        parts = [part.strip() for part in settings.gc_thresholds.split(",")]
        if len(parts) != 3 or not all(
            part.isascii() and part.isdigit() and int(part) <= MOST for part in parts
        ):
            raise wrong("gc_thresholds", f"three whole numbers g0,g1,g2 up to {MOST} (or empty)")
    if settings.gc_freeze not in (0, 1):
        raise wrong("gc_freeze", "1 (freeze after each full pass) or 0 (only at startup)")
    if settings.node != settings.node.strip() or not settings.node.isprintable():
        raise wrong("node", "a name without spaces at its ends or control characters (or empty)")
    if settings.redis_durability not in ("master", "replica"):
        raise wrong("redis_durability", "master or replica")
    if settings.redis_url and (why := redis_url_problem(settings.redis_url)):
        where = names.get("redis_url", "TABLEWIRE_REDIS_URL")
        raise SettingsError(
            f"{where} {shown_url(settings.redis_url)!r} is not redis://host:port/db "
            f"(or rediss://, unix:///path?db=N): {why}"
        )
    try:
        allowed_host_names(settings.allowed_hosts, settings.host)
    except ValueError:
        raise wrong("allowed_hosts", "host names without a port (comma-separated) or *") from None
    for field, parse in (
        ("allowed_origins", parse_origins),
        ("trusted_proxies", lambda text: Networks(text, "")),
        ("load_test_clients", lambda text: Networks(text, "")),
    ):
        try:
            parse(getattr(settings, field))
        except ValueError:
            takes = (
                "scheme://host[:port] origins (comma-separated) or *"
                if field == "allowed_origins"
                else "addresses or networks (a.b.c.d/n, comma-separated) or *"
            )
            raise wrong(field, takes) from None


REDIS_SCHEMES = ("redis", "rediss", "unix")
"""The URL schemes the Redis client takes."""


def redis_url_problem(url: str) -> str:
    """What is wrong with ``url`` as a Redis URL (empty: nothing): it needs a host (or a
    socket's path), a port from 1 to 65535 if any, a numeric database if any, and only
    options (``?name=value``) the Redis client takes, with values it takes."""
    try:
        parts = urlsplit(url)
    except ValueError:  # "Invalid IPv6 URL", or brackets around no IPv6 address
        return "the host is no address (an IPv6 one goes in brackets: [::1])"
    if parts.scheme not in REDIS_SCHEMES:
        return "its scheme is none of these"
    db = parse_qs(parts.query).get("db", [""])[0]
    if parts.scheme == "unix":
        if not parts.path:
            return "the socket's path is missing"
    else:
        if not parts.hostname:
            return "the host is missing"
        try:
            port = parts.port
        except ValueError:
            port = 0
        if port is not None and not 1 <= port <= 65535:
            return "the port must be a number from 1 to 65535"
        db = parts.path.strip("/") or db
    if db and not db.isdigit():
        return "the database must be a number (0, 1, ...)"
    return _client_problem(url)


def _client_problem(url: str) -> str:
    """What the Redis client refuses of ``url`` (empty: nothing), found by making (not
    opening) a connection of it: an option it has not (``?foo=1``; the client's
    ``TypeError`` came only at the first command, as a traceback), a value it does not
    take (``?db=x``, ``?protocol=9``). The client is imported only for a Redis URL."""
    from redis import ConnectionPool
    from redis.exceptions import RedisError

    try:
        ConnectionPool.from_url(url).make_connection()
    except TypeError as exc:  # "... got an unexpected keyword argument 'foo'"
        option = re.search(r"argument '([^']*)'", str(exc))
        return f"it has no option {option[1]!r}" if option else str(exc)
    except (ValueError, RedisError) as exc:  # "Invalid value for 'db' in connection URL."
        return str(exc).rstrip(".")
    return ""


def shown_url(url: str) -> str:
    """``url`` with its password, if it has one (``redis://:secret@host``, or
    ``?password=secret``), as ``***``: a URL as a message or a log line may show it;
    one without a password as it is (rebuilt, ``redis://`` was ``redis:``)."""
    try:
        parts = urlsplit(url)
    except ValueError:  # a bracketed host that is no address: hide what an @ ends
        scheme, sep, rest = url.partition("://")
        return url if "@" not in rest else f"{scheme}{sep}***@{rest.rpartition('@')[2]}"
    query = re.sub(r"(?i)(^|&)(password=)[^&]*", r"\1\2***", parts.query)
    if parts.password is None and query == parts.query:
        return url
    if parts.password is not None:
        host = parts.netloc.rpartition("@")[2]
        parts = parts._replace(netloc=f"{parts.username or ''}:***@{host}")
    return urlunsplit(parts._replace(query=query))


def _parsed(name: str, kind: type, raw: str, takes: str | None = None) -> Any:
    """``raw`` as a setting of type ``kind``: numbers from 0 to :data:`MOST`; ``takes``
    says what the setting takes, if not any such number."""
    if kind is str:
        return raw
    try:
        value = kind(raw)
    except ValueError:
        value = math.nan
    if not 0 <= value <= MOST:
        what = "a whole number" if kind is int else "a number"
        raise SettingsError(f"{name} must be {takes or f'{what} from 0 to {MOST}'}, not {raw!r}")
    return value
