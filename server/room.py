"""A room: one engine, its seats and connections, and the actor that changes it.

Principle 3 of the design: one task per room (``Room._run``) takes commands
from a queue and applies them strictly in order, so the game state needs no
lock. Everything that only *reads* the room (join, resync, legal actions) runs
synchronously in the caller's task between two awaits, which is consistent
because the actor replaces the state atomically.

Every change bumps the room's version (its log's length) and is published
(:mod:`server.room_frames`): per *view group* (a seat's when the engine has
private views, else everyone's), one document diffed and encoded once, its
bytes queued on every connection of the group, which numbers its own versions
and keeps its last ``settings.history`` patches for a seat that comes back.

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
they change the document, and the time a player left must survive a failover
for the grace period to hold.

The room's parts live beside it: what each log entry does, in the pure log fold
(:mod:`server.fold`), the frames of its view groups in
:mod:`server.room_frames`, what the owner does with each command in
:mod:`server.room_commands`, and its commands and protocols in
:mod:`server.room_parts`.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable
from typing import Any

from engines.base import Engine, Event, Result, State
from protocol import compact, messages
from protocol.codec import encode
from protocol.errors import Code
from protocol.messages import Intent, IntentId
from server import chat, ids, metrics
from server import room_commands as commands
from server.errors import ApiError
from server.fold import SEEN_INTENTS, Acting, fold, remember, rewind
from server.limits import Buckets
from server.logs import fields
from server.room_frames import Ack, Views
from server.room_parts import Asked as Asked
from server.room_parts import (
    Command,
    Mailbox,
    Reservation,
    _Bookkeep,
    _Call,
    _Intent,
    _loop_time,
    _Presence,
    _Reserve,
    _Tick,
)
from server.room_parts import Connection as Connection
from server.room_parts import Forwarder as Forwarder
from server.room_parts import hash_token as hash_token
from server.settings import Settings
from server.store import LogEntry, NotOwner, RoomRecord, Store, StoreUnavailable
from server.table import Table
from server.tasks import finish
from server.timers import Handle, Timers, WallTimers

log = logging.getLogger("tablewire.room")

TICK_RETRY = 1.0
"""Seconds before a wake-up that failed (the store is down) is tried again."""
OPS = ("seat_bots", "link_rematch")
"""Room operations the owner runs for a replica (``Forwarder.forward_call``)."""


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
        self.id = record.id
        """The room's id (its record's, which never changes)."""
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
        self._queue = Mailbox()
        self._task: asyncio.Task[None] | None = None
        self.saving: asyncio.Task[None] | None = None
        """The record of a game that ended, saved again until it is
        (:func:`server.room_commands.save_until_done`)."""
        self.views = Views(engine, record, settings)
        """The frames of every view group (:mod:`server.room_frames`)."""
        self.chat: deque[chat.Line] = deque(maxlen=chat.HISTORY)
        """The recent chat lines, oldest first (:mod:`server.chat`)."""
        self.chat_pace = chat.Pace(settings, clock())
        self._seen: dict[int, OrderedDict[IntentId, int]] = {}
        self._wakeup: tuple[float, Handle] | None = None
        self._ticking = False
        self._arriving: Counter[int] = Counter()
        self.presence_budget = Buckets(settings.presence_rate, settings.presence_burst)
        """Per seat (``str(seat)``): the changes of its presence the log may take now."""
        self.presence_later: dict[int, Handle] = {}
        """Seats whose presence is looked at again once their budget allows: the wake-up."""
        self._remote: dict[int, dict[str, tuple[int, float]]] = {}
        """Per seat: the connections other processes reported, by node (count, loop time)."""
        self._to_act = Acting(engine)
        """The engine's ``to_act``, remembered for the last state asked."""
        self._idle = False
        """True while the actor waits for a command (:meth:`submit`'s fast path)."""
        self._landing = False
        """True while an intent decided in :meth:`submit` waits for its append."""
        self._landed: asyncio.Future[None] | None = None
        """What the actor awaits while the room is landing."""
        self._unsure = False
        """An append was refused, yet may be logged: the log is read before the next
        decision (:func:`server.room_commands.read_back`)."""
        self._owned_since = 0.0
        self._not_before = 0.0
        """After a failed wake-up (store down), the next one waits until then."""

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"room-{self.id}")

    @property
    def keys(self) -> list[compact.Entry]:
        """Protocol 2's key table for this room (``welcome.keys``)."""
        return self.views.compactor(self).table

    async def close(self, code: str = Code.ROOM_CLOSED, message: str = "room closed") -> None:
        """Stop the actor and close every connection."""
        self._sleep()
        for later in self.presence_later.values():
            later.cancel()
        if self._task is not None:
            await finish([self._task])
        if self.saving is not None:
            await finish([self.saving])
            self.saving = None
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
        self.views.spoken[self.views.group(conn.seat)].add(conn.protocol)
        welcome = messages.welcome(
            protocol=conn.protocol,
            room=self.id,
            engine=self.engine.id,
            title=self.engine.title,
            options=self.record.options,
            seats=self.record.seats,
            seat=conn.seat,
            version=self.views.seen_by(self, conn.seat),
            keys=self.keys if conn.protocol >= 2 else None,
            seed_chosen=self.record.seed_chosen,
        )
        conn.send(encode(welcome))
        self.catch_up(conn, since)
        if self.record.status == "finished" and self.record.result is not None:
            conn.send(encode(messages.result(welcome["version"], self.record.result)))
        if self.chat:
            conn.send(encode(messages.chat(list(self.chat), history=True)))

    def detach(self, conn: Connection) -> None:
        self.conns.discard(conn)
        if conn.seat is not None:
            self._presence_changed(conn.seat)
        if not self.conns and self.record.status == "finished":
            # Nobody is watching a finished room: its frame caches go (a client
            # that comes back gets a snapshot); the room stays until swept.
            self.views.clear()

    def catch_up(self, conn: Connection, since: int | None) -> None:
        """Send the patches after ``since`` if they are still kept (none if ``since``
        is the current version), else a snapshot."""
        self.views.catch_up(self, conn, since)

    def send_legal(self, conn: Connection) -> None:
        if conn.seat is None:
            refused = messages.error(Code.SPECTATOR, "spectators have no actions", of="legal")
            metrics.ERRORS.labels(Code.SPECTATOR).inc()
            conn.send(encode(refused))
            return
        conn.send(self.views.legal(self, conn.seat))

    # -- chat, beside the game (server/chat.py) --------------------------------

    def say(self, conn: Connection, text: str) -> None:
        """``conn``'s chat line, to everyone in the room (on every process), or an
        ``error`` to ``conn`` alone. Neither the game nor the version changes."""
        refused = chat.refused(self.record, conn.seat, self.chat_pace, self.clock())
        if refused is not None:
            conn.send(refused)
            return
        said = chat.line(self.record, conn.seat, text, self.clock())
        self.hear(said)
        if self.forwarder is not None:
            self.forwarder.forward_chat(self, said)

    def hear(self, said: chat.Line) -> None:
        """A chat line said in the room (here, or on another process): kept, and sent to
        every connection here."""
        self.chat.append(said)
        frame = encode(messages.chat([said]))
        for conn in self.conns:
            conn.send(frame)

    # -- writes, through the actor's queue ----------------------------------

    def submit(self, conn: Connection, intent: Intent) -> None:
        """Apply an intent (or queue it, or forward it to the owner); its ack or reject
        follows on ``conn``.

        An intent that finds the actor idle is decided at once, in the caller's
        turn of the loop, and its append handed to the store without an await
        (:meth:`Store.append_soon`): the move is committed when the store settles
        it (at once on the memory store; in the group commit's callback on Redis), with
        no hop through the actor's queue. Until then the room is *landing*: what
        comes next queues, and the actor waits for the landing before its next
        command, so this is still one writer at a time, in order.
        """
        if conn.seat is None:  # refused where it arrives: the owner has nothing to decide
            commands.refuse_spectator(conn, intent, time.perf_counter())
        elif self.lease is None and self.forwarder is not None:
            self.forwarder.forward_intent(self, conn, intent)
        elif self._idle and not self._landing and not self._unsure and self._queue.empty():
            commands.apply_soon(self, conn, intent, time.perf_counter())
        else:
            self._queue.put_nowait(_Intent(conn, intent, time.perf_counter()))

    async def reserve(
        self,
        name: str | None,
        seat: int | None = None,
        claim: bool = False,
        asked: Asked | None = None,
        req: str | None = None,
    ) -> tuple[int, str]:
        """Take a free seat (a given one, or the first not held); returns the seat and its
        token; a seat without a name is called "player N". ``claim``: the seat's former
        player takes back the seat a rematch holds. ``asked``: the request's key; a repeat
        gets the seat it took, and its token (forwarded without one, it gets one of its
        own: :meth:`Reservation.keyed`). ``req``: the key of another process's request
        served here (Reservation.req).
        """
        ask = Reservation(name, seat, claim, asked, req)
        if self.lease is None and self.forwarder is not None:
            return await self.forwarder.forward_reserve(self, ask.keyed())
        done: asyncio.Future[tuple[int, str]] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Reserve(ask, done))
        return await done

    async def seat_bots(
        self, kind: str, seats: list[int] | None, asked: str | None = None
    ) -> list[int]:
        """Give free seats (the given ones, or all) to ``kind`` bots; returns the seats.
        ``asked``: the digest of the request's key (else one of its own: a forwarded call
        may be served by two owners in turn); a repeat answers the seats it took."""
        if asked is None:
            asked = ids.request_digest(ids.request_key(), "bots")
        args = {"kind": kind, "seats": seats, "asked": asked}
        seated: list[int] = await self._call("seat_bots", args)
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
        if self.lease is None or not (self._remote or any(self.table.connected)):
            return  # no seat connected, no report of another process: nothing to check
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

    # -- rebuilding, owning and following ------------------------------------

    async def restore(self) -> None:
        """Rebuild from the latest snapshot and the log after it (engines are deterministic).

        Entries shortly before the snapshot are read too, for their intent ids:
        a client retrying an intent acknowledged before a failover is acked
        again, never applied twice.
        """
        snapshot = await self.store.load_snapshot(self.id)
        start = 0 if snapshot is None else snapshot[0]
        entries = await self.store.read_log(self.id, max(0, start - SEEN_INTENTS))
        rewind(self.record, start, [entry for version, entry in entries if version > start])
        if snapshot is not None:
            saved = snapshot[1]
            if "table" in saved and "game" in saved:
                self.state = saved["game"]
                self.table = Table(self.record.seats, self.record.room_options, saved["table"])
            else:
                self.state = saved
            self.version = start
            self.views.restore(self, saved.get("views") if "table" in saved else None)
        for version, entry in entries:
            if version <= start:
                if entry["k"] == "intent" and "by" not in entry:  # a player's, as in fold
                    remember(self._seen, entry["seat"], entry["id"], version)
            else:
                self.follow(version, entry)

    async def promote(self, lease: str) -> None:
        """Become the owner: catch up with the log, then write with ``lease``.
        The clocks go on from the logged deadlines; bots and zombies resume."""
        for version, entry in await self.store.read_log(self.id, self.version):
            self.follow(version, entry)
        self.lease = lease
        # Another process's players are heard within a while of taking a room over; a
        # room with nothing logged has no player anywhere yet: nothing to wait for.
        self._owned_since = _loop_time() if self.version else -math.inf
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
        if self.forwarder is not None:
            self.forwarder.following(self)

    def follow(self, version: int, entry: LogEntry, owned: bool = False) -> Result | None:
        """Fold one committed log entry (a replica, or a rebuild); older ones are skipped.

        An owner ignores it: it commits its own appends itself, and a read of
        the log that started before it took the lease may return them again; but
        ``owned``: an append of its own refused, read back (the result of the game).
        """
        if (self.lease is not None and not owned) or version <= self.version:
            return None
        if version != self.version + 1:
            raise ValueError(f"room {self.id}: log entry {version} after {self.version}")
        state: State | None = self.state
        events: list[Event] = []
        if entry["k"] == "intent":
            assert state is not None, "an intent is logged only once the game runs"
            state, events = self.engine.apply(state, entry["seat"], entry["action"])
        return self._commit(version, entry, state, events)

    # -- the owner's actor ---------------------------------------------------

    async def _run(self) -> None:
        while True:
            self._idle = True
            command = await self._queue.get()
            self._idle = False
            if self._landing:
                self._landed = asyncio.get_running_loop().create_future()
                await self._landed
            try:
                await self._do(command)
            except NotOwner:
                commands.reroute(self, command)
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
        if self._unsure and not await commands.read_back(self, command):
            return  # refused: the log could not be read
        if isinstance(command, _Intent):  # the actor waits for its landing (_run)
            commands.apply_soon(self, command.conn, command.intent, command.received)
        elif isinstance(command, _Reserve):
            await commands.reserve(self, command)
        elif isinstance(command, _Call):
            command.done.set_result(await commands.operate(self, command))
        elif isinstance(command, _Presence):
            await commands.presence(self, command.seat)
        elif isinstance(command, _Bookkeep):
            await commands.after_commit(self, command.result)
        else:
            await commands.tick(self)

    async def _append(self, entry: LogEntry, token: tuple[str, int] | None = None) -> int:
        """Durably log ``entry`` as the next version and return that version;
        ``token``: a seat token (hash, seat) stored with it (both or neither).

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
            await self.store.append(self.id, version, entry, self.lease, token)
        except NotOwner:
            self.demote()
            raise
        except StoreUnavailable:
            metrics.STORE_APPEND_ERRORS.inc()
            self._unsure = True  # (it may be logged all the same)
            raise
        finally:
            metrics.STORE_APPEND.observe(time.perf_counter() - start)
        return version

    def _land(self) -> None:
        """The landing append is settled: the actor may go on."""
        self._landing = False
        landed, self._landed = self._landed, None
        if landed is not None and not landed.done():
            landed.set_result(None)

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

    def _commit(
        self,
        version: int,
        entry: LogEntry,
        state: State | None,
        events: list[Event],
        ack: Ack = None,
    ) -> Result | None:
        """Make ``version`` current: the entry folded (:func:`server.fold.fold`), then
        published (``ack``: the decision's, sent before its patch). No await inside."""
        if version != self.version + 1:
            raise RuntimeError(f"room {self.id}: version {version} after {self.version}")
        before = (self.engine, self.record, self.table, self.state)
        folded = fold(*before, state, entry, events, self._to_act, self._seen, version)
        if folded.started:
            log.info("game started", extra=fields(room=self.id, engine=self.engine.id))
        self.state = folded.state
        self.version = version
        if folded.table_changed:
            self._mirror_table()
        self.views.publish(self, folded.events, folded.result, entry["k"] == "intent", ack)
        return folded.result

    def _mirror_table(self) -> None:
        """The lobby reads presence and bots from the record (any process's rooms)."""
        self.record.bots = list(self.table.bots)
        self.record.connected = list(self.table.connected)
        self.record.away_since = list(self.table.away_since)
