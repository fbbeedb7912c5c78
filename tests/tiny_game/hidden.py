"""Tiny Nim's hidden information, for the conformance suite: :func:`scramble` returns a
copy of a state changed only in what a viewer must not see (its view must not change)."""

from __future__ import annotations

import random

from engines.base import State


def scramble(state: State, viewer: int | None, rnd: random.Random) -> State:
    """Hidden: the generator's state (it already chose who starts)."""
    return {**state, "rng": rnd.getrandbits(64)}
