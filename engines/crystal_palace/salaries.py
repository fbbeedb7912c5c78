"""Crystal Palace phase 4 (``rules/crystal_palace.md`` §14): salaries, with the loans a
seat must take to pay them, then the characters' abilities, in an order the seat
chooses when the order can change the outcome."""

from __future__ import annotations

from collections.abc import Sequence

from engines.base import Action, Event, State
from engines.crystal_palace.building import next_builder, takes_newspapers
from engines.crystal_palace.data import (
    Effect,
    characters,
    components,
    limit,
    research_tiles,
)
from engines.crystal_palace.economy import (
    gain_effect,
    pay,
)


def salary(state: State, seat: int, card: str) -> int:
    player = state["seats"][seat]
    others = sum(
        characters()[c].get("perm", {}).get("other_salaries", 0)
        for c in player["characters"]
        if c != card
    )
    research = sum(research_tiles()[t].get("perm", {}).get("salary", 0) for t in player["research"])
    return int(max(0, characters()[card]["salary"] + others + research))


def _salaries_due(state: State, seat: int) -> int:
    return sum(salary(state, seat, card) for card in state["seats"][seat]["characters"])


def newspaper_money(state: State, seat: int) -> int:
    """The £ the seat could raise now by turning all its newspapers into money (§8)."""
    rate = components()["exchanges"]["money"]
    return int(state["seats"][seat]["newspapers"] // rate["newspapers"] * rate["gain"]["money"])


def loans_for(money: int, due: int) -> int:
    amount: int = components()["loans"]["amount"]
    return max(0, -(-(due - money) // amount))


def salaries(state: State, start: int, events: list[Event]) -> None:
    """§14 phase 4 step 1, in player order from index ``start``: each seat pays its
    salaries (loans if short). A seat whose newspapers would spare it a loan is asked
    first (§8: newspapers are spent at any time): step ``salary`` until it pays."""
    state["phase"] = 4
    for seat in state["order"][start:]:
        due = _salaries_due(state, seat)
        money = state["seats"][seat]["money"]
        if loans_for(money, due) != loans_for(money + newspaper_money(state, seat), due):
            state["step"] = {"kind": "salary", "seat": seat, "due": due}
            return
        if due:
            _pay_salaries(state, seat, due, events)
    abilities(state, 0, events)


def _pay_salaries(state: State, seat: int, due: int, events: list[Event]) -> None:
    events.append({"type": "salary", "seat": seat, "amount": due})
    pay(state, seat, due, events)


def do_pay(state: State, seat: int, action: Action, events: list[Event]) -> None:
    if state["step"]["due"]:
        _pay_salaries(state, seat, state["step"]["due"], events)
    salaries(state, state["order"].index(seat) + 1, events)


def abilities(state: State, start: int, events: list[Event]) -> None:
    """§14 phase 4 step 2, in player order from index ``start``: each seat's P4
    abilities. Where their order can matter (``order_matters``) the seat chooses
    them one at a time (step ``abilities``); the rest run by themselves."""
    for seat in state["order"][start:]:
        left = sorted(c for c in state["seats"][seat]["characters"] if "ability" in characters()[c])
        state["step"] = {"kind": "abilities", "seat": seat, "left": left}
        if not settle_abilities(state, events):
            return
    state["phase"] = 5
    next_builder(state, 0)


def settle_abilities(state: State, events: list[Event]) -> bool:
    """Run the open abilities in card order when their order cannot matter and none
    would take a newspaper the seat holds; False when the seat must choose."""
    seat, left = state["step"]["seat"], state["step"]["left"]
    if len(left) > 1 and order_matters(state, seat, left):
        return False
    effects = (characters()[card]["ability"] for card in left)
    if state["seats"][seat]["newspapers"] and any(takes_newspapers(e) for e in effects):
        return False  # §8: the seat may spend the newspapers an ability would take
    for card in left:
        use_ability(state, seat, card, events)
    left.clear()
    return True


def use_ability(state: State, seat: int, card: str, events: list[Event]) -> None:
    gain_effect(state, seat, characters()[card]["ability"], events, lose_up_to=True)
    events.append({"type": "ability", "seat": seat, "card": card})


def do_ability(state: State, seat: int, action: Action, events: list[Event]) -> None:
    state["step"]["left"].remove(action["card"])
    use_ability(state, seat, action["card"], events)


def order_matters(state: State, seat: int, cards: Sequence[str]) -> bool:
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
    top = limit("newspapers")
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
        if player["buzz_peak"] < threshold <= min(limit("buzz"), player["buzz"] + buzz)
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
