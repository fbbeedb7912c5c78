"""The turn-relay workload engine against bench/turn-relay.md §2 (golden values and states)."""

from __future__ import annotations

import json

import pytest

from engines import ENGINES
from engines.base import IllegalAction
from engines.turn_relay import ENGINE as relay
from engines.turn_relay.engine import client_move, simulate, xorshift32

GOLDEN = {
    (
        0,
        0,
    ): '{"seats":[{"score":0,"hand":[0,0,0,0,0]},{"score":0,"hand":[0,0,0,0,0]},{"score":0,"hand":[0,0,0,0,0]},{"score":0,"hand":[0,0,0,0,0]}],"board":[[4,4,1,0],[3,4,2,0],[4,2,4,3],[2,3,4,3],[2,4,4,2],[4,0,2,4],[3,0,0,1],[1,2,3,2],[3,0,0,0]],"center":[],"turn":0,"moveCount":0}',
    (
        0,
        1,
    ): '{"seats":[{"score":2,"hand":[0,0,0,0,2]},{"score":0,"hand":[0,0,0,0,0]},{"score":0,"hand":[0,0,0,0,0]},{"score":0,"hand":[0,0,0,0,0]}],"board":[[4,4,4,3],[3,4,2,0],[4,2,4,3],[2,3,4,3],[2,4,4,2],[4,0,2,4],[3,0,0,1],[1,2,3,2],[3,0,0,0]],"center":[1,0],"turn":1,"moveCount":1}',
    (
        0,
        2,
    ): '{"seats":[{"score":2,"hand":[0,0,0,0,2]},{"score":1,"hand":[0,0,0,1,0]},{"score":0,"hand":[0,0,0,0,0]},{"score":0,"hand":[0,0,0,0,0]}],"board":[[4,4,4,3],[3,2,4,4],[4,2,4,3],[2,3,4,3],[2,4,4,2],[4,0,2,4],[3,0,0,1],[1,2,3,2],[3,0,0,0]],"center":[1,0,4,2,0],"turn":2,"moveCount":2}',
    (
        0,
        100,
    ): '{"seats":[{"score":44,"hand":[19,4,5,8,8]},{"score":45,"hand":[8,4,4,15,14]},{"score":38,"hand":[9,4,8,11,6]},{"score":36,"hand":[4,5,12,10,5]}],"board":[[3,2,0,0],[1,2,0,2],[0,3,1,3],[3,1,0,4],[1,0,0,1],[4,2,0,1],[4,4,4,3],[0,4,1,1],[4,0,3,3]],"center":[2,3,2,0,4,2],"turn":0,"moveCount":100}',
    (
        7,
        1000,
    ): '{"seats":[{"score":410,"hand":[96,76,71,84,83]},{"score":395,"hand":[76,75,73,84,87]},{"score":400,"hand":[78,74,85,81,82]},{"score":380,"hand":[74,84,77,73,72]}],"board":[[3,1,2,3],[3,1,4,2],[0,2,3,0],[3,0,1,1],[3,4,3,1],[2,1,3,3],[3,0,2,2],[4,3,1,0],[0,0,4,2]],"center":[],"turn":0,"moveCount":1000}',
    (
        3,
        3000,
    ): '{"seats":[{"score":1213,"hand":[69,5,47,42,50]},{"score":1211,"hand":[24,28,62,61,36]},{"score":1151,"hand":[40,19,45,18,29]},{"score":1236,"hand":[80,55,26,49,26]}],"board":[[2,1,2,1],[1,1,2,3],[1,4,3,1],[2,2,2,3],[1,4,0,2],[0,3,4,0],[0,4,0,4],[0,0,2,1],[2,4,1,3]],"center":[3,2,3,4,3,4,1,3,3,1,4,0],"turn":0,"moveCount":3000}',
}


def canonical_json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def test_xorshift32_check_values() -> None:
    for seed, expected in (
        (1, [270369, 67634689, 2647435461, 307599695, 2398689233, 745495504]),
        (8, [2162952, 537014280, 2791531049]),
    ):
        x, values = seed, []
        for _ in expected:
            x = xorshift32(x)
            values.append(x)
        assert values == expected


@pytest.mark.parametrize(("room", "moves"), list(GOLDEN))
def test_golden_states(room: int, moves: int) -> None:
    assert canonical_json(simulate(room, moves)) == GOLDEN[(room, moves)]


def test_registered_and_the_same_view_for_everyone() -> None:
    assert ENGINES["turn-relay"] is relay
    state = relay.setup(4, {}, 5)
    assert relay.view(state, None) == relay.view(state, 2)
    assert not relay.seat_views_differ


@pytest.mark.parametrize(
    ("seat", "action", "code"),
    [
        (1, {"take": 0, "colour": 4}, "not_your_turn"),
        (0, {"take": 9, "colour": 4}, "no_such_factory"),
        (0, {"take": True, "colour": 4}, "no_such_factory"),
        (0, {"take": 0, "colour": 5}, "no_such_colour"),
        (0, {"take": 0, "colour": 2}, "colour_not_in_factory"),
        (0, {"take": 0}, "bad_action"),
    ],
)
def test_rejections_leave_the_state_untouched(seat: int, action: dict[str, int], code: str) -> None:
    state = relay.setup(4, {}, 0)
    before = canonical_json(state)
    with pytest.raises(IllegalAction) as refused:
        relay.apply(state, seat, action)
    assert refused.value.code == code
    assert canonical_json(state) == before


def test_the_client_move_is_always_legal_and_the_game_ends_at_the_limit() -> None:
    state = relay.setup(4, {"moves": 12}, 3)
    while relay.result(state) is None:
        move = client_move(relay.view(state, None))
        assert move in relay.legal_actions(state, state["turn"])
        state, _ = relay.apply(state, state["turn"], move)
    assert state["moveCount"] == 12 and relay.to_act(state) == frozenset()
