"""The async Python client library: the lobby over HTTP, a room over WebSocket.

``RoomClient`` carries the frames of a :class:`protocol.session.ClientSession`,
which keeps a local mirror of the seat's (or spectator's) view from snapshots
and patches and answers a version gap with a resync. Intents are sent with
:meth:`RoomClient.intent`, which waits for their ``ack`` or ``reject``.
:meth:`RoomClient.reconnect` reconnects and catches up from the last version held.

Example::

    async with LobbyClient("http://127.0.0.1:8000") as lobby:
        room = await lobby.create_room("sintra", seats=2)
        seat = await lobby.reserve(room["id"], name="ana")
    async with RoomClient("ws://127.0.0.1:8000", room["id"], seat["token"]) as client:
        await client.wait_for(lambda doc: doc["status"] != "waiting")
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import time
from collections import Counter
from collections.abc import Callable
from types import TracebackType
from typing import Any, Self, cast

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from clients.addresses import http_base, shown
from clients.retry import (
    PATIENCE,
    PROXY_DOWN,
    RECONNECTABLE,
    OnWait,
    Patience,
    Wait,
    closed_before_welcome,
    frame_refusal,
    http_reason,
    http_refusal,
    no_server,
    os_reason,
    plain_refusal,
    proxy_reason,
    retrying,
    tablewire_shaped,
)
from protocol.codec import encode
from protocol.messages import IntentId
from protocol.mirror import Mirror
from protocol.session import ClientSession, Received
from server.ids import rematch_key, request_key


class LobbyError(Exception):
    """The lobby refused a request; ``code`` is the API's stable error code."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


