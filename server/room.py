"""A room: one engine, its seats and connections, and the actor that changes it.

Principle 3 of the design: one task per room (``Room._run``) takes commands
from a queue and applies them strictly in order, so the game state needs no
lock. Everything that only *reads* the room (join, resync, legal actions) runs
synchronously in the caller's task between two awaits, which is consistent
because the actor replaces the state atomically.

Every change bumps the room's version (the length of its log) and is
published: for each *view group* that has had a connection here (one per
seat when the engine has private views, else one for everyone), the new
document is built once, diffed against the previous one, encoded once, and
the same bytes are queued on every connection of the group. Each such group
keeps its last ``settings.history`` patches whether or not a connection of it
is open, so a seat that comes back gets exactly the patches it missed. Memory
per room is bounded by (seats + 1) groups × (one document + ``history``
patches); a finished room nobody watches drops all of it.

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
     "game": engine view | None,
     "presence": [{"connected", "away_since", "bot", "timeouts"}, ...],
     "clock": {"control", "remaining", "deadline"} | None,
     "rematch": room id | None}

**Keeping the game moving.** The owner keeps one wake-up per room (its
:class:`~server.table.Table`'s next due time, on the room's
:class:`~server.timers.Timers`): a bot seat's move, a clock's deadline, a
player away past the grace period, or abandonment. The wake-up puts a command
on the same queue as everyone's intents, so a bot's or zombie's decision is
logged like a player's (seat, id, action, and ``by``); replicas fold it and
never decide again. Presence changes are logged too (``presence`` entries):
they change the document, whose version is the log's length, and the time a
player left must survive a failover for the grace period to hold.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections import Counter, OrderedDict, defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, cast

from engines.base import Engine, Event, IllegalAction, Result, State
from protocol import compact, messages
from protocol.codec import encode
from protocol.diff import Op, diff
from protocol.errors import Code
from protocol.messages import Intent, IntentId
from server import ids, metrics, robots
from server.errors import ApiError
from server.logs import fields
from server.settings import Settings
from server.store import LogEntry, NotOwner, RoomRecord, Store, StoreUnavailable
from server.table import Table
from server.tasks import finish
from server.timers import Handle, Timers, WallTimers

log = logging.getLogger("tablewire.room")

SEEN_INTENTS = 256
"""Intent ids remembered per seat, so a retried intent is acknowledged, not re-applied."""
TICK_RETRY = 1.0
"""Seconds before a wake-up that failed (the store is down) is tried again."""
PRESENCE_TTL = 3.0
"""Lease periods after which a replica's report of its connections is stale."""
ABANDONED = {"scores": [], "ranks": [], "winners": [], "details": [], "abandoned": True}
"""The result of a room every player left (no ranking: the game did not end)."""
MOVE_LIMIT = {"scores": [], "ranks": [], "winners": [], "details": [], "move_limit": True}
"""The result of a game stopped at ``max_moves`` (no ranking: the game did not end)."""
ENDINGS = {"abandoned": ABANDONED, "move_limit": MOVE_LIMIT}
"""The results of the log's ``end`` entries, by their ``why``."""
SHARED = ("seats", "to_act", "presence", "clock")
"""Parts of the document rebuilt on every version but seldom changed: an unchanged one is
replaced by the previous version's object, which the diff skips without walking it."""
OPS = ("seat_bots", "link_rematch")
"""Room operations the owner runs for a replica (``Forwarder.forward_call``)."""


def hash_token(token: str) -> str:
    """Seat tokens are stored only as their SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()


class Connection(Protocol):
    """What a room needs of a client connection (a WebSocket, or a test double)."""

    seat: int | None
    protocol: int
    """The protocol version the client named in ``hello`` (1 or 2): how its frames are encoded."""

    def send(self, frame: bytes) -> None:
        """Queue a frame without blocking; a connection that cannot keep up closes itself."""

    def close(self, code: str, message: str) -> None:
        """Send a fatal error frame and close."""


class Forwarder(Protocol):
    """How a replica reaches the owner of a room (implemented by the Redis hub)."""

    def forward_intent(self, room: Room, conn: Connection, intent: Intent) -> None:
        """Send the intent to the owner; its ack or reject comes back on ``conn``."""

    async def forward_reserve(
        self, room: Room, name: str | None, seat: int | None, claim: bool = False
    ) -> tuple[int, str]: ...

    async def owned(self, room: Room) -> None:
        """This process has just taken ``room``'s lease."""

    async def released(self, room_ids: list[str]) -> None:
        """This process has just given up these rooms' leases (it is stopping)."""

    async def forward_call(self, room: Room, op: str, args: dict[str, Any]) -> Any:
        """Run ``room.<op>(**args)`` (one of :data:`OPS`) on the owner; its answer."""

    def forward_presence(self, room: Room, seat: int, count: int) -> None:
        """Tell the owner how many connections of ``seat`` this process has."""


