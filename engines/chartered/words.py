"""Chartered in words for people, per ``rules/chartered.md``: move labels, event
sentences, card effects.

They read only what every seat may see (the board, companies, market, cash)
plus the deciding seat's own hand and shares, so a label never reveals the
deck, another hand or another seat's face-down shares. ``game`` is a state or
a view: both carry the fields read here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from engines.base import STEP, Action, Event, State, View, narrate_plainly, seat_name
from engines.chartered.board import components
from engines.chartered.state import _adjacent_companies, _card, _plot_outcome, _price, cards, clamp


@cache
def _companies_by_id() -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in components()["companies"]}


def company_name(company: str) -> str:
    """A company's display name (§3), e.g. ``Goud`` for ``gold``."""
    info = _companies_by_id().get(company)
    return str(info["name"]) if info else str(company)


def company_label(company: str) -> str:
    """A company's one-letter board label: the first letter of its name, unique."""
    return company_name(company)[0]


def _value(game: State | View, company: str) -> int:
    return int(game["companies"][company]["value"])


def _names(companies: Sequence[str]) -> str:
    named = [company_name(c) for c in companies]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


def card_outcome(game: State | View, card: Mapping[str, Any]) -> tuple[str, list[str]]:
    """What a building card would do if built now (§9.0): ``("expand", [company])``,
    ``("stack", [company])``, ``("merge", companies)``, ``("found", [])``,
    ``("level", [])`` or ``("blocked", [])``."""
    if card["kind"] == "level":
        return "level", []
    plot = card["plot"]
    if plot >= len(game["plots"]):
        return "blocked", []
    outcome = _plot_outcome(game, plot)
    if outcome == "stack":
        return "stack", [game["plots"][plot][0]]
    if outcome in ("expand", "merge"):
        return outcome, _adjacent_companies(game, plot)
    return outcome or "blocked", []


def card_effect(game: State | View, card: Mapping[str, Any]) -> str:
    """A card and what it would do if built now: ``plot 25 (would expand Goud, +ƒ10)``."""
    step = components()["stock"]["step"]
    if card["kind"] == "level":
        level = card["level"]
        return f"level {level} (+ƒ{level * step} to a company, on a height-{level - 1} plot)"
    if game["finished"]:
        return f"plot {card['plot']} (not built: the game is over)"
    outcome, companies = card_outcome(game, card)
    if outcome in ("stack", "expand"):
        effect = f"would {outcome} {_names(companies)}, +ƒ{step}"
        effect = effect.replace("would stack", "would stack on")
    elif outcome == "merge":
        effect = f"would merge {'+'.join(map(company_name, companies))}"
    else:
        effect = "would found a company" if outcome == "found" else "cannot be built now"
    return f"plot {card['plot']} ({effect})"


def describe_action(state: State, seat: int, action: Action) -> str:
    """The label of a legal action: its effect and its price, in words (see the module
    docstring's steps; choice steps are split by ``STEP``)."""
    kind = action["type"]
    prices = components()["prices"]
    pending = state["pending"] or {}
    if kind == "build":
        return _describe_build(state, action)
    if kind == "buy":
        if pending.get("paid"):
            card = _card(state["market"][action["from"]])
            return f"take a card, already paid{STEP}market {action['from'] + 1}: " + card_effect(
                state, card
            )
        head = f"buy a card for ƒ{prices['card']}{STEP}"
        if action["from"] == "deck":
            return head + f"blind from the deck ({len(state['deck'])} left)"
        card = _card(state["market"][action["from"]])
        return head + f"market {action['from'] + 1}: " + card_effect(state, card)
    if kind == "refresh":
        total = prices["market_refresh"] + prices["card"]
        return (
            f"replace the open market for ƒ{prices['market_refresh']}, "
            f"then buy a card for ƒ{prices['card']} (ƒ{total} in all)"
        )
    if kind == "sell":
        company = action["company"]
        why = (
            "event: sell a share" if pending.get("step") == "sell" else "forced sale: sell a share"
        )
        return f"{why}{STEP}{company_name(company)} for ƒ{_value(state, company)}"
    if kind == "pass":
        return "pass (you can neither build, buy a card nor sell a share)"
    if kind == "company":
        company = action["company"]
        commodity = _companies_by_id()[company]["commodity"]
        return (
            f"found {company_name(company)} ({commodity}): value "
            f"ƒ{components()['stock']['found']}, you get 1 free share"
        )
    if kind == "layout":
        a, b = action["plots"]
        return f"free warehouses on plots {a} and {b}"
    if kind == "boost":
        return _describe_boost(state, action["company"])
    if kind == "pair":
        a, b = action["companies"]
        return f"merge {company_name(a)} and {company_name(b)} first: " + _merger_outcome(
            _value(state, a), _value(state, b), a, b
        )
    if kind == "survivor":
        survivor = action["company"]
        (loser,) = [c for c in pending["tie"] if c != survivor]
        return (
            f"{company_name(survivor)} survives and absorbs {company_name(loser)} "
            f"({company_name(loser)} shares sold at ƒ{_value(state, loser)})"
        )
    if kind == "trade":
        company = action["company"]
        if action["op"] == "sell":
            return f"sell a share{STEP}{company_name(company)} for ƒ{_value(state, company)}"
        face = "face down" if action["face_down"] else "face up"
        return f"buy a share{STEP}{company_name(company)} {face} for ƒ{_price(state, company)}"
    if kind == "flag":
        price = prices["flags"][state["flags_bought"][seat]]
        return (
            f"buy a flag in {company_name(action['company'])} for ƒ{price} "
            f"(counts as {prices['flag_share_equivalent']} shares; no share trades then)"
        )
    if kind == "done":
        return "end the turn" + (" without trading" if not pending.get("trades") else "")
    return str(kind)


