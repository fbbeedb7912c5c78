"""Chartered's scrambler (engines/chartered/hidden.py) changes everything a seat cannot
see, and only into states the game can reach, so that the conformance suite's view check
covers every hidden card."""

from __future__ import annotations

import random

from engines.chartered import ENGINE as chartered
from engines.chartered.hidden import scramble
from engines.chartered.state import cards


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
