"""Crystal Palace phases 6 and 7 (``rules/crystal_palace.md`` §14): income, current
events and buzz VP, then the end of the round (dice home, displays refilled, the next
season) and the start of the next round's placement."""

from __future__ import annotations

from engines.base import Event, State
from engines.crystal_palace.data import (
    components,
    limit,
    research_tiles,
)
from engines.crystal_palace.economy import (
    clamp,
    fill_displays,
    gain_effect,
    market_spaces,
)
from engines.crystal_palace.placement import next_placer


def _buzz_round_vp(buzz: int) -> int:
    return int(max(vp for start, vp in components()["buzz_round_vp"] if buzz >= start))


def phase6(state: State, events: list[Event]) -> None:
    """Income, current events (Black Market spaces, P6 research tiles), buzz VP, income drop."""
    state["phase"] = 6
    seats = state["seats"]
    for seat in state["order"]:
        seats[seat]["money"] += seats[seat]["income"]
    spaces = market_spaces(state)
    for seat in state["order"]:
        for i, holder in enumerate(state["market"]):
            if holder == seat:
                gain_effect(state, seat, spaces[i]["reward"], events)
        for tile in list(seats[seat]["research"]):
            info = research_tiles()[tile]
            if info["timing"] == "P6":
                gain_effect(state, seat, info["effect"], events)
    for seat in state["order"]:
        seats[seat]["vp"] += _buzz_round_vp(seats[seat]["buzz"])
    for player in seats:
        player["income"] = clamp(player["income"] - components()["income_drop"], limit("income"))


def phase7(state: State) -> None:
    """Dice home, displays refilled, next season's shares, gears and tickets back, round +1."""
    state["round"] += 1
    state["phase"] = 1
    state["tickets"] += state["spent_tickets"]
    state["spent_tickets"] = 0
    for player in state["seats"]:
        player["rolled"] = []
        player["unplaced"] = []
        player["passed"] = False
    fill_displays(state)
    state["step"] = {"kind": "dice"}


def begin_placement(state: State) -> None:
    state["phase"] = 2
    for player in state["seats"]:
        player["unplaced"] = list(player["rolled"])
    next_placer(state, state["order"][-1])
