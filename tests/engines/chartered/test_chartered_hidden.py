"""Chartered's hidden information: the scrambler (engines/chartered/hidden.py) changes
everything a seat cannot see, and only into states the game can reach, so that the
conformance suite's view check covers every hidden card; and what the others see of a
seat's face-down shares when it must sell one."""

from __future__ import annotations

import random

from chartered_positions import company, plot_card, table

from engines.chartered import ENGINE as chartered
from engines.chartered.hidden import scramble
from engines.chartered.state import _bank_shares, cards


def event_card(event: str) -> int:
    return next(i for i, c in enumerate(cards()) if c.get("id") == event)


def _events(cards_: list[int]) -> set[int]:
    return {c for c in cards_ if cards()[c]["kind"] == "event"}


def test_a_scramble_deals_only_building_cards_into_hands() -> None:
    for seed in range(20):
        state = chartered.setup(2, {"events": True}, seed)
        for viewer in (None, 0, 1):
            scrambled = scramble(state, viewer, random.Random(seed))
            for hand in scrambled["hands"]:
                assert not _events(hand), "an event card is never held"
            assert len(_events(scrambled["deck"])) == len(_events(state["deck"]))


def test_a_scramble_varies_which_event_cards_a_small_game_shuffled_in() -> None:
    """With 2–3 players the deck holds 8 of the 12 event cards, drawn at random: which
    ones is as hidden as the deck's order."""
    state = chartered.setup(3, {"events": True}, 5)
    shuffled_in = _events(state["deck"])
    assert len(shuffled_in) == 8
    for n in range(20):
        if _events(scramble(state, None, random.Random(n))["deck"]) - shuffled_in:
            return
    raise AssertionError("the scramble never shuffles in an event card the game left out")


def test_a_sell_shares_event_asks_a_seat_whose_face_down_shares_could_give_a_choice() -> None:
    """Seat 1 holds three face-down shares when a sell-shares event comes. Whether they
    are all Goud or split with Thee, the others must see the same: seat 1 asked which to
    sell. (A sale made without asking told everyone they were all of one company.)"""
    seen = []
    for tea in (0, 1):
        state = table(players=3, events=True, hidden_shares=True)
        company(state, "gold", 29, [30, 28], 60)
        company(state, "tea", 8, [7, 16], 60)
        state["turn"] = 1
        state["shares"][1]["gold"], state["shares"][1]["tea"] = [0, 3 - tea], [0, tea]
        state["deck"] = [plot_card(5), event_card("E5")]
        state, events = chartered.apply(state, 1, {"type": "buy", "from": "deck"})
        assert chartered.to_act(state) == frozenset({1}), "seat 1 is asked"
        seen.append((chartered.view(state, 2), [chartered.narrate(e, "abc") for e in events]))
    assert seen[0] == seen[1]


def test_a_scramble_keeps_which_banks_are_empty() -> None:
    """That a company's bank is empty is public, how many shares a bank has left is not:
    the others' face-down shares are dealt again so that Goud's bank stays empty and
    Thee's and Zyde's do not become so, each seat keeping how many it holds."""
    state = table(players=3, hidden_shares=True)
    company(state, "gold", 29, [30, 28], 60)
    company(state, "tea", 8, [7, 16], 60)
    company(state, "silk", 45, [44, 46], 60)
    state["shares"][0]["gold"] = [2, 1]
    state["shares"][1]["gold"], state["shares"][1]["tea"] = [1, 3], [0, 5]
    state["shares"][2]["gold"], state["shares"][2]["silk"] = [0, 2], [1, 4]
    splits = set()
    for n in range(50):
        scrambled = scramble(state, 0, random.Random(n))
        held = scrambled["shares"]
        assert _bank_shares(scrambled, "gold") == 0
        assert _bank_shares(scrambled, "tea") > 0 and _bank_shares(scrambled, "silk") > 0
        assert held[0] == state["shares"][0], "seat 0's own shares stay"
        for seat in (1, 2):
            assert sum(down for _, down in held[seat].values()) == (8 if seat == 1 else 6)
        splits.add((held[1]["gold"][1], held[2]["gold"][1]))
    assert len(splits) > 1, "which seat holds Goud's missing shares is still hidden"
