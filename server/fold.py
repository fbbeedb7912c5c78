"""The log fold: what one committed log entry does to a room, without I/O.

A room is its record (seats taken, status, result, rematch), its
:class:`~server.table.Table` (presence, bots, clocks) and the engine's state. The
owner folds each entry it appends, a replica each entry it reads, a restart every
entry of the log: :func:`fold` is the one place that says what an entry means, so
all three end in the same room. It reads no clock (the entry's ``at`` is the time),
publishes nothing and awaits nothing; what the room then does (frames, the wake-up,
the record's save) it decides from the :class:`Folded` answer.

The entries (``k``): ``seat`` (a seat taken; the last one starts the game),
``intent`` (a decision, already applied to the state by the caller, with ``by``
for a bot's or a zombie's), ``presence`` (a seat's connection came or went),
``end`` (abandoned, or stopped at ``max_moves``) and ``rematch`` (the next room).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from engines.base import Engine, Event, Result, State
from server.store import LogEntry, RoomRecord
from server.table import Table

ABANDONED = {"scores": [], "ranks": [], "winners": [], "details": [], "abandoned": True}
"""The result of a room every player left (no ranking: the game did not end)."""
MOVE_LIMIT = {"scores": [], "ranks": [], "winners": [], "details": [], "move_limit": True}
"""The result of a game stopped at ``max_moves`` (no ranking: the game did not end)."""
ENDINGS: dict[str, dict[str, Any]] = {"abandoned": ABANDONED, "move_limit": MOVE_LIMIT}
"""The results of the log's ``end`` entries, by their ``why``."""


@dataclass(slots=True)
class Folded:
    """What an entry did: the new state, the events to publish, the result if the game
    ended with it, and what the room must look at again."""

    state: State | None
    events: list[Event]
    result: Result | None
    started: bool
    """The entry started the game (its last seat was taken)."""
    table_changed: bool
    """Presence or bots changed (the record mirrors them for the lobby)."""


def fold(
    engine: Engine,
    record: RoomRecord,
    table: Table,
    previous: State | None,
    state: State | None,
    entry: LogEntry,
    events: list[Event],
    to_act: Callable[[State | None], frozenset[int]],
) -> Folded:
    """Fold ``entry`` into ``record`` and ``table`` (changed in place) and return the new
    state. ``previous`` is the state before the entry; ``state`` and ``events`` are the
    entry's for an ``intent`` (the engine's answer: the owner validated it, a replica
    replays it), else ``previous`` and none. ``to_act`` is the engine's, remembered per
    state by the room."""
    kind, at = entry["k"], entry.get("at", 0.0)
    ended = record.status == "finished"
    before = to_act(previous)
    actor = None
    result: Result | None = None
    started = False
    if kind == "seat":
        record.names[entry["seat"]] = entry["name"]
        table.seat_taken(entry["seat"], at, entry.get("bot"))
        events = [{"type": "seat", "seat": entry["seat"], "name": entry["name"]}]
        if None not in record.names and state is None:
            state = engine.setup(record.seats, record.options, record.seed)
            record.status = "playing"
            events.append({"type": "start"})
            started = True
    elif kind == "intent":
        actor = entry["seat"]
        if "by" in entry:
            events = [{**event, "by": entry["by"]} for event in events]
            if entry["by"] == "zombie" and table.zombie_played(actor):
                events.append({"type": "expelled", "seat": actor})
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
        table.turn(before, to_act(state), actor, at)
    return Folded(state, events, result, started, kind != "intent" or "by" in entry)
