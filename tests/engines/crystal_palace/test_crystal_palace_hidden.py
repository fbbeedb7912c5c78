"""Crystal Palace's scrambler (engines/crystal_palace/hidden.py) changes everything a seat
cannot see, so that the conformance suite's view check covers it: in phase 1, behind its
treasure chest, a seat sets its dice one at a time, and how many it has set so far is
as secret as their values (only whether it is ready shows)."""

from __future__ import annotations

import random

from engines.crystal_palace import ENGINE as cp
from engines.crystal_palace.hidden import scramble


def test_a_scramble_varies_how_many_dice_a_seat_still_deciding_has_set() -> None:
    state = cp.setup(3, {}, 4)
    state, _ = cp.apply(state, 1, {"type": "die", "value": 5})
    while not state["seats"][2]["ready"]:  # seat 2 sets every die
        state, _ = cp.apply(state, 2, {"type": "die", "value": 2})
    counts = set()
    for n in range(30):
        scrambled = scramble(state, 0, random.Random(n))
        seats = scrambled["seats"]
        assert len(seats[2]["secret"]) == seats[2]["dice"], "a ready seat has set them all"
        assert all(len(p["secret"]) < p["dice"] for p in seats[:2])
        assert cp.view(scrambled, 0) == cp.view(state, 0)
        counts.add(len(seats[1]["secret"]))
    assert len(counts) > 1, "how many dice seat 1 has set is hidden from seat 0"
