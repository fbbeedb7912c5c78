"""turn-relay in words: move labels and the sentences of the game log."""

from __future__ import annotations

from collections.abc import Sequence

from engines.base import Action, Event, narrate_plainly


def describe_move(action: Action) -> str:
    """The label of a move: the colour taken and the factory it comes from."""
    return f"take colour {action.get('colour')} from factory {action.get('take')}"


def narrate_event(event: Event, names: Sequence[str]) -> str:
    """One sentence for an event of the game log."""
    return narrate_plainly(event, names)
