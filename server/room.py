"""A room: one engine, its seats and connections, and the actor that changes it.

Principle 3 of the design: one task per room (``Room._run``) takes commands
from a queue and applies them strictly in order, so the game state needs no
lock. Everything that only *reads* the room (join, resync, legal actions) runs
synchronously in the caller's task between two awaits, which is consistent
because the actor replaces the state atomically.

Every change bumps the room's version (the length of its log) and is
published: for each *view group* with a connection (one per seat when the
engine has private views, else one for everyone), the new document is built
once, diffed against the previous one, encoded once, and the same bytes are
queued on every connection of the group.

**Owner and replicas.** Exactly one process *owns* a room: it holds the
room's lease (a fencing token from the store), validates intents, appends
them to the log and only then acknowledges them. Any other process with
clients of the room runs it as a *replica*: it folds the committed log
entries (:meth:`Room.follow`), which produces the same states, documents and
frames, and forwards its clients' intents and seat requests to the owner
through a :class:`Forwarder`. With the memory store the one process always
owns every room.

The document a client mirrors is::

    {"status": "waiting" | "playing" | "finished",
     "seats": [name | None, ...],
     "to_act": [seat, ...],
     "game": engine view | None}
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from engines.base import Engine, Event, IllegalAction, Result, State
from protocol import PROTOCOL_VERSION, messages
from protocol.codec import encode
from protocol.diff import diff
from protocol.errors import Code
from protocol.messages import Intent, IntentId
from server import metrics
from server.errors import ApiError
from server.logs import fields
from server.settings import Settings
from server.store import LogEntry, NotOwner, RoomRecord, Store, StoreUnavailable

log = logging.getLogger("tablewire.room")

SEEN_INTENTS = 256
"""Intent ids remembered per seat, so a retried intent is acknowledged, not re-applied."""


def hash_token(token: str) -> str:
    """Seat tokens are stored only as their SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()


class Connection(Protocol):
    """What a room needs of a client connection (a WebSocket, or a test double)."""

    seat: int | None

    def send(self, frame: bytes) -> None:
        """Queue a frame without blocking; a connection that cannot keep up closes itself."""

    def close(self, code: str, message: str) -> None:
        """Send a fatal error frame and close."""


class Forwarder(Protocol):
    """How a replica reaches the owner of a room (implemented by the Redis hub)."""

    def forward_intent(self, room: Room, conn: Connection, intent: Intent) -> None:
        """Send the intent to the owner; its ack or reject comes back on ``conn``."""

    async def forward_reserve(
        self, room: Room, name: str | None, seat: int | None
    ) -> tuple[int, str]: ...

    async def owned(self, room: Room) -> None:
        """This process has just taken ``room``'s lease."""


@dataclass
class _Reserve:
    name: str | None
    seat: int | None
    done: asyncio.Future[tuple[int, str]]


@dataclass
class _Intent:
    conn: Connection
    intent: Intent
    received: float
    """``time.perf_counter()`` when the room got it (the intent→patch latency metric)."""


Group = int | None


def _chain(
    source: asyncio.Future[tuple[int, str]], target: asyncio.Future[tuple[int, str]]
) -> None:
    """Settle ``target`` like ``source``."""
    if target.done():
        return
    if source.exception() is not None:
        target.set_exception(source.exception())  # type: ignore[arg-type]
    else:
        target.set_result(source.result())


