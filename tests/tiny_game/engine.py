"""Tiny Nim's rules: two players take one to three stones in turn; whoever takes the
last stone wins; who starts is drawn from the room's seed. Pure functions over plain
data (engines/base.py's contract); the generator's state lives in the game state."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engines.base import (
    Action,
    Event,
    IllegalAction,
    Result,
    State,
    View,
    check_turn,
    resolve_options,
)
from engines.rng import Rng, seed_state

from .words import describe_take, narrate_event

MOST = 3
"""The most stones one turn may take."""


class TinyNim:
    """Tiny Nim as an :class:`engines.base.Engine`."""

    id = "tiny-nim"
    title = "Tiny Nim"
    min_players = 2
    max_players = 2
    kind = "game"
    seat_views_differ = False

    @property
    def options(self) -> Mapping[str, Mapping[str, Any]]:
        return {
            "stones": {
                "choices": [7, 10, 15],
                "default": 10,
                "name": "Pile size",
                "description": "How many stones the pile starts with: 10 by default.",
            }
        }

    def setup(self, players: int, options: Mapping[str, Any], seed: int) -> State:
        if players != 2:
            raise ValueError("Tiny Nim is played by 2")
        rng = Rng(seed_state(seed))
        first = rng.below(2)
        pile = resolve_options(self, options)["stones"]
        return {"pile": pile, "turn": first, "winner": None, "rng": rng.state}

    def to_act(self, state: State) -> frozenset[int]:
        return frozenset() if state["winner"] is not None else frozenset({state["turn"]})

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if seat not in self.to_act(state):
            return []
        return [{"type": "take", "stones": n} for n in range(1, min(MOST, state["pile"]) + 1)]

    def apply(self, state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
        check_turn(self, state, seat, action, state["winner"] is not None)
        stones = action.get("stones")
        if action["type"] != "take" or set(action) != {"type", "stones"}:
            raise IllegalAction("bad_action", "the only action is {type: take, stones: n}")
        if type(stones) is not int or not 1 <= stones <= min(MOST, state["pile"]):
            raise IllegalAction("bad_stones", f"take 1 to {min(MOST, state['pile'])} stones")
        pile = state["pile"] - stones
        events: list[Event] = [{"type": "took", "seat": seat, "stones": stones, "left": pile}]
        winner = seat if pile == 0 else None
        if winner is not None:
            events.append({"type": "won", "seat": seat})
        return {**state, "pile": pile, "turn": 1 - seat, "winner": winner}, events

    def view(self, state: State, viewer: int | None) -> View:
        return {"pile": state["pile"], "turn": state["turn"], "winner": state["winner"]}

    def result(self, state: State) -> Result | None:
        winner = state["winner"]
        if winner is None:
            return None
        scores = [int(seat == winner) for seat in (0, 1)]
        return {
            "scores": scores,
            "ranks": [1 if score else 2 for score in scores],
            "winners": [winner],
            "details": [{"took_the_last": bool(score)} for score in scores],
        }

    def describe(self, state: State, seat: int, action: Action) -> str:
        return describe_take(action["stones"], state["pile"])

    def narrate(self, event: Event, names: Sequence[str]) -> str:
        return narrate_event(event, names)
