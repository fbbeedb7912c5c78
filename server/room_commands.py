"""What the owner of a room does with each command of its actor (or at once, on a
store that never waits): an intent checked, applied and logged; a seat reserved, bots
seated, a rematch linked; presence logged; and the wake-up's bot, zombie and
abandonment moves. Each is given the :class:`~server.room.Room` it changes."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from typing import TYPE_CHECKING, Any

from engines.base import Event, IllegalAction, Result, State
from protocol.errors import Code
from protocol.messages import Intent, IntentId
from server import chat, fold, ids, matching, metrics, robots
from server.errors import ApiError
from server.logs import fields
from server.room_parts import (
    Command,
    Connection,
    _ack,
    _Bookkeep,
    _Call,
    _chain,
    _Intent,
    _loop_time,
    _Presence,
    _refuse,
    _Reserve,
    hash_token,
)
from server.store import LogEntry, NotOwner, StoreUnavailable

if TYPE_CHECKING:
    from server.room import Room

log = logging.getLogger("tablewire.room")

SAVE_AGAIN = 0.5
"""Seconds before a finished game's record that could not be saved is saved again
(:func:`save_until_done`), doubled each time up to :data:`SAVE_AGAIN_MOST`."""
SAVE_AGAIN_MOST = 30.0

PRESENCE_TTL = 3.0
"""Lease periods after which a replica's report of its connections is stale."""


def apply_soon(room: Room, conn: Connection, intent: Intent, received: float) -> None:
    """Apply an intent without an await (in its sender's turn of the loop when the room
    is idle, else by the actor): decided now (:func:`server.fold.decide`), its append
    handed to the store, and committed by :func:`_landed` when the store settles it.
    The bookkeeping that waits (a snapshot, the record at the end, the move limit's
    end) is left to the actor.

    Every move runs this and :func:`_landed` as Python (the actor is never compiled):
    the landing is a :func:`functools.partial` of :func:`_landed`, not an object with
    an ``__init__`` of its own to run.
    """
    try:
        if room.lease is None:
            raise NotOwner(f"room {room.id} is not owned here")
        decided = _decide(room, conn, intent)
        if decided is None:
            _answered(room, received)
            return
        entry, state, events = decided
        version = room.version + 1
        entry.setdefault("at", room.timers.now())
        room._landing = True
        landing = functools.partial(
            _landed,
            room,
            conn,
            intent,
            received,
            version,
            entry,
            state,
            events,
            time.perf_counter(),
        )
        room.store.append_soon(room.id, version, entry, room.lease, landing)
    except NotOwner:
        reroute(room, _Intent(conn, intent, received))
        _answered(room, received)
    except Exception:
        log.exception("room command failed", extra=fields(room=room.id))
        _refuse(conn, intent, Code.INTERNAL_ERROR, "the server failed; nothing changed")
        _answered(room, received)


def _send_ack(room: Room, conn: Connection, intent_id: IntentId, logged: int = 0) -> None:
    """The ``ack`` of ``conn``'s decision: the version of its seat's view that holds it (of
    a retry logged at ``logged``: that version, where views are numbered as the room is,
    else the seat's version now, which holds it too)."""
    views = room.views
    version = logged if logged and views.counts is None else views.seen_by(room, conn.seat)
    conn.send(_ack(conn, intent_id, version))