def _describe_build(state: State, action: Action) -> str:
    card = cards()[action["card"]]
    step = components()["stock"]["step"]
    if card["kind"] == "level":
        plot, level = action["plot"], card["level"]
        company = state["plots"][plot][0]
        value = clamp(_value(state, company) + level * step)
        return (
            f"build level {level}{STEP}on plot {plot} ({company_name(company)}, height "
            f"{level - 1}→{level}): {company_name(company)} ƒ{_value(state, company)}→ƒ{value}, "
            f"you receive ƒ{value}"
        )
    plot = card["plot"]
    head = f"build plot {plot}{STEP}"
    outcome = _plot_outcome(state, plot)
    if outcome in ("stack", "expand"):
        held = state["plots"][plot]
        company = held[0] if held else _adjacent_companies(state, plot)[0]
        value = clamp(_value(state, company) + step)
        what = (
            f"stack on {company_name(company)} (height {held[1]}→{held[1] + 1})"
            if held
            else (f"expand {company_name(company)}")
        )
        return (
            head + f"{what}: {company_name(company)} ƒ{_value(state, company)}→ƒ{value}, "
            f"you receive ƒ{value}"
        )
    if outcome == "merge":
        merging = _adjacent_companies(state, plot)
        total = clamp(sum(_value(state, c) for c in merging) + step)
        listed = " + ".join(f"{company_name(c)} ƒ{_value(state, c)}" for c in merging)
        payout = (
            f"you receive ƒ{total}"
            if state["options"]["merger_payout"] == "survivor"
            else "you receive the value of the company you boost (if it survives)"
        )
        return (
            head + f"merge {listed}: the higher absorbs the lower (its shares are sold at "
            f"its value), together ƒ{total}; {payout}"
        )
    found = components()["stock"]["found"]
    return (
        head + f"found a company: HQ here and 2 more warehouses, value ƒ{found}, "
        f"you receive ƒ{found} and 1 free share"
    )


def _merger_outcome(value_a: int, value_b: int, a: str, b: str) -> str:
    if value_a == value_b:
        return f"both ƒ{value_a}, you choose the survivor"
    winner, loser = (a, b) if value_a > value_b else (b, a)
    return (
        f"{company_name(winner)} ƒ{max(value_a, value_b)} absorbs "
        f"{company_name(loser)} ƒ{min(value_a, value_b)}"
    )


def _describe_boost(state: State, company: str) -> str:
    step = components()["stock"]["step"]
    before = _value(state, company)
    boosted = clamp(before + step)
    head = f"+ƒ{step} to {company_name(company)} (ƒ{before}→ƒ{boosted})"
    others = [c for c in state["pending"]["companies"] if c != company]
    if len(others) != 1:
        return head
    return head + ": " + _merger_outcome(boosted, _value(state, others[0]), company, others[0])


