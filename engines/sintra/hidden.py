"""Sintra's hidden information, for the conformance suite: :func:`scramble` returns a
copy of a state changed only in what a viewer must not see (its view must not change)."""

from __future__ import annotations

import random

from engines.base import State, copy_state


def scramble(state: State, viewer: int | None, rnd: random.Random) -> State:
    """The bag's and the tower's colour mix, and the PRNG, are hidden from everyone."""
    scrambled = copy_state(state)
    for pile in ("bag", "tower"):
        total = sum(scrambled[pile])
        counts = [0] * len(scrambled[pile])
        for _ in range(total):
            counts[rnd.randrange(len(counts))] += 1
        scrambled[pile] = counts
    scrambled["rng"] = rnd.getrandbits(64)
    return scrambled
