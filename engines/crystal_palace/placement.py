"""Crystal Palace phases 1 and 2 (``rules/crystal_palace.md`` §4, §5, §7.1): setting the
dice in secret and revealing them, placing dice, and the assistant actions."""

from __future__ import annotations

from typing import Any

from engines.base import (
    Action,
    Event,
    State,
    copy_state,
    same,
)
from engines.crystal_palace.data import components, layout, limit, location_order
from engines.crystal_palace.economy import (
    dice_cost,
    do_exchange,
    free_actions,
    gain_effect,
    market_spaces,
    measure,
    pay,
)
from engines.crystal_palace.resolution import begin_resolution
from engines.rng import Rng

# -- phase 1: dice (§4) ----------------------------------------------------------------


def dice_actions(state: State, seat: int) -> list[Action]:
    low, high = limit("die_values")
    return [{"type": "die", "value": v} for v in range(low, high + 1)]


def do_die(state: State, seat: int, action: Action, events: list[Event]) -> None:
    player = state["seats"][seat]
    player["secret"].append(action["value"])
    if len(player["secret"]) == player["dice"]:
        player["ready"] = True
        events.append({"type": "ready", "seat": seat})


def reveal_round(state: State, events: list[Event]) -> None:
    """§4 steps 2–5, once every seat is ready: reveal, pay, first player, newspapers."""
    seats = state["seats"]
    previous = state["order"]
    for player in seats:
        player["rolled"] = sorted(player["secret"], reverse=True)
        player["secret"] = []
        player["ready"] = False
    keys = [(sum(p["rolled"]), p["rolled"]) for p in seats]
    best = max(keys)
    tied = [s for s, key in enumerate(keys) if key == best]
    if len(tied) == 1:
        first = tied[0]
    elif state["round"] == 0:
        rng = Rng(state["rng"])
        first = tied[rng.below(len(tied))]
        state["rng"] = rng.state
    else:
        first = min(tied, key=previous.index)
    n = state["players"]
    state["order"] = [(first + i) % n for i in range(n)]
    totals = [sum(p["rolled"]) for p in seats]
    paid = [dice_cost(state, seat, p["rolled"]) for seat, p in enumerate(seats)]
    for seat in state["order"]:
        pay(state, seat, paid[seat], events)
    lowest = min(totals)
    if len(set(totals)) == 1:
        readers = [s for s in range(n) if s != first]
    else:
        readers = [s for s in range(n) if totals[s] == lowest]
    for seat in readers:
        gain_effect(state, seat, {"newspapers": components()["newspaper_for_lowest_total"]}, events)
    events.append(
        {
            "type": "reveal",
            "dice": [p["rolled"] for p in seats],
            "first": first,
            "newspapers": readers,
            "paid": paid,
        }
    )


# -- phase 2: placement (§5) and assistants (§7.1) ----------------------------------------


def place_actions(state: State, seat: int) -> list[Action]:
    actions: list[Action] = []
    values = sorted(set(state["seats"][seat]["unplaced"]), reverse=True)
    for location in location_order(state["options"]):
        spaces = layout(location, state["players"])["placement"]
        for i, held in enumerate(state["board"][location]["placed"]):
            if held is None:
                actions += [
                    {"type": "place", "location": location, "space": i, "value": v}
                    for v in values
                    if v >= spaces[i]["min"]
                ]
    return [*actions, {"type": "pass"}]


def _placement_is_legal(state: State, seat: int, action: Action) -> bool:
    """The same answer as looking ``action`` up in ``place_actions``, without building them."""
    if action.keys() != {"type", "location", "space", "value"}:
        return False
    location, space, value = action["location"], action["space"], action["value"]
    if type(location) is not str or type(space) is not int or type(value) is not int:
        return False
    board = state["board"].get(location)
    if board is None or not 0 <= space < len(board["placed"]) or board["placed"][space] is not None:
        return False
    minimum = layout(location, state["players"])["placement"][space]["min"]
    return value >= minimum and value in state["seats"][seat]["unplaced"]


