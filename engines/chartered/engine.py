"""Chartered: The Golden Age, per ``rules/chartered.md``.

A turn is one of three options (§8): buy a building card (blind or from the
open market, after an optional market refresh), build (found, expand, stack,
level, merge; then the construction payout and a trading window or a flag),
or — only when neither is possible — sell shares and buy. Every decision is
one action of the seat that makes it, so a build that needs more decisions is
a sequence of actions; ``state["pending"]`` says what is being decided:

=============  ==============================================================
pending step   actions (all also carry ``"type"``)
=============  ==============================================================
``None``       ``buy {from: "deck"|slot}``, ``refresh``,
               ``build {card, plot?}`` (``plot`` for level cards), ``sell {company}``
               (only when neither buying nor building is possible), ``pass``
``buy``        ``buy {from}`` (after a refresh; or, with ``paid``, a market card
               instead of a blind card the deck could not replace)
``company``    ``company {company}``: which free company to found (§9.1)
``layout``     ``layout {plots: [a, b]}``: the two free warehouses (§9.1)
``boost``      ``boost {company}``: which merging company gets the +ƒ10 (§9.4)
``pair``       ``pair {companies: [x, y]}``: which two merge first (3+ companies)
``survivor``   ``survivor {company}``: the survivor of a tie
``trade``      ``trade {op: "buy"|"sell", company, face_down}``, ``flag {company}``,
               ``done`` (§10.2: up to two share transactions, or one flag)
``forced``     after a forced sale (§8.3): ``sell {company}`` again, or option 1:
               ``buy {from}``, ``refresh`` (once the seat can pay for them)
``sell``       ``sell {company}`` (forced sale, §8.3; or a sell-shares event, §11,
               by each player in turn from the trigger player)
=============  ==============================================================

Hidden information: the deck's order (views show its size), each seat's hand
(others see its size), and — with the ``hidden_shares`` option — which
companies a seat holds face-down shares in (others see how many). The bank's
share count a view shows therefore counts the other seats' face-down shares as
still in the bank; what stays public, as at the table, is the money paid, a
share sold (it is named) and, when a company's bank runs out, that nobody can
buy it.

Choices where the spec is silent, beyond its [proposed] defaults (§13 options):

* Identical level cards are one legal action per target (the first such card).
* A forced sale (§8.3) sells at least one share; the seat sells on while it
  cannot pay ƒ50 and may sell more once it can, then takes option 1 (a
  refresh too, if it can pay ƒ100). A seat that cannot pay after selling
  everything (a ``pass`` event with ``reason`` ``"forced_sale_failed"``), or
  faces an empty deck and market, passes. The game also ends
  when every seat passes in a row (§12.2).
* A sell-shares event skips players without shares; a player whose shares are
  all in one company, or who holds no more than the event takes, sells without
  being asked (each such sale is a ``sell`` event like a chosen one).
* Events are resolved in the order drawn; an event drawn as a replacement is
  resolved too (§11.1 [proposed]). When a blind buy's event was the deck's
  last card, the deck cannot give the replacement the seed promises, so the
  buyer takes a market card of their choice, already paid for (``buy`` step
  with ``paid``); with the market empty too, the bank pays the ƒ50 back
  (``refund`` event), as no card can be had (§8.1).
* ``market_refresh: "discard"`` (A2's alternative) puts the replaced market
  cards on the discard pile, which is never reshuffled (§8.1): those plots'
  cards are out of the game, so §6.3's argument that the supply always runs
  out no longer holds. Games with many refreshes then usually end by §12.2
  (every seat passes in a row: the deck and market are empty or unplayable,
  or nobody can pay) with warehouses left in the supply, and cards still in
  hand cost ƒ20 each. In random play that is most games (about two in three);
  with the default ``"shuffle"`` none.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from engines.base import (
    STEP,
    Action,
    Event,
    IllegalAction,
    Result,
    State,
    View,
    check_turn,
    copy_state,
    narrate_plainly,
    rank,
    resolve_options,
    same,
    seat_name,
)
from engines.chartered.board import board, closed_to_founding, components, founding_layouts
from engines.rng import Rng, seed_state


@cache
def cards() -> tuple[dict[str, Any], ...]:
    """Every card of the box, by id: plot, level and event cards (§6.2, §11.2)."""
    table: list[dict[str, Any]] = []
    for entry in components()["deck"]:
        if entry["kind"] == "plot":
            first, last = entry["plots"]
            table += [
                {"kind": "plot", "plot": p, "color": entry["color"]} for p in range(first, last + 1)
            ]
        else:
            table += [
                {"kind": "level", "level": entry["level"], "color": entry["color"]}
                for _ in range(entry["count"])
            ]
    table += [{"kind": "event", **event} for event in components()["events"]]
    return tuple(table)


def company_ids() -> list[str]:
    return [c["id"] for c in components()["companies"]]


def clamp(value: int) -> int:
    """§7: values stay within ƒ30 … ƒ500."""
    stock = components()["stock"]
    return int(max(stock["min"], min(stock["max"], value)))


class Chartered:
    """The ``chartered`` engine (see the module docstring)."""

    id = "chartered"
    title = "Chartered: The Golden Age"
    min_players = 2
    max_players = 6

    @property
    def options(self) -> Mapping[str, Mapping[str, Any]]:
        opts: Mapping[str, Mapping[str, Any]] = components()["options"]
        return opts

    kind = "game"

    seat_views_differ = True

    # -- setup (§4) ----------------------------------------------------------

    def setup(self, players: int, options: Mapping[str, Any], seed: int) -> State:
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"chartered takes 2-6 players, not {players}")
        opts = resolve_options(self, options)
        table = components()["setup"][str(players)]
        rng = Rng(seed_state(seed))
        colors = set(table["colors"])
        plots = [i for i, c in enumerate(cards()) if c["kind"] == "plot" and c["color"] in colors]
        levels = [i for i, c in enumerate(cards()) if c["kind"] == "level" and c["color"] in colors]
        rng.shuffle(plots)
        hands = [sorted(plots[s * table["hand"] : (s + 1) * table["hand"]]) for s in range(players)]
        deck = plots[players * table["hand"] :] + levels
        events = [i for i, c in enumerate(cards()) if c["kind"] == "event"]
        if opts["events"]:
            rng.shuffle(events)
            deck += events[: table["events"]]
        rng.shuffle(deck)
        side = table["board"]
        state: State = {
            "players": players,
            "options": opts,
            "rng": 0,
            "board": side,
            "supply": table["supply"],
            "plots": [None] * (len(board(side)) + 1),
            "companies": {},
            "deck": deck,
            "market": [],
            "discard": [],
            "hands": hands,
            "cash": [table["capital"]] * players,
            "bank": 0,
            "shares": [{c: [0, 0] for c in company_ids()} for _ in range(players)],
            "flags": {},
            "flags_bought": [0] * players,
            "turn": rng.below(players),
            "pending": None,
            "draws": [],
            "passes": 0,
            "finished": False,
            "final": None,
        }
        if opts["initial_market_events"] == "resolve":
            state["rng"] = rng.state
            state["draws"] = [{"to": "market", "seat": state["turn"]}] * table["market"]
            _draw_all(state, [])
            return state
        set_aside = []  # A8: events dealt into the first market go back, without effect
        while len(state["market"]) < table["market"] and state["deck"]:
            card = state["deck"].pop()
            if cards()[card]["kind"] == "event":
                set_aside.append(card)
            else:
                state["market"].append(card)
        state["deck"] += set_aside
        rng.shuffle(state["deck"])
        state["rng"] = rng.state
        return state

    # -- whose turn ------------------------------------------------------------

    def to_act(self, state: State) -> frozenset[int]:
        if state["finished"]:
            return frozenset()
        pending = state["pending"]
        if pending is not None and "seat" in pending:
            return frozenset((pending["seat"],))
        return frozenset((state["turn"],))

    # -- legal actions -----------------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if seat not in self.to_act(state):
            return []
        pending = state["pending"]
        step = pending["step"] if pending else None
        if step is None:
            return _turn_actions(state, seat)
        if step == "buy":
            if pending.get("paid"):  # the blind card was an event and the deck ran out
                return [{"type": "buy", "from": i} for i in range(len(state["market"]))]
            return _buy_actions(state) if _can_buy(state, seat) else []
        if step == "company":
            free = [c for c in company_ids() if c not in state["companies"]]
            return [{"type": "company", "company": c} for c in free]
        if step == "layout":
            return [{"type": "layout", "plots": list(pair)} for pair in pending["layouts"]]
        if step == "boost":
            return [{"type": "boost", "company": c} for c in pending["companies"]]
        if step == "pair":
            pairs = itertools.combinations(sorted(pending["companies"]), 2)
            return [{"type": "pair", "companies": list(p)} for p in pairs]
        if step == "survivor":
            return [{"type": "survivor", "company": c} for c in pending["tie"]]
        if step == "trade":
            return _trade_actions(state, seat)
        if step == "forced":  # §8.3: sell at least one share, then option 1
            sales = [{"type": "sell", "company": c} for c in _held(state, seat)]
            return sales + _purchase_actions(state, seat)
        return [{"type": "sell", "company": c} for c in _held(state, seat)]

    # -- apply ---------------------------------------------------------------------

    def apply(self, state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
        check_turn(self, state, seat, action, state["finished"])
        if not any(same(action, legal) for legal in self.legal_actions(state, seat)):
            raise IllegalAction(_why_illegal(state, seat, action), f"illegal here: {action}")
        state = copy_state(state)
        events: list[Event] = []
        _STEPS[action["type"]](state, seat, action, events)
        _advance(state, events)
        return state, events

    # -- views ---------------------------------------------------------------------

    def view(self, state: State, viewer: int | None) -> View:
        hidden = state["options"]["hidden_shares"]
        shares = []
        for s, held in enumerate(state["shares"]):
            if viewer == s or not hidden:
                shares.append({c: up + down for c, (up, down) in held.items() if up + down})
            else:
                shares.append({c: up for c, (up, _) in held.items() if up})
        view: View = {
            "players": state["players"],
            "options": state["options"],
            "board": state["board"],
            "supply": state["supply"],
            "plots": state["plots"],
            "companies": state["companies"],
            "bank_shares": {c: _bank_shares_seen(state, c, viewer) for c in state["companies"]},
            "deck": len(state["deck"]),
            "market": [_card(c) for c in state["market"]],
            "discard": len(state["discard"]),
            "hand_sizes": [len(h) for h in state["hands"]],
            "hand": [_card(c) for c in state["hands"][viewer]] if viewer is not None else None,
            "cash": state["cash"],
            "shares": shares,
            "face_down": [sum(d for _, d in held.values()) for held in state["shares"]]
            if hidden
            else None,
            "flags": state["flags"],
            "flags_bought": state["flags_bought"],
            "turn": state["turn"],
            "pending": _public_pending(state["pending"]),
            "finished": state["finished"],
            "final": state["final"],
        }
        return view

    def result(self, state: State) -> Result | None:
        if not state["finished"]:
            return None
        scores = [f["total"] for f in state["final"]]
        ranks = rank([(s,) for s in scores])
        return {
            "scores": scores,
            "ranks": ranks,
            "winners": [s for s, r in enumerate(ranks) if r == 1],
            "details": state["final"],
        }

    def narrate(self, event: Event, names: Sequence[str]) -> str:
        return narrate_event(event, names)

    def describe(self, state: State, seat: int, action: Action) -> str:
        return describe_action(state, seat, action)


# -- helpers ---------------------------------------------------------------------


def _card(card: int) -> dict[str, Any]:
    return {"id": card, **cards()[card]}


def _bank_shares(state: State, company: str) -> int:
    held = sum(sum(s[company]) for s in state["shares"])
    return int(components()["shares_per_company"]) - held


def _bank_shares_seen(state: State, company: str, viewer: int | None) -> int:
    """The bank's shares of ``company`` as ``viewer`` can count them: with hidden
    shares, the other seats' face-down shares might be in any company, so they are
    counted as still in the bank (the view's ``face_down`` says how many there are)."""
    if not state["options"]["hidden_shares"]:
        return _bank_shares(state, company)
    seen: int = sum(
        held[company][0] + (held[company][1] if s == viewer else 0)
        for s, held in enumerate(state["shares"])
    )
    return int(components()["shares_per_company"]) - seen


def _held(state: State, seat: int) -> list[str]:
    return [c for c, n in state["shares"][seat].items() if sum(n)]


def _public_pending(pending: dict[str, Any] | None) -> dict[str, Any] | None:
    if pending is None:
        return None
    return {
        k: v
        for k, v in pending.items()
        if k in ("step", "seat", "companies", "trades", "count", "paid")
    }


def _price(state: State, company: str) -> int:
    """§10.1: a share costs its value, at least ƒ50."""
    return int(max(components()["prices"]["share_minimum"], state["companies"][company]["value"]))


def _pay(state: State, seat: int, amount: int) -> None:
    """Money from a seat to the bank (the bank is unlimited; ``bank`` is its ledger)."""
    state["cash"][seat] -= amount
    state["bank"] += amount


def _neighbours(state: State, plot: int) -> tuple[int, ...]:
    return board(state["board"])[plot]


def _adjacent_companies(state: State, plot: int) -> list[str]:
    return sorted({state["plots"][n][0] for n in _neighbours(state, plot) if state["plots"][n]})


def _occupied(state: State) -> list[int]:
    return [p for p, held in enumerate(state["plots"]) if held]


def _closed(state: State) -> set[int]:
    """Occupied plots and the buffer zone around them (§5.4)."""
    return closed_to_founding(board(state["board"]), _occupied(state), state["options"]["buffer"])


def _founding_layouts(
    state: State, plot: int, closed: set[int] | None = None
) -> list[tuple[int, int]]:
    return founding_layouts(
        board(state["board"]), plot, _closed(state) if closed is None else closed
    )


def _plot_outcome(state: State, plot: int, closed: set[int] | None = None) -> str | None:
    """§9.0: what playing the plot card for ``plot`` would do, or None if unplayable.
    ``closed`` (the buffer zone) may be passed in when it is known."""
    held = state["plots"][plot]
    if held:
        cap = state["options"]["stack_cap"]
        return "stack" if not cap or held[1] < cap else None
    near = _adjacent_companies(state, plot)
    if len(near) == 1:
        return "expand"
    if len(near) > 1:
        return "merge"
    can_found = (
        len(state["companies"]) < len(company_ids())
        and state["supply"] >= components()["founding_warehouses"]
        and _founding_layouts(state, plot, closed)
    )
    return "found" if can_found else None


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


def _turn_actions(state: State, seat: int) -> list[Action]:
    actions = _build_actions(state, seat) + _purchase_actions(state, seat)
    if actions:
        return actions
    if _held(state, seat) and (state["deck"] or state["market"]):
        return [{"type": "sell", "company": c} for c in _held(state, seat)]
    return [{"type": "pass"}]


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


def _why_illegal(state: State, seat: int, action: Action) -> str:
    """A stable code for an action not in ``legal_actions``."""
    kind = action["type"]
    if kind not in _STEPS:
        return "bad_action"
    pending = state["pending"]
    step = pending["step"] if pending else None
    allowed = {
        None: {"buy", "refresh", "build", "sell", "pass"},
        "buy": {"buy"},
        "trade": {"trade", "flag", "done"},
        "sell": {"sell"},
        "forced": {"sell", "buy", "refresh"},
    }.get(step, {step})
    if kind not in allowed:
        return "wrong_step"
    if kind == "build" and action.get("card") not in state["hands"][seat]:
        return "card_not_in_hand"
    prices = components()["prices"]
    if kind == "buy" and state["cash"][seat] < prices["card"]:
        return "not_enough_money"
    if kind == "refresh" and state["cash"][seat] < prices["card"] + prices["market_refresh"]:
        return "not_enough_money"
    return "illegal_action"


# -- the steps ---------------------------------------------------------------------


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


def _add_value(state: State, company: str, amount: int) -> None:
    state["companies"][company]["value"] = clamp(state["companies"][company]["value"] + amount)


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


def _do_pass(state: State, seat: int, action: Action, events: list[Event]) -> None:
    state["passes"] += 1
    events.append({"type": "pass", "seat": seat})
    state["pending"] = {"step": "end", "seat": seat, "passed": True}


_STEPS = {
    "refresh": _do_refresh,
    "buy": _do_buy,
    "build": _do_build,
    "company": _do_company,
    "layout": _do_layout,
    "boost": _do_boost,
    "pair": _do_pair,
    "survivor": _do_survivor,
    "trade": _do_trade,
    "flag": _do_flag,
    "done": _do_done,
    "sell": _do_sell,
    "pass": _do_pass,
}


# -- draws and events (§11) ------------------------------------------------------


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
    and told as the same ``sell`` events as chosen sales."""
    pending = state["pending"]
    while pending["order"]:
        seat = pending["order"][0]
        held = _held(state, seat)
        if len(held) > 1 and sum(sum(state["shares"][seat][c]) for c in held) > pending["per"]:
            pending.update(seat=seat, count=pending["per"])
            return
        for _ in range(pending["per"]):
            held = _held(state, seat)
            if not held:
                break
            _sell_share(state, seat, held[0], events)
        pending["order"].pop(0)
    state["pending"] = pending["resume"]


# -- end of turn and game (§12) ----------------------------------------------------


def _advance(state: State, events: list[Event]) -> None:
    """Serve draws, then end the turn when the active seat is done."""
    _draw_all(state, events)
    pending = state["pending"]
    if pending is None or pending["step"] == "sell":
        return
    if (
        pending["step"] == "buy"
        and not pending.get("paid")
        and not _can_buy(state, pending["seat"])
    ):
        # The refresh drew nothing, or an event it revealed took the money for the card.
        state["pending"] = {"step": "end", "seat": pending["seat"]}
    if pending["step"] == "forced" and not _can_buy(state, pending["seat"]):
        if _held(state, pending["seat"]):
            return
        # §8.3: every share sold and still short of a card's price, the seat passes.
        events.append({"type": "pass", "seat": pending["seat"], "reason": "forced_sale_failed"})
        state["pending"] = {"step": "end", "seat": pending["seat"], "passed": True}
        state["passes"] += 1
    if state["pending"]["step"] != "end":
        return
    if not state["pending"].get("passed"):
        state["passes"] = 0
    state["pending"] = None
    if state["supply"] == 0 or state["passes"] >= state["players"]:  # §12.1, §12.2
        _final_scoring(state)
        events.append({"type": "game_end", "scores": [f["total"] for f in state["final"]]})
        return
    state["turn"] = (state["turn"] + 1) % state["players"]


def _final_scoring(state: State) -> None:
    """§12.3: ƒ20 per card in hand, then every share and flag sold at its value."""
    prices = components()["prices"]
    final = []
    for seat in range(state["players"]):
        penalty = prices["card_left_in_hand"] * len(state["hands"][seat])
        shares = sum(
            sum(held) * state["companies"][c]["value"]
            for c, held in state["shares"][seat].items()
            if sum(held)
        )
        flags = sum(
            prices["flag_share_equivalent"] * state["companies"][c]["value"]
            for c, owner in state["flags"].items()
            if owner == seat
        )
        cash = state["cash"][seat]
        final.append(
            {
                "cash": cash,
                "hand_penalty": -penalty,
                "shares": shares,
                "flags": flags,
                "total": cash - penalty + shares + flags,
            }
        )
    state["final"] = final
    state["finished"] = True


# -- words for people: move labels, event sentences, card effects --------------------
#
# They read only what every seat may see (the board, companies, market, cash)
# plus the deciding seat's own hand and shares, so a label never reveals the
# deck, another hand or another seat's face-down shares. ``game`` is a state or
# a view: both carry the fields read here.


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
