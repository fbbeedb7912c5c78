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
buy it (the view shows 0 to everyone; see the choices below).

Choices where the spec is silent, beyond its [proposed] defaults (§13 options):

* Identical level cards are one legal action per target (the first such card).
* With ``hidden_shares``, a face-down purchase hides only which company the share
  is in (§10.1). That a company's bank is empty is public: at the table its stack
  is gone and a buy from it is refused, and a seat's legal moves here show it
  too. So a view's ``bank_shares`` is 0 for an empty bank whoever looks, while a
  bank with shares left shows the viewer's count (the bank's shares plus the other
  seats' face-down shares of the company, which may be there): how many a bank has
  left is not public. Buying the last share face down thus tells everyone which
  company it was.
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

This module holds the engine class, the turn's dispatch (§8) and the views; the
turn's parts live beside it: :mod:`~engines.chartered.state` (cards and state
helpers), :mod:`~engines.chartered.market` (buying cards, forced sales, events),
:mod:`~engines.chartered.build` (§9), :mod:`~engines.chartered.trading` (§10.2),
:mod:`~engines.chartered.end` (end of turn and game, §12) and
:mod:`~engines.chartered.words` (labels and log sentences).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from engines.base import (
    Action,
    Event,
    IllegalAction,
    Result,
    State,
    View,
    check_turn,
    copy_state,
    player_options,
    rank,
    resolve_options,
    same,
)
from engines.chartered.board import board, components
from engines.chartered.build import (
    _build_actions,
    _do_boost,
    _do_build,
    _do_company,
    _do_layout,
    _do_pair,
    _do_survivor,
)
from engines.chartered.end import _advance
from engines.chartered.market import (
    _buy_actions,
    _can_buy,
    _do_buy,
    _do_refresh,
    _do_sell,
    _draw_all,
    _purchase_actions,
)
from engines.chartered.state import _bank_shares, _card, _held, cards, company_ids
from engines.chartered.trading import _do_done, _do_flag, _do_trade, _trade_actions
from engines.chartered.words import describe_action, narrate_event
from engines.rng import Rng, seed_state


class Chartered:
    """The ``chartered`` engine (see the module docstring)."""

    id = "chartered"
    title = "Chartered: The Golden Age"
    min_players = 2
    max_players = 6

    @property
    def options(self) -> Mapping[str, Mapping[str, Any]]:
        return player_options(components()["options"])

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
            code = _why_illegal(state, seat, action)
            raise IllegalAction(code, _REFUSED[code])
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


def _bank_shares_seen(state: State, company: str, viewer: int | None) -> int:
    """The bank's shares of ``company`` as ``viewer`` can count them: with hidden
    shares, the other seats' face-down shares might be in any company, so they are
    counted as still in the bank (the view's ``face_down`` says how many there are).
    An empty bank shows 0 to everyone: that nobody can buy a share of the company is
    public, as an empty stack is at the table (rules.md, "Hidden shares")."""
    bank = _bank_shares(state, company)
    if not state["options"]["hidden_shares"] or bank == 0:
        return bank
    seen: int = sum(
        held[company][0] + (held[company][1] if s == viewer else 0)
        for s, held in enumerate(state["shares"])
    )
    return int(components()["shares_per_company"]) - seen


def _public_pending(pending: dict[str, Any] | None) -> dict[str, Any] | None:
    if pending is None:
        return None
    return {
        k: v
        for k, v in pending.items()
        if k in ("step", "seat", "companies", "trades", "count", "paid")
    }


def _turn_actions(state: State, seat: int) -> list[Action]:
    actions = _build_actions(state, seat) + _purchase_actions(state, seat)
    if actions:
        return actions
    if _held(state, seat) and (state["deck"] or state["market"]):
        return [{"type": "sell", "company": c} for c in _held(state, seat)]
    return [{"type": "pass"}]


# Why a move was refused, in a player's words, by the code of ``_why_illegal``.
_REFUSED = {
    "bad_action": "that is not a move of this game",
    "wrong_step": "that move is not part of the step the game is at",
    "card_not_in_hand": "that plot card is not in your hand",
    "not_enough_money": "you do not have enough money for that",
    "illegal_action": "that move is not allowed now",
}


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