_EVENT_WORDS = {
    "money": "every player {gains} ƒ{size}",
    "all_stocks": "every company on the board {gains} ƒ{size} in value",
    "three_stocks": "{companies} {gain} ƒ{size} in value",
}


def _event_card_words(event: Event) -> str:
    kind = event.get("kind")
    if kind == "sell_shares":
        count = event.get("count", 1)
        return f"every player sells {count} share{'s' if count > 1 else ''}, this player first"
    amount = int(event.get("amount", 0))
    affected = event.get("companies") or []
    words = _EVENT_WORDS.get(str(kind), "an event takes effect")
    return words.format(
        gains="gains" if amount >= 0 else "loses",
        gain=("gain" if len(affected) > 1 else "gains")
        if amount >= 0
        else ("lose" if len(affected) > 1 else "loses"),
        size=abs(amount),
        companies=_names(affected) if affected else "no company on the board",
    )


def narrate_event(event: Event, names: Sequence[str]) -> str:
    """One sentence of the game log per event; events hold only public facts."""
    kind = event.get("type")
    who = seat_name(names, event.get("seat"))
    company = company_name(str(event.get("company")))
    if kind == "buy":
        price = event.get("price", components()["prices"]["card"])
        if event["from"] == "deck":
            return f"{who} bought a card blind from the deck for ƒ{price}."
        card = card_effect_words(event["card"])
        if price == 0:
            return f"{who} took {card} from the market instead of the blind card (already paid)."
        return f"{who} bought {card} from market slot {event['from'] + 1} for ƒ{price}."
    if kind == "refresh":
        return f"{who} paid ƒ{components()['prices']['market_refresh']} to replace the open market."
    if kind == "found":
        hq, a, b = event["plots"]
        return (
            f"{who} founded {company} with its HQ on plot {hq} and warehouses on plots "
            f"{a} and {b} (value ƒ{event.get('value', components()['stock']['found'])})."
        )
    if kind in ("expand", "stack", "level"):
        verb = {
            "expand": f"expanded {company} to plot {event['plot']}",
            "stack": f"stacked a warehouse on plot {event['plot']} ({company})",
            "level": f"built level {event.get('level')} on plot {event['plot']} ({company})",
        }[str(kind)]
        value = f"; {company} is now worth ƒ{event['value']}" if "value" in event else ""
        return f"{who} {verb}{value}."
    if kind == "merge":
        absorbed = company_name(event["absorbed"])
        return (
            f"{who} merged {absorbed} into {company_name(event['survivor'])}: {absorbed} "
            f"shares were sold at ƒ{event['value']}, its value joins the survivor's."
        )
    if kind == "trade":
        if event["company"] is None:
            return f"{who} bought a share face down."
        verb = "bought" if event["op"] == "buy" else "sold"
        price = f" for ƒ{event['price']}" if "price" in event else ""
        return f"{who} {verb} a share of {company}{price}."
    if kind == "flag":
        price = f" for ƒ{event['price']}" if "price" in event else ""
        return f"{who} bought a flag in {company}{price} (it counts as 4 shares)."
    if kind == "sell":
        price = f" for ƒ{event['price']}" if "price" in event else ""
        return f"{who} sold a share of {company} to the bank{price}."
    if kind == "pass" and event.get("reason") == "forced_sale_failed":
        price = components()["prices"]["card"]
        return f"{who} passed: after selling every share they still cannot pay ƒ{price} for a card."
    if kind == "pass":
        return f"{who} passed: no move was possible."
    if kind == "event":
        return f"{who} revealed an event card: {_event_card_words(event)}."
    if kind == "refund":
        return (
            f"{who} got ƒ{event['amount']} back: the blind card was an event and "
            "no card is left to replace it."
        )
    if kind == "game_end":
        scores = ", ".join(
            f"{seat_name(names, s)} ƒ{score}" for s, score in enumerate(event["scores"])
        )
        return f"The game is over. Final money: {scores}."
    return narrate_plainly(event, names)


def card_effect_words(card: Mapping[str, Any]) -> str:
    """A card as the log names it, without the board: ``plot 25``, ``a level-2 card``."""
    if card.get("kind") == "plot":
        return f"plot {card['plot']}"
    if card.get("kind") == "level":
        return f"a level-{card['level']} card"
    return "a card"