def _landed(
    room: Room,
    conn: Connection,
    intent: Intent,
    received: float,
    version: int,
    entry: LogEntry,
    state: State,
    events: list[Event],
    start: float,
    outcome: BaseException | None,
) -> None:
    """An intent of :func:`apply_soon` whose append the store settled with
    ``outcome``: the ack and the commit, or the intent refused (rerouted if the lease
    was lost); then the room may go on."""
    try:
        metrics.STORE_APPEND.observe(time.perf_counter() - start)
        if outcome is None:
            if room.views.counts is None:  # the room's version is the seat's (as fast as it can)
                conn.send(_ack(conn, intent.id, version))
                result = room._commit(version, entry, state, events)
            else:  # the seat's version is known once the entry is published
                ack = functools.partial(_send_ack, room, conn, intent.id)
                result = room._commit(version, entry, state, events, ack)
            _bookkeep_soon(room, result)
        elif isinstance(outcome, NotOwner):
            room.demote()
            reroute(room, _Intent(conn, intent, received))
        elif isinstance(outcome, StoreUnavailable | asyncio.CancelledError):  # or closing
            metrics.STORE_APPEND_ERRORS.inc()
            room._unsure = True  # the append may be logged all the same: read_back
            _refuse(conn, intent, Code.STORE_UNAVAILABLE, f"the move was not recorded: {outcome}")
        else:
            log.error("append failed", exc_info=outcome, extra=fields(room=room.id))
            _refuse(conn, intent, Code.INTERNAL_ERROR, "the server failed; nothing changed")
    except Exception:
        log.exception("room command failed", extra=fields(room=room.id))
        _refuse(conn, intent, Code.INTERNAL_ERROR, "the server failed; nothing changed")
    finally:
        room._land()
        _answered(room, received)


def _bookkeep_soon(room: Room, result: Result | None) -> None:
    """After a version committed: the actor's bookkeeping if it has some to do (the
    game's end, a snapshot due, the move limit reached)."""
    every = room.settings.snapshot_every
    if result is not None or room.version % every == 0 or at_move_limit(room):
        room._queue.put_nowait(_Bookkeep(result))


async def read_back(room: Room, command: Command) -> bool:
    """Before the owner decides ``command`` after one of its appends was refused: fold
    the versions its log holds past the room's, and say True. A refused append may be
    logged all the same (written on the master, then no replica confirmed it in time, or
    the answer was lost with the connection); followers fold it, and so does the next
    owner. Deciding on the state before it would refuse the next seat's move as
    ``not_your_turn``, and answer its own retry as a new move (an append whose version
    is taken: the lease given up). False if the log cannot be read: an intent is
    refused as its append would be (``store_unavailable``), any other command raises for
    the actor. Bookkeeping decides nothing: it waits for no read."""
    if isinstance(command, _Bookkeep):
        return True
    try:
        entries = await room.store.read_log(room.id, room.version)
    except StoreUnavailable as exc:
        if not isinstance(command, _Intent):
            raise
        why = f"the move was not recorded: {exc}"
        _refuse(command.conn, command.intent, Code.STORE_UNAVAILABLE, why)
        _answered(room, command.received)
        return False
    for version, entry in entries:
        _bookkeep_soon(room, room.follow(version, entry, owned=True))
    room._unsure = False
    return True


async def operate(room: Room, command: _Call) -> Any:
    """A room operation the owner runs for a replica (``Forwarder.forward_call``)."""
    if command.op == "seat_bots":
        args = command.args  # (no "asked": from a process of an earlier version)
        return await seat_bots(room, args["kind"], args["seats"], args.get("asked"))
    if command.op == "link_rematch":
        return await link_rematch(room, command.args["room_id"])
    raise ValueError(f"unknown room operation {command.op!r}")


def refuse_spectator(conn: Connection, intent: Intent, received: float) -> None:
    """A spectator's intent, refused at once on whichever process it arrives (an owner
    elsewhere need not be asked, nor be there)."""
    _refuse(conn, intent, Code.SPECTATOR, "spectators cannot send intents")
    metrics.INTENT_LATENCY.observe(time.perf_counter() - received)


def _decide(
    room: Room, conn: Connection, intent: Intent
) -> tuple[LogEntry, State, list[Event]] | None:
    """:func:`server.fold.decide` for ``conn``'s seat: the log entry, the new state and
    its events; or None, the intent answered already (a reject, or the ack of a
    retry)."""
    try:
        decided = fold.decide(
            room.engine,
            room.record,
            room.table,
            room.state,
            room._seen,
            conn.seat,
            intent.id,
            intent.action,
        )
    except IllegalAction as exc:
        _refuse(conn, intent, exc.code, exc.message)
        return None
    except Exception:
        log.exception("engine failed", extra=fields(room=room.id, action=intent.action))
        _refuse(conn, intent, Code.INTERNAL_ERROR, "the engine failed; nothing changed")
        return None
    if isinstance(decided, int):  # a retry, acked with the version it was logged at
        _send_ack(room, conn, intent.id, decided)
        return None
    return decided


