"""Crystal Palace in words: move labels (``describe``) and log sentences (``narrate``).

Labels name cards, tiles, shares, locations and publishers by name and say what
a move gives and costs; choice steps are joined by ``STEP`` (location → space →
die). A label uses only what its seat may see: its own dice so far, its own
loan values, the face-up displays and the public board. Sentences use only the
event, which is public.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engines.base import STEP, Action, Event, State, seat_name
from engines.crystal_palace.building import prototype_price
from engines.crystal_palace.data import (
    card_names,
    characters,
    components,
    layout,
    patents,
    publishers,
    research_tiles,
    shares,
)
from engines.crystal_palace.economy import (
    dice_cost,
    effect_amount,
    free_research_space,
    market_spaces,
    permanent,
    recruit_cost,
)
from engines.crystal_palace.placement import market_above
from engines.crystal_palace.resolution import current_die, free_action_space
from engines.crystal_palace.salaries import loans_for, salary

_NOUNS = {
    "gears": ("gear", "gears"),
    "energy": ("energy", "energy"),
    "newspapers": ("newspaper", "newspapers"),
    "income": ("income step", "income steps"),
    "buzz": ("buzz", "buzz"),
    "vp": ("VP", "VP"),
    "westminster": ("Westminster step", "Westminster steps"),
    "ticket": ("ticket", "tickets"),
}
_MEASURES = {
    "characters": "character you own",
    "prototypes": "prototype you have built",
}
_PERMS = {
    "prototype_gears": "your prototypes cost {n} gear less",
    "prototype_energy": "your prototypes cost {n} energy less",
    "prototype_vp": "+{n} VP for each prototype you build",
    "salary": "each of your salaries is £{n} less",
    "other_salaries": "your other characters' salaries are £{n} less each",
    "recruit_vp": "+{n} VP for each character you recruit",
    "recruit_cost": "recruiting costs you £{n} less",
    "research_vp": "+{n} VP whenever you gain a research tile",
    "dice_cost": "your dice cost £{n} less in phase 1",
}
_VIOLET = {
    "blue": "a violet research tile (blue box)",
    "orange": "a violet research tile (orange box)",
}
_EXCHANGES = {
    "die": "+1 die",
    "income": "+1 income step",
    "gear": "+1 gear",
    "money": "+£1",
}
PHASES = {
    1: "set dice",
    2: "place dice",
    3: "take actions",
    4: "salaries and abilities",
    5: "build prototypes",
    6: "income and current events",
    "final": "repay loans",
}
"""What happens in each phase (§3), as the screen and the log say it."""


def _count(key: str, n: int) -> str:
    one, many = _NOUNS[key]
    return f"{n} {one if n == 1 else many}"


def _computed(key: str, raw: Mapping[str, Any]) -> str:
    """A computed amount in words: "+2 buzz per character you own (at most 3)"."""
    times = raw.get("times", 1)
    each = f"£{times}" if key == "money" else _count(key, times)
    text = f"+{each} per {_MEASURES[raw['per']]}"
    if raw.get("plus"):
        text = f"+{raw['plus']} and {text[1:]}"
    bounds = (("min", "at least"), ("max", "at most"))
    shown = [f"{word} {raw[bound]}" for bound, word in bounds if bound in raw]
    return text + (f" ({', '.join(shown)})" if shown else "")


def effect_text(effect: Mapping[str, Any], *, harm: str = "pay") -> str:
    """An effect map in words, costs first: "pay £3: +2 energy, +1 gear".

    ``harm`` words a negative amount: "pay" for a cost the seat chooses, "lose"
    for an effect aimed at a player.
    """
    costs: list[str] = []
    gains: list[str] = []
    for key, raw in effect.items():
        if key == "research":
            gains.append(_VIOLET[raw])
        elif not isinstance(raw, int):
            gains.append(_computed(key, raw))
        elif key == "dice":
            (gains if raw > 0 else costs).append(
                "+1 die (from next round)" if raw > 0 else "sell 1 of your dice"
            )
        elif key == "money":
            (gains if raw > 0 else costs).append(f"+£{raw}" if raw > 0 else f"{harm} £{-raw}")
        elif key == "ticket":
            gains.append("a ticket")
        elif raw < 0:
            costs.append(f"{harm} {_count(key, -raw)}")
        else:
            gains.append(f"+{_count(key, raw)}")
    if costs and gains:
        return f"{', '.join(costs)}: {', '.join(gains)}"
    return ", ".join(costs + gains) or "nothing"


def perm_text(perm: Mapping[str, int]) -> str:
    return ", ".join(_PERMS[key].format(n=abs(n)) for key, n in perm.items())


def tile_text(tile: str) -> str:
    """A research tile by what it does: "now: +2 gears", "each phase 6: +£2"."""
    info = research_tiles()[tile]
    if info["timing"] == "PERM":
        return "always: " + perm_text(info["perm"])
    when = "now" if info["timing"] == "IMM" else "each phase 6"
    return f"{when}: {effect_text(info['effect'])}"


def prototype_cost(state: State, seat: int, card: str) -> str:
    """What building the patent costs the seat now, its permanent discounts
    included (the engine's own price): "3 gears, 2 energy, £2"."""
    cost = prototype_price(state, seat, card)
    parts = [_count(k, cost[k]) for k in ("gears", "energy") if cost[k]]
    parts += [f"£{cost['money']}"] if cost["money"] else []
    return ", ".join(parts) or "nothing"


def patent_text(state: State, seat: int, card: str) -> str:
    info = patents()[card]
    link = characters().get(info["link"] or "", {}).get("name")
    text = (
        f"{info['name']} (build for {prototype_cost(state, seat, card)}: "
        f"{info['vp'][state['round']]} VP this round, "
        f"effect on a player you choose: {effect_text(info['target'], harm='lose')}"
    )
    return text + (f"; +4 VP with {link})" if link else ")")


def _recruit_price(state: State, seat: int, card: str, location: str) -> str:
    """The £ the engine charges the seat for the character (``recruit_cost``), and
    what it would charge if the violet tile this action space draws first lowers it."""
    price = recruit_cost(state, seat, card)
    slot = free_action_space(state, location)
    bonus = {} if slot is None else layout(location, state["players"])["action"][slot]
    stack = state["violet"].get(bonus.get("research"), [])
    discounts = sorted(t for t in stack if "recruit_cost" in research_tiles()[t].get("perm", {}))
    if not discounts or not free_research_space(state, seat):
        return f"£{price}"
    player = state["seats"][seat]
    drawn = {**player, "research": [*player["research"], discounts[0]]}
    seats = [drawn if s == seat else p for s, p in enumerate(state["seats"])]
    lower = recruit_cost({**state, "seats": seats}, seat, card)
    if lower == price:
        return f"£{price}"
    says = perm_text(research_tiles()[discounts[0]]["perm"])
    return f"£{price}, or £{lower} if the violet tile drawn first says {says}"


def character_text(state: State, seat: int, card: str, location: str) -> str:
    """A character to recruit, with what the seat would pay for it and its salary."""
    info = characters()[card]
    does = (
        "always: " + perm_text(info["perm"])
        if "perm" in info
        else "each phase 4: " + effect_text(info["ability"])
    )
    return (
        f"{info['name']} (recruit {_recruit_price(state, seat, card, location)}, "
        f"{info['vp'][state['round']]} VP now, "
        f"salary £{salary(state, seat, card)} a round; {does})"
    )


def share_text(share: str) -> str:
    info = shares()[share]
    return f"a share: pay £{info['price']}: {effect_text(info['gain'])}"


def location_name(location: str) -> str:
    return str(components()["locations"][location]["name"])


def publisher_text(publisher: str) -> str:
    """The London Times' action under this publisher tile."""
    info = publishers()[publisher]
    choices = " or ".join(effect_text(c) for c in info["choices"])
    extra = info.get("leftmost_bonus")
    return (
        str(info["name"])
        + ": "
        + choices
        + (f" (leftmost space: {effect_text(extra)} instead of +1 buzz)" if extra else "")
    )


def location_action(state: State, location: str) -> str:
    """What a location's action does, in a few words."""
    kind = layout(location, state["players"])["action_kind"]
    return {
        "patent": "take a patent",
        "research": "take a research tile",
        "share": "buy a share",
        "westminster": "+1 Westminster step and its bonus",
        "character": "recruit a character",
        "publisher": publisher_text(state["publisher"]),
    }.get(kind, "one unused option")


def _space_bonus(state: State, location: str) -> str:
    slot = free_action_space(state, location)
    if slot is None:
        return ""
    bonus = layout(location, state["players"])["action"][slot]
    leftmost = publishers()[state["publisher"]].get("leftmost_bonus")
    if location == "london_times" and slot == 0 and leftmost:
        bonus = leftmost
    return f" (action space {slot + 1}: {effect_text(bonus)} first)" if bonus else ""


def _what(state: State, seat: int, location: str, action: Action) -> str:
    """What an ``act`` or ``ticket`` does with its parameters."""
    if "card" in action and action["card"] in patents():
        return "take the patent " + patent_text(state, seat, action["card"])
    if "card" in action:
        return "recruit " + character_text(state, seat, action["card"], location)
    if "tile" in action:
        place = state["museum"].index(action["tile"]) + 1
        return f"take research tile {place} of {len(state['museum'])}: {tile_text(action['tile'])}"
    if "share" in action:
        return "buy " + share_text(action["share"])
    if "option" in action:
        return effect_text(components()["menu_options"][action["option"]]["effect"])
    kind = layout(location, state["players"])["action_kind"]
    if kind == "westminster":
        step = state["seats"][seat]["westminster"] + 1
        track = components()["westminster_track"]
        bonus = track[step - 1] if step <= len(track) else components()["westminster_beyond"]
        return f"Westminster step {step}: {effect_text(bonus)}"
    info = publishers()[state["publisher"]]
    effect = info["choices"][action.get("choice", 0)]
    amounts = {k: effect_amount(state, seat, v) for k, v in effect.items()}
    return f"{info['name']}: {effect_text(amounts)}"


def _minus(n: int) -> str:
    """A signed number with a true minus sign."""
    return f"−{-n}" if n < 0 else str(n)


def describe_action(state: State, seat: int, action: Action) -> str:
    """The label of a legal action of ``seat`` (see the module docstring)."""
    kind = action["type"]
    player = state["seats"][seat]
    data = components()
    if kind == "die":
        which = len(player["secret"]) + 1
        label = f"die {which} of {player['dice']}: set it to {action['value']}"
        if which < player["dice"]:
            return f"{label} (£{action['value']})"
        total = dice_cost(state, seat, [*player["secret"], action["value"]])
        return f"{label} (your dice cost £{total} in all)"
    if kind == "place":
        location, i = action["location"], action["space"]
        space = layout(location, state["players"])["placement"][i]
        needs = [f"needs {space['min']}+"]
        if space["assistant"]:
            needs.append("then an assistant action")
        if space["fee"]:
            needs.append(f"fee £{space['fee']}")
        return (
            f"{location_name(location)}: {location_action(state, location)}"
            f"{STEP}placement space {i + 1} ({', '.join(needs)}){STEP}place your {action['value']}"
        )
    if kind == "pass":
        return "pass: place no more dice this round (dice not placed are not refunded)"
    if kind == "goal":
        nation = next(n for n in data["nations"] if n["id"] == player["nation"])
        level = player["goal"] + 1
        return (
            f"goal track: {nation['name']} level {level} ({data['goal_vp'][level]} VP at the end)"
        )
    if kind == "market":
        start = action.get("from", -1)
        target = market_above(state, start)
        assert target is not None
        space = market_spaces(state)[target]
        gear = "; +1 gear now" if target in state["market_gears"] else ""
        what = (
            "new assistant on space"
            if start < 0
            else f"move your assistant from space {start + 1} to space"
        )
        reward = effect_text(space["reward"])
        return (
            f"Black Market: {what} {target + 1} for £{space['cost']} (each phase 6: {reward}{gear})"
        )
    if kind == "skip":
        return "no assistant action"
    if kind in ("act", "ticket", "decline", "compensation"):
        _, location, where = current_die(state)
        value = state["board"][location]["placed"][where][1]
        name = location_name(location)
        if kind == "act":
            return (
                f"{name}{_space_bonus(state, location)}{STEP}{_what(state, seat, location, action)}"
            )
        if kind == "ticket":
            what = _what(state, seat, location, action)
            return f"spend a ticket at {name} (no space bonus){STEP}{what}"
        if kind == "decline":
            return f"decline: your {value} at {name} takes no action and gets nothing"
        return f"take £1: no action space left for your {value} at {name}"
    if kind == "pay":
        due = state["step"]["due"]
        loans = loans_for(player["money"], due)
        short = f" (you are £{due - player['money']} short: {loans} loan{'s' * (loans > 1)})"
        return f"pay your salaries: £{due}" + (short if loans else "")
    if kind == "ability":
        card = characters()[action["card"]]
        effect = effect_text(card["ability"], harm="lose up to")
        return f"use {card['name']} next: {effect}"
    if kind == "build":
        info = patents()[action["card"]]
        cost = prototype_price(state, seat, action["card"])
        price = [_count(k, cost[k]) for k in ("gears", "energy") if cost[k]]
        price += [f"£{cost['money']}"] if cost["money"] else []
        vp = info["vp"][state["round"]] + permanent(state, seat, "prototype_vp")
        if info["link"] in player["characters"]:
            vp += data["prototype_link_vp"]
        whom = "you" if action["target"] == seat else f"seat {action['target'] + 1}"
        return (
            f"build {info['name']} for {', '.join(price) or 'nothing'} (+{vp} VP)"
            f"{STEP}effect on {whom}: {effect_text(info['target'], harm='lose')}"
        )
    if kind == "done":
        return "build nothing more this round"
    if kind == "accept":
        info = patents()[state["step"]["card"]]
        return f"go on: {info['name']} makes you {effect_text(info['target'], harm='lose')}"
    if kind == "repay":
        n = action["count"]
        worst = sorted(player["loans"])
        unpaid = sum(worst)
        score = n * data["loans"]["repaid_vp"] + sum(worst[n:])
        if not n:
            return f"repay no loan: your {len(worst)} loans score {_minus(unpaid)} VP"
        paid = f"repay {n} loan{'s' * (n > 1)} for £{n * data['loans']['repay_cost']}"
        return f"{paid}: your loans score {_minus(score)} VP instead of {_minus(unpaid)}"
    if kind == "loan":
        return "take a loan: +£10 now, −7 to −10 VP at the end (−2 VP if repaid for £10)"
    if kind == "exchange":
        rate = data["exchanges"][action["for"]]["newspapers"]
        gain = _EXCHANGES[action["for"]]
        if action["for"] == "die":
            gain += (
                " (set it this round)" if state["step"]["kind"] == "dice" else " from next round"
            )
        return f"spend {rate} newspaper{'s' * (rate > 1)}: {gain}"
    raise ValueError(f"no words for the action {action!r}")


def narrate_event(event: Event, names: Sequence[str]) -> str:
    """One sentence for a Crystal Palace event, seats called by ``names``."""
    kind = event["type"]
    who = seat_name(names, event.get("seat"))
    data = components()
    if kind == "ready":
        return f"{who} has set their dice."
    if kind == "reveal":
        dice = "; ".join(
            f"{seat_name(names, s)} {' '.join(map(str, d))} (£{paid})"
            for s, (d, paid) in enumerate(zip(event["dice"], event["paid"], strict=True))
        )
        readers = ", ".join(seat_name(names, s) for s in event["newspapers"])
        return (
            f"Dice revealed: {dice}. {seat_name(names, event['first'])} goes first; "
            f"a newspaper for {readers}."
        )
    if kind == "place":
        return (
            f"{who} places a {event['value']} at {location_name(event['location'])}, "
            f"placement space {event['space'] + 1}."
        )
    if kind == "pass":
        return f"{who} passes and places no more dice this round."
    if kind == "goal":
        return f"{who} reaches level {event['level']} of their goal track."
    if kind == "market":
        space = event["space"] + 1
        if "from" in event:
            return f"{who} moves an assistant up the Black Market to space {space}."
        return f"{who} puts an assistant on Black Market space {space}."
    if kind in ("act", "ticket"):
        how = "acts at" if kind == "act" else "spends a ticket at"
        return f"{who} {how} {location_name(event['location'])}{_event_choice(event)}."
    if kind == "decline":
        return f"{who} declines the action at {location_name(event['location'])}."
    if kind == "compensation":
        return f"{who} gets £1: no action space left at {location_name(event['location'])}."
    if kind == "research":
        return f"{who} draws a violet research tile: {tile_text(event['tile'])}."
    if kind == "loan":
        return f"{who} takes a loan (+£10){' to pay what they owe' if event['forced'] else ''}."
    if kind == "exchange":
        rate = data["exchanges"][event["for"]]["newspapers"]
        return f"{who} spends {rate} newspaper{'s' * (rate > 1)} for {_EXCHANGES[event['for']]}."
    if kind == "salary":
        return f"{who} pays £{event['amount']} in salaries."
    if kind == "ability":
        card = characters()[event["card"]]
        return f"{who} uses {card['name']}: {effect_text(card['ability'])}."
    if kind == "build":
        info = patents()[event["card"]]
        target = seat_name(names, event["target"])
        effect = effect_text(info["target"], harm="lose")
        return f"{who} builds {info['name']} for {event['vp']} VP; {target}: {effect}."
    if kind == "phase":
        season = data["rounds"][event["round"]]
        if event["phase"] == "final":
            return f"{season} is over: players with loans may repay them (£10 each)."
        return f"{season} begins: every player sets their dice in secret."
    if kind == "repay":
        n = event["count"]
        return f"{who} repaid {n} loan{'s' * (n > 1)}."
    if kind == "game_end":
        scores = ", ".join(
            f"{seat_name(names, s)} {_minus(total)} VP" for s, total in enumerate(event["scores"])
        )
        return f"The exhibition opens: {scores}."
    raise ValueError(f"no words for the event {event!r}")


def _event_choice(event: Event) -> str:
    if "card" in event and event["card"] in patents():
        return f" and takes the patent {card_names()[event['card']]}"
    if "card" in event:
        return f" and recruits {card_names()[event['card']]} for £{event['price']}"
    if "tile" in event:
        return f" and takes a research tile ({tile_text(event['tile'])})"
    if "share" in event:
        gain = effect_text(shares()[event["share"]]["gain"])
        return f" and buys a share for £{event['price']}: {gain}"
    if "option" in event:
        return ": " + effect_text(components()["menu_options"][event["option"]]["effect"])
    if "publisher" in event:
        info = publishers()[event["publisher"]]
        return f": {info['name']}, {effect_text(info['choices'][event.get('choice', 0)])}"
    return ""
