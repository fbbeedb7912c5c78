"""Property tests over random Crystal Palace games (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.base import Event, State
from engines.crystal_palace import ENGINE as cp
from engines.crystal_palace.data import characters as character_cards
from engines.crystal_palace.data import components, patents, research_tiles

LIMITS = components()["limits"]
LOAN_TILES = sum(count for _, count in components()["loans"]["tiles"])


def check(state: State, loans_taken: list[int]) -> None:
    for seat, player in enumerate(state["seats"]):
        # Money never goes negative: a cost the seat cannot pay takes loans first.
        assert player["money"] >= 0
        assert player["gears"] >= 0 and player["energy"] >= 0
        assert 0 <= player["newspapers"] <= LIMITS["newspapers"]
        assert 0 <= player["income"] <= LIMITS["income"]
        assert 0 <= player["buzz"] <= LIMITS["buzz"]
        assert LIMITS["dice"][0] <= player["dice"] <= LIMITS["dice"][1]
        assert len(player["research"]) <= LIMITS["research_spaces"]
        assert 0 <= player["goal"] <= LIMITS["goal_levels"]
        assert len(player["loans"]) == loans_taken[seat]
        on_market = sum(1 for holder in state["market"] if holder == seat)
        assert player["assistants"] + on_market == components()["start"]["assistants"]
    seats = state["seats"]
    held_patents = [c for p in seats for c in p["patents"] + p["prototypes"]]
    assert sorted(state["patents"]["row"] + state["patents"]["stack"] + held_patents) == sorted(
        patents()
    )
    held = [c for p in seats for c in p["characters"]]
    assert sorted(state["characters"]["row"] + state["characters"]["stack"] + held) == sorted(
        character_cards()
    )
    tiles = state["museum"] + state["green"] + [t for s in state["violet"].values() for t in s]
    assert sorted(tiles + [t for p in seats for t in p["research"]]) == sorted(research_tiles())
    real_loans = min(LOAN_TILES, sum(loans_taken))
    assert len(state["loans"]) == LOAN_TILES - real_loans
    assert (
        state["tickets"] + state["spent_tickets"] + sum(p["tickets"] for p in seats) == 3
        or (state["finished"])
    )


def no_secret_in(events: list[Event]) -> None:
    for event in events:
        assert event["type"] in ("ready", "loan", "exchange"), event
        assert set(event) <= {"type", "seat", "forced", "for"}


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), players=st.integers(2, 5))
def test_random_games_keep_every_invariant(seed: int, players: int) -> None:
    rnd = random.Random(seed)
    options = {name: rnd.choice(spec["choices"]) for name, spec in cp.options.items()}
    state = cp.setup(players, options, seed)
    loans = [0] * players
    reveals = 0
    while cp.result(state) is None:
        seat = rnd.choice(sorted(cp.to_act(state)))
        before = state["step"]["kind"]
        state, events = cp.apply(state, seat, rnd.choice(cp.legal_actions(state, seat)))
        for event in events:
            if event["type"] == "loan":
                loans[event["seat"]] += 1
        if before == "dice" and state["step"]["kind"] == "dice":
            no_secret_in(events)  # nothing about a die before every seat is ready
        if before == "repay" and not state["finished"]:
            assert events == []  # nothing about a repayment before every seat is ready
        reveals += sum(1 for e in events if e["type"] == "reveal")
        check(state, loans)
        assert state["round"] < len(components()["rounds"])
    assert reveals == len(components()["rounds"]) == 5
    result = cp.result(state)
    assert (
        result is not None and sorted(result["ranks"])[0] == 1 and len(result["ranks"]) == players
    )
