"""Crystal Palace phase 5 (``rules/crystal_palace.md`` §14): building prototypes, seat
by seat in player order, each seat that can build taking its turn."""

from __future__ import annotations

from engines.base import Action, Event, State
from engines.crystal_palace.data import (
    Effect,
    components,
    patents,
)
from engines.crystal_palace.economy import (
    gain_effect,
    pay,
    permanent,
)


def prototype_price(state: State, seat: int, card: str) -> dict[str, int]:
    cost = patents()[card]["cost"]
    return {
        "gears": max(0, cost["gears"] + permanent(state, seat, "prototype_gears")),
        "energy": max(0, cost["energy"] + permanent(state, seat, "prototype_energy")),
        "money": cost["money"],
    }


def _buildable(state: State, seat: int) -> list[str]:
    player = state["seats"][seat]
    return [
        card
        for card in player["patents"]
        if all(
            player[k] >= v for k, v in prototype_price(state, seat, card).items() if k != "money"
        )
    ]


def _could_build(state: State, seat: int) -> bool:
    """Whether the seat can build a patent now or after turning newspapers into
    gears (§8: 2 newspapers → 1 gear): such a seat gets a build turn (item 15)."""
    player = state["seats"][seat]
    rate = components()["exchanges"]["gear"]
    spare = player["newspapers"] // rate["newspapers"] * rate["gain"]["gears"]
    for card in player["patents"]:
        cost = prototype_price(state, seat, card)
        if player["energy"] >= cost["energy"] and player["gears"] + spare >= cost["gears"]:
            return True
    return False


def build_actions(state: State, seat: int) -> list[Action]:
    return [
        {"type": "build", "card": card, "target": target}
        for card in _buildable(state, seat)
        for target in range(state["players"])
    ] + [{"type": "done"}]


def next_builder(state: State, start: int) -> None:
    """§14 phase 5: the next seat in player order, from index ``start``, that can build."""
    for seat in state["order"][start:]:
        if _could_build(state, seat):
            state["turn"] = seat
            state["step"] = {"kind": "build"}
            return
    state["turn"] = None
    state["step"] = {"kind": "build"}


def do_build(state: State, seat: int, action: Action, events: list[Event]) -> None:
    player = state["seats"][seat]
    card = patents()[action["card"]]
    cost = prototype_price(state, seat, action["card"])
    player["gears"] -= cost["gears"]
    player["energy"] -= cost["energy"]
    pay(state, seat, cost["money"], events)
    player["patents"].remove(action["card"])
    player["prototypes"].append(action["card"])
    vp = card["vp"][state["round"]] + permanent(state, seat, "prototype_vp")
    if card["link"] in player["characters"]:
        vp += components()["prototype_link_vp"]
    player["vp"] += vp
    target = action["target"]
    events.append(
        {"type": "build", "seat": seat, "card": action["card"], "target": target, "vp": vp}
    )
    if target != seat and takes_newspapers(card["target"]) and state["seats"][target]["newspapers"]:
        # §8: the target may spend the newspapers the effect would take first.
        state["step"] = {"kind": "target", "seat": target, "card": action["card"]}
        return
    gain_effect(state, target, card["target"], events, lose_up_to=True)
    _built(state, seat)


def takes_newspapers(effect: Effect) -> bool:
    return isinstance(effect.get("newspapers"), int) and effect["newspapers"] < 0


def _built(state: State, seat: int) -> None:
    """After a prototype: the builder goes on while it could build more."""
    state["step"] = {"kind": "build"}
    if not _could_build(state, seat):
        next_builder(state, state["order"].index(seat) + 1)


def do_accept(state: State, seat: int, action: Action, events: list[Event]) -> None:
    gain_effect(state, seat, patents()[state["step"]["card"]]["target"], events, lose_up_to=True)
    _built(state, state["turn"])


def do_done(state: State, seat: int, action: Action, events: list[Event]) -> None:
    next_builder(state, state["order"].index(seat) + 1)
