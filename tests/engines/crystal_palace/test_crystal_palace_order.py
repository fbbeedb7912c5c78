"""Crystal Palace phase 4: the player orders its character abilities where the order
can matter (issue 10 item 16); elsewhere every order gives the same outcome."""

from __future__ import annotations

import itertools

import msgpack
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.base import State, copy_state
from engines.crystal_palace import ENGINE as cp
from engines.crystal_palace.data import characters
from engines.crystal_palace.salaries import order_matters, use_ability
from support import end_of_phase3, game

ABILITIES = sorted(c for c, card in characters().items() if "ability" in card)


def test_the_player_orders_abilities_when_a_cost_could_find_no_money() -> None:
    """£0 after salaries: Krupp's −£1 before Levi Strauss' +£2 costs nothing."""
    state = game(2)
    state["seats"][0].update(characters=["C02", "C25"], money=3, income=0)  # salaries 1 + 2
    state = end_of_phase3(state)
    assert state["step"] == {"kind": "abilities", "seat": 0, "left": ["C02", "C25"]}
    assert [a for a in cp.legal_actions(state, 0) if a["type"] == "ability"] == [
        {"type": "ability", "card": "C02"},
        {"type": "ability", "card": "C25"},
    ]
    state, events = cp.apply(state, 0, {"type": "ability", "card": "C25"})
    assert state["seats"][0]["money"] == 2  # the last ability ran by itself
    assert [e["card"] for e in events if e["type"] == "ability"] == ["C25", "C02"]


def test_abilities_whose_order_cannot_matter_run_unasked() -> None:
    state = game(2)
    state["seats"][0].update(characters=["C02", "C25"], money=20, income=0)
    state = end_of_phase3(state)
    assert state["round"] == 1 and state["seats"][0]["money"] == 20 - 3 + 2 - 1


def _outcomes(state: State, cards: tuple[str, ...]) -> set[bytes]:
    seen = set()
    for order in itertools.permutations(cards):
        trial = copy_state(state)
        for card in order:
            use_ability(trial, 0, card, [])
        seen.add(msgpack.packb(trial["seats"][0]))
    return seen


@settings(max_examples=300, deadline=None)
@given(
    cards=st.lists(st.sampled_from(ABILITIES), min_size=2, max_size=4, unique=True),
    money=st.integers(0, 4),
    newspapers=st.integers(0, 7),
    buzz=st.integers(0, 40),
    westminster=st.integers(0, 13),
)
def test_when_order_cannot_matter_every_order_gives_the_same_seat(
    cards: list[str], money: int, newspapers: int, buzz: int, westminster: int
) -> None:
    state = game(2)
    state["seats"][0].update(
        characters=cards,
        money=money,
        newspapers=newspapers,
        buzz=buzz,
        buzz_peak=buzz,
        westminster=westminster,
    )
    if not order_matters(state, 0, cards):
        assert len(_outcomes(state, tuple(cards))) == 1


def test_the_order_check_flags_a_real_difference() -> None:
    state = game(2)
    state["seats"][0].update(characters=["C19", "C28"], newspapers=7)  # +1, then −1
    assert order_matters(state, 0, ["C19", "C28"])
    assert len(_outcomes(state, ("C19", "C28"))) == 2
