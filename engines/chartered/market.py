"""Chartered's card market, forced sales and events, per ``rules/chartered.md``.

Option 1 of a turn (§8.1: buy a building card blind or from the open market,
§8.1.1: refresh the market first), option 3's forced sale (§8.3), and the draws
that refill hands and the market, with the event cards they reveal (§11).
"""

from __future__ import annotations

from engines.base import Action, Event, State
from engines.chartered.board import components
from engines.chartered.state import _add_value, _card, _held, _pay, cards
from engines.rng import Rng


def _buy_actions(state: State) -> list[Action]:
    actions: list[Action] = [{"type": "buy", "from": "deck"}] if state["deck"] else []
    return actions + [{"type": "buy", "from": i} for i in range(len(state["market"]))]


def _can_buy(state: State, seat: int) -> bool:
    card_price = components()["prices"]["card"]
    return state["cash"][seat] >= card_price and bool(state["deck"] or state["market"])


def _can_refresh(state: State, seat: int) -> bool:
    prices = components()["prices"]
    return bool(state["deck"]) and state["cash"][seat] >= prices["card"] + prices["market_refresh"]


def _purchase_actions(state: State, seat: int) -> list[Action]:
    """Option 1 (§8.1): a card from the deck or the market, or a refresh first."""
    if not _can_buy(state, seat):
        return []
    refresh: list[Action] = [{"type": "refresh"}] if _can_refresh(state, seat) else []
    return _buy_actions(state) + refresh


def _do_refresh(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """§8.1.1 (A2): replace the whole open market, then buy."""
    _pay(state, seat, components()["prices"]["market_refresh"])
    old, state["market"] = state["market"], []
    if state["options"]["market_refresh"] == "shuffle":
        state["deck"] += old
        rng = Rng(state["rng"])
        rng.shuffle(state["deck"])
        state["rng"] = rng.state
    else:
        state["discard"] += old
    size = components()["setup"][str(state["players"])]["market"]
    state["draws"] += [{"to": "market", "seat": seat}] * size
    state["pending"] = {"step": "buy", "seat": seat}
    events.append({"type": "refresh", "seat": seat})


def _do_buy(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """§8.1: pay ƒ50; take the top card (blind) or a market card (the slot is refilled).
    A blind buyer whose event card the deck cannot replace has paid already."""
    paid = bool(state["pending"] and state["pending"].get("paid"))
    price = 0 if paid else components()["prices"]["card"]
    _pay(state, seat, price)
    bought: Event = {"type": "buy", "seat": seat, "from": action["from"], "price": price}
    if action["from"] == "deck":
        state["draws"].append({"to": "hand", "seat": seat})
    else:
        card = state["market"].pop(action["from"])
        state["hands"][seat].append(card)
        state["draws"].append({"to": "market", "seat": seat})
        bought["card"] = _card(card)
    events.append(bought)
    state["pending"] = {"step": "end", "seat": seat}


def _do_sell(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """A share sold outside the trading window: forced (§8.3) or by an event (§11)."""
    _sell_share(state, seat, action["company"], events)
    pending = state["pending"]
    if pending is None:  # option 3: sell until a card can be bought
        pending = state["pending"] = {"step": "forced", "seat": seat}
    if pending["step"] == "sell":
        pending["count"] -= 1
        if pending["count"] == 0 or not _held(state, seat):
            pending["order"].pop(0)
            _next_event_seller(state, events)


def _sell_share(state: State, seat: int, company: str, events: list[Event]) -> None:
    """One share to the bank at its value, a face-up one first (a sale is public)."""
    held = state["shares"][seat][company]
    held[0 if held[0] else 1] -= 1
    price = state["companies"][company]["value"]
    _pay(state, seat, -price)
    events.append({"type": "sell", "seat": seat, "company": company, "price": price})


def _draw_all(state: State, events: list[Event]) -> None:
    """Serve queued draws; an event card takes effect and is replaced (§11.1)."""
    while state["draws"] and not (state["pending"] and state["pending"]["step"] == "sell"):
        if not state["deck"]:
            blind = [r["seat"] for r in state["draws"] if r["to"] == "hand"]
            state["draws"].clear()
            for seat in blind:
                _replace_blind_card(state, seat, events)
            return
        card = state["deck"].pop()
        request = state["draws"][0]
        if cards()[card]["kind"] == "event":
            state["discard"].append(card)
            _resolve_event(state, request["seat"], card, events)
            continue
        state["draws"].pop(0)
        if request["to"] == "hand":
            state["hands"][request["seat"]].append(card)
        else:
            state["market"].append(card)


def _replace_blind_card(state: State, seat: int, events: list[Event]) -> None:
    """A blind buy drew the deck's last card, an event, so the deck cannot replace
    it (§11.1): the buyer takes a market card instead, already paid for; with the
    market empty too, the bank pays the ƒ50 back (no card can be had, §8.1)."""
    if state["market"]:
        state["pending"] = {"step": "buy", "seat": seat, "paid": True}
        return
    price = components()["prices"]["card"]
    _pay(state, seat, -price)
    events.append({"type": "refund", "seat": seat, "amount": price})


def _resolve_event(state: State, trigger: int, card: int, events: list[Event]) -> None:
    event = cards()[card]
    told: Event = {"type": "event", "seat": trigger, "event": event["id"], "kind": event["type"]}
    events.append(told)
    if event["type"] == "money":
        told["amount"] = event["amount"]
        for seat in range(state["players"]):
            if event["amount"] >= 0:
                _pay(state, seat, -event["amount"])
            else:  # §11.1 [proposed]: who has less pays all their cash, no debt
                _pay(state, seat, min(state["cash"][seat], -event["amount"]))
    elif event["type"] in ("all_stocks", "three_stocks"):
        if event["type"] == "all_stocks":
            amount, affected = event["amount"], list(state["companies"])
        else:
            amount = event["sign"] * state["options"]["three_stocks_amount"]
            triple = {c["id"] for c in components()["companies"] if c["triple"] == event["triple"]}
            affected = [c for c in state["companies"] if c in triple]
        told.update(amount=amount, companies=sorted(affected))
        for company in affected:
            _add_value(state, company, amount)
    else:
        told["count"] = event["count"]
        order = [(trigger + i) % state["players"] for i in range(state["players"])]
        state["pending"] = {
            "step": "sell",
            "order": order,
            "count": event["count"],
            "per": event["count"],
            "resume": state["pending"],  # the step the event interrupted
        }
        _next_event_seller(state, events)


def _next_event_seller(state: State, events: list[Event]) -> None:
    """The next player to sell for a sell-shares event; forced choices are made here,
    and told as the same ``sell`` events as chosen sales. A seat holding face-down
    shares is asked even when they leave it no choice: whether it had one must not
    tell the others which companies they are in."""
    pending = state["pending"]
    while pending["order"]:
        seat = pending["order"][0]
        held = _held(state, seat)
        face_down = any(down for _, down in state["shares"][seat].values())
        choice = len(held) > 1 or face_down
        if choice and sum(sum(state["shares"][seat][c]) for c in held) > pending["per"]:
            pending.update(seat=seat, count=pending["per"])
            return
        for _ in range(pending["per"]):
            held = _held(state, seat)
            if not held:
                break
            _sell_share(state, seat, held[0], events)
        pending["order"].pop(0)
    state["pending"] = pending["resume"]