def _answered(room: Room, received: float) -> None:
    metrics.INTENT_LATENCY.observe(time.perf_counter() - received)
    room._schedule()


async def reserve(room: Room, command: _Reserve) -> None:
    ask, asked = command.ask, command.ask.asked
    if asked is not None and (taken := room.table.seats_asked(asked[0])):
        command.done.set_result((taken[0], asked[1]))  # a repeat of the request
        return
    names = room.record.names
    if room.record.status == "finished":
        raise ApiError(409, Code.GAME_OVER, "the game in this room is over")
    if room.record.status != "waiting":
        raise ApiError(409, "room_full", "every seat of this room is taken")
    held = held_seats(room)
    seat = ask.seat
    if seat is None:
        seat = matching.free_seat(room.record, room.clock())
        if seat is None:
            raise seat_held(room)
    elif not 0 <= seat < len(names):
        raise ApiError(400, "bad_seat", f"seat must be 0..{len(names) - 1}")
    elif names[seat] is not None:
        raise ApiError(409, "seat_taken", f"seat {seat} is taken")
    elif seat in held and not ask.claim:
        raise seat_held(room)
    if ask.name is not None and not ask.claim:
        refused = chat.name_refusal(names, ask.name, seat, room.record.held_names)
        if refused is not None:
            raise refused
    name = ask.name or chat.seat_name(names, seat)
    token = ids.seat_token() if asked is None else asked[1]
    entry = {"k": "seat", "seat": seat, "name": name}
    if asked is not None:
        entry["rq"] = asked[0]
    # The token is stored with the entry, in one write: never a seat without its token,
    # nor a token of a seat not taken.
    room._commit(await room._append(entry, (hash_token(token), seat)), entry, room.state, [])
    # The seat is durable: answered now, the record saved next, before this room's actor
    # does anything else.
    command.done.set_result((seat, token))
    await after_commit(room, None, save=True)


def held_seats(room: Room) -> set[int]:
    """The seats a rematch still holds for the finished game's players."""
    return matching.held_seats(room.record, room.clock())


def seat_held(room: Room) -> ApiError:
    assert room.record.held_until is not None
    return ApiError(
        409,
        "seat_held",
        "this rematch holds its free seats for the last game's players; "
        "they are open to anyone after the wait",
        retry_after=room.record.held_until - room.clock(),
    )


def free_seat(room: Room, seat: int) -> int:
    names = room.record.names
    if room.record.status != "waiting":
        raise ApiError(409, "room_full", "every seat of this room is taken")
    if not 0 <= seat < len(names):
        raise ApiError(400, "bad_seat", f"seat must be 0..{len(names) - 1}")
    if names[seat] is not None:
        raise ApiError(409, "seat_taken", f"seat {seat} is taken")
    return seat


async def seat_bots(
    room: Room, kind: str, seats: list[int] | None, asked: str | None = None
) -> list[int]:
    """Bots of ``kind`` in ``seats`` (None: every free one). A repeat of a request
    (``asked``, its key's digest) answers the seats it took, and takes those it asked
    for and did not get (an append that failed midway)."""
    names = room.record.names
    done = [] if asked is None else room.table.seats_asked(asked)
    held = held_seats(room)  # a rematch's, for the last game's players: never a bot's
    if seats is None:
        free = [seat for seat, name in enumerate(names) if name is None]
        if free and set(free) <= held and not done:
            raise seat_held(room)
        seats = [seat for seat in free if seat not in held]
    seats = [seat for seat in seats if seat not in done]
    if done and not seats:
        return done
    if not seats or room.record.status != "waiting":
        raise ApiError(409, "room_full", "every seat of this room is taken")
    for seat in seats:  # all or nothing: check every seat before taking any
        free_seat(room, seat)
        if seat in held:
            raise seat_held(room)
    if len(set(seats)) != len(seats):
        raise ApiError(400, "bad_seat", "a seat is named twice")
    for seat in seats:
        entry = {"k": "seat", "seat": seat, "name": chat.bot_name(kind, seat), "bot": kind}
        if asked is not None:
            entry["rq"] = asked
        room._commit(await room._append(entry), entry, room.state, [])
    await after_commit(room, None, save=True)
    return sorted(done + seats)


