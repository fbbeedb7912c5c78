"""Tiny Nim in words: move labels and the sentences of the game log."""

from __future__ import annotations

from collections.abc import Sequence

from engines.base import Event, narrate_plainly, seat_name


def stones(n: int) -> str:
    """``n`` stones, in words."""
    return f"{n} stone" if n == 1 else f"{n} stones"


def describe_take(n: int, pile: int) -> str:
    """The label of taking ``n`` of ``pile`` stones."""
    return f"take {stones(n)} ({stones(pile - n)} left)"


def narrate_event(event: Event, names: Sequence[str]) -> str:
    """One sentence for an event of the game log."""
    who = seat_name(names, event.get("seat"))
    if event["type"] == "took":
        return f"{who} takes {stones(event['stones'])}; {stones(event['left'])} left."
    if event["type"] == "won":
        return f"{who} takes the last stone and wins."
    return narrate_plainly(event, names)
