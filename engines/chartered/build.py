"""Chartered's build, per ``rules/chartered.md``.

Option 2 of a turn (§8.2) and its resolution (§9): founding (§9.1), expansion
and stacking with a plot card (§9.2), level cards (§9.3), mergers (§9.4), and
the construction payout that opens the trading window (§9.5).
"""

from __future__ import annotations

from engines.base import Action, Event, State
from engines.chartered.board import components
from engines.chartered.state import (
    _add_value,
    _adjacent_companies,
    _bank_shares,
    _closed,
    _founding_layouts,
    _occupied,
    _pay,
    _plot_outcome,
    cards,
)


def _build_actions(state: State, seat: int) -> list[Action]:
    actions: list[Action] = []
    seen_levels = set()
    closed = _closed(state)
    for card in state["hands"][seat]:
        info = cards()[card]
        if info["kind"] == "plot":
            if info["plot"] < len(state["plots"]) and _plot_outcome(state, info["plot"], closed):
                actions.append({"type": "build", "card": card})
        elif info["level"] not in seen_levels:
            seen_levels.add(info["level"])
            for plot in _occupied(state):
                if state["plots"][plot][1] == info["level"] - 1:
                    actions.append({"type": "build", "card": card, "plot": plot})
    return actions


def _do_build(state: State, seat: int, action: Action, events: list[Event]) -> None:
    card = action["card"]
    state["hands"][seat].remove(card)
    state["discard"].append(card)
    info = cards()[card]
    if info["kind"] == "level":
        plot = action["plot"]
        company = state["plots"][plot][0]
        _place(state, plot, company)
        _add_value(state, company, info["level"] * components()["stock"]["step"])
        events.append(
            {
                "type": "level",
                "seat": seat,
                "plot": plot,
                "level": info["level"],
                "company": company,
                "value": state["companies"][company]["value"],
            }
        )
        return _build_done(state, seat, company, flag_ok=state["options"]["level_flag"])
    plot = info["plot"]
    outcome = _plot_outcome(state, plot)
    if outcome == "stack":
        company = state["plots"][plot][0]
        _place(state, plot, company)
        _add_value(state, company, components()["stock"]["step"])
        events.append(_grown("stack", state, seat, plot, company))
        return _build_done(state, seat, company)
    if outcome == "expand":
        (company,) = _adjacent_companies(state, plot)
        _place(state, plot, company)
        _add_value(state, company, components()["stock"]["step"])
        events.append(_grown("expand", state, seat, plot, company))
        return _build_done(state, seat, company)
    if outcome == "merge":
        companies = _adjacent_companies(state, plot)
        state["pending"] = {"step": "boost", "seat": seat, "plot": plot, "companies": companies}
        return None
    state["pending"] = {"step": "company", "seat": seat, "plot": plot}
    return None


def _grown(kind: str, state: State, seat: int, plot: int, company: str) -> Event:
    """The event of a stack or an expansion, with the company's new value."""
    value = state["companies"][company]["value"]
    return {"type": kind, "seat": seat, "plot": plot, "company": company, "value": value}


def _place(state: State, plot: int, company: str) -> None:
    """One warehouse from the supply onto ``plot`` (§9.0): on top, or a new plot of ``company``."""
    held = state["plots"][plot]
    if held:
        held[1] += 1
    else:
        state["plots"][plot] = [company, 1]
    state["supply"] -= 1


def _do_company(state: State, seat: int, action: Action, events: list[Event]) -> None:
    pending = state["pending"]
    pending.update(step="layout", company=action["company"])
    pending["layouts"] = [list(p) for p in _founding_layouts(state, pending["plot"])]