async def link_rematch(room: Room, room_id: str) -> str:
    if room.record.status != "finished":
        raise ApiError(409, "not_finished", "a rematch opens once the game is over")
    if room.record.rematch is not None:
        return room.record.rematch
    entry = {"k": "rematch", "room": room_id}
    room._commit(await room._append(entry), entry, room.state, [])
    await after_commit(room, None, save=True)
    return room_id


async def presence(room: Room, seat: int) -> None:
    """Log ``seat``'s presence if it changed, within the seat's budget
    (:func:`_presence_allowed`) and while the log has room (``max_moves``); an
    expelled player's too: the zombie plays the seat, the player may still watch."""
    here = is_here(room, seat)
    table = room.table
    if (
        here is None
        or room.record.names[seat] is None
        or table.bots[seat] not in (None, robots.ZOMBIE)
        or here == table.connected[seat]
        or room.version >= room.settings.max_moves
        or not _presence_allowed(room, seat)
    ):
        return
    entry = {"k": "presence", "seat": seat, "connected": here}
    room._commit(await room._append(entry), entry, room.state, [])
    await after_commit(room, None, save=True)


def _presence_allowed(room: Room, seat: int) -> bool:
    """Whether a change of ``seat``'s presence may be logged now: the first
    ``presence_burst`` at once, then ``presence_rate`` a second. A change refused is
    looked at again once one may be logged, and logged only if the seat's presence
    still differs then: a seat reconnecting in a loop cannot grow the log (nor end the
    game at ``max_moves``, nor push its start out of the memory store's reach)."""
    now = room.timers.now()
    if room.presence_budget.take(str(seat), now):
        return True
    if seat not in room.presence_later:
        later = now + room.presence_budget.wait(str(seat), now)
        again = functools.partial(_presence_again, room, seat)
        room.presence_later[seat] = room.timers.call_at(later, again)
    return False


def _presence_again(room: Room, seat: int) -> None:
    del room.presence_later[seat]
    room._queue.put_nowait(_Presence(seat))


def is_here(room: Room, seat: int) -> bool | None:
    """Whether ``seat`` is connected anywhere; None while that cannot be told yet
    (an owner that has just taken over has not heard every process)."""
    if room._local(seat) or room._arriving[seat]:
        return True
    fresh = _loop_time() - PRESENCE_TTL * room.settings.lease_ttl
    reports = room._remote.get(seat, {})
    if any(count and at >= fresh for count, at in reports.values()):
        return True
    if room.forwarder is not None and room._owned_since > fresh:
        return None
    return False


async def tick(room: Room) -> None:
    """Do everything due by now: bot moves, zombie moves, abandonment."""
    while room.record.status == "playing" and room.state is not None:
        due = room.table.due(room._to_act(room.state))
        if due is None or due[0] > room.timers.now():
            return
        _, why, seat = due
        if seat is None:
            entry: LogEntry = {"k": "end", "why": "abandoned"}
            room._commit(await room._append(entry), entry, room.state, [])
            await after_commit(room, None, save=True)
            continue
        kind = room.table.bots[seat] or robots.ZOMBIE
        by = "zombie" if kind == robots.ZOMBIE else "bot"
        version = room.version + 1
        action = robots.decide(room.engine, room.state, seat, kind, room.record.seed, version)
        state, events = room.engine.apply(room.state, seat, action)
        entry = {"k": "intent", "seat": seat, "id": f"~{version}", "action": action, "by": by}
        if by == "zombie":
            entry["why"] = why
        result = room._commit(await room._append(entry), entry, state, events)
        await after_commit(room, result)
        await asyncio.sleep(0)  # a store that never waits must not starve other rooms


