"""Bots: pure functions of a seat's view that pick one of its legal actions.

A bot sees only what its seat sees (its view) and the legal actions; it never
reads the state. The runners in ``clients/`` connect bots to real rooms;
``benchmarks/bot_winrate.py`` pits them against each other in-process.

Every game has the random bot. Its greedy bot, if any, is declared by the
game's own ``bot.py`` as ``GREEDY`` (a class taking ``(seat, seed)``), or
``GREEDY = None`` for none: discovery (``engines``) refuses a game folder without
``bot.py``, or with one that fails or lacks ``GREEDY``, so no game silently falls
back to random bots. A game
with a greedy bot says how strong it is in one line, ``STRENGTH`` beside it (the
lobby shows it); :func:`kinds` lists a game's kinds, strongest first.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

import engines
from engines.base import Action


class Bot(Protocol):
    def choose(self, view: Any, actions: list[Action]) -> Action: ...


class RandomBot:
    """Picks uniformly among the legal actions, from its own seeded generator."""

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def choose(self, view: Any, actions: list[Action]) -> Action:
        return self._random.choice(actions)


KINDS = ("random", "greedy")

RANDOM_STRENGTH = "plays any legal move, at random"
"""What the random bot every game has is worth."""


def greedy(engine: str) -> Callable[[int, int], Bot] | None:
    """The greedy bot of ``engine`` as its ``bot.py`` declares it (None: it has none, or
    the engine was registered by hand, without a folder, as test doubles are)."""
    if engine not in engines.PACKAGES:
        return None
    module = engines.part(engine, "bot")
    assert module is not None, "discovery refuses a game folder without bot.py"
    found: Callable[[int, int], Bot] | None = module.GREEDY
    return found


def kinds(engine: str) -> dict[str, str]:
    """The bot kinds ``engine`` has, strongest first, each with one line on its strength."""
    found: dict[str, str] = {}
    if has_greedy(engine):
        found["greedy"] = str(getattr(engines.part(engine, "bot"), "STRENGTH", "greedy"))
    found["random"] = RANDOM_STRENGTH
    return found


def has_greedy(engine: str) -> bool:
    """Whether ``engine`` has a greedy bot."""
    return greedy(engine) is not None


def make_bot(kind: str, engine: str, seat: int, seed: int) -> Bot:
    """A bot of ``kind`` for ``seat``; engines without a greedy bot get a random one."""
    if kind not in KINDS:
        raise ValueError(f"bot kind must be {' or '.join(repr(k) for k in KINDS)}, not {kind!r}")
    chosen = greedy(engine) if kind == "greedy" else None
    return chosen(seat, seed) if chosen is not None else RandomBot(seed)
