"""Chartered positions built by hand for the rules, words, bot and renderer tests: a
table with nothing built, companies put on the board, cards by what they show."""

from __future__ import annotations

from typing import Any

from engines.base import State
from engines.chartered import ENGINE as chartered
from engines.chartered.state import cards


def plot_card(plot: int) -> int:
    return next(i for i, c in enumerate(cards()) if c.get("plot") == plot)


def level_card(level: int) -> int:
    return next(i for i, c in enumerate(cards()) if c.get("level") == level)


def table(players: int = 2, **options: Any) -> State:
    """A game with nothing built, seat 0 to play, hands emptied."""
    state = chartered.setup(players, options, seed=3)
    state["turn"] = 0
    state["hands"] = [[] for _ in range(players)]
    return state


def company(state: State, name: str, hq: int, plots: list[int], value: int) -> None:
    """Put a company on the board: its HQ plot at height 2, the others at 1."""
    state["companies"][name] = {"value": value, "hq": hq}
    state["plots"][hq] = [name, 2]
    for plot in plots:
        state["plots"][plot] = [name, 1]
    state["supply"] -= 1 + len(plots)


def play(state: State, seat: int, *actions: dict[str, Any]) -> State:
    for action in actions:
        state, _ = chartered.apply(state, seat, action)
    return state


def build(card: int, plot: int | None = None) -> dict[str, Any]:
    return {"type": "build", "card": card} | ({"plot": plot} if plot is not None else {})
