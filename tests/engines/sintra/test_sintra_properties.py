"""Property tests over random Sintra games (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.base import State
from engines.sintra import ENGINE as sintra

PIECES_PER_COLOR = 20


def pieces_by_color(state: State) -> list[int]:
    """Count every glass piece wherever it is: bag, tower, factories, centre,
    round indicator, strips and palace windows."""
    total = [
        b + t + c for b, t, c in zip(state["bag"], state["tower"], state["center"], strict=True)
    ]
    for factory in state["factories"]:
        total = [t + f for t, f in zip(total, factory, strict=True)]
    on_board: list[int] = [] if state["finished"] else state["indicator"][state["round"] - 1 :]
    for board in state["boards"]:
        on_board += [p for s in board["strips"] if s for p in s["pieces"] if p is not None]
        on_board += [p for w in board["windows"] for p in w if p is not None]
    for piece in on_board:
        total[piece] += 1
    return total


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    players=st.integers(2, 4),
    side=st.sampled_from(["A", "B"]),
    choices=st.lists(st.integers(0, 10_000), min_size=400, max_size=400),
)
def test_the_100_glass_pieces_are_conserved_in_every_reachable_state(seed, players, side, choices):
    state = sintra.setup(players, {"side": side}, seed)
    assert pieces_by_color(state) == [PIECES_PER_COLOR] * 5
    for choice in choices:
        if state["finished"]:
            break
        (seat,) = sintra.to_act(state)
        actions = sintra.legal_actions(state, seat)
        state, _ = sintra.apply(state, seat, actions[choice % len(actions)])
        assert pieces_by_color(state) == [PIECES_PER_COLOR] * 5
        assert all(b["score"] >= 0 for b in state["boards"])
    assert state["finished"], "a game ends within 400 turns"
