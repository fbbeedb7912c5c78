"""A greedy Sintra bot: place the most pieces now, break the fewest, keep the glazier back.

It reads only its seat's view and the legal actions. Each take is scored by what it
does at once: pieces placed (a completed strip counts extra), pieces broken (they
cost on the broken-glass track), how far the glazier must move right (a strip to
the right leaves fewer strips reachable) and how many wild spaces it spends. A reset
is worth taking when the glazier has moved past the middle of the board. Ties go to
the bot's own seeded generator, so a bot is deterministic from its seed.
"""

from __future__ import annotations

import random
from typing import Any

from engines.base import Action

PLACED = 2.0
COMPLETED = 4.0
BROKEN = 3.0
GLAZIER_STEP = 0.6
WILD_SPENT = 0.3
RESET_AFTER = 4


class GreedyBot:
    """Greedy play for one seat (see the module docstring)."""

    def __init__(self, seat: int, seed: int | None = None) -> None:
        self.seat = seat
        self._random = random.Random(seed)

    def choose(self, view: Any, actions: list[Action]) -> Action:
        board = view["boards"][self.seat]
        scored = [(self._worth(view, board, a), i) for i, a in enumerate(actions)]
        best = max(s for s, _ in scored)
        return actions[self._random.choice([i for s, i in scored if s == best])]

    def _worth(self, view: Any, board: Any, action: Action) -> float:
        if action["type"] == "reset":
            return 1.0 if board["glazier"] >= RESET_AFTER else -1.0
        source = (
            view["center"] if action["factory"] is None else view["factories"][action["factory"]]
        )
        taken: int = source[action["color"]]
        if action["strip"] is None:
            return -BROKEN * taken
        strip = board["strips"][action["strip"]]
        empty = sum(1 for p in strip["pieces"] if p is None)
        free = sum(
            1
            for printed, piece in zip(strip["pattern"], strip["pieces"], strict=True)
            if piece is None and printed in (action["color"], -1)
        )
        placed = min(taken, free)
        worth: float = PLACED * placed - BROKEN * (taken - placed) - WILD_SPENT * action["wild"]
        worth -= GLAZIER_STEP * (action["strip"] - board["glazier"])
        return worth + (COMPLETED if placed == empty else 0.0)


GREEDY = GreedyBot
"""This game's greedy bot (engines/bots.py finds it here)."""

STRENGTH = "places the most pieces now and breaks the fewest; beats random in 99 of 100 games"
"""One line on how strong ``GREEDY`` is (benchmarks/bot_winrate.py, 2 players)."""