def is_legal(state: State, seat: int, action: Action, legal_actions: Any) -> bool:
    if action["type"] == "place" and state["step"]["kind"] == "place":
        return _placement_is_legal(state, seat, action)
    return any(same(action, legal) for legal in legal_actions(state, seat))


def next_placer(state: State, after: int) -> None:
    """§5.5: the next seat clockwise (in this round's order) with dice left, or phase 3."""
    order = state["order"]
    start = order.index(after)
    for i in range(1, len(order) + 1):
        seat = order[(start + i) % len(order)]
        player = state["seats"][seat]
        if player["unplaced"] and not player["passed"]:
            state["turn"] = seat
            state["step"] = {"kind": "place"}
            return
    begin_resolution(state)


def do_place(state: State, seat: int, action: Action, events: list[Event]) -> None:
    location, space, value = action["location"], action["space"], action["value"]
    player = state["seats"][seat]
    player["unplaced"].remove(value)
    state["board"][location]["placed"][space] = [seat, value]
    events.append(
        {"type": "place", "seat": seat, "location": location, "space": space, "value": value}
    )
    printed = layout(location, state["players"])["placement"][space]
    if printed["fee"]:
        pay(state, seat, printed["fee"], events)
    if printed["assistant"] and (
        len(assistant_actions(state, seat)) > 1 or _exchanges_would_meet_goal(state, seat)
    ):
        state["step"] = {"kind": "assistant", "seat": seat}
        return
    next_placer(state, seat)


def _exchanges_would_meet_goal(state: State, seat: int) -> bool:
    """§8: gears or a die bought with newspapers can meet the next goal level
    (Prussia counts gears and energy, Japan dice); then the seat is asked."""
    for kind in ("gear", "die"):
        trial = state
        exchange = {"type": "exchange", "for": kind}
        while exchange in free_actions(trial, seat):
            trial = copy_state(trial)
            do_exchange(trial, seat, exchange, [])
            if goal_met(trial, seat):
                return True
    return False


def do_pass(state: State, seat: int, action: Action, events: list[Event]) -> None:
    state["seats"][seat]["passed"] = True
    events.append({"type": "pass", "seat": seat})
    next_placer(state, seat)


def goal_met(state: State, seat: int) -> bool:
    player = state["seats"][seat]
    nation = next(n for n in components()["nations"] if n["id"] == player["nation"])
    if player["goal"] >= len(nation["levels"]):
        return False
    need = nation["levels"][player["goal"]]
    return all(measure(state, seat, name) >= value for name, value in need.items())


def market_above(state: State, start: int) -> int | None:
    """The lowest free Black Market space above ``start`` (−1: from the bottom)."""
    for i in range(start + 1, len(state["market"])):
        if state["market"][i] is None:
            return i
    return None


def assistant_actions(state: State, seat: int) -> list[Action]:
    actions: list[Action] = []
    if goal_met(state, seat):
        actions.append({"type": "goal"})
    if state["seats"][seat]["assistants"] and market_above(state, -1) is not None:
        actions.append({"type": "market"})
    for i, holder in enumerate(state["market"]):
        if holder == seat and market_above(state, i) is not None:
            actions.append({"type": "market", "from": i})
    return [*actions, {"type": "skip"}]


def do_goal(state: State, seat: int, action: Action, events: list[Event]) -> None:
    state["seats"][seat]["goal"] += 1
    events.append({"type": "goal", "seat": seat, "level": state["seats"][seat]["goal"]})
    next_placer(state, seat)


def do_market(state: State, seat: int, action: Action, events: list[Event]) -> None:
    player = state["seats"][seat]
    start = action.get("from", -1)
    target = market_above(state, start)
    assert target is not None  # guaranteed by the legal actions
    moved = {} if start < 0 else {"from": start}
    events.append({"type": "market", "seat": seat, "space": target, **moved})
    pay(state, seat, market_spaces(state)[target]["cost"], events)
    if start < 0:
        player["assistants"] -= 1
    else:
        state["market"][start] = None
    state["market"][target] = seat
    if target in state["market_gears"]:
        state["market_gears"].remove(target)
        player["gears"] += 1
    next_placer(state, seat)


def do_skip(state: State, seat: int, action: Action, events: list[Event]) -> None:
    next_placer(state, seat)