def _do_layout(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """§9.1: HQ on the card's plot (height 2), two free warehouses, value ƒ30, one free share."""
    pending = state["pending"]
    company, hq = pending["company"], pending["plot"]
    state["plots"][hq] = [company, 2]
    state["supply"] -= 1
    for plot in action["plots"]:
        state["plots"][plot] = [company, 1]
        state["supply"] -= 1
    state["companies"][company] = {"value": components()["stock"]["found"], "hq": hq}
    if _bank_shares(state, company):
        state["shares"][seat][company][0] += 1
    events.append(
        {
            "type": "found",
            "seat": seat,
            "company": company,
            "plots": [hq, *action["plots"]],
            "value": state["companies"][company]["value"],
        }
    )
    _build_done(state, seat, company)


def _do_boost(state: State, seat: int, action: Action, events: list[Event]) -> None:
    """§9.4.1–2: the warehouse goes on the plot, +ƒ10 to one merging company (the plot
    counts as its, so every plot always has an owner), then the pairwise merges."""
    pending = state["pending"]
    pending["boosted"] = action["company"]
    _place(state, pending["plot"], action["company"])
    _add_value(state, action["company"], components()["stock"]["step"])
    _next_merge(state, seat, events)


def _next_merge(state: State, seat: int, events: list[Event]) -> None:
    """Merge pairwise until one company stands (§9.4.3): the seat picks the first pair
    among three or more, and the survivor of a tie."""
    pending = state["pending"]
    companies = pending["companies"]
    if len(companies) > 2:
        pending["step"] = "pair"
        return None
    if len(companies) == 2:
        return _merge_pair(state, seat, companies[0], companies[1], events)
    (survivor,) = companies
    state["plots"][pending["plot"]][0] = survivor
    paid = survivor
    if state["options"]["merger_payout"] == "boosted" and pending["boosted"] in state["companies"]:
        paid = pending["boosted"]
    return _build_done(state, seat, survivor, payout_from=paid)


def _merge_pair(state: State, seat: int, a: str, b: str, events: list[Event]) -> None:
    value_a, value_b = state["companies"][a]["value"], state["companies"][b]["value"]
    if value_a == value_b:
        state["pending"].update(step="survivor", tie=[a, b])
        return None
    survivor, loser = (a, b) if value_a > value_b else (b, a)
    return _absorb(state, seat, survivor, loser, events)


def _absorb(state: State, seat: int, survivor: str, loser: str, events: list[Event]) -> None:
    """§9.4.4: the loser's shares and flag are sold off, values add, plots join the
    survivor, the loser's HQ comes off (its plot loses a floor)."""
    value = state["companies"][loser]["value"]
    for s, held in enumerate(state["shares"]):
        if sum(held[loser]):
            _pay(state, s, -sum(held[loser]) * value)
            held[loser] = [0, 0]
    owner = state["flags"].pop(loser, None)
    if owner is not None:
        _pay(state, owner, -components()["prices"]["flag_share_equivalent"] * value)
    _add_value(state, survivor, value)
    for held in state["plots"]:
        if held and held[0] == loser:
            held[0] = survivor
    hq = state["companies"].pop(loser)["hq"]
    state["plots"][hq][1] -= 1
    events.append(
        {"type": "merge", "seat": seat, "survivor": survivor, "absorbed": loser, "value": value}
    )
    pending = state["pending"]
    pending.pop("tie", None)
    pending["companies"] = [c for c in pending["companies"] if c != loser]
    _next_merge(state, seat, events)


def _do_pair(state: State, seat: int, action: Action, events: list[Event]) -> None:
    a, b = action["companies"]
    _merge_pair(state, seat, a, b, events)


def _do_survivor(state: State, seat: int, action: Action, events: list[Event]) -> None:
    a, b = state["pending"]["tie"]
    survivor = action["company"]
    _absorb(state, seat, survivor, b if survivor == a else a, events)


def _build_done(
    state: State, seat: int, company: str, flag_ok: bool = True, payout_from: str | None = None
) -> None:
    """§9.5 payout, then the trading window (§10.2)."""
    payout = state["companies"][payout_from or company]["value"]
    _pay(state, seat, -payout)
    state["pending"] = {
        "step": "trade",
        "seat": seat,
        "trades": 0,
        "flag": company if flag_ok else None,
    }
    if state["supply"] == 0 and state["options"]["last_turn"] == "immediate":
        state["pending"] = {"step": "end", "seat": seat}
