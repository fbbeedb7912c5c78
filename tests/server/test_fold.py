"""The log fold (server/fold.py): what each kind of log entry does to a room, and what
an intent comes to, with no room, store, clock or network."""

from __future__ import annotations

import copy
from collections import OrderedDict
from typing import Any, cast

import pytest

from engines import ENGINES
from engines.base import Engine, IllegalAction, State
from protocol.messages import IntentId
from server.fold import ABANDONED, Acting, decide, fold, rewind
from server.store import RoomRecord
from server.table import Table

SINTRA = ENGINES["sintra"]


def _room(seats: int = 2) -> tuple[RoomRecord, Table]:
    record = RoomRecord(
        id="r", engine="sintra", seats=seats, options={}, private=False, seed=7,
        created=0.0, updated=0.0, names=[None] * seats,
    )  # fmt: skip
    return record, Table(seats, {})


def _seat_everyone(record: RoomRecord, table: Table) -> State:
    state = None
    for seat in range(record.seats):
        entry = {"k": "seat", "seat": seat, "name": f"p{seat}", "at": 1.0}
        state = fold(SINTRA, record, table, state, state, entry, [], Acting(SINTRA)).state
    assert state is not None
    return state


def test_the_last_seat_taken_starts_the_game_from_the_seed() -> None:
    record, table = _room()
    first = fold(
        SINTRA, record, table, None, None, {"k": "seat", "seat": 0, "name": "ana", "at": 1.0},
        [], Acting(SINTRA),
    )  # fmt: skip
    assert (first.state, first.started, record.status) == (None, False, "waiting")
    assert first.events == [{"type": "seat", "seat": 0, "name": "ana"}]
    last = fold(
        SINTRA, record, table, None, None, {"k": "seat", "seat": 1, "name": "bo", "at": 2.0},
        [], Acting(SINTRA),
    )  # fmt: skip
    assert last.started and record.status == "playing" and record.names == ["ana", "bo"]
    assert last.state == SINTRA.setup(2, {}, 7)
    assert [event["type"] for event in last.events] == ["seat", "start"]


def test_rewind_sets_back_what_the_log_after_the_start_makes_again() -> None:
    """The stored record is the room's latest; before a rebuild folds the log again,
    rewind takes back what that log makes, and only that (the fold's own counterpart:
    tests/server/test_rebuilds.py rebuilds whole rooms)."""
    record, _ = _room(3)
    record.names = ["ana", "bo", "cy"]
    record.status, record.result, record.rematch = "finished", {"winners": [0]}, "next"
    seats = [{"k": "seat", "seat": seat, "name": "x", "at": 1.0} for seat in (0, 2)]
    rewind(record, 0, seats)  # from the log's start: the seats it takes are free again
    assert record.names == [None, "bo", None]
    assert (record.status, record.result, record.rematch) == ("waiting", None, None)

    record.status, record.result, record.rematch = "finished", {"winners": [0]}, "next"
    rewind(record, 40, [{"k": "presence", "seat": 0}])  # after a snapshot: nothing to redo
    assert (record.status, record.rematch) == ("finished", "next")
    rewind(record, 40, [{"k": "intent", "seat": 0}, {"k": "rematch"}])
    assert (record.status, record.result, record.rematch) == ("playing", None, None)


def test_a_decision_is_the_engines_state_and_events_and_a_players_is_remembered() -> None:
    record, table = _room()
    state = _seat_everyone(record, table)
    seat = min(SINTRA.to_act(state))
    action = SINTRA.legal_actions(state, seat)[0]
    after, events = SINTRA.apply(state, seat, action)
    entry = {"k": "intent", "seat": seat, "id": 1, "action": action, "at": 3.0}
    seen: dict[int, OrderedDict[IntentId, int]] = {}
    folded = fold(SINTRA, record, table, state, after, entry, events, Acting(SINTRA), seen, 9)
    assert (folded.state, folded.events, folded.result) == (after, events, None)
    assert not folded.table_changed  # a player's decision changes no presence or bot
    assert seen == {seat: OrderedDict({1: 9})}, "kept for a retry of the intent"
    assert decide(SINTRA, record, table, after, seen, seat, 1, action) == 9  # acked again
    by_bot = {**entry, "id": 2, "by": "bot"}
    bot = fold(SINTRA, record, table, state, after, by_bot, events, Acting(SINTRA), seen, 10)
    assert all(event["by"] == "bot" for event in bot.events) and bot.table_changed
    assert seen == {seat: OrderedDict({1: 9})}, "a bot's intent is not a client's to retry"


