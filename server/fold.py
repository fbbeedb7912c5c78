"""The log fold: what one committed log entry does to a room, and what a seat's intent
comes to, without I/O.

A room is its record (seats taken, status, result, rematch), its
:class:`~server.table.Table` (presence, bots, clocks) and the engine's state. The
owner folds each entry it appends, a replica each entry it reads, a restart every
entry of the log: :func:`fold` is the one place that says what an entry means, so
all three end in the same room. It reads no clock (the entry's ``at`` is the time),
publishes nothing and awaits nothing; what the room then does (frames, the wake-up,
the record's save) it decides from the :class:`Folded` answer. Before an intent is
appended, :func:`decide` checks it against the same room and the engine and says
what it comes to (the entry, or a refusal), changing nothing.

The entries (``k``): ``seat`` (a seat taken, with ``rq`` the digest of its request's
``Idempotency-Key`` if it had one; the last one starts the game),
``intent`` (a decision, already applied to the state by the caller, with ``by``
for a bot's or a zombie's), ``presence`` (a seat's connection came or went),
``end`` (abandoned, or stopped at ``max_moves``) and ``rematch`` (the next room).

This module is compiled (pyproject.toml's ``native`` list): it is the part of a
move's path that does the room's work; the actor around it (:mod:`server.room`)
runs as Python.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Final, cast

from engines.base import Engine, Event, IllegalAction, Result, State
from protocol.errors import Code
from protocol.messages import IntentId
from server.store import LogEntry, RoomRecord
from server.table import Table, in_secret

ABANDONED: Final = {"scores": [], "ranks": [], "winners": [], "details": [], "abandoned": True}
"""The result of a room every player left (no ranking: the game did not end)."""
MOVE_LIMIT: Final = {"scores": [], "ranks": [], "winners": [], "details": [], "move_limit": True}
"""The result of a game stopped at ``max_moves`` (no ranking: the game did not end)."""
ENDINGS: Final[dict[str, dict[str, Any]]] = {"abandoned": ABANDONED, "move_limit": MOVE_LIMIT}
"""The results of the log's ``end`` entries, by their ``why``."""
SEEN_INTENTS: Final = 256
"""Intent ids remembered per seat, so a retried intent is acknowledged, not re-applied."""