class Unreachable(OSError):
    """The server cannot be reached: ``reason`` says why in words (unknown host, refused…)."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"cannot reach {shown(url)}: {reason}")
        self.url, self.reason = url, reason


class ServerError(Exception):
    """The server sent an ``error`` frame (fatal ones close the connection)."""

    def __init__(self, frame: dict[str, Any]) -> None:
        super().__init__(f"{frame.get('code')}: {frame.get('message')}")
        self.code: str = frame.get("code", "")
        self.frame = frame


class LobbyClient:
    """The HTTP JSON lobby of a server at ``base_url`` (``http://host:port``).

    A request the server refuses for a while (429, or 503 with ``Retry-After``:
    a limit) is sent again once the wait it gives is over, within ``patience``
    (:mod:`clients.retry`); ``on_wait`` is told of each wait. Past it, the
    refusal is raised as a :class:`LobbyError`. A request that takes seats (a seat,
    quick play, bots, a rematch) carries an ``Idempotency-Key`` drawn for it, the same
    on each try: a try whose answer was lost is answered again, never seated twice.

    The credentials a room's creation answers (``owner_token``, a private room's
    ``invite``) are kept in :attr:`credentials`: this client's later requests about
    that room (bots, seats) send them.
    """

    TIMEOUT = 30.0

    def __init__(
        self,
        base_url: str,
        transport: httpx.AsyncBaseTransport | None = None,
        patience: Patience = PATIENCE,
        on_wait: OnWait | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.patience = patience
        self.on_wait = on_wait
        self.credentials: dict[str, dict[str, str]] = {}
        """Per room created here: ``owner_token`` and (private rooms) ``invite``."""
        self.waits: Counter[str] = Counter()
        """The refusals this client waited out and sent again, by code."""
        self._http = httpx.AsyncClient(
            base_url=self.base_url, timeout=self.TIMEOUT, transport=transport
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._http.aclose()

    async def _call(self, method: str, path: str, body: Any = None, **params: Any) -> Any:
        data, _ = await self._exchange(method, path, body, **params)
        return data

    async def _seat(self, path: str, body: dict[str, Any], key: str = "") -> dict[str, Any]:
        """A POST that takes seats, with an ``Idempotency-Key``: ``key``, or one of its own."""
        data: dict[str, Any] = (await self._exchange("POST", path, body, key or request_key()))[0]
        return data

    async def _exchange(
        self, method: str, path: str, body: Any = None, key: str | None = None, **params: Any
    ) -> tuple[Any, httpx.Response]:
        """The JSON answer and the response (for its headers); ``key``: the request's
        ``Idempotency-Key``, sent with every try."""
        query = {k: v for k, v in params.items() if v is not None}
        headers = None if key is None else {"Idempotency-Key": key}
        waits: list[Wait] = []

        async def send() -> httpx.Response:
            try:
                return await self._http.request(
                    method, path, json=body, params=query, headers=headers
                )
            except httpx.TransportError as exc:
                raise Unreachable(self.base_url, http_reason(exc, self.TIMEOUT)) from None

        def waiting(wait: Wait) -> None:
            waits.append(wait)
            self.waits[wait.code] += 1
            if self.on_wait is not None:
                self.on_wait(wait)

        response = await retrying(f"{method} {path}", send, http_refusal, self.patience, waiting)
        try:
            data = response.json()
        except ValueError:
            data = None
        error = data.get("error") if isinstance(data, dict) else None
        status = response.status_code
        if status in PROXY_DOWN:  # a proxy in front answered (tablewire never does): no server
            raise Unreachable(self.base_url, proxy_reason(status))
        if response.is_error or not tablewire_shaped(method, path, data):
            if not isinstance(error, dict):
                raise LobbyError(
                    status,
                    plain_refusal(status),
                    f"{shown(self.base_url)} answered {method} {path} with HTTP {status} "
                    "and no tablewire JSON",
                )
            message = error.get("message", "")
            if waits:
                waited = sum(w.seconds for w in waits)
                message += f" (still refused after {len(waits)} waits, {round(waited, 1):g} s)"
            raise LobbyError(response.status_code, error.get("code", ""), message)
        return data, response

    async def games(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = await self._call("GET", "/api/games")
        return result

    async def create_room(
        self,
        engine: str,
        seats: int | None = None,
        options: dict[str, Any] | None = None,
        private: bool = False,
        seed: int | None = None,
        bots: dict[str, Any] | None = None,
        name: str | None = None,
    ) -> dict[str, Any]:
        """``POST /api/rooms``; ``bots`` is ``{"seats": [0-based seat, ...], "kind": str}``.
        A room with a chosen ``seed`` is always private (protocol §9). ``name``: the name
        its creator then sits under, refused before the room is made as the seat would be."""
        private = private or seed is not None
        body: dict[str, Any] = {"engine": engine, "options": options or {}, "private": private}
        given = {"seats": seats, "seed": seed, "bots": bots, "name": name}
        body.update((key, value) for key, value in given.items() if value is not None)
        result: dict[str, Any] = await self._call("POST", "/api/rooms", body)
        self.credentials[result["id"]] = {
            key: str(result[key]) for key in ("owner_token", "invite") if key in result
        }
        return result

    async def add_bots(
        self,
        room_id: str,
        kind: str | None = None,
        seats: list[int] | None = None,
        token: str | None = None,
    ) -> dict[str, Any]:
        """``POST /api/rooms/{id}/bots``: server-side bots of ``kind`` (None: the server's
        choice) in ``seats`` (0-based; None: every free seat). The room's owner asks
        (the ``owner_token`` of a room this client created), or, in a room without an
        owner (quick play's), a seated player (``token``)."""
        body: dict[str, Any] = dict(self.credentials.get(room_id, {}))
        body.pop("invite", None)
        if token is not None:
            body["token"] = token
        if kind is not None:
            body["kind"] = kind
        if seats is not None:
            body["seats"] = seats
        return await self._seat(f"/api/rooms/{room_id}/bots", body)

    async def rooms(self, engine: str | None = None, status: str | None = None) -> list[Any]:
        """The first page of public rooms, newest first."""
        return (await self.rooms_page(engine, status))[0]

    async def rooms_page(
        self,
        engine: str | None = None,
        status: str | None = None,
        limit: int | None = None,
        after: str | None = None,
    ) -> tuple[list[Any], str | None]:
        """One page of public rooms, newest first, and the cursor of the next (None: last)."""
        rooms, response = await self._exchange(
            "GET", "/api/rooms", engine=engine, status=status, limit=limit, after=after
        )
        following = response.links.get("next", {}).get("url")
        cursor = httpx.URL(following).params.get("after") if following else None
        return rooms, cursor

    async def room(self, room_id: str) -> dict[str, Any]:
        return cast(dict[str, Any], await self._call("GET", f"/api/rooms/{room_id}"))

    async def reserve(
        self,
        room_id: str,
        name: str | None = None,
        seat: int | None = None,
        invite: str | None = None,
        key: str = "",
    ) -> dict[str, Any]:
        """``POST /api/rooms/{id}/seats``; a private room's seat needs its ``invite`` (or,
        for a room this client created, the invitation it kept); ``key``: its Idempotency-Key."""
        invite = invite or self.credentials.get(room_id, {}).get("invite")
        fields = {"name": name, "seat": seat, "invite": invite}
        body = {k: v for k, v in fields.items() if v is not None}
        return await self._seat(f"/api/rooms/{room_id}/seats", body, key)

    async def rematch(self, room_id: str, token: str) -> dict[str, Any]:
        """``POST /api/rooms/{id}/rematch``: the finished room's rematch (opened by the first
        of its players to ask) with the seat of ``token`` (of the finished room), held for
        them a while: ``seat`` and ``token``, the same on every ask (``rematch_key``)."""
        path, key = f"/api/rooms/{room_id}/rematch", rematch_key(room_id, token)
        return await self._seat(path, {"token": token}, key)

    async def quickplay(
        self, engine: str, name: str | None = None, seats: int | None = None
    ) -> dict[str, Any]:
        body = {k: v for k, v in {"engine": engine, "name": name, "seats": seats}.items() if v}
        return await self._seat("/api/quickplay", body)


class RoomClient:
    """One WebSocket connection to a room, as a seat (``token``) or a spectator.

    ``ws_base`` is one server (``ws://host:port``) or several, comma-separated:
    the client connects to the first and :meth:`failover` moves to the next.
    With ``record=True`` it keeps every (version, document) it held, in order.
    An intent or a ``legal`` refused as ``rate_limited`` is sent again once the
    frame's ``retry_after`` is over, and an intent refused as ``store_unavailable``
    or ``owner_unavailable`` after a short wait, within ``patience``
    (:mod:`clients.retry`); ``on_wait`` is told of each wait.
    """

    def __init__(
        self,
        ws_base: str,
        room_id: str,
        token: str | None = None,
        record: bool = False,
        timed: bool = False,
        patience: Patience = PATIENCE,
        on_wait: OnWait | None = None,
    ) -> None:
        self.patience = patience
        self.on_wait = on_wait
        self.urls = [f"{base.rstrip('/')}/ws/rooms/{room_id}" for base in ws_base.split(",")]
        self.url = self.urls[0]
        self.session = ClientSession(token)
        self.record = record
        self.seen: list[tuple[int, bytes]] = []
        """With ``record``: every version held, with the msgpack of its document."""
        self.result: dict[str, Any] | None = None
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.errors: list[dict[str, Any]] = []
        self.heard = 0
        """Chat frames and refused ``say`` frames received (:meth:`wait_heard`)."""
        self.arrivals: dict[int, float] | None = {} if timed else None
        """With ``timed``: when (``time.monotonic()``) each version was first held."""
        self.ack_times: dict[IntentId, float] = {}
        """With ``timed``: when each ``ack`` arrived, by intent id."""
        self.reject_codes: Counter[str] = Counter()
        self.waits: Counter[str] = Counter()  # refusals waited out and sent again, by code
        self.acks: list[dict[str, Any]] = []
        """Every ``ack`` received: the intents the server has recorded."""
        self.closed: ServerError | ConnectionClosed | None = None
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._changed = asyncio.Condition()
        self._waiting: dict[Any, asyncio.Future[dict[str, Any]]] = {}

    async def __aenter__(self) -> Self:
        await self.connect()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def token(self) -> str | None:
        return self.session.token

    @property
    def mirror(self) -> Mirror:
        return self.session.mirror

    @property
    def welcome(self) -> dict[str, Any]:
        return self.session.welcome

    @property
    def seat(self) -> int | None:
        return self.session.seat

    @property
    def resyncs(self) -> int:
        return self.session.resyncs

    @property
    def received(self) -> Counter[str]:
        """Frames received, by type."""
        return self.session.received

    @property
    def bytes_received(self) -> Counter[str]:
        """Payload bytes received, by frame type."""
        return self.session.bytes_received

    @property
    def doc(self) -> Any:
        """The mirrored document (see ``server/room.py``), or None before the snapshot."""
        return self.mirror.doc

    @property
    def version(self) -> int | None:
        return self.mirror.version

    async def connect(self) -> dict[str, Any]:
        """Connect and join; catch up from the mirror's version if it holds one."""
        self.closed = None
        try:
            self._ws = await connect(self.url, max_size=None, compression=None)
        except (OSError, WebSocketException) as exc:  # refused, unknown host, a proxy's 502…
            if not no_server(exc):
                raise
            raise Unreachable(http_base(self.url), os_reason(exc)) from None
        with contextlib.suppress(ConnectionClosed):
            # A server may refuse before hello (no such room): its error frame is still queued.
            await self._ws.send(self.session.hello())
        try:
            got = self.session.receive(await self._ws.recv(decode=False))
        except ConnectionClosed as exc:
            raise ServerError(closed_before_welcome(exc)) from None
        if got.kind != "welcome":
            await self._ws.close()
            raise ServerError(got.frame)
        frame = got.frame
        self._reader = asyncio.create_task(self._read(self._ws))
        return frame

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)

    async def failover(self, within: float = 30.0) -> dict[str, Any]:
        """Join again through the next server, then the next…, for up to ``within`` seconds;
        a refusal not in :data:`~clients.retry.RECONNECTABLE` is raised at once."""
        await self.close()
        try:
            async with asyncio.timeout(within):
                return await self._failover()
        except TimeoutError:
            lost = f"the connection to {shown(self.url)} was lost and no server took it back"
            raise TimeoutError(f"{lost} within {within:g} s") from None

    async def _failover(self) -> dict[str, Any]:
        for attempt in itertools.count(1):
            self.url = self.urls[(self.urls.index(self.url) + 1) % len(self.urls)]
            try:
                return await self.connect()
            except (OSError, TimeoutError, WebSocketException, ServerError) as exc:
                if isinstance(exc, ServerError) and exc.code not in RECONNECTABLE:
                    raise  # refused for good (room_closed, bad_token…): no server takes it
                await asyncio.sleep(min(0.1 * attempt, 1.0))  # refused for now, or cut: the next
        raise AssertionError("unreachable")

    async def send(self, message: dict[str, Any]) -> None:
        """Send a raw message (a map with ``t``)."""
        assert self._ws is not None, "not connected"
        await self._ws.send(encode(message))

    def new_intent_id(self) -> int:
        return self.session.new_intent_id()

    async def intent(self, action: dict[str, Any], intent_id: int | None = None) -> dict[str, Any]:
        """Send an action; return the server's ``ack`` or ``reject`` frame.

        Resending with the ``intent_id`` of an unanswered intent is safe: the
        server applies an id once and acks it again. A ``rate_limited``,
        ``store_unavailable`` or ``owner_unavailable`` reject is waited out and the
        intent sent again with its id; past ``patience`` that reject is returned.
        """
        if intent_id is None:
            intent_id = self.new_intent_id()
        message = {"t": "intent", "id": intent_id, "action": action}
        return await retrying(
            "intent",
            functools.partial(self._request, intent_id, message),
            frame_refusal,
            self.patience,
            self._waited,
        )

    def _waited(self, wait: Wait) -> None:  # counted in waits, then told to on_wait
        self.waits[wait.code] += 1
        if self.on_wait is not None:
            self.on_wait(wait)

    async def legal(self) -> list[dict[str, Any]]:
        """This seat's legal actions now."""
        return [action for action, _ in await self.moves()]

    async def moves(self) -> list[tuple[dict[str, Any], str]]:
        """This seat's legal actions now, each with its label; waits out the rate limit."""

        async def ask() -> dict[str, Any]:
            try:
                return await self._request("legal", {"t": "legal"})
            except ServerError as refused:
                if frame_refusal(refused.frame) is None:
                    raise
                return refused.frame

        reply = await retrying("legal", ask, frame_refusal, self.patience, self._waited)
        if reply["t"] == "error":
            raise ServerError(reply)
        return list(zip(reply["actions"], reply["labels"], strict=True))

    async def ping(self, data: Any = None) -> Any:
        return (await self._request("pong", {"t": "ping", "data": data}))["data"]

    @property
    def chat(self) -> list[dict[str, Any]]:
        """The room's chat lines held, oldest first (``seat``, ``name``, ``text``, ``at``)."""
        return self.session.chat

    async def say(self, text: str) -> None:
        """Send a chat line. It comes back to everyone as a ``chat`` frame (:attr:`chat`);
        a refusal is an ``error`` with ``of`` ``"say"`` in :attr:`errors`. Either one
        counts in :attr:`heard`."""
        assert self._ws is not None, "not connected"
        await self._ws.send(self.session.say(text))

    async def wait_heard(self, heard: int) -> None:
        """Wait until more than ``heard`` chat frames or ``say`` refusals arrived."""
        async with self._changed:
            while self.heard <= heard:
                if self.closed is not None:
                    raise self.closed
                await self._changed.wait()

    async def resync(self) -> None:
        """Ask for what the mirror misses (a stale mirror: a snapshot)."""
        assert self._ws is not None, "not connected"
        await self._ws.send(self.session.resync())

    async def wait_for(self, predicate: Callable[[Any], bool]) -> Any:
        """Wait until the mirrored document satisfies ``predicate``; return it."""
        async with self._changed:
            while self.mirror.doc is None or self.mirror.stale or not predicate(self.mirror.doc):
                if self.closed is not None:
                    raise self.closed
                await self._changed.wait()
            return self.mirror.doc

    async def wait_version(self, version: int) -> Any:
        """Wait until the mirror holds ``version`` or a later one; return the document."""
        return await self.wait_for(lambda doc: (self.mirror.version or 0) >= version)

    async def wait_result(self) -> dict[str, Any]:
        """Wait for the game's ``result`` frame; return the result."""
        await self.wait_for(lambda doc: self.result is not None)
        assert self.result is not None
        return self.result

    async def _request(self, key: Any, message: dict[str, Any]) -> dict[str, Any]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[key] = future
        try:
            await self.send(message)
            return await future
        finally:
            self._waiting.pop(key, None)

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for data in ws:
                assert isinstance(data, bytes), "the server sends binary frames"
                got = self.session.receive(data)
                if got.reply is not None:
                    await ws.send(got.reply)
                await self._handle(got)
        except ConnectionClosed as exc:
            if not isinstance(self.closed, ServerError):  # a fatal error frame says more
                self.closed = exc
        finally:
            if self.closed is None:
                self.closed = ConnectionClosed(ws.protocol.close_rcvd, ws.protocol.close_sent)
            for future in self._waiting.values():
                if not future.done():
                    future.set_exception(self.closed)
                    future.exception()  # its requester may be gone: do not log it as lost
            async with self._changed:
                self._changed.notify_all()

    async def _handle(self, got: Received) -> None:
        frame, kind = got.frame, got.kind
        if kind == "ack":
            self.acks.append(frame)
            if self.arrivals is not None:
                self.ack_times[frame["id"]] = time.monotonic()
        elif kind == "reject":
            self.reject_codes[frame["code"]] += 1
        elif kind == "event":
            for event in frame["events"]:
                self.events.put_nowait(event)
        elif kind == "result":
            self.result = frame["result"]
        elif kind == "error":
            self.errors.append(frame)
            if frame.get("fatal"):
                self.closed = ServerError(frame)
        if kind == "chat" or frame.get("of") == "say":
            self.heard += 1
        if got.answers is not None:
            self._resolve(got.answers, frame)
        version = self.mirror.version
        if self.arrivals is not None and version is not None and version not in self.arrivals:
            self.arrivals[version] = time.monotonic()
        if self.record and version is not None and (not self.seen or self.seen[-1][0] != version):
            self.seen.append((version, encode(self.mirror.doc)))
        if kind in ("snapshot", "patch", "result", "error", "chat"):
            async with self._changed:
                self._changed.notify_all()

    def _resolve(self, key: Any, frame: dict[str, Any]) -> None:
        future = self._waiting.get(key)
        if future is not None and not future.done():
            if frame["t"] == "error":
                future.set_exception(ServerError(frame))
            else:
                future.set_result(frame)