class Room:
    """A live room; create it with :meth:`start`, stop it with :meth:`close`."""

    def __init__(
        self,
        record: RoomRecord,
        engine: Engine,
        store: Store,
        settings: Settings,
        clock: Callable[[], float],
        forwarder: Forwarder | None = None,
    ) -> None:
        self.record = record
        self.engine = engine
        self.store = store
        self.settings = settings
        self.clock = clock
        self.forwarder = forwarder
        self.lease: str | None = None
        """The fencing token while this process owns the room, else None."""
        self.state: State | None = None
        self.version = 0
        self.conns: set[Connection] = set()
        self._queue: asyncio.Queue[_Reserve | _Intent] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._docs: dict[Group, tuple[int, Any]] = {}
        self._history: dict[Group, deque[tuple[int, bytes]]] = {}
        self._snapshots: dict[Group, tuple[int, bytes]] = {}
        self._seen: dict[int, OrderedDict[IntentId, int]] = {}

    @property
    def id(self) -> str:
        return self.record.id

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"room-{self.id}")

    async def close(self, code: str = Code.ROOM_CLOSED, message: str = "room closed") -> None:
        """Stop the actor and close every connection."""
        if self._task:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        for conn in list(self.conns):
            conn.close(code, message)
        self.conns.clear()

    # -- reads, in the caller's task ----------------------------------------

    def attach(self, conn: Connection, since: int | None) -> None:
        """Add a joined connection: welcome, then a snapshot or the patches it missed."""
        self.conns.add(conn)
        conn.send(
            encode(
                messages.welcome(
                    protocol=PROTOCOL_VERSION,
                    room=self.id,
                    engine=self.engine.id,
                    options=self.record.options,
                    seats=self.record.seats,
                    seat=conn.seat,
                    version=self.version,
                )
            )
        )
        self.catch_up(conn, since)

    def detach(self, conn: Connection) -> None:
        self.conns.discard(conn)
        if not self.conns and self.record.status == "finished":
            # Nobody is watching a finished room: its frame caches go (a client
            # that comes back gets a snapshot); the room stays until swept.
            self._docs.clear()
            self._history.clear()
            self._snapshots.clear()

    def catch_up(self, conn: Connection, since: int | None) -> None:
        """Send the patches after ``since`` if they are still kept, else a snapshot."""
        group = self._group(conn.seat)
        history = self._history.get(group)
        if since is not None and history and since < self.version:
            froms = [frm for frm, _ in history]
            if since in froms:
                for _, frame in list(history)[froms.index(since) :]:
                    conn.send(frame)
                return
        conn.send(self._snapshot(group))

    def send_legal(self, conn: Connection) -> None:
        if conn.seat is None:
            conn.send(encode(messages.error(Code.SPECTATOR, "spectators have no actions")))
            return
        state, seat = self.state, conn.seat
        actions = self.engine.legal_actions(state, seat) if state else []
        labels = [self.engine.describe(state, seat, a) for a in actions] if state else []
        conn.send(encode(messages.legal(self.version, seat, actions, labels)))

    # -- writes, through the actor's queue ----------------------------------

    def submit(self, conn: Connection, intent: Intent) -> None:
        """Queue an intent (or forward it to the owner); its ack or reject follows on ``conn``."""
        if self.lease is None and self.forwarder is not None:
            self.forwarder.forward_intent(self, conn, intent)
        else:
            self._queue.put_nowait(_Intent(conn, intent, time.perf_counter()))

    async def reserve(self, name: str | None, seat: int | None = None) -> tuple[int, str]:
        """Take a free seat (a given one, or the first); returns the seat and its token.

        A seat without a name is called "player N".
        """
        if self.lease is None and self.forwarder is not None:
            return await self.forwarder.forward_reserve(self, name, seat)
        done: asyncio.Future[tuple[int, str]] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Reserve(name, seat, done))
        return await done

    # -- rebuilding, owning and following ------------------------------------

    async def restore(self) -> None:
        """Rebuild from the latest snapshot and the log after it (engines are deterministic).

        Entries shortly before the snapshot are read too, for their intent ids:
        a client retrying an intent acknowledged before a failover is acked
        again, never applied twice.
        """
        snapshot = await self.store.load_snapshot(self.id)
        start = 0
        if snapshot is not None:
            start, self.state = snapshot
            self.version = start
        for version, entry in await self.store.read_log(self.id, max(0, start - SEEN_INTENTS)):
            if version <= start:
                if entry["k"] == "intent":
                    self._remember(entry["seat"], entry["id"], version)
            else:
                self.follow(version, entry)

    async def promote(self, lease: str) -> None:
        """Become the owner: catch up with the log, then write with ``lease``."""
        for version, entry in await self.store.read_log(self.id, self.version):
            self.follow(version, entry)
        self.lease = lease
        metrics.LEASES.labels("acquired").inc()
        log.info("room owned", extra=fields(room=self.id, lease=lease, version=self.version))

    def demote(self) -> None:
        """The lease is lost: from now on this process only follows the log."""
        if self.lease is not None:
            metrics.LEASES.labels("lost").inc()
            log.warning("room lease lost", extra=fields(room=self.id, lease=self.lease))
        self.lease = None

    def follow(self, version: int, entry: LogEntry) -> None:
        """Fold one committed log entry (a replica, or a rebuild); older ones are skipped.

        An owner ignores it: it commits its own appends itself, and a read of
        the log that started before it took the lease may return them again.
        """
        if self.lease is not None or version <= self.version:
            return
        if version != self.version + 1:
            raise ValueError(f"room {self.id}: log entry {version} after {self.version}")
        state: State | None = self.state
        events: list[Event] = []
        if entry["k"] == "intent":
            assert state is not None, "an intent is logged only once the game runs"
            state, events = self.engine.apply(state, entry["seat"], entry["action"])
        self._commit(version, entry, state, events)

    # -- the owner's actor ---------------------------------------------------

    async def _run(self) -> None:
        while True:
            command = await self._queue.get()
            try:
                if self.lease is None:
                    raise NotOwner(f"room {self.id} is not owned here")
                if isinstance(command, _Intent):
                    await self._apply_intent(command.conn, command.intent)
                    metrics.INTENT_LATENCY.observe(time.perf_counter() - command.received)
                else:
                    await self._reserve(command)
            except NotOwner:
                self._reroute(command)
            except Exception as exc:
                if not isinstance(exc, ApiError):
                    log.exception("room command failed", extra=fields(room=self.id))
                if isinstance(command, _Reserve) and not command.done.done():
                    command.done.set_exception(exc)

    def _reroute(self, command: _Reserve | _Intent) -> None:
        """The one place a command meets a room this process does not own (any more):
        it goes to the owner; nothing was written here."""
        if self.forwarder is None:  # one process owns everything: this is a fault
            log.error("command for a room not owned here", extra=fields(room=self.id))
            if isinstance(command, _Reserve):
                command.done.set_exception(ApiError(503, Code.OWNER_UNAVAILABLE, "not owned"))
            return
        if isinstance(command, _Intent):
            self.forwarder.forward_intent(self, command.conn, command.intent)
            return
        forwarded = asyncio.ensure_future(
            self.forwarder.forward_reserve(self, command.name, command.seat)
        )
        forwarded.add_done_callback(lambda f: _chain(f, command.done))

    async def _append(self, entry: LogEntry) -> int:
        """Durably log ``entry`` as the next version and return that version.

        A lost lease demotes the room (and :meth:`_run` reroutes the command).
        Only this actor changes an owned room, so the version is still current
        when the append returns.
        """
        if self.lease is None:  # demoted by the lease keeper during this command's awaits
            raise NotOwner(f"room {self.id} is not owned here")
        version = self.version + 1
        start = time.perf_counter()
        try:
            await self.store.append(self.id, version, entry, self.lease)
        except NotOwner:
            self.demote()
            raise
        except StoreUnavailable:
            metrics.STORE_APPEND_ERRORS.inc()
            raise
        finally:
            metrics.STORE_APPEND.observe(time.perf_counter() - start)
        return version

    async def _reserve(self, command: _Reserve) -> None:
        names = self.record.names
        if self.record.status != "waiting":
            raise ApiError(409, "room_full", "every seat of this room is taken")
        seat = command.seat
        if seat is None:
            seat = names.index(None)
        elif not 0 <= seat < len(names):
            raise ApiError(400, "bad_seat", f"seat must be 0..{len(names) - 1}")
        elif names[seat] is not None:
            raise ApiError(409, "seat_taken", f"seat {seat} is taken")
        name = command.name or f"player {seat + 1}"
        token = secrets.token_urlsafe(32)
        # The token first: if the append then fails, the orphan token was never shown to anyone.
        await self.store.add_token(self.id, hash_token(token), seat)
        entry = {"k": "seat", "seat": seat, "name": name}
        self._commit(await self._append(entry), entry, self.state, [])
        await self.store.save_room(self.record)
        command.done.set_result((seat, token))

    async def _apply_intent(self, conn: Connection, intent: Intent) -> None:
        seat = conn.seat

        def refuse(code: str, message: str) -> None:
            metrics.REJECTS.labels(code).inc()
            conn.send(encode(messages.reject(intent.id, code, message)))

        if seat is None:
            return refuse(Code.SPECTATOR, "spectators cannot send intents")
        # A retry of an applied intent is acked again, even if it was the last move.
        acked = self._seen[seat].get(intent.id) if seat in self._seen else None
        if acked is not None:
            conn.send(encode(messages.ack(intent.id, acked)))
            return None
        if self.state is None:
            return refuse(Code.NOT_STARTED, "the game starts when every seat is taken")
        if self.record.status == "finished":
            return refuse(Code.GAME_OVER, "the game is over")
        try:
            state, events = self.engine.apply(self.state, seat, intent.action)
        except IllegalAction as exc:
            return refuse(exc.code, exc.message)
        except Exception:
            log.exception("engine failed", extra=fields(room=self.id, action=intent.action))
            return refuse(Code.INTERNAL_ERROR, "the engine failed; nothing changed")
        entry = {"k": "intent", "seat": seat, "id": intent.id, "action": intent.action}
        try:
            version = await self._append(entry)
        except StoreUnavailable as exc:
            return refuse(Code.STORE_UNAVAILABLE, f"the move was not recorded: {exc}")
        conn.send(encode(messages.ack(intent.id, version)))
        result = self._commit(version, entry, state, events)
        await self._after_commit(result)
        return None

    async def _after_commit(self, result: Result | None) -> None:
        """The owner's bookkeeping: a snapshot every ``snapshot_every`` versions, the result."""
        try:
            if self.state is not None and self.version % self.settings.snapshot_every == 0:
                await self.store.save_snapshot(self.id, self.version, self.state)
            if result is not None:
                await self.store.save_room(self.record)
                log.info("game finished", extra=fields(room=self.id, result=result))
        except StoreUnavailable as exc:
            # The log holds the truth; a missed snapshot or record update is redone later.
            log.warning("bookkeeping failed", extra=fields(room=self.id, error=str(exc)))

    def _commit(
        self, version: int, entry: LogEntry, state: State | None, events: list[Event]
    ) -> Result | None:
        """Make ``version`` current: the entry's effect, then publish it. No await inside."""
        if version != self.version + 1:
            raise RuntimeError(f"room {self.id}: version {version} after {self.version}")
        if entry["k"] == "seat":
            names = self.record.names
            names[entry["seat"]] = entry["name"]
            events = [{"type": "seat", "seat": entry["seat"], "name": entry["name"]}]
            if None not in names and state is None:
                state = self.engine.setup(self.record.seats, self.record.options, self.record.seed)
                self.record.status = "playing"
                events.append({"type": "start"})
                log.info("game started", extra=fields(room=self.id, engine=self.engine.id))
        else:
            self._remember(entry["seat"], entry["id"], version)
        self.state = state
        self.version = version
        self.record.updated = self.clock()
        result = self.engine.result(state) if state is not None else None
        if result is not None:
            self.record.status = "finished"
            self.record.result = dict(result)
        self._publish(events, result)
        return result

    def _remember(self, seat: int, intent_id: IntentId, version: int) -> None:
        seen = self._seen.setdefault(seat, OrderedDict())
        seen[intent_id] = version
        if len(seen) > SEEN_INTENTS:
            seen.popitem(last=False)

    # -- publishing ----------------------------------------------------------

    def _group(self, seat: int | None) -> Group:
        return seat if self.engine.seat_views_differ else None

    def _doc(self, group: Group) -> dict[str, Any]:
        state = self.state
        return {
            "status": self.record.status,
            "seats": list(self.record.names),
            "to_act": sorted(self.engine.to_act(state)) if state else [],
            "game": self.engine.view(state, group) if state else None,
        }

    def _snapshot(self, group: Group) -> bytes:
        cached = self._snapshots.get(group)
        if cached and cached[0] == self.version:
            return cached[1]
        doc = self._docs.get(group)
        if doc is None or doc[0] != self.version:
            doc = (self.version, self._doc(group))
            self._docs[group] = doc
            self._history[group] = deque(maxlen=self.settings.history)
        frame = encode(messages.snapshot(self.version, doc[1]))
        self._snapshots[group] = (self.version, frame)
        return frame

    def _advance(self, group: Group) -> bytes:
        """The frame that brings ``group`` to the current version: a patch, or a snapshot."""
        previous = self._docs.get(group)
        if previous is None or previous[0] != self.version - 1:
            return self._snapshot(group)
        doc = self._doc(group)
        frame = encode(messages.patch(self.version - 1, self.version, diff(previous[1], doc)))
        self._docs[group] = (self.version, doc)
        self._history[group].append((self.version - 1, frame))
        return frame

    def _narrated(self, events: list[Event]) -> list[Event]:
        """The events with their sentence for the game log (``text``)."""
        names = [name or f"seat {i + 1}" for i, name in enumerate(self.record.names)]
        told = []
        for event in events:
            kind = event.get("type")
            if kind == "seat":
                text = f"{names[event['seat']]} takes seat {event['seat'] + 1}"
            elif kind == "start":
                text = "the game starts"
            else:
                text = self.engine.narrate(event, names)
            told.append({**event, "text": text})
        return told

    def _publish(self, events: list[dict[str, Any]], result: Result | None) -> None:
        groups = {self._group(conn.seat) for conn in self.conns}
        for stale in set(self._docs) - groups:
            del self._docs[stale]
            self._history.pop(stale, None)
            self._snapshots.pop(stale, None)
        frames = {group: self._advance(group) for group in groups}
        extra = []
        if events:
            extra.append(encode(messages.event(self.version, self._narrated(events))))
        if result is not None:
            extra.append(encode(messages.result(self.version, dict(result))))
        for conn in list(self.conns):
            conn.send(frames[self._group(conn.seat)])
            for frame in extra:
                conn.send(frame)