def reroute(room: Room, command: Command) -> None:
    """The one place a command meets a room this process does not own (any more):
    it goes to the owner; nothing was written here."""
    if room.forwarder is None:  # one process owns everything: this is a fault
        log.error("command for a room not owned here", extra=fields(room=room.id))
        if isinstance(command, _Reserve):
            command.done.set_exception(ApiError(503, Code.OWNER_UNAVAILABLE, "not owned"))
        return
    if isinstance(command, _Intent):
        room.forwarder.forward_intent(room, command.conn, command.intent)
        return
    if isinstance(command, _Reserve):
        forwarded: asyncio.Future[Any] = asyncio.ensure_future(
            room.forwarder.forward_reserve(room, command.ask.keyed())
        )
    elif isinstance(command, _Call):
        forwarded = asyncio.ensure_future(
            room.forwarder.forward_call(room, command.op, command.args)
        )
    else:
        return
    done = command.done
    forwarded.add_done_callback(lambda f: _chain(f, done))


def at_move_limit(room: Room) -> bool:
    """Whether the game must end now: its next entry would be the log's last allowed."""
    return room.record.status == "playing" and room.version >= room.settings.max_moves - 1


async def after_commit(room: Room, result: Result | None, save: bool = False) -> None:
    """The owner's bookkeeping: a snapshot every ``snapshot_every`` versions (the
    engine's state and the table's), the record when the game ends or ``save``;
    and the end of a game whose next entry would be the log's last allowed one."""
    try:
        if at_move_limit(room):
            entry: LogEntry = {"k": "end", "why": "move_limit"}
            result = room._commit(await room._append(entry), entry, room.state, [])
    except (StoreUnavailable, NotOwner) as exc:  # the next commit tries again
        log.warning("move limit not logged", extra=fields(room=room.id, error=str(exc)))
    try:
        if room.state is not None and room.version % room.settings.snapshot_every == 0:
            snapshot = {"game": room.state, "table": room.table.dump(), "views": room.views.dump()}
            await room.store.save_snapshot(room.id, room.version, snapshot)
    except StoreUnavailable as exc:  # the log holds the truth: the next snapshot will do
        log.warning("snapshot not saved", extra=fields(room=room.id, error=str(exc)))
    if result is not None:
        log.info("game finished", extra=fields(room=room.id, result=result))
    if save or result is not None:
        try:
            await room.store.save_room(room.record)
        except StoreUnavailable as exc:
            log.warning("record not saved", extra=fields(room=room.id, error=str(exc)))
            if result is not None:
                save_until_done(room, first=SAVE_AGAIN)


def save_until_done(room: Room, first: float = 0.0) -> None:
    """Save the record of the game that ended in ``room`` in a task of the room's
    (:attr:`Room.saving`; none if one is at it already), after ``first`` seconds and
    again until the store takes it, backing off up to :data:`SAVE_AGAIN_MOST` seconds.
    Nothing else would: the game makes no more moves, its lease may be lost meanwhile
    (a master's failover) and no process takes a finished room over, yet the lobby
    lists rooms by their records (it would show the game playing for good). The
    record of a finished game is the log's, so whichever process saves it, it is the
    same."""
    if room.saving is None:
        room.saving = asyncio.create_task(_save_until_done(room, first))


async def _save_until_done(room: Room, pause: float) -> None:
    while True:
        await asyncio.sleep(pause)
        try:
            await room.store.save_room(room.record)
        except StoreUnavailable:
            pause = min(max(2 * pause, SAVE_AGAIN), SAVE_AGAIN_MOST)
            continue
        log.info("record saved", extra=fields(room=room.id, status=room.record.status))
        room.saving = None
        return
