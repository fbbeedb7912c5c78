"""The end of a turn, of a round and of the game (§3.3): the next player, or the
round colour's piece to the tower, final scoring after the last round, and the
factories refilled for the next."""

from __future__ import annotations

from engines.base import Event, State
from engines.rng import Rng
from engines.sintra.data import components
from engines.sintra.scoring import final_scoring
from engines.sintra.supply import refill_factories


def end_turn(state: State, events: list[Event]) -> None:
    """§3.3: the next seat, or, once the factories and the centre are empty, the round's end."""
    if any(map(any, state["factories"])) or any(state["center"]):
        state["turn"] = (state["turn"] + 1) % state["players"]
        return
    round_color = state["indicator"][state["round"] - 1]
    state["tower"][round_color] += 1
    events.append({"type": "round_end", "round": state["round"]})
    if state["round"] == components()["rounds"]:
        final_scoring(state)
        events.append({"type": "game_end", "scores": [b["score"] for b in state["boards"]]})
        return
    state["round"] += 1
    state["center_tile"] = True
    rng = Rng(state["rng"])
    refill_factories(state, rng)
    state["rng"] = rng.state
    state["turn"] = state["start"]