class Acting:
    """An engine's ``to_act``, remembered for the last state asked: a move asks it of the
    same state for the clocks, the document and the wake-up. States are never changed
    in place, so the same object has the same answer."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.state: State | None = None
        self.seats: frozenset[int] = frozenset()

    def __call__(self, state: State | None) -> frozenset[int]:
        if state is None:
            return frozenset()
        if state is not self.state:
            self.seats = self.engine.to_act(state)
            self.state = state
        return self.seats


@dataclass(init=False)
class Folded:
    """What an entry did: the new state, the events to publish, the result if the game
    ended with it, and what the room must look at again. (One is made every move: its
    ``__init__`` is written out, compiled, not the Python one dataclasses writes.)"""

    state: State | None
    events: list[Event]
    result: Result | None
    started: bool
    """The entry started the game (its last seat was taken)."""
    table_changed: bool
    """Presence or bots changed (the record mirrors them for the lobby)."""

    def __init__(
        self,
        state: State | None,
        events: list[Event],
        result: Result | None,
        started: bool,
        table_changed: bool,
    ) -> None:
        self.state = state
        self.events = events
        self.result = result
        self.started = started
        self.table_changed = table_changed


def fold(
    engine: Engine,
    record: RoomRecord,
    table: Table,
    previous: State | None,
    state: State | None,
    entry: LogEntry,
    events: list[Event],
    to_act: Acting,
    seen: dict[int, OrderedDict[IntentId, int]] | None = None,
    version: int = 0,
) -> Folded:
    """Fold ``entry`` into ``record`` and ``table`` (changed in place) and return the new
    state. ``previous`` is the state before the entry; ``state`` and ``events`` are the
    entry's for an ``intent`` (the engine's answer: the owner validated it, a replica
    replays it), else ``previous`` and none. ``to_act`` is the engine's (the room's, which
    remembers its last answer). A player's intent is remembered in ``seen``, if given,
    as logged at ``version`` (:func:`remember`)."""
    kind, at = entry["k"], entry.get("at", 0.0)
    ended = record.status == "finished"
    before = to_act(previous)
    actor = None
    told = True
    result: Result | None = None
    started = False
    if kind == "seat":
        record.names[entry["seat"]] = entry["name"]
        table.seat_taken(entry["seat"], at, entry.get("bot"), entry.get("rq"))
        events = [{"type": "seat", "seat": entry["seat"], "name": entry["name"]}]
        if None not in record.names and state is None:
            state = engine.setup(record.seats, record.options, record.seed)
            record.status = "playing"
            events.append({"type": "start"})
            started = True
    elif kind == "intent":
        actor = entry["seat"]
        told = _told(engine, previous, state, events, before, to_act)
        if "by" in entry:
            events = [{**event, "by": entry["by"]} for event in events]
            secret = state is not None and in_secret(before, to_act(state), actor, told)
            if entry["by"] == "zombie" and not secret and table.zombie_played(actor):
                events.append({"type": "expelled", "seat": actor})
        elif seen is not None:
            remember(seen, actor, entry["id"], version)
    elif kind == "presence":
        table.presence(entry["seat"], entry["connected"], at)
    elif kind == "end":
        record.status = "finished"
        result = cast(Result, {**ENDINGS[entry["why"]]})
        record.result = dict(result)
        events = [{"type": entry["why"]}]
    elif kind == "rematch":
        record.rematch = entry["room"]
        events = [{"type": "rematch", "room": entry["room"]}]
    if result is None and kind != "rematch" and not ended:
        result = engine.result(state) if state is not None else None
        if result is not None:
            record.status = "finished"
            record.result = dict(result)
    if record.status == "finished":
        table.ended(at)
    elif state is not None:
        table.turn(before, to_act(state), actor, at, told)
    return Folded(state, events, result, started, kind != "intent" or "by" in entry)


def rewind(record: RoomRecord, start: int, tail: list[LogEntry]) -> None:
    """Set the parts of ``record`` that the log makes (seats, status, result, rematch) back
    to what they were at version ``start`` (a snapshot's; 0: none), ``tail`` the entries
    after it, before they are folded again. A stored record is the room's latest: folded
    from it, the tail would start the game at the first seat taken (its clocks with it),
    or take the game as over before its last moves (every clock stopped, and the secret
    decisions among them counted in the views they were hidden from)."""
    if start == 0:  # an empty room: each seat the log takes is taken again
        for entry in tail:
            if entry["k"] == "seat":
                record.names[entry["seat"]] = None
        record.status, record.result, record.rematch = "waiting", None, None
        return
    kinds = {entry["k"] for entry in tail}
    if "intent" in kinds or "end" in kinds:  # the game went on after the snapshot
        record.status, record.result = "playing", None
    if "rematch" in kinds:
        record.rematch = None


def decide(
    engine: Engine,
    record: RoomRecord,
    table: Table,
    state: State | None,
    seen: dict[int, OrderedDict[IntentId, int]],
    seat: int | None,
    intent_id: IntentId,
    action: Any,
) -> tuple[LogEntry, State, list[Event]] | int:
    """What a seat's intent comes to, changing nothing: the log entry to append with the
    state and events it leads to; or, for a retry of an intent already applied (in
    ``seen``, by seat), the version to ack again. A refusal raises
    :class:`~engines.base.IllegalAction` with the code and words for the player."""
    if seat is None:
        raise IllegalAction(Code.SPECTATOR, "spectators cannot send intents")
    # A retry of an applied intent is acked again, even if it was the last move.
    acked = seen[seat].get(intent_id) if seat in seen else None
    if acked is not None:
        return acked
    if state is None:
        raise IllegalAction(Code.NOT_STARTED, "the game starts when every seat is taken")
    if record.status == "finished":
        raise IllegalAction(Code.GAME_OVER, "the game is over")
    if table.bots[seat] is not None:
        raise IllegalAction(Code.EXPELLED, "this seat timed out too often; a bot plays it now")
    after, events = engine.apply(state, seat, action)
    entry: LogEntry = {"k": "intent", "seat": seat, "id": intent_id, "action": action}
    return entry, after, events


def _told(
    engine: Engine,
    previous: State | None,
    state: State | None,
    events: list[Event],
    before: frozenset[int],
    to_act: Acting,
) -> bool:
    """Whether the decision of the one seat asked (``before``), which leaves it asked,
    told the others anything: an event, or a change in what a spectator sees. Any other
    decision counts as told (:func:`server.table.in_secret` looks at the seats asked); the
    views are compared only when nothing else tells (a move that passes the turn on is
    told by that)."""
    if events or len(before) != 1 or not engine.seat_views_differ:
        return True
    if previous is None or state is None or not before <= to_act(state):
        return True
    return bool(engine.view(previous, None) != engine.view(state, None))


def remember(
    seen: dict[int, OrderedDict[IntentId, int]], seat: int, intent_id: IntentId, version: int
) -> None:
    """Keep the version of ``seat``'s intent ``intent_id`` in ``seen`` (its last
    :data:`SEEN_INTENTS`), for :func:`decide` to ack a retry again."""
    kept = seen.setdefault(seat, OrderedDict())
    kept[intent_id] = version
    if len(kept) > SEEN_INTENTS:
        kept.popitem(last=False)
