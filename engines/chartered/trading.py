"""Chartered's trading window, per ``rules/chartered.md``.

After a build (§10.2): up to two share transactions (§10.1) or one flag (§10.3).
"""

from __future__ import annotations

from engines.base import Action, Event, State
from engines.chartered.board import components
from engines.chartered.state import _bank_shares, _pay, _price


def _trade_actions(state: State, seat: int) -> list[Action]:
    pending = state["pending"]
    actions: list[Action] = [{"type": "done"}]
    cash = state["cash"][seat]
    for company in sorted(state["companies"]):
        if _bank_shares(state, company) and cash >= _price(state, company):
            actions.append({"type": "trade", "op": "buy", "company": company, "face_down": False})
            if state["options"]["hidden_shares"]:
                actions.append(
                    {"type": "trade", "op": "buy", "company": company, "face_down": True}
                )
        if sum(state["shares"][seat][company]):
            actions.append({"type": "trade", "op": "sell", "company": company})
    flag_target = pending.get("flag")
    bought = state["flags_bought"][seat]
    prices = components()["prices"]["flags"]
    if (
        pending["trades"] == 0
        and flag_target in state["companies"]
        and flag_target not in state["flags"]
        and bought < components()["flags_per_player"]
        and cash >= prices[bought]
    ):
        actions.append({"type": "flag", "company": flag_target})
    return actions


def _do_trade(state: State, seat: int, action: Action, events: list[Event]) -> None:
    company = action["company"]
    held = state["shares"][seat][company]
    if action["op"] == "buy":
        price = _price(state, company)
        _pay(state, seat, price)
        held[1 if action["face_down"] else 0] += 1
    else:
        price = state["companies"][company]["value"]
        _pay(state, seat, -price)
        held[0 if held[0] else 1] -= 1
    state["pending"]["trades"] += 1
    # Events go to every viewer: a face-down purchase names neither its company
    # nor its price (the price can single the company out).
    if action["op"] == "buy" and action["face_down"]:
        events.append({"type": "trade", "seat": seat, "op": "buy", "company": None})
    else:
        events.append(
            {"type": "trade", "seat": seat, "op": action["op"], "company": company, "price": price}
        )
    if state["pending"]["trades"] >= components()["trades_per_window"]:
        state["pending"] = {"step": "end", "seat": seat}


def _do_flag(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """§10.3: ƒ200 for the first flag, ƒ400 for the second; one flag per company."""
    price = components()["prices"]["flags"][state["flags_bought"][seat]]
    _pay(state, seat, price)
    state["flags_bought"][seat] += 1
    state["flags"][action["company"]] = seat
    events.append({"type": "flag", "seat": seat, "company": action["company"], "price": price})
    state["pending"] = {"step": "end", "seat": seat}


def _do_done(state: State, seat: int, action: Action, events: list[Event]) -> None:
    state["pending"] = {"step": "end", "seat": seat}
