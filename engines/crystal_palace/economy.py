"""Crystal Palace state helpers and the economy (``rules/crystal_palace.md`` §2, §8–§10):
setting up players and displays, measures, effects, prices (``dice_cost``,
``recruit_cost``), payments and loans, and the free actions (loans and newspapers)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.base import (
    Action,
    Event,
    State,
)
from engines.crystal_palace.data import (
    EXCHANGES,
    Effect,
    characters,
    components,
    layout,
    limit,
    location_order,
    research_tiles,
)

# -- setup helpers ------------------------------------------------------------------


def new_player(nation: str) -> dict[str, Any]:
    start = components()["start"]
    return {
        "nation": nation,
        **{k: start[k] for k in ("money", "gears", "energy", "newspapers", "income")},
        **{k: start[k] for k in ("buzz", "vp", "westminster", "dice", "assistants")},
        "buzz_peak": start["buzz"],
        "goal": 0,
        "research": [],
        "patents": [],
        "prototypes": [],
        "characters": [],
        "shares": [],
        "loans": [],
        "repaid": 0,
        "tickets": 0,
        "secret": [],
        "ready": False,
        "rolled": [],
        "unplaced": [],
        "passed": False,
    }


def face_up_stack(display: dict[str, Any]) -> dict[str, Any]:
    stack = display["stack"]
    return {"row": display["row"], "stack": len(stack), "top": stack[-1] if stack else None}


def fill_displays(state: State) -> None:
    """§2.2 / §14 phase 7: close the gaps in the card rows and refill every display."""
    players = state["players"]
    for name, location in (("patents", "patent_office"), ("characters", "reform_club")):
        display = state[name]
        row = [card for card in display["row"] if card is not None]
        while len(row) < layout(location, players)["slots"] and display["stack"]:
            row.append(display["stack"].pop())
        display["row"] = row
    museum = [tile for tile in state["museum"] if tile is not None]
    while len(museum) < layout("british_museum", players)["slots"] and state["green"]:
        museum.append(state["green"].pop())
    state["museum"] = museum
    pile = state["share_piles"][state["round"]]
    state["bank"] = pile[: layout("bank", players)["slots"]]
    state["share_piles"][state["round"]] = []
    state["market_gears"] = [i for i, space in enumerate(market_spaces(state)) if space.get("gear")]
    state["board"] = {
        location: {
            "placed": [None] * len(layout(location, players)["placement"]),
            "acted": [None] * len(layout(location, players)["action"]),
        }
        for location in location_order(state["options"])
    }
    state["menus_used"] = {"waterloo": [], "port": []}


def market_spaces(state: State) -> list[dict[str, Any]]:
    spaces: list[dict[str, Any]] = components()["black_market"]["spaces"]
    return spaces[: len(state["market"])]


# -- measures, effects and payments -------------------------------------------------


def measure(state: State, seat: int, name: str) -> int:
    """A quantity a goal level or a computed effect reads (§7.2, §10.1, §13.3)."""
    player = state["seats"][seat]
    if name in ("westminster", "dice", "buzz", "newspapers"):
        return int(player[name])
    if name == "dice_total":
        return sum(player["rolled"])
    if name == "research_immediate":
        return sum(1 for t in player["research"] if research_tiles()[t]["timing"] == "IMM")
    if name in ("characters", "prototypes", "shares"):
        return len(player[name])
    if name == "resources":
        return int(player["gears"] + player["energy"])
    if name == "market_assistants":
        return sum(1 for holder in state["market"] if holder == seat)
    raise KeyError(f"unknown measure {name!r} in the data")


def effect_amount(state: State, seat: int, raw: Any) -> int:
    if isinstance(raw, int):
        return raw
    value = measure(state, seat, raw["per"]) * raw.get("times", 1) + raw.get("plus", 0)
    if "min" in raw:
        value = max(raw["min"], value)
    if "max" in raw:
        value = min(raw["max"], value)
    return int(value)


def permanent(state: State, seat: int, key: str) -> int:
    """The sum of a permanent modifier over the seat's research tiles and characters."""
    player = state["seats"][seat]
    total = sum(research_tiles()[t].get("perm", {}).get(key, 0) for t in player["research"])
    return int(
        total + sum(characters()[c].get("perm", {}).get(key, 0) for c in player["characters"])
    )


def dice_cost(state: State, seat: int, values: Sequence[int]) -> int:
    """What the seat pays in phase 1 for dice set to ``values`` (§4): £1 a pip, less
    its permanent discounts, but never under £1 a die."""
    cost = sum(values) * components()["dice_cost_per_pip"] + permanent(state, seat, "dice_cost")
    return int(max(len(values), cost))


def recruit_cost(state: State, seat: int, card: str) -> int:
    """What the seat pays to recruit the character ``card`` (§11.5), permanent
    discounts included."""
    return int(max(0, characters()[card]["cost"] + permanent(state, seat, "recruit_cost")))


def _take_loan(state: State, seat: int, events: list[Event], *, forced: bool) -> None:
    loans = components()["loans"]
    value = state["loans"].pop() if state["loans"] else loans["when_stack_empty"]
    player = state["seats"][seat]
    player["loans"].append(value)
    player["money"] += loans["amount"]
    events.append({"type": "loan", "seat": seat, "forced": forced})


