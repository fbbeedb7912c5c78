"""Crystal Palace phases 4–7 (``rules/crystal_palace.md`` §14): salaries, character
abilities, building prototypes, buzz and the end of the round."""

from __future__ import annotations

from collections.abc import Sequence

from engines.base import (
    Action,
    Event,
    State,
)
from engines.crystal_palace.data import (
    Effect,
    _limit,
    characters,
    components,
    patents,
    research_tiles,
)
from engines.crystal_palace.economy import (
    _clamp,
    _fill_displays,
    _gain,
    _market_spaces,
    _pay,
    _perm,
)
from engines.crystal_palace.placement import _next_placer

# -- phases 4–7 (§14) -----------------------------------------------------------------------


def _salary(state: State, seat: int, card: str) -> int:
    player = state["seats"][seat]
    others = sum(
        characters()[c].get("perm", {}).get("other_salaries", 0)
        for c in player["characters"]
        if c != card
    )
    research = sum(research_tiles()[t].get("perm", {}).get("salary", 0) for t in player["research"])
    return int(max(0, characters()[card]["salary"] + others + research))


def _salaries_due(state: State, seat: int) -> int:
    return sum(_salary(state, seat, card) for card in state["seats"][seat]["characters"])


def _newspaper_money(state: State, seat: int) -> int:
    """The £ the seat could raise now by turning all its newspapers into money (§8)."""
    rate = components()["exchanges"]["money"]
    return int(state["seats"][seat]["newspapers"] // rate["newspapers"] * rate["gain"]["money"])


def _loans_for(money: int, due: int) -> int:
    amount: int = components()["loans"]["amount"]
    return max(0, -(-(due - money) // amount))


def _salaries(state: State, start: int, events: list[Event]) -> None:
    """§14 phase 4 step 1, in player order from index ``start``: each seat pays its
    salaries (loans if short). A seat whose newspapers would spare it a loan is asked
    first (§8: newspapers are spent at any time): step ``salary`` until it pays."""
    state["phase"] = 4
    for seat in state["order"][start:]:
        due = _salaries_due(state, seat)
        money = state["seats"][seat]["money"]
        if _loans_for(money, due) != _loans_for(money + _newspaper_money(state, seat), due):
            state["step"] = {"kind": "salary", "seat": seat, "due": due}
            return
        if due:
            _pay_salaries(state, seat, due, events)
    _abilities(state, 0, events)


def _pay_salaries(state: State, seat: int, due: int, events: list[Event]) -> None:
    events.append({"type": "salary", "seat": seat, "amount": due})
    _pay(state, seat, due, events)


def _do_pay(state: State, seat: int, action: Action, events: list[Event]) -> None:
    if state["step"]["due"]:
        _pay_salaries(state, seat, state["step"]["due"], events)
    _salaries(state, state["order"].index(seat) + 1, events)


def _abilities(state: State, start: int, events: list[Event]) -> None:
    """§14 phase 4 step 2, in player order from index ``start``: each seat's P4
    abilities. Where their order can matter (``_order_matters``) the seat chooses
    them one at a time (step ``abilities``); the rest run by themselves."""
    for seat in state["order"][start:]:
        left = sorted(c for c in state["seats"][seat]["characters"] if "ability" in characters()[c])
        state["step"] = {"kind": "abilities", "seat": seat, "left": left}
        if not _settle_abilities(state, events):
            return
    state["phase"] = 5
    _next_builder(state, 0)


def _settle_abilities(state: State, events: list[Event]) -> bool:
    """Run the open abilities in card order when their order cannot matter and none
    would take a newspaper the seat holds; False when the seat must choose."""
    seat, left = state["step"]["seat"], state["step"]["left"]
    if len(left) > 1 and _order_matters(state, seat, left):
        return False
    effects = (characters()[card]["ability"] for card in left)
    if state["seats"][seat]["newspapers"] and any(_takes_newspapers(e) for e in effects):
        return False  # §8: the seat may spend the newspapers an ability would take
    for card in left:
        _use_ability(state, seat, card, events)
    left.clear()
    return True


def _use_ability(state: State, seat: int, card: str, events: list[Event]) -> None:
    _gain(state, seat, characters()[card]["ability"], events, lose_up_to=True)
    events.append({"type": "ability", "seat": seat, "card": card})


def _do_ability(state: State, seat: int, action: Action, events: list[Event]) -> None:
    state["step"]["left"].remove(action["card"])
    _use_ability(state, seat, action["card"], events)


def _order_matters(state: State, seat: int, cards: Sequence[str]) -> bool:
    """Whether the order of these P4 abilities can change the outcome (item 16).

    Every ability is a map of gains; gains commute except where a value is held
    within bounds: money may not go below 0 (an ability's −£1 takes only what the
    seat has) and newspapers stay within 0–7. Buzz, income, gears, energy, VP and
    Westminster only rise (buzz and income clamp at the top only), and the
    one-shot buzz-threshold and Westminster-step bonuses depend on the totals
    reached, not on the order. So the order can matter only when a bounded value
    both rises and falls and may cross its bound: money when the seat holds less
    than the abilities' costs and some gain brings money, newspapers when a gain
    may pass 7 or a loss find none.
    ``tests/engines/crystal_palace/test_crystal_palace_order.py`` checks this against
    every order of random hands.
    """
    player = state["seats"][seat]
    effects = [characters()[c]["ability"] for c in cards]
    rises: dict[str, int] = {"money": 0, "newspapers": 0}
    falls: dict[str, int] = {"money": 0, "newspapers": 0}
    for effect in effects:
        for key in rises:
            amount = int(effect.get(key, 0))
            rises[key] += max(0, amount)
            falls[key] += max(0, -amount)
    bonuses = _track_bonuses(state, seat, effects)
    for key in rises:
        rises[key] += max(0, int(bonuses.get(key, 0)))
    if falls["money"] and rises["money"] and player["money"] < falls["money"]:
        return True
    top = _limit("newspapers")
    held = player["newspapers"]
    return bool(
        falls["newspapers"]
        and rises["newspapers"]
        and (held + rises["newspapers"] > top or held < falls["newspapers"])
    )


def _track_bonuses(state: State, seat: int, effects: list[Effect]) -> dict[str, int]:
    """The one-shot buzz-threshold and Westminster-step bonuses these gains reach."""
    player = state["seats"][seat]
    buzz = sum(int(e.get("buzz", 0)) for e in effects)
    steps = sum(int(e.get("westminster", 0)) for e in effects)
    reached: list[Effect] = [
        bonus
        for threshold, bonus in components()["buzz_thresholds"]
        if player["buzz_peak"] < threshold <= min(_limit("buzz"), player["buzz"] + buzz)
    ]
    track = components()["westminster_track"]
    for step in range(player["westminster"] + 1, player["westminster"] + steps + 1):
        reached.append(
            track[step - 1] if step <= len(track) else components()["westminster_beyond"]
        )
    total: dict[str, int] = {}
    for bonus in reached:
        for key, amount in bonus.items():
            total[key] = total.get(key, 0) + int(amount)
    return total


def _prototype_cost(state: State, seat: int, card: str) -> dict[str, int]:
    cost = patents()[card]["cost"]
    return {
        "gears": max(0, cost["gears"] + _perm(state, seat, "prototype_gears")),
        "energy": max(0, cost["energy"] + _perm(state, seat, "prototype_energy")),
        "money": cost["money"],
    }


def _buildable(state: State, seat: int) -> list[str]:
    player = state["seats"][seat]
    return [
        card
        for card in player["patents"]
        if all(
            player[k] >= v for k, v in _prototype_cost(state, seat, card).items() if k != "money"
        )
    ]


def _could_build(state: State, seat: int) -> bool:
    """Whether the seat can build a patent now or after turning newspapers into
    gears (§8: 2 newspapers → 1 gear): such a seat gets a build turn (item 15)."""
    player = state["seats"][seat]
    rate = components()["exchanges"]["gear"]
    spare = player["newspapers"] // rate["newspapers"] * rate["gain"]["gears"]
    for card in player["patents"]:
        cost = _prototype_cost(state, seat, card)
        if player["energy"] >= cost["energy"] and player["gears"] + spare >= cost["gears"]:
            return True
    return False


def _build_actions(state: State, seat: int) -> list[Action]:
    return [
        {"type": "build", "card": card, "target": target}
        for card in _buildable(state, seat)
        for target in range(state["players"])
    ] + [{"type": "done"}]


def _next_builder(state: State, start: int) -> None:
    """§14 phase 5: the next seat in player order, from index ``start``, that can build."""
    for seat in state["order"][start:]:
        if _could_build(state, seat):
            state["turn"] = seat
            state["step"] = {"kind": "build"}
            return
    state["turn"] = None
    state["step"] = {"kind": "build"}


def _do_build(state: State, seat: int, action: Action, events: list[Event]) -> None:
    player = state["seats"][seat]
    card = patents()[action["card"]]
    cost = _prototype_cost(state, seat, action["card"])
    player["gears"] -= cost["gears"]
    player["energy"] -= cost["energy"]
    _pay(state, seat, cost["money"], events)
    player["patents"].remove(action["card"])
    player["prototypes"].append(action["card"])
    vp = card["vp"][state["round"]] + _perm(state, seat, "prototype_vp")
    if card["link"] in player["characters"]:
        vp += components()["prototype_link_vp"]
    player["vp"] += vp
    target = action["target"]
    events.append(
        {"type": "build", "seat": seat, "card": action["card"], "target": target, "vp": vp}
    )
    if (
        target != seat
        and _takes_newspapers(card["target"])
        and state["seats"][target]["newspapers"]
    ):
        # §8: the target may spend the newspapers the effect would take first.
        state["step"] = {"kind": "target", "seat": target, "card": action["card"]}
        return
    _gain(state, target, card["target"], events, lose_up_to=True)
    _built(state, seat)


def _takes_newspapers(effect: Effect) -> bool:
    return isinstance(effect.get("newspapers"), int) and effect["newspapers"] < 0


def _built(state: State, seat: int) -> None:
    """After a prototype: the builder goes on while it could build more."""
    state["step"] = {"kind": "build"}
    if not _could_build(state, seat):
        _next_builder(state, state["order"].index(seat) + 1)


def _do_accept(state: State, seat: int, action: Action, events: list[Event]) -> None:
    _gain(state, seat, patents()[state["step"]["card"]]["target"], events, lose_up_to=True)
    _built(state, state["turn"])


def _do_done(state: State, seat: int, action: Action, events: list[Event]) -> None:
    _next_builder(state, state["order"].index(seat) + 1)


def _buzz_round_vp(buzz: int) -> int:
    return int(max(vp for start, vp in components()["buzz_round_vp"] if buzz >= start))


def _phase6(state: State, events: list[Event]) -> None:
    """Income, current events (Black Market spaces, P6 research tiles), buzz VP, income drop."""
    state["phase"] = 6
    seats = state["seats"]
    for seat in state["order"]:
        seats[seat]["money"] += seats[seat]["income"]
    spaces = _market_spaces(state)
    for seat in state["order"]:
        for i, holder in enumerate(state["market"]):
            if holder == seat:
                _gain(state, seat, spaces[i]["reward"], events)
        for tile in list(seats[seat]["research"]):
            info = research_tiles()[tile]
            if info["timing"] == "P6":
                _gain(state, seat, info["effect"], events)
    for seat in state["order"]:
        seats[seat]["vp"] += _buzz_round_vp(seats[seat]["buzz"])
    for player in seats:
        player["income"] = _clamp(player["income"] - components()["income_drop"], _limit("income"))


def _phase7(state: State) -> None:
    """Dice home, displays refilled, next season's shares, gears and tickets back, round +1."""
    state["round"] += 1
    state["phase"] = 1
    state["tickets"] += state["spent_tickets"]
    state["spent_tickets"] = 0
    for player in state["seats"]:
        player["rolled"] = []
        player["unplaced"] = []
        player["passed"] = False
    _fill_displays(state)
    state["step"] = {"kind": "dice"}


def _begin_placement(state: State) -> None:
    state["phase"] = 2
    for player in state["seats"]:
        player["unplaced"] = list(player["rolled"])
    _next_placer(state, state["order"][-1])
