"""The lobby: creates, lists, fills and cleans up rooms.

It validates every request body (a bad one raises :class:`ApiError` and
changes nothing), keeps the live :class:`~server.room.Room` actors of this
process, and answers listings from the store, so that a shared store shows
every process's rooms.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from engines import ENGINES, Engine
from engines.base import OptionError, resolve_options
from server.errors import ApiError
from server.logs import fields
from server.room import Forwarder, Room
from server.settings import Settings
from server.store import RoomRecord, Store, StoreUnavailable

log = logging.getLogger("tablewire.lobby")

STATUSES = ("waiting", "playing", "finished")
MAX_NAME = 32


def engine_info(engine: Engine) -> dict[str, Any]:
    """An engine as ``GET /api/games`` shows it."""
    return {
        "id": engine.id,
        "title": engine.title,
        "kind": engine.kind,
        "min_players": engine.min_players,
        "max_players": engine.max_players,
        "options": {name: dict(spec) for name, spec in engine.options.items()},
    }


def _engine(body: Mapping[str, Any]) -> Engine:
    engine_id = body.get("engine")
    if not isinstance(engine_id, str) or engine_id not in ENGINES:
        raise ApiError(400, "unknown_engine", f"engine must be one of {sorted(ENGINES)}")
    return ENGINES[engine_id]


def _int(body: Mapping[str, Any], key: str, default: int | None) -> int | None:
    value = body.get(key, default)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise ApiError(400, f"bad_{key}", f"{key} must be an integer")
    return value


def _name(body: Mapping[str, Any]) -> str | None:
    name = body.get("name")
    if name is None:
        return None
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= MAX_NAME:
        raise ApiError(400, "bad_name", f"name must be a string of 1-{MAX_NAME} characters")
    return name.strip()


class Lobby:
    """Rooms of one process over a store."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        clock: Callable[[], float] = time.time,
        node: str = "local",
        forwarder: Forwarder | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock
        self.node = node
        self.forwarder = forwarder
        self.rooms: dict[str, Room] = {}
        """The rooms loaded in this process, owned or followed."""
        self._opening: dict[str, asyncio.Task[Room | None]] = {}

    def room(self, room_id: str) -> Room | None:
        """The room if it is loaded in this process."""
        return self.rooms.get(room_id)

    async def open(self, room_id: str) -> Room | None:
        """The room, loaded from the store if needed (restored, then owned or followed)."""
        room = self.rooms.get(room_id)
        if room is not None:
            return room
        if room_id not in self._opening:
            self._opening[room_id] = asyncio.create_task(self._load(room_id))
        try:
            return await asyncio.shield(self._opening[room_id])
        finally:
            self._opening.pop(room_id, None)

    async def _load(self, room_id: str) -> Room | None:
        record = await self.store.load_room(room_id)
        if record is None or record.engine not in ENGINES:
            return None
        room = self._new_room(record)
        await room.restore()
        await self._activate(room)
        log.info("room loaded", extra=fields(room=room_id, version=room.version, owner=room.lease))
        return room

    async def claim(self, room: Room) -> bool:
        """Try to own ``room`` (take its lease); True if this process owns it now."""
        lease = await self.store.acquire(room.id, self.node)
        if lease is not None:
            await room.promote(lease)
            if self.forwarder is not None:
                await self.forwarder.owned(room)
        return lease is not None

    async def _activate(self, room: Room) -> None:
        """Register, try to own, start. Registered first: the hub serves forwarded
        requests only for rooms it knows, and a claim subscribes the room's inbox."""
        self.rooms[room.id] = room
        await self.claim(room)
        room.start()

    def _new_room(self, record: RoomRecord) -> Room:
        engine = ENGINES[record.engine]
        return Room(record, engine, self.store, self.settings, self.clock, self.forwarder)

    async def create(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /api/rooms``: ``{engine, seats?, options?, private?, seed?}``."""
        engine = _engine(body)
        seats = _int(body, "seats", engine.max_players)
        assert seats is not None
        if not engine.min_players <= seats <= engine.max_players:
            raise ApiError(
                400,
                "bad_seats",
                f"{engine.id} takes {engine.min_players}-{engine.max_players} players",
            )
        options = body.get("options")
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise ApiError(400, "bad_options", "options must be an object")
        try:
            options = resolve_options(engine, options)
        except OptionError as exc:
            raise ApiError(400, "bad_options", str(exc)) from None
        private = body.get("private", False)
        if not isinstance(private, bool):
            raise ApiError(400, "bad_private", "private must be true or false")
        seed = _int(body, "seed", None)
        now = self.clock()
        record = RoomRecord(
            id=self._new_id(),
            engine=engine.id,
            seats=seats,
            options=options,
            private=private,
            seed=secrets.randbits(63) if seed is None else seed,
            created=now,
            updated=now,
            names=[None] * seats,
        )
        await self.store.save_room(record)
        await self._activate(self._new_room(record))
        log.info("room created", extra=fields(room=record.id, engine=engine.id, seats=seats))
        return self._show(record)

    async def listing(self, engine: str | None, status: str | None) -> list[dict[str, Any]]:
        """``GET /api/rooms``: public rooms, newest first, optionally filtered."""
        if engine is not None and engine not in ENGINES:
            raise ApiError(400, "unknown_engine", f"engine must be one of {sorted(ENGINES)}")
        if status is not None and status not in STATUSES:
            raise ApiError(400, "bad_status", f"status must be one of {list(STATUSES)}")
        records = [
            r
            for r in await self.store.list_rooms()
            if not r.private
            and (engine is None or r.engine == engine)
            and (status is None or r.status == status)
        ]
        records.sort(key=lambda r: r.created, reverse=True)
        return [self._show(r) for r in records]

    async def details(self, room_id: str) -> dict[str, Any]:
        """``GET /api/rooms/{id}``."""
        return self._show(await self._record(room_id))

    async def reserve(self, room_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /api/rooms/{id}/seats``: ``{name?, seat?}`` → seat and token."""
        name = _name(body)
        seat = _int(body, "seat", None)
        room = await self.open(room_id)
        if room is None:
            raise ApiError(404, "no_such_room", f"no room {room_id!r}")
        taken, token = await room.reserve(name, seat)
        return {
            "room": room_id,
            "seat": taken,
            "token": token,
            "ws": f"/ws/rooms/{room_id}",
        }

    async def quickplay(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /api/quickplay``: a seat in the fullest open public room, or a new room."""
        engine = _engine(body)
        seats = _int(body, "seats", None)
        candidates = [
            record
            for record in await self.store.list_rooms()
            if record.engine == engine.id
            and record.status == "waiting"
            and not record.private
            and (seats is None or record.seats == seats)
        ]
        if candidates:
            room_id = max(candidates, key=lambda r: sum(n is not None for n in r.names)).id
        else:
            room_id = (await self.create({"engine": engine.id, "seats": seats}))["id"]
        return await self.reserve(room_id, {"name": body.get("name")})

    async def sweep(self) -> list[str]:
        """Remove finished rooms after ``finished_ttl`` and unfilled ones after ``waiting_ttl``;
        unload the replicas nobody here watches. Returns the removed room ids."""
        now = self.clock()
        ttl = {"finished": self.settings.finished_ttl, "waiting": self.settings.waiting_ttl}
        removed = []
        records = await self.store.list_rooms()
        for record in records:
            limit = ttl.get(record.status)
            if limit is not None and now - record.updated >= limit:
                await self.store.delete_room(record.id)
                removed.append(record.id)
                log.info("room removed", extra=fields(room=record.id, status=record.status))
        known = {r.id for r in records} - set(removed)
        for room_id, room in list(self.rooms.items()):
            if room_id not in known or (room.lease is None and not room.conns):
                del self.rooms[room_id]
                await room.close()
        return removed

    async def adopt(self) -> list[str]:
        """Open every unfinished room that no process owns, so that it runs again
        (after all processes restarted, or an owner died with nobody following).
        Several processes adopting at once split the rooms: the lease decides."""
        adopted = []
        for record in await self.store.list_rooms():
            if record.status == "finished" or record.id in self.rooms:
                continue
            if await self.store.holder(record.id) is None:
                room = await self.open(record.id)
                if room is not None and room.lease is not None:
                    adopted.append(record.id)
        if adopted:
            log.info("rooms adopted", extra=fields(rooms=adopted, node=self.node))
        return adopted

    async def close(self) -> None:
        """Close every loaded room and give up the leases held, for a fast handover."""
        for room in list(self.rooms.values()):
            await room.close()
            if room.lease is not None:
                with contextlib.suppress(StoreUnavailable):
                    await self.store.release(room.id, room.lease)
        self.rooms.clear()

    async def _record(self, room_id: str) -> RoomRecord:
        room = self.rooms.get(room_id)
        record = room.record if room else await self.store.load_room(room_id)
        if record is None:
            raise ApiError(404, "no_such_room", f"no room {room_id!r}")
        return record

    def _show(self, record: RoomRecord) -> dict[str, Any]:
        data = record.public()
        if record.status == "finished":
            data["seed"] = record.seed
        room = self.rooms.get(record.id)
        if room is not None:
            data["version"] = room.version
            data["connected"] = len(room.conns)
        return data

    def _new_id(self) -> str:
        while True:
            room_id = secrets.token_urlsafe(6)
            if room_id not in self.rooms:
                return room_id
