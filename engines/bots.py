"""Bots: pure functions of a seat's view that pick one of its legal actions.

A bot sees only what its seat sees (its view) and the legal actions; it never
reads the state. The runners in ``clients/`` connect bots to real rooms;
``benchmarks/bot_winrate.py`` pits them against each other in-process.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

from engines.base import Action
from engines.chartered.bot import GreedyBot as CharteredGreedy
from engines.crystal_palace.bot import GreedyBot as CrystalPalaceGreedy


class Bot(Protocol):
    def choose(self, view: Any, actions: list[Action]) -> Action: ...


class RandomBot:
    """Picks uniformly among the legal actions, from its own seeded generator."""

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def choose(self, view: Any, actions: list[Action]) -> Action:
        return self._random.choice(actions)


GREEDY: dict[str, Callable[[int, int], Bot]] = {
    "chartered": CharteredGreedy,
    "crystal-palace": CrystalPalaceGreedy,
}
"""Engines with a greedy bot, by engine id."""

KINDS = ("random", "greedy")


def make_bot(kind: str, engine: str, seat: int, seed: int) -> Bot:
    """A bot of ``kind`` for ``seat``; engines without a greedy bot get a random one."""
    if kind not in KINDS:
        raise ValueError(f"bot kind must be one of {KINDS}")
    if kind == "greedy" and engine in GREEDY:
        return GREEDY[engine](seat, seed)
    return RandomBot(seed)
