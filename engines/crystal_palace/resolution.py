"""Crystal Palace phase 3 (``rules/crystal_palace.md`` §6, §11): resolving the dice at
the locations' action spaces, tickets, declining and compensation."""

from __future__ import annotations

from typing import Any

from engines.base import (
    Action,
    Event,
    State,
)
from engines.crystal_palace.data import (
    characters,
    components,
    layout,
    limit,
    location_order,
    publishers,
    shares,
)
from engines.crystal_palace.economy import (
    can_hold,
    free_research_space,
    gain_effect,
    gain_tile,
    pay,
    permanent,
    recruit_cost,
    westminster_step,
)

# -- phase 3: resolution (§6, §11) ----------------------------------------------------------


def begin_resolution(state: State) -> None:
    state["phase"] = 3
    state["turn"] = None
    queue = []
    for location in location_order(state["options"]):
        placed = state["board"][location]["placed"]
        dice = [(-held[1], i) for i, held in enumerate(placed) if held is not None]
        queue += [[location, i] for _, i in sorted(dice)]
    state["queue"] = queue
    state["step"] = {"kind": "resolve"}


def current_die(state: State) -> tuple[int, str, int]:
    location, space = state["queue"][0]
    seat, _value = state["board"][location]["placed"][space]
    return seat, location, space


def free_action_space(state: State, location: str) -> int | None:
    acted = state["board"][location]["acted"]
    return next((i for i, held in enumerate(acted) if held is None), None)


def _action_variants(
    state: State, seat: int, location: str, extra_dice: int = 0
) -> list[dict[str, Any]]:
    """The ways the seat can perform ``location``'s action now (parameters only),
    or with ``extra_dice`` more dice."""
    player = state["seats"][seat]
    kind = layout(location, state["players"])["action_kind"]
    if kind == "patent":
        return [{"card": c} for c in state["patents"]["row"]]
    if kind == "research":
        if not free_research_space(state, seat):
            return []
        return [{"tile": t} for t in state["museum"]]
    if kind == "share":
        return [{"share": s} for s in state["bank"]]
    if kind == "character":
        return [{"card": c} for c in state["characters"]["row"]]
    if kind == "westminster":
        return [{}]
    if kind == "publisher":
        choices = publishers()[state["publisher"]]["choices"]
        usable = [i for i, effect in enumerate(choices) if can_hold(state, seat, effect)]
        return [{"choice": i} for i in usable] if len(choices) > 1 else [{} for _ in usable]
    options = layout(location, state["players"])["menu"]
    variants = []
    for option in options:
        if option in state["menus_used"][location]:
            continue
        effect = components()["menu_options"][option]["effect"]
        dice = player["dice"] + extra_dice + effect.get("dice", 0)
        if not limit("keep_dice_after_sale") <= dice <= limit("dice")[1]:
            continue
        if effect.get("ticket") and state["tickets"] < effect["ticket"]:
            continue
        if can_hold(state, seat, effect):
            variants.append({"option": option})
    return variants


def resolve_actions(state: State, seat: int, extra_dice: int = 0) -> list[Action]:
    _, location, _ = current_die(state)
    variants = _action_variants(state, seat, location, extra_dice)
    if free_action_space(state, location) is not None:
        return [*({"type": "act", **v} for v in variants), {"type": "decline"}]
    if state["seats"][seat]["tickets"] and variants:
        return [*({"type": "ticket", **v} for v in variants), {"type": "compensation"}]
    return [{"type": "compensation"}]


