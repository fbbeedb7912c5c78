"""The Starlette application: HTTP JSON lobby under ``/api``, the room WebSocket,
and the browser client's pages (``server/web.py``).

Handlers are thin: they parse the request, call the :class:`~server.lobby.Lobby`
and turn an :class:`~server.errors.ApiError` into a JSON error body
``{"error": {"code", "message"}}`` with its HTTP status. Nothing under ``/api``
answers otherwise: an unexpected exception is logged and answered
``500 {"error": {"code": "internal", ...}}`` (:class:`ApiFaults`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import os
import re
import secrets
import socket
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

import engines
from protocol.errors import Code
from server import connection, metrics, scrape, web
from server.durability import warn_without_replica
from server.errors import UNAVAILABLE, UNAVAILABLE_RETRY, ApiError
from server.limits import Gate, HttpLimits, charge, client_address
from server.lobby import Lobby
from server.logs import Throttled, fields
from server.origins import OriginPolicy, parse_origins
from server.proxies import PEER, ClientAddress, HostPolicy, allowed_host_names, trusted_proxies
from server.requests import engine_info, engines_of, idempotency_key, present
from server.settings import Settings
from server.store import MemoryStore, Store, StoreUnavailable
from server.tasks import finish
from server.transport import CUT_OFF, KeepServerSend

if TYPE_CHECKING:
    from server.store.redis import RedisStore

log = logging.getLogger("tablewire.app")

MAX_JSON_DEPTH = 16
"""Deepest nesting of arrays and objects a request body may have (the lobby needs 2)."""

_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_JSON_BRACKET = re.compile(r"[\[\]{}]")


def _json_depth(text: str) -> int:
    """How deep arrays and objects nest in ``text`` (strings skipped), without parsing it."""
    depth = deepest = 0
    for bracket in _JSON_BRACKET.findall(_JSON_STRING.sub('""', text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


async def _body(request: Request) -> dict[str, Any]:
    """The JSON object of the body (its size is bounded by :class:`server.limits.HttpLimits`),
    each of its objects, at any depth, without the fields given as null
    (:func:`~server.requests.present`)."""
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        text = raw.decode("utf-8")
        if _json_depth(text) > MAX_JSON_DEPTH:
            raise ApiError(400, "bad_json", f"the body nests deeper than {MAX_JSON_DEPTH} levels")
        body = json.loads(text, object_pairs_hook=present)
    except ValueError as exc:  # bad UTF-8, bad JSON, an int of more than 4,300 digits, a
        # field twice in one object
        raise ApiError(400, "bad_json", f"the body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise ApiError(400, "bad_json", "the body must be a JSON object")
    return body


class ApiFaults:
    """ASGI middleware: an exception no handler turned into an answer becomes a
    logged ``500 {"error": {"code": "internal"}}``, never a plain-text page; a request
    whose client left before its body was in is one line, ``request abandoned`` (one
    the server cut off is the transport's ``request cut off`` line alone)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except ClientDisconnect:  # the client left, or sent no body within body_timeout
            if "reason" not in scope.get(CUT_OFF, {}):
                log.info("request abandoned", extra=fields(path=scope.get("path")))
        except Exception:
            log.exception("request failed", extra=fields(path=scope.get("path")))
            if started:
                raise
            body = ApiError(500, "internal", "the server failed on this request").body()
            await JSONResponse(body, status_code=500)(scope, receive, send)


def on_metrics_listener(scope: Scope, settings: Settings) -> bool:
    """Whether a request came in on the metrics listener (``metrics_port``)."""
    server = scope.get("server") or ("", 0)
    return bool(settings.metrics_port) and server[1] == settings.metrics_port


def _repeatable(request: Request) -> bool:
    """Whether a request refused as unavailable is safe to send again: a read, a
    creation (at worst one more waiting room), or a request with an ``Idempotency-Key``
    (a repeat gets what the first one took). A seat, bots or a rematch without one is
    not: its write may have landed unconfirmed, and a repeat would take a second seat."""
    if request.method == "GET" or request.url.path == "/api/rooms":
        return True
    try:
        return idempotency_key(request.headers) is not None
    except ApiError:
        return False


def _local_peer(scope: Scope) -> bool:
    """Whether the TCP peer and the client are on this machine: a forwarded address is
    not believed for it (the peer must be local), and a reverse proxy on this machine
    forwarding a client elsewhere is not local either (the client must be too)."""
    try:
        addresses = (scope.get(PEER, ""), client_address(scope))
        return all(ipaddress.ip_address(address).is_loopback for address in addresses)
    except ValueError:
        return False


class MetricsListener:
    """ASGI middleware: the metrics listener serves ``GET /metrics`` (``render``'s
    text) and nothing else, with no ``Host`` check (Prometheus names the replica it
    scrapes by its own address)."""

    def __init__(self, app: ASGIApp, settings: Settings, render: Callable[[], bytes]) -> None:
        self.app = app
        self.settings = settings
        self.render = render

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or not on_metrics_listener(
            scope, self.settings
        ):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await receive()
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["path"] != "/metrics" or scope["method"] not in ("GET", "HEAD"):
            body = ApiError(404, "not_found", "this listener serves GET /metrics only").body()
            await JSONResponse(body, status_code=404)(scope, receive, send)
            return
        response = Response(self.render(), media_type=CONTENT_TYPE_LATEST)
        await response(scope, receive, send)


def _node_name(settings: Settings) -> str:
    return settings.node or f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(2)}"


