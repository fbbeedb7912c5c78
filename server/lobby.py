"""The lobby: creates, lists, fills and cleans up rooms.

It validates every request body (:mod:`server.requests`, :mod:`server.credentials`:
a bad one raises :class:`ApiError` and changes nothing), keeps the live
:class:`~server.room.Room` actors of this process, and answers listings from the
store, so that a shared store shows every process's rooms.

No lobby operation costs in proportion to the number of rooms at once:
listings and quick play read one bounded page of the store's indexes, and
the sweep and adoption walk every room a ``sweep_batch`` at a time, yielding
to the event loop between batches. Creating rooms is limited per client
address (``room_rate``) and per process (``max_rooms``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import secrets
import time
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any
from urllib.parse import urlencode

from engines import BENCHMARK, ENGINES
from server import credentials, history, ids, matching, metrics, requests, room_commands
from server.errors import ApiError, rematch_seat_taken, spoken
from server.limits import Buckets, address_key, load_test
from server.logs import fields
from server.proxies import load_testers
from server.room import Forwarder, Room, hash_token
from server.settings import Settings
from server.store import RoomRecord, Store, StoreUnavailable
from server.store.base import ALL, CURSOR, STATUSES, public_index
from server.timers import Timers, WallTimers

log = logging.getLogger("tablewire.lobby")

ADOPTING = 100
"""Rooms an adoption pass opens at once."""


class Lobby:
    """Rooms of one process over a store."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        clock: Callable[[], float] = time.time,
        node: str = "local",
        forwarder: Forwarder | None = None,
        timers: Timers | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock
        self.timers = timers or WallTimers()
        """The rooms' clock (turn clocks, bots, grace periods); tests drive a manual one."""
        self.node = node
        self.forwarder = forwarder
        self.rooms: dict[str, Room] = {}
        """The rooms loaded in this process, owned or followed."""
        self.creations = Buckets(settings.room_rate, settings.room_burst)
        self.load_testers = load_testers(settings)
        """Rooms created per client address (``room_rate``, ``room_burst``)."""
        self._opening: dict[str, asyncio.Task[Room | None]] = {}
        self._benchmarks: set[str] = set()
        """The loaded rooms of a benchmark engine (``max_benchmark_rooms``)."""
        self._claiming: set[str] = set()
        """The rooms whose lease is being taken (:meth:`claim`)."""

    def room(self, room_id: str) -> Room | None:
        """The room if it is loaded in this process."""
        return self.rooms.get(room_id)

    def benchmark(self, room_id: str) -> bool:
        """Whether the room is loaded here and of a benchmark engine (turn-relay)."""
        room = self.rooms.get(room_id)
        return room is not None and room.engine.kind == BENCHMARK

    async def open(self, room_id: str) -> Room | None:
        """The room, loaded from the store if needed (restored, then owned or followed)."""
        room = self.rooms.get(room_id)
        if room is not None or not ids.is_room_id(room_id):
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
        stored = record.status
        room = self._new_room(record)
        await room.restore()
        registered = await self._activate(room)
        if registered is not room:
            return registered  # registered here meanwhile
        if stored != "finished" and room.record.status == "finished":
            # The game ended, its record unsaved (its owner lost the store, then died).
            room_commands.save_until_done(room)
        log.info("room loaded", extra=fields(room=room_id, version=room.version, owner=room.lease))
        return room

    async def claim(self, room: Room) -> bool:
        """Try to own ``room`` (take its lease); True if this process owns it now. Until
        it is done the sweep leaves the room loaded (it is no replica to unload: a lease
        taken by a room the lobby had let go would be kept by nobody)."""
        self._claiming.add(room.id)
        try:
            lease = await self.store.acquire(room.id, self.node)
            if lease is not None:
                await room.promote(lease)
                if self.forwarder is not None:
                    await self.forwarder.owned(room)
        finally:
            self._claiming.discard(room.id)
        return lease is not None

    async def _activate(self, room: Room) -> Room:
        """Register, try to own, start; the room registered. Registered first: the hub
        serves forwarded requests only for rooms it knows, and a claim subscribes the
        room's inbox. A room of that id registered already stays, and ``room`` is dropped
        (an adoption pass may load a room its creator has saved but not registered yet,
        or the other way round): two rooms of one id would leave the lease held by the
        one the lobby no longer knows, and the room unanswered."""
        registered = self.rooms.get(room.id)
        if registered is not None:
            return registered
        self.rooms[room.id] = room
        if room.engine.kind == BENCHMARK:
            self._benchmarks.add(room.id)
        if not await self.claim(room) and self.forwarder is not None:
            self.forwarder.following(room)
        room.start()
        return room

    def _new_room(self, record: RoomRecord) -> Room:
        engine = ENGINES[record.engine]
        return Room(
            record, engine, self.store, self.settings, self.clock, self.forwarder, self.timers
        )

    async def create(
        self,
        body: Mapping[str, Any],
        client: str | None = None,
        *,
        owned: bool = True,
        heir: RoomRecord | None = None,
    ) -> dict[str, Any]:
        """``POST /api/rooms``: ``{engine, seats?, options?, private?, seed?, bots?, name?}``.

        ``options``: engine and room options (server/table.py). ``bots`` (``{"seats",
        "kind"}``) and ``name`` (:func:`~server.requests.creator_name`) are checked first;
        then 503 if this process holds ``max_rooms`` rooms, 429 if ``client`` (an address;
        None: the server) has created rooms faster than ``room_rate``.

        The answer, given once, holds the owner credential (``owner_token``; none if
        not ``owned``: a quick play room) and a private room's ``invite`` and
        ``invite_url``. A rematch's ``heir`` (the finished room) gives it its owner and
        invitation, and it holds its people's seats (``rematch_hold``)."""
        engine = requests.requested_engine(body)
        seats = requests.optional_int(body, "seats", engine.max_players)
        assert seats is not None
        if not engine.min_players <= seats <= engine.max_players:
            low, high = engine.min_players, engine.max_players
            takes = f"{low}" if low == high else f"{low}-{high}"
            raise ApiError(400, "bad_seats", f"{engine.id} takes {takes} players, not {seats}")
        options, room_options = requests.requested_options(engine, body)
        bots = body.get("bots")
        if bots is not None:
            bot_kind, bot_seats = requests.requested_bots(engine, bots, seats)
        private = body.get("private", False)
        if not isinstance(private, bool):
            raise ApiError(400, "bad_private", "private must be true or false")
        seed = requests.optional_int(body, "seed", None)
        if seed is not None and not 0 <= seed <= requests.MAX_SEED:
            raise ApiError(400, "bad_seed", "seed must be an integer in 0..2^63-1")
        if seed is not None and not private:
            raise ApiError(
                400,
                "seed_needs_private",
                "a chosen seed tells its chooser every hidden card: only a private room "
                '("private": true) may have one',
            )
        requests.creator_name(body, seats, None if bots is None else (bot_kind, bot_seats))
        self._admit(client, engine.kind == BENCHMARK)
        now = self.clock()
        owner = ids.secret() if owned and heir is None else None
        invite = ids.secret() if private and heir is None else None
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
            room_options=room_options,
            bots=[None] * seats,
            connected=[False] * seats,
            away_since=[None] * seats,
            seed_chosen=seed is not None,
            owner=hash_token(owner) if owner else heir.owner if heir else None,
            invite=hash_token(invite) if invite else heir.invite if heir else None,
        )
        if heir is not None:
            record.held = [heir.bots[s] in (None, "zombie") for s in range(seats)]
            record.held_until = now + self.settings.rematch_hold
            record.held_names = [heir.names[s] if record.held[s] else None for s in range(seats)]
        await self.store.save_room(record)
        room = await self._activate(self._new_room(record))
        log.info("room created", extra=fields(room=record.id, engine=engine.id, seats=seats))
        if bots is not None:
            try:  # checked above, they fit: only the store or the owner can fail here
                await room.seat_bots(bot_kind, bot_seats)
            except Exception:
                with contextlib.suppress(StoreUnavailable):  # else waiting_ttl removes it
                    await self._remove(record.id)
                raise
        answer = self._show(room.record)
        if owner is not None:
            answer["owner_token"] = owner
        if invite is not None:
            answer["invite"] = invite
            answer["invite_url"] = f"/rooms/{record.id}?{urlencode({'invite': invite})}"
        return answer

    def _admit(self, client: str | None, benchmark: bool = False) -> None:
        """Refuse a new room above the process's caps or the client's creation rate
        (which a load generator's benchmark room does not count: :func:`load_test`)."""
        full = len(self.rooms) >= self.settings.max_rooms
        if benchmark and not full:
            full = len(self._benchmarks) >= self.settings.max_benchmark_rooms
        if full:
            cap = self.settings.max_benchmark_rooms if benchmark else self.settings.max_rooms
            what = "benchmark rooms" if benchmark else "rooms"
            raise ApiError(
                503,
                "too_many_rooms",
                f"this server holds {cap} {what}; retry later",
                retry_after=max(1.0, self.settings.sweep_interval),
            )
        now = self.clock()
        if client is not None and load_test(client, benchmark, self.load_testers):
            return
        key = None if client is None else address_key(client)
        if key is not None and not self.creations.take(key, now):
            metrics.RATE_LIMITED.labels("rooms").inc()
            wait = self.creations.wait(key, now)
            raise ApiError(
                429,
                "rate_limited",
                f"too many rooms created from your address; retry in {math.ceil(wait)} s",
                retry_after=wait,
            )

    async def add_bots(
        self, room_id: str, body: Mapping[str, Any], key: str | None = None
    ) -> dict[str, Any]:
        """``POST /api/rooms/{id}/bots``: ``{kind?, seats?}`` → the room, those seats
        (default: every free seat) held by bots. ``key``: the request's
        ``Idempotency-Key``; a repeat is answered the room again, taking no more seats."""
        room = await self._room(room_id)
        kind, seats = requests.requested_bots(room.engine, body, room.record.seats)
        await credentials.require_owner(room.record, body, self.store)
        await room.seat_bots(kind, seats, None if key is None else ids.request_digest(key, "bots"))
        # A replica folds the owner's entries a moment later; the owner saved the record.
        fresh = None if room.lease is not None else await self.store.load_room(room_id)
        return self._show(fresh or room.record)

    async def rematch(
        self,
        room_id: str,
        body: Mapping[str, Any],
        key: str | None = None,
        client: str | None = None,
    ) -> dict[str, Any]:
        """``POST /api/rooms/{id}/rematch``: ``{token}`` → the rematch room, with the seat
        of the token's player in the finished room taken for them (``seat``, ``token``).
        The first player to ask opens it, every later one joins the same room. It keeps
        the finished room's engine, seats, options, privacy, owner and bots; each former
        player's seat is held for them for ``rematch_hold`` seconds (``seat_held`` to
        anyone else), then open to anyone. The room's owner may open it too, with
        ``owner_token`` instead of a seat's token (a room of bots alone): the answer
        then holds no seat. ``key``: the request's ``Idempotency-Key``; a repeat gets
        the seat it took, and the same token. The request that opens the rematch counts
        against ``client``'s creation rate (``room_rate``), as any room it creates."""
        token = body.get("token")
        owner = False
        if token is None and isinstance(body.get("owner_token"), str):
            owner = credentials.is_owner(await self._record(room_id), body)
        if token is None and not owner:
            raise ApiError(
                403,
                "player_required",
                "a rematch is for the finished game's players: send your seat's token "
                "(anyone can watch it: the finished room's `rematch` names it)",
            )
        if token is not None and not isinstance(token, str):
            raise ApiError(400, "bad_token", "token must be a string")
        old = await self._room(room_id)
        record = old.record
        if record.status != "finished":
            raise ApiError(409, "not_finished", "a rematch opens once the game is over")
        seat = None if token is None else await self.store.seat_of(room_id, hash_token(token))
        if token is not None and seat is None:
            raise ApiError(403, "bad_token", "this token holds no seat of this room")
        new_id = record.rematch
        if new_id is None:
            options = {**record.options, **record.room_options}
            bot_seats = [s for s, bot in enumerate(record.bots) if bot not in (None, "zombie")]
            body = {
                "engine": record.engine,
                "seats": record.seats,
                "options": options,
                "private": record.private,
            }
            created = await self.create(body, client, heir=record)
            for seat_of_bot in bot_seats:
                kind = record.bots[seat_of_bot]
                assert kind is not None
                await (await self._room(created["id"])).seat_bots(kind, [seat_of_bot])
            new_id = await old.link_rematch(created["id"])
            if new_id != created["id"]:  # another request linked its room first
                await self._remove(created["id"])
        new = await self._room(new_id)
        if seat is None:
            return await self.details(new_id)
        asked = None if key is None else ids.asked(key, "seat", new_id)
        if new.record.names[seat] is not None and asked is None:
            raise rematch_seat_taken(seat, new_id)
        try:  # a repeat of a keyed request gets its seat, whatever the room's status
            taken, new_token = await new.reserve(record.names[seat], seat, claim=True, asked=asked)
        except ApiError as exc:
            if exc.status == 409 and new.record.names[seat] is not None:
                raise rematch_seat_taken(seat, new_id) from None
            raise
        return {**await self.details(new_id), "seat": taken, "token": new_token}

    async def _room(self, room_id: str) -> Room:
        room = await self.open(room_id)
        if room is None:
            raise ApiError(404, "no_such_room", f"no room {room_id!r}")
        return room

    async def listing(
        self,
        engine: str | None,
        status: str | None,
        limit: str | None = None,
        after: str | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """``GET /api/rooms``: public rooms, newest first, optionally filtered, one page
        of ``limit`` (at most and by default ``list_limit``) after the cursor ``after``.
        Returns the page and the cursor of the next one (None: this is the last)."""
        if engine is not None and engine not in ENGINES:
            raise requests.unknown_engine(engine)
        if status is not None and status not in STATUSES:
            raise ApiError(400, "bad_status", f"status must be {spoken(STATUSES)}")
        size = requests.page_size(limit, self.settings.list_limit)
        if after is not None and not CURSOR.fullmatch(after):
            raise ApiError(400, "bad_cursor", "after must be a cursor from a previous page")
        records, cursor = await self.store.page(public_index(engine, status), size, after)
        return [self._show(r) for r in records], cursor

    async def details(self, room_id: str) -> dict[str, Any]:
        """``GET /api/rooms/{id}``."""
        return self._show(await self._record(room_id))

    async def history(
        self, room_id: str, views: bool = False, kept: bool = False
    ) -> dict[str, Any]:
        """``GET /api/rooms/{id}/record``: the game's record, ``kept``: or what is left of it."""
        store, snapshot = self.store, None
        record, entries = await self._record(room_id), await store.read_log(room_id)
        if kept and entries and entries[0][0] != 1:  # trimmed: its snapshot, then the log again
            snapshot, entries = await store.load_snapshot(room_id), await store.read_log(room_id)
        try:
            return history.game_record(ENGINES[record.engine], record, entries, views, snapshot)
        except history.TrimmedLog as exc:
            raise ApiError(410, "record_trimmed", str(exc)) from exc

    async def reserve(
        self,
        room_id: str,
        body: Mapping[str, Any],
        client: str | None = None,
        key: str | None = None,
    ) -> dict[str, Any]:
        """``POST /api/rooms/{id}/seats``: ``{name?, seat?, invite?}`` → seat and token
        (``client``: the requester's address). ``key``: the request's
        ``Idempotency-Key``; a repeat gets the seat it took, and the same token."""
        name = requests.player_name(body)
        seat = requests.optional_int(body, "seat", None)
        room = await self._room(room_id)
        credentials.require_invitation(room, body, client, self.load_testers)
        asked = None if key is None else ids.asked(key, "seat", room_id)
        taken, token = await room.reserve(name, seat, asked=asked)
        return {
            "room": room_id,
            "seat": taken,
            "token": token,
            "ws": f"/ws/rooms/{room_id}",
        }

    async def quickplay(
        self, body: Mapping[str, Any], client: str | None = None, key: str | None = None
    ) -> dict[str, Any]:
        """``POST /api/quickplay``: a seat in the open public room
        :func:`server.matching.best_room` chooses among the engine's ``list_limit``
        newest, else in a new room created for ``client`` (:meth:`create`).

        ``key``: the request's ``Idempotency-Key``. The room chosen is kept under it
        (:meth:`~server.store.Store.quickplay_room`) before the seat is asked for, so a
        repeat goes to the same room and gets the seat the first one took there, if it
        took one (else a seat there, or in a room chosen again if that one is full)."""
        engine = requests.requested_engine(body)
        seats = requests.optional_int(body, "seats", None)
        name = requests.player_name(body)  # checked before a room is created for it
        digest = None if key is None else ids.request_digest(key, "quickplay")
        chosen = None if digest is None else await self.store.quickplay_room(digest)
        if chosen is not None:
            try:
                return await self.reserve(chosen, {"name": name}, key=key)
            except ApiError as exc:  # full, over or gone (nothing taken): choose again
                if exc.status >= 500:
                    raise
        room_ids, _ = await self.store.page_ids(
            public_index(engine.id, "waiting"), self.settings.list_limit
        )
        records = await self._records(room_ids)
        room_id = matching.best_room(records, seats, self.timers.now(), name)
        if room_id is None:
            size = matching.new_room_size(engine, seats)
            requests.creator_name(body, size, None)  # refused before a room is opened
            room = await self.create({"engine": engine.id, "seats": size}, client, owned=False)
            room_id = room["id"]
        if digest is not None:
            await self.store.remember_quickplay(digest, room_id)
        return await self.reserve(room_id, {"name": name}, key=key)

    async def _records(self, room_ids: list[str]) -> list[RoomRecord]:
        """The records of these rooms: those loaded here as they are in memory (a replica's
        folded from the log), the others read from the store at once; gone ones left out."""
        loaded = {i: room.record for i in room_ids if (room := self.rooms.get(i)) is not None}
        stored = await self.store.load_rooms([i for i in room_ids if i not in loaded])
        found = {record.id: record for record in stored if record is not None} | loaded
        return [found[i] for i in room_ids if i in found]

    async def _walk(self) -> AsyncIterator[list[RoomRecord]]:
        """Every room of the store, ``sweep_batch`` at a time, newest first (a pause between)."""
        after = None
        while True:
            records, after = await self.store.page(ALL, self.settings.sweep_batch, after)
            yield records
            if after is None:
                return
            await asyncio.sleep(0)

    async def sweep(self) -> list[str]:
        """Remove finished rooms after ``finished_ttl``, unfilled ones after ``waiting_ttl``
        and unload the replicas nobody here watches, or whose room is gone: their ids."""
        ttl = {"finished": self.settings.finished_ttl, "waiting": self.settings.waiting_ttl}
        why = {  # the room_closed message: why the room is gone
            "finished": f"room closed: its game ended over {ttl['finished']:g} s ago",
            "waiting": f"room closed: nobody took all its seats within {ttl['waiting']:g} s",
        }
        removed = []
        async for records in self._walk():
            now = self.clock()
            due = [
                record
                for record in records
                if (limit := ttl.get(record.status)) is not None and now - record.updated >= limit
            ]
            for record in due:
                room = self._forget(record.id)
                if room is not None:
                    await room.close(message=why[record.status])
            await self.store.delete_rooms(due)
            for record in due:
                removed.append(record.id)
                log.info("room removed", extra=fields(room=record.id, status=record.status))
        loaded = list(self.rooms.items())
        for start in range(0, len(loaded), self.settings.sweep_batch):
            for room_id, room in loaded[start : start + self.settings.sweep_batch]:
                if room.lease is not None or self.rooms.get(room_id) is not room:
                    continue
                if room_id in self._claiming:
                    continue  # about to be owned: not a replica
                if not room.conns or await self.store.load_room(room_id) is None:
                    self._forget(room_id)
                    await room.close()
            await asyncio.sleep(0)
        return removed

    async def _remove(self, room_id: str) -> None:
        room = self._forget(room_id)
        if room is not None:
            await room.close()
        await self.store.delete_room(room_id)

    def _forget(self, room_id: str) -> Room | None:
        """Unload a room from this process (it stays in the store)."""
        self._benchmarks.discard(room_id)
        return self.rooms.pop(room_id, None)

    async def adopt(self) -> list[str]:
        """Open every unfinished room that no process owns, so that it runs again
        (after all processes restarted, or an owner died with nobody following).
        Several processes adopting at once split the rooms: the lease decides. A
        process that holds ``max_rooms`` rooms adopts no more (others will). A single
        process (no forwarder: the memory store) has every room loaded already.

        It pages room ids (``sweep_batch`` at a time), reads who holds their leases
        at once, and reads the records of only the rooms nobody holds; it opens
        those, up to :data:`ADOPTING` at a time."""
        adopted: list[str] = []
        if self.forwarder is None:
            return adopted
        after: str | None = None
        while len(self.rooms) < self.settings.max_rooms:
            page, after = await self.store.page_ids(ALL, self.settings.sweep_batch, after)
            fresh = [room_id for room_id in page if room_id not in self.rooms]
            holders = await self.store.holders(fresh)
            orphans = [i for i, holder in zip(fresh, holders, strict=True) if holder is None]
            records = await self.store.load_rooms(orphans)
            ids = [r.id for r in records if r is not None and r.status != "finished"]
            for start in range(0, len(ids), ADOPTING):
                space = self.settings.max_rooms - len(self.rooms)
                chunk = ids[start : start + min(ADOPTING, space)]
                if not chunk:
                    break
                opened = await asyncio.gather(*(self.open(i) for i in chunk))
                adopted += [r.id for r in opened if r is not None and r.lease is not None]
            if after is None:
                break
        if adopted:
            log.info("rooms adopted", extra=fields(count=len(adopted), node=self.node))
        return adopted

    async def close(self) -> None:
        """Close every loaded room and give up the leases held, then tell the other
        processes, which take the rooms over at once (a handover, not a failover)."""
        released = []
        for room in list(self.rooms.values()):
            lease = room.lease
            await room.close()
            if lease is not None:
                with contextlib.suppress(StoreUnavailable):
                    await self.store.release(room.id, lease)
                    released.append(room.id)
        self.rooms.clear()
        if self.forwarder is not None:
            await self.forwarder.released(released)

    async def _record(self, room_id: str) -> RoomRecord:
        room = self.rooms.get(room_id)
        if room is None and not ids.is_room_id(room_id):
            raise ApiError(404, "no_such_room", "a room id is 1-64 characters of A-Z a-z 0-9 _ -")
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
            data["version"] = room.views.version(room, None)  # the spectators' (public)
            data["connections"] = len(room.conns)
        return data

    def _new_id(self) -> str:
        while True:
            room_id = ids.room_id()
            if room_id not in self.rooms:
                return room_id