def pay(state: State, seat: int, amount: int, events: list[Event]) -> None:
    """A cost in £: loans are taken for any shortfall (§9)."""
    player = state["seats"][seat]
    while player["money"] < amount:
        _take_loan(state, seat, events, forced=True)
    player["money"] -= amount


def clamp(value: int, top: int) -> int:
    return max(0, min(top, value))


def gain_effect(
    state: State, seat: int, effect: Effect, events: list[Event], *, lose_up_to: bool = False
) -> None:
    """Apply an effect map to a seat, in the map's order (costs are listed first).

    A negative £ amount is a cost paid with loans if needed, unless
    ``lose_up_to``: then it, like every other negative amount, takes only what
    the seat has.
    """
    player = state["seats"][seat]
    for key, raw in effect.items():
        if key == "research":
            _draw_violet(state, seat, raw, events)
            continue
        amount = effect_amount(state, seat, raw)
        if key == "money":
            if amount < 0 and not lose_up_to:
                pay(state, seat, -amount, events)
            else:
                player["money"] = max(0, player["money"] + amount)
        elif key in ("gears", "energy"):
            player[key] = max(0, player[key] + amount)
        elif key == "newspapers":
            player[key] = clamp(player[key] + amount, limit("newspapers"))
        elif key == "income":
            player[key] = clamp(player[key] + amount, limit("income"))
        elif key == "buzz":
            _buzz(state, seat, amount, events)
        elif key == "vp":
            player["vp"] += amount
        elif key == "westminster":
            for _ in range(amount):
                westminster_step(state, seat, events)
        elif key == "dice":
            player["dice"] += amount
        elif key == "ticket":
            state["tickets"] -= amount
            player["tickets"] += amount
        else:
            raise KeyError(f"unknown effect {key!r} in the data")


def _buzz(state: State, seat: int, amount: int, events: list[Event]) -> None:
    """§13.3: the buzz track (0–40); each threshold pays once, the first time it is reached."""
    player = state["seats"][seat]
    player["buzz"] = clamp(player["buzz"] + amount, limit("buzz"))
    for threshold, bonus in components()["buzz_thresholds"]:
        if player["buzz_peak"] < threshold <= player["buzz"]:
            player["buzz_peak"] = threshold
            gain_effect(state, seat, bonus, events)
    player["buzz_peak"] = max(player["buzz_peak"], player["buzz"])


def westminster_step(state: State, seat: int, events: list[Event]) -> None:
    """§11.4: one step on the Westminster track and that step's one-time bonus."""
    player = state["seats"][seat]
    player["westminster"] += 1
    track = components()["westminster_track"]
    step = player["westminster"]
    gain_effect(
        state,
        seat,
        track[step - 1] if step <= len(track) else components()["westminster_beyond"],
        events,
    )


def free_research_space(state: State, seat: int) -> bool:
    return bool(len(state["seats"][seat]["research"]) < limit("research_spaces"))


def gain_tile(state: State, seat: int, tile: str, events: list[Event]) -> None:
    """§10: a research tile goes on an empty research space; IMM effects resolve at once."""
    player = state["seats"][seat]
    player["research"].append(tile)
    player["vp"] += permanent(state, seat, "research_vp")
    info = research_tiles()[tile]
    if info["timing"] == "IMM":
        gain_effect(state, seat, info["effect"], events)


def _draw_violet(state: State, seat: int, color: str, events: list[Event]) -> None:
    stack = state["violet"][color]
    if stack and free_research_space(state, seat):
        tile = stack.pop()
        events.append({"type": "research", "seat": seat, "tile": tile})
        gain_tile(state, seat, tile, events)


def can_hold(state: State, seat: int, effect: Effect) -> bool:
    """Whether the seat holds the gears and energy an effect costs (£ may be borrowed)."""
    player = state["seats"][seat]
    return all(
        player[k] + effect_amount(state, seat, v) >= 0
        for k, v in effect.items()
        if k in ("gears", "energy")
    )


# -- free actions: loans and newspapers (§8, §9) --------------------------------------------


def free_actions(state: State, seat: int) -> list[Action]:
    player = state["seats"][seat]
    actions: list[Action] = []
    if state["loans"] and state["step"]["kind"] != "repay":
        actions.append({"type": "loan"})
    rates = components()["exchanges"]
    for kind in EXCHANGES:
        if player["newspapers"] < rates[kind]["newspapers"]:
            continue
        if kind == "die" and (
            player["dice"] >= limit("dice")[1] or state["step"]["kind"] == "repay"
        ):
            continue
        if kind == "income" and player["income"] >= limit("income"):
            continue
        actions.append({"type": "exchange", "for": kind})
    return actions


def do_loan(state: State, seat: int, action: Action, events: list[Event]) -> None:
    _take_loan(state, seat, events, forced=False)


def do_exchange(state: State, seat: int, action: Action, events: list[Event]) -> None:
    player = state["seats"][seat]
    rate = components()["exchanges"][action["for"]]
    player["newspapers"] -= rate["newspapers"]
    if state["step"]["kind"] != "repay":  # the final repayment stays secret (item 13.10)
        events.append({"type": "exchange", "seat": seat, "for": action["for"]})
    if action["for"] == "die":
        player["dice"] += 1  # set this round if still in phase 1 (§8), else from the next
    else:
        gain_effect(state, seat, rate["gain"], events)
