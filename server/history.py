"""A room's game record, replayed from its log without I/O: ``GET /api/rooms/{id}/record``.

The log holds every committed entry from version 1 (seats taken, decisions,
presence, the end), and engines are deterministic from the seed: folding the
entries again (:func:`server.fold.fold`, as a replica does) gives every event
the room published, narrated as the players read them. The record is what any
viewer may see at any time: the narrated log (events are sent to everyone
alike) and, per decision, its sentences and, if it told any, its seat; its
versions are the spectators' (a secret decision is not counted, nor listed before
the game is over: :mod:`server.room_frames`). The
actions themselves, their labels, the seats of the decisions that told nothing
and the seed come only once the game is over: an action may name what its seat
alone could see (a card in hand), a silent decision's seat would say who acted in
a secret step (Crystal Palace's newspapers exchanged in the final repayment), and
the seed reveals the bag.

A long game's log may no longer start at version 1 (the memory store keeps
``memory_log`` entries before a room's latest snapshot): it cannot be replayed,
but what is kept of it can be told, folded from that snapshot on (``trimmed``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from engines.base import Engine, Event, State
from server.fold import Acting, fold, rewind
from server.room_frames import narrate
from server.store import LogEntry, RoomRecord
from server.table import Table

RECORD_FORMAT = 1
"""The record's ``format``: raised when a field changes meaning (fields may be added)."""


class TrimmedLog(Exception):
    """The log no longer starts at version 1 (the memory store keeps ``memory_log``
    entries before a room's latest snapshot): the game cannot be replayed."""


def game_record(
    engine: Engine,
    record: RoomRecord,
    entries: Sequence[tuple[int, LogEntry]],
    views: bool = False,
    snapshot: tuple[int, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The record of ``record``'s game from its log ``entries`` (every version from 1);
    with ``views``, also the room document a spectator held at the start and after each
    move (``views[n]``: after move ``n``), for a viewer that steps through the game.

    A log that no longer starts at version 1 raises :class:`TrimmedLog`, unless the
    room's latest ``snapshot`` is given (and no ``views``): then the record tells what
    is kept, from the snapshot on, and says so (``trimmed``: true)."""
    over = record.status == "finished"
    replayed = dataclasses.replace(
        record,
        names=[None] * record.seats,
        status="waiting",
        result=None,
        rematch=None,
        bots=[None] * record.seats,
        connected=[False] * record.seats,
        away_since=[None] * record.seats,
        held=[],
        held_until=None,
        held_names=[],
    )
    table = Table(record.seats, record.room_options)
    state: State | None = None
    public = 0
    trimmed = bool(entries) and entries[0][0] != 1
    if trimmed:
        if snapshot is None or views or "table" not in snapshot[1]:
            raise TrimmedLog(f"the log of room {record.id} starts at version {entries[0][0]}")
        start, saved = snapshot
        if entries[0][0] > start + 1:  # trimmed past the snapshot read before it
            raise TrimmedLog(f"the log of room {record.id} starts after its snapshot")
        entries = [(version, entry) for version, entry in entries if version > start]
        replayed.names, replayed.status = list(record.names), record.status
        replayed.result, replayed.rematch = record.result, record.rematch
        rewind(replayed, start, [entry for _, entry in entries])
        state, table = saved["game"], Table(record.seats, record.room_options, saved["table"])
        counts = saved.get("views") if engine.seat_views_differ else None
        public = counts[0] if counts else start
    told: list[dict[str, Any]] = []
    moves: list[dict[str, Any]] = []
    docs: list[dict[str, Any]] = []
    to_act = Acting(engine)
    seen = _spectators_doc(engine, replayed, state) if trimmed and state is not None else None
    for _, entry in entries:
        previous = state
        events: list[Event] = []
        intent = entry["k"] == "intent"
        if intent and state is not None:
            state, events = engine.apply(state, entry["seat"], entry["action"])
        folded = fold(engine, replayed, table, previous, state, entry, events, to_act)
        state = folded.state
        # The spectators' version (server.room_frames): a decision that told nothing and
        # changed nothing they see is not counted, and not shown before the game is over.
        looked = views or engine.seat_views_differ
        doc = _spectators_doc(engine, replayed, state) if looked and state is not None else None
        hidden = engine.seat_views_differ and intent and not folded.events and doc == seen
        seen = doc
        if not hidden:
            public += 1
        names = [name or f"seat {i + 1}" for i, name in enumerate(replayed.names)]
        sentences = [event["text"] for event in narrate(engine, names, folded.events)]
        told.extend({"v": public, "text": text} for text in sentences)
        if intent and (over or not hidden) and not trimmed:  # a kept move's number is lost
            moves.append(_move(engine, entry, public, len(moves) + 1, sentences, previous, over))
        if views and doc is not None and (folded.started or (intent and (over or not hidden))):
            docs.append(doc)
    players = [
        {"seat": seat, "name": name, "bot": bot}
        for seat, (name, bot) in enumerate(zip(record.names, record.bots, strict=False))
    ]
    data: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "room": record.id,
        "engine": engine.id,
        "title": engine.title,
        "options": record.options,
        "room_options": record.room_options,
        "status": record.status,
        "players": players,
        "created": record.created,
        "version": public,
        "moves": moves,
        "log": told,
        "result": record.result,
    }
    if trimmed:
        data["trimmed"] = True
    if over:
        data["seed"] = record.seed
    if views:
        data["views"] = docs
    return data


def _spectators_doc(engine: Engine, record: RoomRecord, state: State) -> dict[str, Any]:
    """The room document of a spectator (no seat's secrets: ``view(state, None)``)."""
    return {
        "status": record.status,
        "seats": list(record.names),
        "to_act": sorted(engine.to_act(state)),
        "game": engine.view(state, None),
    }


def _move(
    engine: Engine,
    entry: LogEntry,
    version: int,
    number: int,
    sentences: list[str],
    before: State | None,
    over: bool,
) -> dict[str, Any]:
    move: dict[str, Any] = {"n": number, "v": version, "at": entry.get("at"), "text": sentences}
    if over or sentences:  # a silent move's seat could tell a secret step's moves apart
        move["seat"] = entry["seat"]
        if "by" in entry:
            move["by"] = entry["by"]
    if over and before is not None:
        move["action"] = entry["action"]
        move["label"] = engine.describe(before, entry["seat"], entry["action"])
    return move
