"""Property tests over random Chartered games (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.base import State
from engines.chartered import ENGINE as chartered
from engines.chartered.board import components

SHARES = components()["shares_per_company"]


def check(state: State, capital: int, supply: int) -> None:
    # Money: every ƒ a seat gains or loses goes to or comes from the bank's ledger.
    assert sum(state["cash"]) + state["bank"] == capital
    assert all(cash >= 0 for cash in state["cash"])
    assert 0 <= state["supply"] <= supply
    occupied = [held for held in state["plots"] if held]
    # Every occupied plot belongs to exactly one company on the board.
    assert all(held[0] in state["companies"] for held in occupied)
    # Pieces on the board = warehouses taken from the supply + one HQ per company.
    assert sum(h for _, h in occupied) == supply - state["supply"] + len(state["companies"])
    for company in state["companies"]:
        held = sum(sum(s[company]) for s in state["shares"])
        assert 0 <= held <= SHARES
        assert 30 <= state["companies"][company]["value"] <= 500
    for seat_shares in state["shares"]:
        assert all(c in state["companies"] for c, n in seat_shares.items() if sum(n))
    assert all(c in state["companies"] for c in state["flags"])


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    players=st.integers(2, 6),
    events=st.booleans(),
    choices=st.integers(0, 2**32),
)
def test_money_supply_and_territory_hold_in_every_state_and_games_end(
    seed: int, players: int, events: bool, choices: int
) -> None:
    rnd = random.Random(choices)
    state = chartered.setup(players, {"events": events}, seed)
    table = components()["setup"][str(players)]
    capital, supply = table["capital"] * players, table["supply"]
    check(state, capital, supply)
    for _ in range(3000):
        if state["finished"]:
            break
        seat = sorted(chartered.to_act(state))[0]
        state, _ = chartered.apply(state, seat, rnd.choice(chartered.legal_actions(state, seat)))
        check(state, capital, supply)
    assert state["finished"], "a game ends within 3000 decisions"
