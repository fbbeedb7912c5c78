"""Bots: pure functions that pick an action from the legal ones.

A bot sees only what its seat sees (its view) and the legal actions; it never
reads the state. The runners in ``clients/`` connect bots to real rooms.
"""

from __future__ import annotations

import random
from typing import Any

from engines.base import Action


class RandomBot:
    """Picks uniformly among the legal actions, from its own seeded generator."""

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def choose(self, view: Any, actions: list[Action]) -> Action:
        return self._random.choice(actions)