@dataclass
class _Reserve:
    name: str | None
    seat: int | None
    done: asyncio.Future[tuple[int, str]]
    claim: bool = False
    """A former player taking back the seat a rematch holds for them."""


@dataclass
class _Intent:
    conn: Connection
    intent: Intent
    received: float
    """``time.perf_counter()`` when the room got it (the intent→patch latency metric)."""


@dataclass
class _Call:
    """A room operation run by the actor (bots taking seats, a rematch link)."""

    op: str
    args: dict[str, Any]
    done: asyncio.Future[Any]


@dataclass
class _Presence:
    """Check whether ``seat`` is connected, and log it if that changed."""

    seat: int


class _Tick:
    """The room's wake-up: do what is due (bots, timeouts, abandonment)."""


@dataclass
class _Bookkeep:
    """What an intent applied at once (:meth:`Room.submit`) leaves to the actor: a
    snapshot, the record of a game that ended."""

    result: Result | None


Command = _Reserve | _Intent | _Call | _Presence | _Tick | _Bookkeep


Group = int | None
Frames = dict[int, bytes]
"""One patch encoded for each protocol version a connection of its group speaks."""

_COMPACTORS: dict[bytes, compact.Compactor] = {}
"""Key tables by the room's shape (:attr:`Room.keys`): rooms of one shape share one."""


def _refuse(conn: Connection, intent: Intent, code: str, message: str) -> None:
    """Answer ``intent`` with a ``reject``; nothing changed."""
    metrics.REJECTS.labels(code).inc()
    conn.send(encode(messages.reject(intent.id, code, message)))


def _ack(conn: Connection, intent_id: IntentId, version: int) -> bytes:
    """The ``ack`` frame in the connection's protocol."""
    if conn.protocol >= 2:
        return encode(compact.ack(intent_id, version))
    return encode(messages.ack(intent_id, version))


def _loop_time() -> float:
    return asyncio.get_running_loop().time()


def _chain(source: asyncio.Future[Any], target: asyncio.Future[Any]) -> None:
    """Settle ``target`` like ``source``."""
    if target.done():
        return
    if source.exception() is not None:
        target.set_exception(source.exception())  # type: ignore[arg-type]
    else:
        target.set_result(source.result())