def test_presence_is_the_tables_and_an_end_finishes_the_room_with_its_result() -> None:
    record, table = _room()
    state = _seat_everyone(record, table)
    entry = {"k": "presence", "seat": 1, "connected": False, "at": 5.0}
    folded = fold(SINTRA, record, table, state, state, entry, [], Acting(SINTRA))
    assert folded.table_changed and table.away_since[1] == 5.0 and folded.state is state
    end = {"k": "end", "why": "abandoned", "at": 6.0}
    folded = fold(SINTRA, record, table, state, state, end, [], Acting(SINTRA))
    assert folded.result == ABANDONED and record.result == ABANDONED
    assert record.status == "finished" and folded.events == [{"type": "abandoned"}]
    rematch = {"k": "rematch", "room": "next", "at": 7.0}
    folded = fold(SINTRA, record, table, state, state, rematch, [], Acting(SINTRA))
    assert record.rematch == "next" and folded.result is None


def _refusal(decide_it: Any) -> str:
    with pytest.raises(IllegalAction) as refused:
        decide_it()
    return refused.value.code


def test_an_intent_is_decided_without_changing_the_room() -> None:
    record, table = _room()
    seen: dict[int, OrderedDict[IntentId, int]] = {}
    assert _refusal(lambda: decide(SINTRA, record, table, None, seen, 0, 1, {})) == "not_started"
    state = _seat_everyone(record, table)
    seat = min(SINTRA.to_act(state))
    action = SINTRA.legal_actions(state, seat)[0]
    before = copy.deepcopy(state)
    entry, after, events = decide(SINTRA, record, table, state, seen, seat, 1, action)
    assert entry == {"k": "intent", "seat": seat, "id": 1, "action": action}
    assert (after, events) == SINTRA.apply(before, seat, action) and state == before
    other = 1 - seat
    assert _refusal(lambda: decide(SINTRA, record, table, state, seen, other, 2, action)) == (
        "not_your_turn"
    )
    spectator = _refusal(lambda: decide(SINTRA, record, table, state, seen, None, 3, action))
    assert spectator == "spectator"


def test_a_retry_is_acked_again_and_refusals_follow_the_room() -> None:
    record, table = _room()
    state = _seat_everyone(record, table)
    seat = min(SINTRA.to_act(state))
    seen: dict[int, OrderedDict[IntentId, int]] = {seat: OrderedDict({"once": 4})}
    assert decide(SINTRA, record, table, state, seen, seat, "once", {"any": 1}) == 4
    table.bots[seat] = "zombie"
    assert _refusal(lambda: decide(SINTRA, record, table, state, seen, seat, 5, {})) == "expelled"
    record.status = "finished"
    assert _refusal(lambda: decide(SINTRA, record, table, state, seen, seat, 6, {})) == "game_over"
    assert decide(SINTRA, record, table, state, seen, seat, "once", {}) == 4  # even at the end


def test_to_act_is_asked_once_per_state() -> None:
    asked: list[State] = []

    class Counting:
        def to_act(self, state: State) -> frozenset[int]:
            asked.append(state)
            return frozenset({0})

    acting = Acting(cast(Engine, Counting()))
    first, second = {"n": 1}, {"n": 1}
    assert acting(None) == frozenset() and asked == []
    assert acting(first) == acting(first) == frozenset({0}) and asked == [first]
    acting(second)  # equal, but another state object: asked again
    assert len(asked) == 2
