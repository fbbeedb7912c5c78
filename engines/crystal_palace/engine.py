"""Crystal Palace, per ``rules/crystal_palace.md``; every number is in ``data/components.json``.

Five rounds of seven phases (§3). Every decision is one action of the seat
that makes it; ``state["step"]["kind"]`` says what is being decided, and
what needs no decision (phases 6 and 7, and phase 4 unless a seat is asked)
runs inside the ``apply`` that ends the step before it. The phases are in the
modules beside this one: phases 1 and 2 in :mod:`~engines.crystal_palace.placement`,
phase 3 in :mod:`~engines.crystal_palace.resolution`, phase 4 in
:mod:`~engines.crystal_palace.salaries`, phase 5 in
:mod:`~engines.crystal_palace.building`, phases 6 and 7 in
:mod:`~engines.crystal_palace.rounds`, the end of the game in
:mod:`~engines.crystal_palace.scoring`; the economy (§8–§10) in
:mod:`~engines.crystal_palace.economy`, labels and the log in
:mod:`~engines.crystal_palace.words`.

============  ====================================================================
step kind     actions (all carry ``"type"``)
============  ====================================================================
``dice``      phase 1, **simultaneous**: every seat not yet ready is in ``to_act``.
              ``die {value}`` sets the next of the seat's dice in secret; the seat
              is ready when all are set. Nothing is revealed until every seat is.
``place``     phase 2: ``place {location, space, value}`` or ``pass``
``assistant`` after a placement under an assistant symbol (§7.1): ``goal``,
              ``market`` (a new assistant), ``market {from}`` (move one), ``skip``
``resolve``   phase 3, the owner of the next die: ``act {…}`` (with ``card``,
              ``tile``, ``share``, ``choice`` or ``option`` as the location needs),
              ``decline``; with no action space left, ``ticket {…}`` or
              ``compensation``
``salary``    phase 4, a seat whose newspapers could spare it a salary loan:
              ``pay`` (after any exchanges; loans cover what is still short)
``abilities`` phase 4, a seat whose P4 abilities' order can matter, or
              one of which would take a newspaper it holds:
              ``ability {card}``, one at a time (see ``salaries.order_matters``)
``build``     phase 5, in player order: ``build {card, target}`` or ``done``
``target``    phase 5, the target of a prototype effect that takes newspapers,
              when it holds some: ``accept`` (after any exchanges)
``repay``     end of game, **simultaneous**: ``repay {count}`` (§14 step 1);
              until every seat is ready the others see each seat's money,
              newspapers, gears, income and repaid loans as they were before
============  ====================================================================

Whenever a seat is to act it may also take ``loan`` (§9) or
``exchange {for: die|income|gear|money}`` (newspapers, §8). Choices with only
one possible outcome (no action possible, only compensation) are made for the
seat. Newspapers are spent at any time (§8), so a seat is asked before an
automatic step its newspapers could change: a salary that would force a loan
they could spare (``salary``), a build turn it would be skipped for though
newspapers turned into gears would let it build (``build``), a repayment its
newspapers turned into £ would allow (``repay``), a newspaper an ability or
another player's prototype would take (``abilities``, ``target``), a die
declined for though a die bought with newspapers would open Waterloo's "sell
a die" (``resolve``), an assistant action skipped for though gears or a die
bought with newspapers would meet the next goal level (``assistant``).
Phase 1's payment comes after the seat's own last decision with nothing
gained in between.

Hidden information: the dice values set in phase 1 (until every seat is
ready; others see only ``ready``), what each seat does in the final
repayment (until every seat is ready: others see the money, newspapers,
gears, income and repaid loans it had when the step began, and no event),
each seat's loan values (others see how many), the order of every face-down
stack (green and violet research, the season share piles, the loans) and of
the face-up card stacks below their top card.

Choices where the spec is silent, beyond its [proposed] values (also in
docs/protocol.md):

* Any cost may be paid with loans taken for the shortfall (§9: "loans must be
  taken as soon as you cannot pay"); gears and energy must be held.
  Negative amounts aimed at another player (prototype targets) and inside
  character abilities take only what the player has and never force a loan.
* A seat sets its dice one value at a time; setting is final for the round.
* Waterloo's W3 keeps at least 4 dice (the seed's 4–6), not the spec's 3.
* Loans run out after the 30 tiles; a forced loan after that is worth
  ``when_stack_empty`` (−10) VP, face up. Voluntary loans need a tile.
* A location whose action cannot be performed (no card, no tile, no free
  research space) can only be declined; the seat is not asked.
* A player with nothing in a majority category (0 buzz, no assistant on the
  Black Market) does not rank in it.
* Loans are repaid most expensive first.
* A seat is not asked before a loss of £, gears, energy, buzz or income that
  takes only what it has (an ability's −£1, a prototype's harmful effect):
  spending newspapers first could only make it lose more. Nor before a gain
  that passes 7 newspapers: the excess is lost.
* Phase-4 abilities run in card order unless their order can matter; then the
  player chooses it (``salaries.order_matters`` says when).
"""