def _redis_store(store: Store) -> RedisStore | None:
    """``store`` if it is the Redis store. Its module, and the Redis client with it, is
    imported only where one is made: the embedded default never loads them (5 MiB)."""
    module = sys.modules.get("server.store.redis")
    if module is None or not isinstance(store, module.RedisStore):
        return None
    redis: RedisStore = store
    return redis


class Readiness:
    """Whether the room store answers, for ``/readyz``, asked of the store once for all
    the probes that come together: one ping at a time, and the probes that come while it
    is out await its answer. However many probes come, Redis has at most one of their
    pings to answer at a time, and none is ever refused; each answer is fresh (a store
    that just stopped is reported by the next probe)."""

    def __init__(self, ping: Callable[[], Awaitable[None]]) -> None:
        self.ping = ping
        self._asking: asyncio.Future[str | None] | None = None

    async def check(self) -> str | None:
        """None if the store answers, else why it does not."""
        if self._asking is None:
            self._asking = asyncio.ensure_future(self._ask())
        return await asyncio.shield(self._asking)

    async def _ask(self) -> str | None:
        try:
            await self.ping()
        except StoreUnavailable as exc:
            return str(exc)
        finally:
            self._asking = None
        return None


def create_app(
    settings: Settings | None = None,
    store: Store | None = None,
    background: list[Coroutine[Any, Any, None]] | None = None,
) -> Starlette:
    """The tablewire app over ``store``: by default the Redis store when
    ``settings.redis_url`` is set, else the embedded in-memory store.
    ``background``: tasks of the process that runs the app, run while it serves. A game
    folder of ``TABLEWIRE_GAMES`` that cannot be taken stops it here
    (:func:`engines.check`), not later with the game missing."""
    engines.check()
    settings = settings or Settings.from_env()
    allowed = parse_origins(settings.allowed_origins)
    pages = web.page_headers(list(allowed))
    hosts = allowed_host_names(settings.allowed_hosts, settings.host)
    proxies = trusted_proxies(settings)
    if store is None and settings.redis_url:
        from server.store.redis import RedisStore

        store = RedisStore.connect(
            settings.redis_url,
            prefix=settings.redis_prefix,
            lease_ttl=settings.lease_ttl,
            token_ttl=settings.token_ttl,
            finished_ttl=settings.finished_ttl,
            pool=settings.redis_pool,
            pool_timeout=settings.redis_pool_timeout,
            batch_interval=settings.redis_batch_interval,
            durability=settings.redis_durability,
        )
    store = store or MemoryStore(settings.memory_log)
    lobby = Lobby(store, settings, node=_node_name(settings))
    hub = None
    redis = _redis_store(store)
    if redis is not None:
        from server.hub import RedisHub

        hub = RedisHub(redis, settings, lobby.node, lobby.rooms, lobby.claim)
        lobby.forwarder = hub

    async def games(request: Request) -> Response:
        kind = request.query_params.get("kind")
        return JSONResponse([engine_info(engine) for engine in engines_of(kind)])

    async def rooms(request: Request) -> Response:
        client = client_address(request.scope)
        if request.method == "POST":
            return JSONResponse(await lobby.create(await _body(request), client), status_code=201)
        query = request.query_params
        page, cursor = await lobby.listing(
            query.get("engine"), query.get("status"), query.get("limit"), query.get("after")
        )
        headers = {}
        if cursor is not None:
            following = urlencode({**query, "after": cursor})
            headers["link"] = f'</api/rooms?{following}>; rel="next"'
        return JSONResponse(page, headers=headers)

    async def room(request: Request) -> Response:
        return JSONResponse(await lobby.details(request.path_params["room_id"]))

    async def record(request: Request) -> Response:
        views, kept = (request.query_params.get(name, "0") for name in ("views", "kept"))
        if views not in ("0", "1"):
            raise ApiError(400, "bad_views", "views is 0 or 1")
        if kept not in ("0", "1"):
            raise ApiError(400, "bad_kept", "kept is 0 or 1")
        # A long game's costs more: the CPU its replay and its encoding took (this
        # thread's: a busy machine charges no more; what other tasks take while the
        # store answers counts too, a fraction of a request).
        started = time.thread_time()
        room_id = request.path_params["room_id"]
        answer = JSONResponse(await lobby.history(room_id, views == "1", kept == "1"))
        charge(request.scope, time.thread_time() - started)
        return answer

    async def seats(request: Request) -> Response:
        room_id, key = request.path_params["room_id"], idempotency_key(request.headers)
        body = await _body(request)
        client = client_address(request.scope)
        return JSONResponse(await lobby.reserve(room_id, body, client, key), status_code=201)

    async def bots(request: Request) -> Response:
        room_id, key = request.path_params["room_id"], idempotency_key(request.headers)
        answer = await lobby.add_bots(room_id, await _body(request), key)
        return JSONResponse(answer, status_code=201)

    async def rematch(request: Request) -> Response:
        room_id, key = request.path_params["room_id"], idempotency_key(request.headers)
        body, client = await _body(request), client_address(request.scope)
        answer = await lobby.rematch(room_id, body, key, client)
        return JSONResponse(answer, status_code=201)

    async def quickplay(request: Request) -> Response:
        key, body = idempotency_key(request.headers), await _body(request)
        answer = await lobby.quickplay(body, client_address(request.scope), key)
        return JSONResponse(answer, status_code=201)

    def standing(request: Request) -> dict[str, Any]:
        """The probes' answer: to a client on this machine, the process's name and its
        rooms too; to anyone else (the probes are public behind a proxy), only whether."""
        if not _local_peer(request.scope):
            return {"ok": True}
        owned = sum(room.lease is not None for room in lobby.rooms.values())
        return {"ok": True, "node": lobby.node, "rooms": len(lobby.rooms), "owned": owned}

    async def health(request: Request) -> Response:
        """Liveness: the process answers (it touches no store)."""
        return JSONResponse(standing(request))

    readiness = Readiness(lobby.store.ping)

    async def ready(request: Request) -> Response:
        """Readiness: the process and its room store answer; 503 while the store does not
        (a process on Redis can then take no move, create no room). Why it does not (the
        Redis's address, its error) is told only on this machine, as :func:`standing`."""
        why = await readiness.check()
        if why is not None:
            said = "unavailable" + (f": {why}" if _local_peer(request.scope) else "")
            body = {**standing(request), "ok": False, "store": said}
            return JSONResponse(body, status_code=503, headers={"Retry-After": "1"})
        return JSONResponse({**standing(request), "store": "ok"})

    async def api_error(request: Request, exc: Exception) -> Response:
        """A refusal as JSON; one for now (the store or a room's owner unavailable) says
        when to send the request again where that is safe (:func:`_repeatable`)."""
        assert isinstance(exc, ApiError)
        if exc.code in UNAVAILABLE and exc.retry_after is None and _repeatable(request):
            exc = ApiError(exc.status, exc.code, exc.message, retry_after=UNAVAILABLE_RETRY)
        return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)

    store_warnings = Throttled()

    async def store_error(request: Request, exc: Exception) -> Response:
        metrics.STORE_ERRORS.labels("lobby").inc()
        if (more := store_warnings.due()) is not None:
            said = fields(path=request.url.path, error=str(exc), **({"more": more} if more else {}))
            log.warning("store unavailable", extra=said)
        why = f"the room store is unavailable: {exc}"
        return await api_error(request, ApiError(503, Code.STORE_UNAVAILABLE, why))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404 and web.wants_page(request):
            return HTMLResponse(web.MISSING_PAGE, 404, headers=pages)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return JSONResponse(ApiError(exc.status_code, code, exc.detail).body(), exc.status_code)

    async def sweep_forever() -> None:
        """Every sweep interval: clean up, and adopt the rooms nobody owns."""
        while True:
            await asyncio.sleep(settings.sweep_interval)
            try:
                await lobby.sweep()
                await lobby.adopt()
            except StoreUnavailable as exc:
                log.warning("sweep skipped", extra=fields(error=str(exc)))
            except Exception:
                log.exception("sweep failed")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if hub is not None:
            await hub.start()
            with contextlib.suppress(StoreUnavailable):
                await lobby.adopt()  # before serving: rooms left by stopped processes run again
        if redis is not None:
            await warn_without_replica(redis)
        tasks = [
            asyncio.create_task(sweep_forever()),
            asyncio.create_task(metrics.watch_loop_lag()),
            *(asyncio.create_task(work) for work in background or []),
        ]
        kind = type(store).__name__
        if redis is not None:
            kind += " (Redis Cluster)" if redis.cluster else " (single Redis)"
        log.info("started", extra=fields(node=lobby.node, store=kind))
        yield
        await finish(tasks)
        await lobby.close()
        if hub is not None:
            await hub.close()
        if redis is not None:
            await redis.close()

    gate = Gate(settings)
    collectors = scrape.registry(lobby, gate)

    def render() -> bytes:
        return generate_latest(collectors)

    async def room_socket(websocket: WebSocket) -> None:
        """``/ws/rooms/{room_id}``: one player's or spectator's connection to a room."""
        await connection.serve_route(websocket, lobby, settings, gate)

    async def exposition(request: Request) -> Response:
        """``GET /metrics`` on the public port: Prometheus's text format, to a peer on this
        machine only (and rate limited as the lobby is); ``metrics_port`` gives a
        listener of its own (:class:`MetricsListener`)."""
        if not _local_peer(request.scope):
            raise HTTPException(404, "Not Found")
        return Response(render(), media_type=CONTENT_TYPE_LATEST)

    app = Starlette(
        routes=[
            Route("/api/games", games),
            Route("/api/rooms", rooms, methods=["GET", "POST"]),
            Route("/api/rooms/{room_id}", room),
            Route("/api/rooms/{room_id}/record", record),
            Route("/api/rooms/{room_id}/seats", seats, methods=["POST"]),
            Route("/api/rooms/{room_id}/bots", bots, methods=["POST"]),
            Route("/api/rooms/{room_id}/rematch", rematch, methods=["POST"]),
            Route("/api/quickplay", quickplay, methods=["POST"]),
            Route("/healthz", health),
            Route("/readyz", ready),
            WebSocketRoute("/ws/rooms/{room_id}", room_socket),
            *web.routes(pages),
            Route("/metrics", exposition),
        ],
        exception_handlers={
            ApiError: api_error,
            StoreUnavailable: store_error,
            HTTPException: http_error,
        },
        middleware=[
            Middleware(KeepServerSend),
            Middleware(MetricsListener, settings=settings, render=render),
            Middleware(HostPolicy, names=hosts),
            Middleware(ClientAddress, trusted=proxies),
            Middleware(ApiFaults),
            Middleware(HttpLimits, settings=settings, benchmark=lobby.benchmark),
            Middleware(OriginPolicy, allowed=allowed),
        ],
        lifespan=lifespan,
    )
    app.router.redirect_slashes = False  # "/api/rooms/" answers a JSON 404, not an empty redirect
    app.state.lobby = lobby
    return app