_TOLD = {
    "expelled": "{who} timed out too often: a bot plays the seat for the rest of the game",
    "abandoned": "the game is abandoned: every player left",
    "rematch": "a rematch is open: room {room}",
    "move_limit": "the game stops: it reached the server's limit of moves, with no ranking",
}
"""Sentences of the room's own events (the engines narrate the game's)."""


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
        timers: Timers | None = None,
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
        self.timers = timers or WallTimers()
        self.table = Table(record.seats, record.room_options)
        self._queue: asyncio.Queue[Command] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._docs: dict[Group, tuple[int, Any]] = {}
        self._history: dict[Group, deque[tuple[int, Frames]]] = {}
        self._spoken: defaultdict[Group, set[int]] = defaultdict(set)
        """The protocol versions each group's connections have spoken here (its patches'
        encodings)."""
        self._snapshots: dict[Group, tuple[int, bytes]] = {}
        self._seen: dict[int, OrderedDict[IntentId, int]] = {}
        self._wakeup: tuple[float, Handle] | None = None
        self._ticking = False
        self._arriving: Counter[int] = Counter()
        self._remote: dict[int, dict[str, tuple[int, float]]] = {}
        """Per seat: the connections other processes reported, by node (count, loop time)."""
        self._compacting: compact.Compactor | None = None
        """:attr:`_compactor` once made."""
        self._acting: tuple[State, frozenset[int]] | None = None
        """The last state :meth:`_to_act` was asked about, and its answer."""
        self._idle = False
        """True while the actor waits for a command (:meth:`submit`'s fast path)."""
        self._owned_since = 0.0
        self._not_before = 0.0
        """After a failed wake-up (store down), the next one waits until then."""

    @property
    def id(self) -> str:
        return self.record.id

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"room-{self.id}")

    @property
    def keys(self) -> list[compact.Entry]:
        """Protocol 2's key table for this room (``welcome.keys``)."""
        return self._compactor.table

    @property
    def _compactor(self) -> compact.Compactor:
        """The room's key table depends only on the engine, the seat count and the
        options, so every process builds the same one for a room (and replicas the
        same bytes): it is read from sample documents of a game set up with seed 0,
        as each viewer would see it. Made on first use, then kept (an attribute, not
        ``functools.cached_property``: a compiled Room has no ``__dict__`` to keep it
        in, and would build the shape's key every time)."""
        if self._compacting is None:
            self._compacting = self._key_table()
        return self._compacting

    def _key_table(self) -> compact.Compactor:
        record = self.record
        shape = encode(
            {"e": self.engine.id, "s": record.seats, "o": record.options, "r": record.room_options}
        )
        compactor = _COMPACTORS.get(shape)
        if compactor is None:
            state = self.engine.setup(record.seats, record.options, 0)
            viewers = range(record.seats) if self.engine.seat_views_differ else []
            docs = [self._doc_of(state, viewer) for viewer in (None, *viewers)]
            compactor = _COMPACTORS[shape] = compact.Compactor(compact.key_table(docs))
        return compactor

    async def close(self, code: str = Code.ROOM_CLOSED, message: str = "room closed") -> None:
        """Stop the actor and close every connection."""
        self._sleep()
        if self._task is not None:
            await finish([self._task])
        # A cancelled task keeps its CancelledError, whose traceback holds the actor's
        # frame, which holds this room: let go of the task, or that is a reference cycle.
        self._task = None
        for conn in list(self.conns):
            conn.close(code, message)
        self.conns.clear()

    # -- reads, in the caller's task ----------------------------------------

    def attach(self, conn: Connection, since: int | None) -> None:
        """Add a joined connection: welcome, then a snapshot or the patches it missed."""
        self.conns.add(conn)
        self._spoken[self._group(conn.seat)].add(conn.protocol)
        welcome = messages.welcome(
            protocol=conn.protocol,
            room=self.id,
            engine=self.engine.id,
            options=self.record.options,
            seats=self.record.seats,
            seat=conn.seat,
            version=self.version,
            keys=self.keys if conn.protocol >= 2 else None,
            seed_chosen=self.record.seed_chosen,
        )
        conn.send(encode(welcome))
        self.catch_up(conn, since)
        if self.record.status == "finished" and self.record.result is not None:
            conn.send(encode(messages.result(self.version, self.record.result)))

    def detach(self, conn: Connection) -> None:
        self.conns.discard(conn)
        if conn.seat is not None:
            self._presence_changed(conn.seat)
        if not self.conns and self.record.status == "finished":
            # Nobody is watching a finished room: its frame caches go (a client
            # that comes back gets a snapshot); the room stays until swept.
            self._docs.clear()
            self._history.clear()
            self._snapshots.clear()
            self._spoken.clear()

    def catch_up(self, conn: Connection, since: int | None) -> None:
        """Send the patches after ``since`` if they are still kept (none if ``since``
        is the current version), else a snapshot."""
        if since == self.version:
            return
        group = self._group(conn.seat)
        history = self._history.get(group)
        if since is not None and history and since < self.version:
            froms = [frm for frm, _ in history]
            if since in froms:
                missed = list(history)[froms.index(since) :]
                if all(conn.protocol in frames for _, frames in missed):
                    for _, frames in missed:
                        conn.send(frames[conn.protocol])
                    return
        conn.send(self._snapshot(group))

    def send_legal(self, conn: Connection) -> None:
        if conn.seat is None:
            refused = messages.error(Code.SPECTATOR, "spectators have no actions", of="legal")
            conn.send(encode(refused))
            return
        state, seat = self.state, conn.seat
        actions = self.engine.legal_actions(state, seat) if state else []
        labels = [self.engine.describe(state, seat, a) for a in actions] if state else []
        conn.send(encode(messages.legal(self.version, seat, actions, labels)))

    # -- writes, through the actor's queue ----------------------------------

    def submit(self, conn: Connection, intent: Intent) -> None:
        """Apply an intent (or queue it, or forward it to the owner); its ack or reject
        follows on ``conn``.

        On a store whose appends do not wait (:attr:`Store.immediate`: the memory
        store), an intent that finds the actor idle is applied at once, in the
        caller's turn of the loop: nothing else can run in between, so this is
        still one writer at a time, in order, and it saves the hop through the
        actor's queue. Anything that must wait goes through the actor.
        """
        if self.lease is None and self.forwarder is not None:
            self.forwarder.forward_intent(self, conn, intent)
        elif self._idle and self.store.immediate and self._queue.empty():
            self._apply_now(conn, intent, time.perf_counter())
        else:
            self._queue.put_nowait(_Intent(conn, intent, time.perf_counter()))

    async def reserve(
        self, name: str | None, seat: int | None = None, claim: bool = False
    ) -> tuple[int, str]:
        """Take a free seat (a given one, or the first not held); returns the seat and its
        token. ``claim``: the seat's former player takes back the seat a rematch holds.

        A seat without a name is called "player N".
        """
        if self.lease is None and self.forwarder is not None:
            return await self.forwarder.forward_reserve(self, name, seat, claim)
        done: asyncio.Future[tuple[int, str]] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Reserve(name, seat, done, claim))
        return await done

    async def seat_bots(self, kind: str, seats: list[int] | None) -> list[int]:
        """Give free seats (the given ones, or all) to ``kind`` bots; returns the seats."""
        seated: list[int] = await self._call("seat_bots", {"kind": kind, "seats": seats})
        return seated

    async def link_rematch(self, room_id: str) -> str:
        """Point this finished room at its rematch (the first link wins); returns the link."""
        linked: str = await self._call("link_rematch", {"room_id": room_id})
        return linked

    async def _call(self, op: str, args: dict[str, Any]) -> Any:
        if self.lease is None and self.forwarder is not None:
            return await self.forwarder.forward_call(self, op, args)
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Call(op, args, done))
        return await done

    # -- presence ------------------------------------------------------------

    async def arrive(self, seat: int) -> None:
        """A connection of ``seat`` is about to attach: the owner logs the seat as
        connected first, so the newcomer's snapshot already shows it."""
        if self.lease is None:
            if self.forwarder is not None:
                self.forwarder.forward_presence(self, seat, self._local(seat) + 1)
            return
        self._arriving[seat] += 1
        try:
            self._queue.put_nowait(_Presence(seat))
            async with asyncio.timeout(self.settings.forward_timeout):
                await self.settled()
        except TimeoutError:
            log.warning("presence not logged in time", extra=fields(room=self.id, seat=seat))
        finally:
            self._arriving[seat] -= 1

    def report(self, seat: int, node: str, count: int) -> None:
        """Another process has ``count`` connections of ``seat`` (the owner's side)."""
        if 0 <= seat < self.record.seats:
            self._remote.setdefault(seat, {})[node] = (count, _loop_time())
            self._queue.put_nowait(_Presence(seat))

    def local_counts(self) -> dict[int, int]:
        """This process's connections per seat (what a replica reports to the owner)."""
        return Counter(conn.seat for conn in self.conns if conn.seat is not None)

    def refresh_presence(self) -> None:
        """Check every seat again (reports of other processes go stale)."""
        if self.lease is None:
            return
        local = self.local_counts()
        for seat, connected in enumerate(self.table.connected):
            if seat in self._remote or (connected and not local.get(seat)):
                self._queue.put_nowait(_Presence(seat))

    async def settled(self) -> None:
        """Wait until the actor has done everything queued so far."""
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Call("settle", {}, done))
        await done

    def _local(self, seat: int) -> int:
        return sum(conn.seat == seat for conn in self.conns)

    def _presence_changed(self, seat: int) -> None:
        if self.lease is not None:
            self._queue.put_nowait(_Presence(seat))
        elif self.forwarder is not None:
            self.forwarder.forward_presence(self, seat, self._local(seat))

    def _here(self, seat: int) -> bool | None:
        """Whether ``seat`` is connected anywhere; None while that cannot be told yet
        (an owner that has just taken over has not heard every process)."""
        if self._local(seat) or self._arriving[seat]:
            return True
        fresh = _loop_time() - PRESENCE_TTL * self.settings.lease_ttl
        reports = self._remote.get(seat, {})
        if any(count and at >= fresh for count, at in reports.values()):
            return True
        if self.forwarder is not None and self._owned_since > fresh:
            return None
        return False

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
            start, saved = snapshot
            if "table" in saved and "game" in saved:
                self.state = saved["game"]
                self.table = Table(self.record.seats, self.record.room_options, saved["table"])
            else:
                self.state = saved
            self.version = start
        for version, entry in await self.store.read_log(self.id, max(0, start - SEEN_INTENTS)):
            if version <= start:
                if entry["k"] == "intent":
                    self._remember(entry["seat"], entry["id"], version)
            else:
                self.follow(version, entry)

    async def promote(self, lease: str) -> None:
        """Become the owner: catch up with the log, then write with ``lease``.
        The clocks go on from the logged deadlines; bots and zombies resume."""
        for version, entry in await self.store.read_log(self.id, self.version):
            self.follow(version, entry)
        self.lease = lease
        self._owned_since = _loop_time()
        self._schedule()
        metrics.LEASES.labels("acquired").inc()
        log.info("room owned", extra=fields(room=self.id, lease=lease, version=self.version))

    def demote(self) -> None:
        """The lease is lost: from now on this process only follows the log."""
        if self.lease is not None:
            metrics.LEASES.labels("lost").inc()
            log.warning("room lease lost", extra=fields(room=self.id, lease=self.lease))
        self.lease = None
        self._sleep()

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
            self._idle = True
            command = await self._queue.get()
            self._idle = False
            try:
                await self._do(command)
            except NotOwner:
                self._reroute(command)
            except Exception as exc:
                if not isinstance(exc, ApiError | StoreUnavailable):
                    log.exception("room command failed", extra=fields(room=self.id))
                if isinstance(command, _Tick):  # retried, but not in a hot loop
                    self._not_before = self.timers.now() + TICK_RETRY
                if isinstance(command, _Reserve | _Call) and not command.done.done():
                    command.done.set_exception(exc)
            finally:
                self._schedule()

    async def _do(self, command: Command) -> None:
        """One command of the actor."""
        if isinstance(command, _Call) and command.op == "settle":
            command.done.set_result(None)
            return
        if isinstance(command, _Tick):
            self._ticking = False
        if self.lease is None:
            if isinstance(command, _Presence | _Tick | _Bookkeep):
                return  # the owner keeps presence, time and the record, not a replica
            raise NotOwner(f"room {self.id} is not owned here")
        if isinstance(command, _Intent):
            await self._apply_intent(command.conn, command.intent)
            metrics.INTENT_LATENCY.observe(time.perf_counter() - command.received)
        elif isinstance(command, _Reserve):
            await self._reserve(command)
        elif isinstance(command, _Call):
            command.done.set_result(await self._operate(command))
        elif isinstance(command, _Presence):
            await self._presence(command.seat)
        elif isinstance(command, _Bookkeep):
            await self._after_commit(command.result)
        else:
            await self._tick()

    def _reroute(self, command: Command) -> None:
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
        if isinstance(command, _Reserve):
            forwarded: asyncio.Future[Any] = asyncio.ensure_future(
                self.forwarder.forward_reserve(self, command.name, command.seat, command.claim)
            )
        elif isinstance(command, _Call):
            forwarded = asyncio.ensure_future(
                self.forwarder.forward_call(self, command.op, command.args)
            )
        else:
            return
        done = command.done
        forwarded.add_done_callback(lambda f: _chain(f, done))

    async def _append(self, entry: LogEntry) -> int:
        """Durably log ``entry`` as the next version and return that version.

        A lost lease demotes the room (and :meth:`_run` reroutes the command).
        Only this actor changes an owned room, so the version is still current
        when the append returns.
        """
        if self.lease is None:  # demoted by the lease keeper during this command's awaits
            raise NotOwner(f"room {self.id} is not owned here")
        version = self.version + 1
        entry.setdefault("at", self.timers.now())
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

    def _append_now(self, entry: LogEntry) -> int:
        """:meth:`_append` on an :attr:`Store.immediate` store: no await (and no store
        latency to measure)."""
        if self.lease is None:
            raise NotOwner(f"room {self.id} is not owned here")
        version = self.version + 1
        entry.setdefault("at", self.timers.now())
        try:
            self.store.append_now(self.id, version, entry, self.lease)
        except NotOwner:
            self.demote()
            raise
        return version

    def _free_seat(self, seat: int) -> int:
        names = self.record.names
        if self.record.status != "waiting":
            raise ApiError(409, "room_full", "every seat of this room is taken")
        if not 0 <= seat < len(names):
            raise ApiError(400, "bad_seat", f"seat must be 0..{len(names) - 1}")
        if names[seat] is not None:
            raise ApiError(409, "seat_taken", f"seat {seat} is taken")
        return seat

    async def _operate(self, command: _Call) -> Any:
        if command.op == "seat_bots":
            return await self._seat_bots(command.args["kind"], command.args["seats"])
        if command.op == "link_rematch":
            return await self._link_rematch(command.args["room_id"])
        raise ValueError(f"unknown room operation {command.op!r}")

    async def _seat_bots(self, kind: str, seats: list[int] | None) -> list[int]:
        names = self.record.names
        if seats is None:
            seats = [seat for seat, name in enumerate(names) if name is None]
        if not seats or self.record.status != "waiting":
            raise ApiError(409, "room_full", "every seat of this room is taken")
        for seat in seats:  # all or nothing: check every seat before taking any
            self._free_seat(seat)
        if len(set(seats)) != len(seats):
            raise ApiError(400, "bad_seat", "a seat is named twice")
        for seat in seats:
            entry = {"k": "seat", "seat": seat, "name": f"{kind} bot {seat + 1}", "bot": kind}
            self._commit(await self._append(entry), entry, self.state, [])
        await self._after_commit(None, save=True)
        return seats

    async def _link_rematch(self, room_id: str) -> str:
        if self.record.status != "finished":
            raise ApiError(409, "not_finished", "a rematch opens once the game is over")
        if self.record.rematch is not None:
            return self.record.rematch
        entry = {"k": "rematch", "room": room_id}
        self._commit(await self._append(entry), entry, self.state, [])
        await self._after_commit(None, save=True)
        return room_id

    async def _presence(self, seat: int) -> None:
        here = self._here(seat)
        table = self.table
        if (
            here is None
            or self.record.names[seat] is None
            or table.bots[seat] is not None
            or here == table.connected[seat]
        ):
            return
        entry = {"k": "presence", "seat": seat, "connected": here}
        self._commit(await self._append(entry), entry, self.state, [])
        await self._after_commit(None, save=True)

    async def _tick(self) -> None:
        """Do everything due by now: bot moves, zombie moves, abandonment."""
        while self.record.status == "playing" and self.state is not None:
            due = self.table.due(self._to_act(self.state))
            if due is None or due[0] > self.timers.now():
                return
            _, why, seat = due
            if seat is None:
                entry: LogEntry = {"k": "end", "why": "abandoned"}
                self._commit(await self._append(entry), entry, self.state, [])
                await self._after_commit(None, save=True)
                continue
            kind = self.table.bots[seat] or robots.ZOMBIE
            by = "zombie" if kind == robots.ZOMBIE else "bot"
            version = self.version + 1
            action = robots.decide(self.engine, self.state, seat, kind, self.record.seed, version)
            state, events = self.engine.apply(self.state, seat, action)
            entry = {"k": "intent", "seat": seat, "id": f"~{version}", "action": action, "by": by}
            if by == "zombie":
                entry["why"] = why
            result = self._commit(await self._append(entry), entry, state, events)
            await self._after_commit(result)
            await asyncio.sleep(0)  # a store that never waits must not starve other rooms

    # -- the room's one wake-up ----------------------------------------------

    def _schedule(self) -> None:
        """Keep one wake-up at or before the table's next due time (owner only). A
        wake-up that is due sooner is kept: it finds nothing to do and schedules the
        next, so a move that only pushes the due time on (an ``idle`` deadline moves
        with every decision) costs no timer."""
        due = None
        if self.lease is not None and self.record.status == "playing" and self.state:
            due = self.table.due(self._to_act(self.state))
        if due is None:
            self._sleep()
            return
        when = max(due[0], self._not_before)
        if self._wakeup is not None:
            if self._wakeup[0] <= when:
                return
            self._wakeup[1].cancel()
        self._wakeup = (when, self.timers.call_at(when, self._wake))

    def _sleep(self) -> None:
        if self._wakeup is not None:
            self._wakeup[1].cancel()
            self._wakeup = None

    def _wake(self) -> None:
        self._wakeup = None
        if not self._ticking:
            self._ticking = True
            self._queue.put_nowait(_Tick())

    async def _reserve(self, command: _Reserve) -> None:
        names = self.record.names
        if self.record.status == "finished":
            raise ApiError(409, Code.GAME_OVER, "the game in this room is over")
        if self.record.status != "waiting":
            raise ApiError(409, "room_full", "every seat of this room is taken")
        held = self._held()
        seat = command.seat
        if seat is None:
            free = [s for s, name in enumerate(names) if name is None and s not in held]
            if not free:
                raise self._seat_held()
            seat = free[0]
        elif not 0 <= seat < len(names):
            raise ApiError(400, "bad_seat", f"seat must be 0..{len(names) - 1}")
        elif names[seat] is not None:
            raise ApiError(409, "seat_taken", f"seat {seat} is taken")
        elif seat in held and not command.claim:
            raise self._seat_held()
        name = command.name or f"player {seat + 1}"
        token = ids.seat_token()
        # The token first: if the append then fails, the orphan token was never shown to anyone.
        await self.store.add_token(self.id, hash_token(token), seat)
        entry = {"k": "seat", "seat": seat, "name": name}
        self._commit(await self._append(entry), entry, self.state, [])
        await self.store.save_room(self.record)
        command.done.set_result((seat, token))

    def _held(self) -> set[int]:
        """The seats a rematch still holds for the finished game's players."""
        until = self.record.held_until
        if until is None or self.clock() >= until:
            return set()
        return {seat for seat, held in enumerate(self.record.held) if held}

    def _seat_held(self) -> ApiError:
        assert self.record.held_until is not None
        return ApiError(
            409,
            "seat_held",
            "this rematch holds its free seats for the last game's players; "
            "they are open to anyone after the wait",
            retry_after=self.record.held_until - self.clock(),
        )

    async def _apply_intent(self, conn: Connection, intent: Intent) -> None:
        decided = self._decide(conn, intent)
        if decided is None:
            return
        entry, state, events = decided
        try:
            version = await self._append(entry)
        except StoreUnavailable as exc:
            _refuse(conn, intent, Code.STORE_UNAVAILABLE, f"the move was not recorded: {exc}")
            return
        conn.send(_ack(conn, intent.id, version))
        await self._after_commit(self._commit(version, entry, state, events))

    def _apply_now(self, conn: Connection, intent: Intent, received: float) -> None:
        """:meth:`_apply_intent` without an await, on an :attr:`Store.immediate` store; the
        bookkeeping that waits (a snapshot, the record at the end) is left to the actor."""
        try:
            decided = self._decide(conn, intent)
            if decided is not None:
                entry, state, events = decided
                version = self._append_now(entry)
                conn.send(_ack(conn, intent.id, version))
                result = self._commit(version, entry, state, events)
                if self._at_move_limit():
                    end: LogEntry = {"k": "end", "why": "move_limit"}
                    result = self._commit(self._append_now(end), end, self.state, [])
                if result is not None or self.version % self.settings.snapshot_every == 0:
                    self._queue.put_nowait(_Bookkeep(result))
        except NotOwner:
            self._reroute(_Intent(conn, intent, received))
        except Exception:
            log.exception("room command failed", extra=fields(room=self.id))
            _refuse(conn, intent, Code.INTERNAL_ERROR, "the server failed; nothing changed")
        finally:
            metrics.INTENT_LATENCY.observe(time.perf_counter() - received)
            self._schedule()

    def _decide(
        self, conn: Connection, intent: Intent
    ) -> tuple[LogEntry, State, list[Event]] | None:
        """Check and apply an intent to the current state: the log entry, the new state
        and its events; or None, the intent answered already (a reject, or the ack of
        a retry)."""
        seat = conn.seat
        if seat is None:
            _refuse(conn, intent, Code.SPECTATOR, "spectators cannot send intents")
            return None
        # A retry of an applied intent is acked again, even if it was the last move.
        acked = self._seen[seat].get(intent.id) if seat in self._seen else None
        if acked is not None:
            conn.send(_ack(conn, intent.id, acked))
            return None
        if self.state is None:
            _refuse(conn, intent, Code.NOT_STARTED, "the game starts when every seat is taken")
            return None
        if self.record.status == "finished":
            _refuse(conn, intent, Code.GAME_OVER, "the game is over")
            return None
        if self.table.bots[seat] is not None:
            message = "this seat timed out too often; a bot plays it now"
            _refuse(conn, intent, Code.EXPELLED, message)
            return None
        try:
            state, events = self.engine.apply(self.state, seat, intent.action)
        except IllegalAction as exc:
            _refuse(conn, intent, exc.code, exc.message)
            return None
        except Exception:
            log.exception("engine failed", extra=fields(room=self.id, action=intent.action))
            _refuse(conn, intent, Code.INTERNAL_ERROR, "the engine failed; nothing changed")
            return None
        entry = {"k": "intent", "seat": seat, "id": intent.id, "action": intent.action}
        return entry, state, events

    def _at_move_limit(self) -> bool:
        """Whether the game must end now: its next entry would be the log's last allowed."""
        return self.record.status == "playing" and self.version >= self.settings.max_moves - 1

    async def _after_commit(self, result: Result | None, save: bool = False) -> None:
        """The owner's bookkeeping: a snapshot every ``snapshot_every`` versions (the
        engine's state and the table's), the record when the game ends or ``save``;
        and the end of a game whose next entry would be the log's last allowed one."""
        try:
            if self._at_move_limit():
                entry: LogEntry = {"k": "end", "why": "move_limit"}
                result = self._commit(await self._append(entry), entry, self.state, [])
        except (StoreUnavailable, NotOwner) as exc:  # the next commit tries again
            log.warning("move limit not logged", extra=fields(room=self.id, error=str(exc)))
        try:
            if self.state is not None and self.version % self.settings.snapshot_every == 0:
                snapshot = {"game": self.state, "table": self.table.dump()}
                await self.store.save_snapshot(self.id, self.version, snapshot)
            if save:
                await self.store.save_room(self.record)
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
        table, kind, at = self.table, entry["k"], entry.get("at", 0.0)
        ended = self.record.status == "finished"
        before = self._to_act(self.state)
        actor = None
        result: Result | None = None
        if kind == "seat":
            names = self.record.names
            names[entry["seat"]] = entry["name"]
            table.seat_taken(entry["seat"], at, entry.get("bot"))
            events = [{"type": "seat", "seat": entry["seat"], "name": entry["name"]}]
            if None not in names and state is None:
                state = self.engine.setup(self.record.seats, self.record.options, self.record.seed)
                self.record.status = "playing"
                events.append({"type": "start"})
                log.info("game started", extra=fields(room=self.id, engine=self.engine.id))
        elif kind == "intent":
            actor = entry["seat"]
            if "by" in entry:
                events = [{**event, "by": entry["by"]} for event in events]
                if entry["by"] == "zombie" and table.zombie_played(actor):
                    events.append({"type": "expelled", "seat": actor})
            else:
                self._remember(actor, entry["id"], version)
        elif kind == "presence":
            table.presence(entry["seat"], entry["connected"], at)
        elif kind == "end":
            self.record.status = "finished"
            result = cast(Result, {**ENDINGS[entry["why"]]})
            self.record.result = dict(result)
            events = [{"type": entry["why"]}]
        elif kind == "rematch":
            self.record.rematch = entry["room"]
            events = [{"type": "rematch", "room": entry["room"]}]
        self.state = state
        self.version = version
        self.record.updated = self.clock()
        if result is None and kind != "rematch" and not ended:
            result = self.engine.result(state) if state is not None else None
            if result is not None:
                self.record.status = "finished"
                self.record.result = dict(result)
        if self.record.status == "finished":
            table.ended(at)
        elif state is not None:
            table.turn(before, self._to_act(state), actor, at)
        if kind != "intent" or "by" in entry:  # only these change presence or bots
            self._mirror_table()
        self._publish(events, result)
        return result

    def _to_act(self, state: State | None) -> frozenset[int]:
        """The engine's ``to_act`` of ``state``, remembered for the last state asked: a
        move asks it of the same state for the clocks, the document and the wake-up.
        (States are never changed in place, so the same object has the same answer.)"""
        if state is None:
            return frozenset()
        last = self._acting
        if last is not None and last[0] is state:
            return last[1]
        seats = self.engine.to_act(state)
        self._acting = (state, seats)
        return seats

    def _mirror_table(self) -> None:
        """The lobby reads presence and bots from the record (any process's rooms)."""
        self.record.bots = list(self.table.bots)
        self.record.connected = list(self.table.connected)
        self.record.away_since = list(self.table.away_since)

    def _remember(self, seat: int, intent_id: IntentId, version: int) -> None:
        seen = self._seen.setdefault(seat, OrderedDict())
        seen[intent_id] = version
        if len(seen) > SEEN_INTENTS:
            seen.popitem(last=False)

    # -- publishing ----------------------------------------------------------

    def _group(self, seat: int | None) -> Group:
        return seat if self.engine.seat_views_differ else None

    def _doc(self, group: Group) -> dict[str, Any]:
        return self._doc_of(self.state, group)

    def _doc_of(self, state: State | None, group: Group) -> dict[str, Any]:
        return {
            "status": self.record.status,
            "seats": self.record.names.copy(),
            "to_act": sorted(self._to_act(state)),
            "game": self.engine.view(state, group) if state else None,
            "presence": self.table.presence_doc(),
            "clock": self.table.clock_doc(),
            "rematch": self.record.rematch,
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

    def _advance(self, group: Group, protocols: set[int]) -> Frames | None:
        """The patch that brings ``group`` to the current version, in each of
        ``protocols``; None when the group needs a snapshot instead."""
        previous = self._docs.get(group)
        if previous is None or previous[0] != self.version - 1:
            self._snapshot(group)  # the group starts again from this version
            return None
        doc = self._doc(group)
        for key in SHARED:  # unchanged parts become the previous version's: the diff skips them
            if doc[key] == previous[1][key]:
                doc[key] = previous[1][key]
        frames = self._encode_patch(diff(previous[1], doc), protocols)
        self._docs[group] = (self.version, doc)
        self._history[group].append((self.version - 1, frames))
        return frames

    def _encode_patch(self, ops: list[Op], protocols: set[int]) -> Frames:
        frames = {}
        if 2 in protocols:
            frames[2] = encode(self._compactor.patch(self.version, ops))
        if 1 in protocols:
            frames[1] = encode(messages.patch(self.version - 1, self.version, ops))
        return frames

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
            elif kind in _TOLD:
                text = _TOLD[kind].format(
                    who=names[event["seat"]] if "seat" in event else "", room=event.get("room")
                )
            else:
                text = self.engine.narrate(event, names)
                if event.get("by") == "zombie":
                    text += f" (a bot played for {names[event['seat']]})" if "seat" in event else ""
            told.append({**event, "text": text})
        return told

    def _publish(self, events: list[dict[str, Any]], result: Result | None) -> None:
        # Every group seen here advances, connected or not, in every protocol its
        # connections have spoken: its history stays whole.
        views_differ = self.engine.seat_views_differ
        groups: set[Group] = set(self._docs)
        if views_differ:
            groups.update([conn.seat for conn in self.conns])
        elif self.conns:
            groups.add(None)
        self._snapshots.clear()  # cached snapshots are of the previous version
        frames = {group: self._advance(group, self._spoken[group]) for group in groups}
        extra = []
        if events:
            extra.append(encode(messages.event(self.version, self._narrated(events))))
        if result is not None:
            extra.append(encode(messages.result(self.version, dict(result))))
        for conn in list(self.conns):
            group = conn.seat if views_differ else None
            patch = frames[group]
            conn.send((patch and patch.get(conn.protocol)) or self._snapshot(group))
            for frame in extra:
                conn.send(frame)
