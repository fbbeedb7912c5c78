"""The log fold (server/fold.py): what each kind of log entry does to a room, with no
room, store, clock or network."""

from __future__ import annotations

from typing import Any

from engines import ENGINES
from engines.base import Engine, State
from server.fold import ABANDONED, fold
from server.store import RoomRecord
from server.table import Table

SINTRA = ENGINES["sintra"]


def _room(seats: int = 2) -> tuple[RoomRecord, Table]:
    record = RoomRecord(
        id="r", engine="sintra", seats=seats, options={}, private=False, seed=7,
        created=0.0, updated=0.0, names=[None] * seats,
    )  # fmt: skip
    return record, Table(seats, {})


def _to_act(engine: Engine) -> Any:
    return lambda state: engine.to_act(state) if state is not None else frozenset()


def _seat_everyone(record: RoomRecord, table: Table) -> State:
    state = None
    for seat in range(record.seats):
        entry = {"k": "seat", "seat": seat, "name": f"p{seat}", "at": 1.0}
        state = fold(SINTRA, record, table, state, state, entry, [], _to_act(SINTRA)).state
    assert state is not None
    return state


def test_the_last_seat_taken_starts_the_game_from_the_seed() -> None:
    record, table = _room()
    first = fold(
        SINTRA, record, table, None, None, {"k": "seat", "seat": 0, "name": "ana", "at": 1.0},
        [], _to_act(SINTRA),
    )  # fmt: skip
    assert (first.state, first.started, record.status) == (None, False, "waiting")
    assert first.events == [{"type": "seat", "seat": 0, "name": "ana"}]
    last = fold(
        SINTRA, record, table, None, None, {"k": "seat", "seat": 1, "name": "bo", "at": 2.0},
        [], _to_act(SINTRA),
    )  # fmt: skip
    assert last.started and record.status == "playing" and record.names == ["ana", "bo"]
    assert last.state == SINTRA.setup(2, {}, 7)
    assert [event["type"] for event in last.events] == ["seat", "start"]


def test_a_decision_is_the_engines_state_and_events_and_starts_the_next_turn() -> None:
    record, table = _room()
    state = _seat_everyone(record, table)
    seat = min(SINTRA.to_act(state))
    action = SINTRA.legal_actions(state, seat)[0]
    after, events = SINTRA.apply(state, seat, action)
    entry = {"k": "intent", "seat": seat, "id": 1, "action": action, "at": 3.0}
    folded = fold(SINTRA, record, table, state, after, entry, events, _to_act(SINTRA))
    assert (folded.state, folded.events, folded.result) == (after, events, None)
    assert not folded.table_changed  # a player's decision changes no presence or bot
    bot = fold(SINTRA, record, table, state, after, {**entry, "by": "bot"}, events, _to_act(SINTRA))
    assert all(event["by"] == "bot" for event in bot.events) and bot.table_changed


def test_presence_is_the_tables_and_an_end_finishes_the_room_with_its_result() -> None:
    record, table = _room()
    state = _seat_everyone(record, table)
    entry = {"k": "presence", "seat": 1, "connected": False, "at": 5.0}
    folded = fold(SINTRA, record, table, state, state, entry, [], _to_act(SINTRA))
    assert folded.table_changed and table.away_since[1] == 5.0 and folded.state is state
    end = {"k": "end", "why": "abandoned", "at": 6.0}
    folded = fold(SINTRA, record, table, state, state, end, [], _to_act(SINTRA))
    assert folded.result == ABANDONED and record.result == ABANDONED
    assert record.status == "finished" and folded.events == [{"type": "abandoned"}]
    rematch = {"k": "rematch", "room": "next", "at": 7.0}
    folded = fold(SINTRA, record, table, state, state, rematch, [], _to_act(SINTRA))
    assert record.rematch == "next" and folded.result is None