from __future__ import annotations

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
)
from engines.crystal_palace import words
from engines.crystal_palace.building import build_actions, do_accept, do_build, do_done
from engines.crystal_palace.data import characters, components, patents, research_tiles, shares
from engines.crystal_palace.economy import (
    do_exchange,
    do_loan,
    face_up_stack,
    fill_displays,
    free_actions,
    new_player,
)
from engines.crystal_palace.placement import (
    assistant_actions,
    dice_actions,
    do_die,
    do_goal,
    do_market,
    do_pass,
    do_place,
    do_skip,
    goal_met,
    is_legal,
    place_actions,
    reveal_round,
)
from engines.crystal_palace.resolution import (
    a_die_would_open_an_action,
    current_die,
    do_act,
    do_compensation,
    do_decline,
    do_ticket,
    resolve_actions,
)
from engines.crystal_palace.rounds import begin_placement, phase6, phase7
from engines.crystal_palace.salaries import (
    abilities,
    do_ability,
    do_pay,
    salaries,
    settle_abilities,
)
from engines.crystal_palace.scoring import begin_repay, do_repay, final_scoring, repay_actions
from engines.rng import Rng, seed_state


class CrystalPalace:
    """The ``crystal-palace`` engine (see the module docstring)."""

    id = "crystal-palace"
    title = "Crystal Palace"
    min_players = 2
    max_players = 5
    kind = "game"
    seat_views_differ = True

    @property
    def options(self) -> Mapping[str, Mapping[str, Any]]:
        return player_options(components()["options"])

    # -- setup (§2) ------------------------------------------------------------

    def setup(self, players: int, options: Mapping[str, Any], seed: int) -> State:
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"crystal-palace takes 2-5 players, not {players}")
        opts = resolve_options(self, options)
        data = components()
        rng = Rng(seed_state(seed))
        mats = list(range(len(data["mats"])))
        rng.shuffle(mats)
        seats = []
        for seat in range(players):
            nation = data["mats"][mats[seat]][rng.below(2)]
            seats.append(new_player(nation))
        publisher = opts["publisher"]
        if publisher == "random":
            publisher = data["publishers"][rng.below(len(data["publishers"]))]["id"]
        stacks: dict[str, list[str]] = {}
        for name, ids in (
            ("patents", list(patents())),
            ("characters", list(characters())),
            ("green", [t for t, v in research_tiles().items() if v["color"] == "green"]),
            ("blue", [t for t, v in research_tiles().items() if v["color"] == "blue"]),
            ("orange", [t for t, v in research_tiles().items() if v["color"] == "orange"]),
        ):
            rng.shuffle(ids)
            stacks[name] = ids
        piles = []
        for season in range(len(data["shares"])):
            pile = [s for s, v in shares().items() if v["season"] == season]
            rng.shuffle(pile)
            piles.append(pile)
        loans = [value for value, count in data["loans"]["tiles"] for _ in range(count)]
        rng.shuffle(loans)
        market = data["black_market"]["spaces"][
            : data["black_market"]["spaces_by_players"][str(players)]
        ]
        state: State = {
            "players": players,
            "options": opts,
            "rng": 0,
            "round": 0,
            "phase": 1,
            "publisher": publisher,
            "order": list(range(players)),
            "turn": None,
            "step": {"kind": "dice"},
            "board": {},
            "queue": [],
            "menus_used": {},
            "patents": {"row": [], "stack": stacks["patents"]},
            "characters": {"row": [], "stack": stacks["characters"]},
            "museum": [],
            "green": stacks["green"],
            "violet": {"blue": stacks["blue"], "orange": stacks["orange"]},
            "bank": [],
            "share_piles": piles,
            "market": [None] * len(market),
            "market_gears": [i for i, space in enumerate(market) if space.get("gear")],
            "tickets": data["tickets"],
            "spent_tickets": 0,
            "loans": loans,
            "seats": seats,
            "shown": None,
            "finished": False,
            "final": None,
        }
        fill_displays(state)
        state["rng"] = rng.state
        return state

    # -- whose turn ----------------------------------------------------------------

    def to_act(self, state: State) -> frozenset[int]:
        if state["finished"]:
            return frozenset()
        kind = state["step"]["kind"]
        if kind in ("dice", "repay"):
            return frozenset(s for s, p in enumerate(state["seats"]) if not p["ready"])
        if kind in ("assistant", "salary", "abilities", "target"):
            return frozenset((state["step"]["seat"],))
        if kind == "resolve":
            return frozenset((current_die(state)[0],))
        return frozenset((state["turn"],))

    # -- legal actions -------------------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if seat not in self.to_act(state):
            return []
        kind = state["step"]["kind"]
        main = _STEP_ACTIONS[kind](state, seat)
        return main + free_actions(state, seat)

    # -- apply -----------------------------------------------------------------------

    def apply(self, state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
        check_turn(self, state, seat, action, state["finished"])
        if not is_legal(state, seat, action, self.legal_actions):
            code = _why_illegal(state, seat, action)
            raise IllegalAction(code, _REFUSED[code])
        state = copy_state(state)
        events: list[Event] = []
        _HANDLERS[action["type"]](state, seat, action, events)
        _advance(state, events)
        return state, events

    # -- views -----------------------------------------------------------------------

    def view(self, state: State, viewer: int | None) -> View:
        seats = []
        for s, player in enumerate(state["seats"]):
            public = {k: v for k, v in player.items() if k not in ("secret", "loans")}
            public["loans"] = len(player["loans"])
            if state["step"]["kind"] == "repay" and not state["finished"] and s != viewer:
                public.update(state["shown"][s])
            if s == viewer:
                public["secret"] = player["secret"]
                public["loan_values"] = player["loans"]
            seats.append(public)
        return {
            "players": state["players"],
            "options": state["options"],
            "round": state["round"],
            "phase": state["phase"],
            "publisher": state["publisher"],
            "order": state["order"],
            "turn": state["turn"],
            "step": state["step"],
            "board": state["board"],
            "queue": state["queue"],
            "menus_used": state["menus_used"],
            "patents": face_up_stack(state["patents"]),
            "characters": face_up_stack(state["characters"]),
            "museum": state["museum"],
            "green": len(state["green"]),
            "violet": {color: len(stack) for color, stack in state["violet"].items()},
            "bank": state["bank"],
            "share_piles": [len(pile) for pile in state["share_piles"]],
            "market": state["market"],
            "market_gears": state["market_gears"],
            "tickets": state["tickets"],
            "loans": len(state["loans"]),
            "seats": seats,
            "finished": state["finished"],
            "final": state["final"],
        }

    def result(self, state: State) -> Result | None:
        if not state["finished"]:
            return None
        final = state["final"]
        scores = [f["total"] for f in final]
        ranks = rank([(f["total"], f["money"], f["westminster"]) for f in final])
        return {
            "scores": scores,
            "ranks": ranks,
            "winners": [s for s, r in enumerate(ranks) if r == 1],
            "details": final,
        }

    def narrate(self, event: Event, names: Sequence[str]) -> str:
        return words.narrate_event(event, names)

    def describe(self, state: State, seat: int, action: Action) -> str:
        return words.describe_action(state, seat, action)


# -- flow ---------------------------------------------------------------------------------


def _auto_resolve(state: State, events: list[Event]) -> bool:
    """Resolve the next die when its owner has only one thing it can do. True if done."""
    seat, _, _ = current_die(state)
    actions = resolve_actions(state, seat)
    if len(actions) != 1 or a_die_would_open_an_action(state, seat):
        return False
    _HANDLERS[actions[0]["type"]](state, seat, actions[0], events)
    return True


def _advance(state: State, events: list[Event]) -> None:
    """Run the phases that need no decision until one does, or the game ends."""
    while not state["finished"]:
        kind = state["step"]["kind"]
        if kind in ("dice", "repay"):
            if not all(p["ready"] for p in state["seats"]):
                return
            if kind == "repay":
                final_scoring(state, events)
                return
            reveal_round(state, events)
            begin_placement(state)
        elif kind in ("place", "assistant"):
            return
        elif kind == "resolve":
            if state["queue"]:
                if not _auto_resolve(state, events):
                    return
                continue
            salaries(state, 0, events)
        elif kind in ("salary", "target"):
            return
        elif kind == "abilities":
            if not settle_abilities(state, events):
                return
            abilities(state, state["order"].index(state["step"]["seat"]) + 1, events)
        elif kind == "build":
            if state["turn"] is not None:
                return
            phase6(state, events)
            if state["round"] == len(components()["rounds"]) - 1:
                begin_repay(state)
            else:
                phase7(state)
            events.append({"type": "phase", "round": state["round"], "phase": state["phase"]})


# Why a move was refused, in a player's words, by the code of ``_why_illegal``.
_REFUSED = {
    "unknown_action": "that is not a move of this game",
    "no_loans_left": "there are no loans left to take",
    "not_enough_newspapers": "you do not have enough newspapers for that exchange",
    "no_such_space": "there is no such space on the board",
    "no_such_die": "you have no unplaced die of that value",
    "goal_not_met": "you have not met that goal",
    "not_allowed_now": "that move is not allowed now",
}


def _why_illegal(state: State, seat: int, action: Action) -> str:
    kind = action["type"]
    if kind not in _HANDLERS:
        return "unknown_action"
    if kind == "loan" and not state["loans"]:
        return "no_loans_left"
    if kind == "exchange":
        given = action.get("for")
        rate = components()["exchanges"].get(given) if isinstance(given, str) else None
        if rate is not None and state["seats"][seat]["newspapers"] < rate["newspapers"]:
            return "not_enough_newspapers"
    if kind == "place":
        location = action.get("location")
        if not isinstance(location, str) or location not in state["board"]:
            return "no_such_space"
        value = action.get("value")
        if type(value) is not int or value not in state["seats"][seat]["unplaced"]:
            return "no_such_die"
    if kind == "goal" and state["step"]["kind"] == "assistant" and not goal_met(state, seat):
        return "goal_not_met"
    return "not_allowed_now"


_STEP_ACTIONS = {
    "dice": dice_actions,
    "place": place_actions,
    "assistant": assistant_actions,
    "resolve": resolve_actions,
    "salary": lambda state, seat: [{"type": "pay"}],
    "abilities": lambda state, seat: [
        {"type": "ability", "card": card} for card in state["step"]["left"]
    ],
    "build": build_actions,
    "target": lambda state, seat: [{"type": "accept"}],
    "repay": repay_actions,
}

_HANDLERS = {
    "die": do_die,
    "place": do_place,
    "pass": do_pass,
    "goal": do_goal,
    "market": do_market,
    "skip": do_skip,
    "act": do_act,
    "ticket": do_ticket,
    "decline": do_decline,
    "compensation": do_compensation,
    "pay": do_pay,
    "ability": do_ability,
    "build": do_build,
    "accept": do_accept,
    "done": do_done,
    "repay": do_repay,
    "loan": do_loan,
    "exchange": do_exchange,
}