def _perform(
    state: State, seat: int, location: str, action: Action, events: list[Event]
) -> dict[str, int]:
    """The location action itself (§11), with the parameters the action carries.

    Returns what the ``act`` or ``ticket`` event adds for the log: the ``price``
    paid for a share or a character, as charged after the action space's bonus."""
    player = state["seats"][seat]
    kind = layout(location, state["players"])["action_kind"]
    if kind == "share":
        share = shares()[action["share"]]
        state["bank"].remove(action["share"])
        pay(state, seat, share["price"], events)
        player["shares"].append(action["share"])
        gain_effect(state, seat, share["gain"], events)
        return {"price": share["price"]}
    if kind == "character":
        card = characters()[action["card"]]
        price = recruit_cost(state, seat, action["card"])
        state["characters"]["row"].remove(action["card"])
        pay(state, seat, price, events)
        player["vp"] += card["vp"][state["round"]] + permanent(state, seat, "recruit_vp")
        player["characters"].append(action["card"])
        return {"price": price}
    if kind == "patent":
        state["patents"]["row"].remove(action["card"])
        player["patents"].append(action["card"])
    elif kind == "research":
        state["museum"].remove(action["tile"])
        gain_tile(state, seat, action["tile"], events)
    elif kind == "westminster":
        westminster_step(state, seat, events)
    elif kind == "publisher":
        choices = publishers()[state["publisher"]]["choices"]
        gain_effect(state, seat, choices[action.get("choice", 0)], events)
    else:
        state["menus_used"][location].append(action["option"])
        gain_effect(state, seat, components()["menu_options"][action["option"]]["effect"], events)
    return {}


def do_act(state: State, seat: int, action: Action, events: list[Event]) -> None:
    _, location, space = current_die(state)
    board = state["board"][location]
    slot = free_action_space(state, location)
    assert slot is not None  # guaranteed by the legal actions
    board["acted"][slot] = board["placed"][space]
    board["placed"][space] = None
    state["queue"].pop(0)
    event = {
        "type": "act",
        "seat": seat,
        "location": location,
        "space": slot,
        **_chosen(state, location, action),
    }
    events.append(event)
    bonus = layout(location, state["players"])["action"][slot]
    leftmost = publishers()[state["publisher"]].get("leftmost_bonus")
    if location == "london_times" and slot == 0 and leftmost:
        bonus = leftmost
    gain_effect(state, seat, bonus, events)
    event.update(_perform(state, seat, location, action, events))


def _chosen(state: State, location: str, action: Action) -> dict[str, Any]:
    """What an ``act`` or ``ticket`` chose (card, tile, share, choice or option, and
    the London Times' publisher): public, for the log."""
    chosen = {k: v for k, v in action.items() if k in ("card", "tile", "share", "choice", "option")}
    if location == "london_times":
        chosen["publisher"] = state["publisher"]
    return chosen


def do_ticket(state: State, seat: int, action: Action, events: list[Event]) -> None:
    _, location, _ = current_die(state)
    state["queue"].pop(0)
    state["seats"][seat]["tickets"] -= 1
    state["spent_tickets"] += 1
    event = {
        "type": "ticket",
        "seat": seat,
        "location": location,
        **_chosen(state, location, action),
    }
    events.append(event)
    event.update(_perform(state, seat, location, action, events))


def do_decline(state: State, seat: int, action: Action, events: list[Event]) -> None:
    _, location, _ = current_die(state)
    state["queue"].pop(0)
    events.append({"type": "decline", "seat": seat, "location": location})


def do_compensation(state: State, seat: int, action: Action, events: list[Event]) -> None:
    _, location, _ = current_die(state)
    state["queue"].pop(0)
    gain_effect(state, seat, components()["compensation"], events)
    events.append({"type": "compensation", "seat": seat, "location": location})


def a_die_would_open_an_action(state: State, seat: int) -> bool:
    """§8: newspapers buy a die at any time, and one more die can make Waterloo's
    "sell a die" possible; then the seat is asked rather than declined for."""
    player = state["seats"][seat]
    rate = components()["exchanges"]["die"]["newspapers"]
    if player["newspapers"] < rate or player["dice"] >= limit("dice")[1]:
        return False
    return len(resolve_actions(state, seat, extra_dice=1)) > 1
