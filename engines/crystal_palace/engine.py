"""Crystal Palace, per ``rules/crystal_palace.md``; every number is in ``data/components.json``.

Five rounds of seven phases (§3). Every decision is one action of the seat
that makes it; ``state["step"]["kind"]`` says what is being decided, and
what needs no decision (phases 6 and 7, and phase 4 unless a seat is asked)
runs inside the ``apply`` that ends the step before it:

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
              ``ability {card}``, one at a time (see ``_order_matters``)
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
  player chooses it (``_order_matters`` says when).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
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
    load_components,
    rank,
    resolve_options,
    same,
)
from engines.crystal_palace import words
from engines.rng import Rng, seed_state

Effect = Mapping[str, Any]
EXCHANGES = ("die", "income", "gear", "money")


@cache
def components() -> dict[str, Any]:
    """The engine's component data (boards, tracks, cards, tiles, shares, nations)."""
    return load_components(__package__)


def _limit(name: str) -> Any:
    return components()["limits"][name]


@cache
def research_tiles() -> dict[str, dict[str, Any]]:
    """Every research tile by id: G01… (green), B01… (violet, blue box), O01… (orange box)."""
    tiles: dict[str, dict[str, Any]] = {}
    for color, prefix in (("green", "G"), ("blue", "B"), ("orange", "O")):
        number = 0
        for entry in components()["research"][color]:
            for _ in range(entry["count"]):
                number += 1
                tiles[f"{prefix}{number:02d}"] = {"color": color, **entry}
    return tiles


@cache
def shares() -> dict[str, dict[str, Any]]:
    """Every share by id: ``S{season}{a|b|c}``, season 1 = Spring 1849."""
    return {
        f"S{season + 1}{'abc'[i]}": {"season": season, **share}
        for season, pile in enumerate(components()["shares"])
        for i, share in enumerate(pile)
    }


@cache
def patents() -> dict[str, dict[str, Any]]:
    return {p["id"]: p for p in components()["patents"]}


@cache
def characters() -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in components()["characters"]}


@cache
def card_names() -> dict[str, str]:
    """The name of every patent and character, by id."""
    return {k: v["name"] for k, v in {**patents(), **characters()}.items()}


@cache
def publishers() -> dict[str, dict[str, Any]]:
    return {p["id"]: p for p in components()["publishers"]}


_SPACE = re.compile(r"^(\d)(A?)(?:£(\d+))?$")


def _parse_space(text: str) -> dict[str, Any]:
    match = _SPACE.match(text)
    if match is None:
        raise ValueError(f"bad placement space {text!r} in the data")
    return {"min": int(match[1]), "assistant": bool(match[2]), "fee": int(match[3] or 0)}


@cache
def layout(location: str, players: int) -> dict[str, Any]:
    """The board side of ``location`` for ``players`` (§2.2): placement and action spaces."""
    entry = components()["locations"][location]
    side = entry["sides"][entry["side_by_players"][str(players)]]
    return {
        **side,
        "action_kind": entry["action"],
        "placement": [_parse_space(s) for s in side["placement"]],
    }


def location_order(options: Mapping[str, Any]) -> list[str]:
    order = list(components()["location_order"])
    if options["port_before_waterloo"]:
        w, p = order.index("waterloo"), order.index("port")
        order[w], order[p] = order[p], order[w]
    return order


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
        opts: Mapping[str, Mapping[str, Any]] = components()["options"]
        return opts

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
            seats.append(_new_player(nation))
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
        _fill_displays(state)
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
            return frozenset((_current_die(state)[0],))
        return frozenset((state["turn"],))

    # -- legal actions -------------------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if seat not in self.to_act(state):
            return []
        kind = state["step"]["kind"]
        main = _STEP_ACTIONS[kind](state, seat)
        return main + _free_actions(state, seat)

    # -- apply -----------------------------------------------------------------------

    def apply(self, state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
        check_turn(self, state, seat, action, state["finished"])
        if not _is_legal(state, seat, action, self.legal_actions):
            raise IllegalAction(_why_illegal(state, seat, action), f"illegal here: {action}")
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
            "patents": _face_up_stack(state["patents"]),
            "characters": _face_up_stack(state["characters"]),
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


# -- setup helpers ------------------------------------------------------------------


def _new_player(nation: str) -> dict[str, Any]:
    start = components()["start"]
    return {
        "nation": nation,
        **{k: start[k] for k in ("money", "gears", "energy", "newspapers", "income")},
        **{k: start[k] for k in ("buzz", "vp", "westminster", "dice", "assistants")},
        "buzz_peak": start["buzz"],
        "goal": 0,
        "research": [],
        "patents": [],
        "prototypes": [],
        "characters": [],
        "shares": [],
        "loans": [],
        "repaid": 0,
        "tickets": 0,
        "secret": [],
        "ready": False,
        "rolled": [],
        "unplaced": [],
        "passed": False,
    }


def _face_up_stack(display: dict[str, Any]) -> dict[str, Any]:
    stack = display["stack"]
    return {"row": display["row"], "stack": len(stack), "top": stack[-1] if stack else None}


def _fill_displays(state: State) -> None:
    """§2.2 / §14 phase 7: close the gaps in the card rows and refill every display."""
    players = state["players"]
    for name, location in (("patents", "patent_office"), ("characters", "reform_club")):
        display = state[name]
        row = [card for card in display["row"] if card is not None]
        while len(row) < layout(location, players)["slots"] and display["stack"]:
            row.append(display["stack"].pop())
        display["row"] = row
    museum = [tile for tile in state["museum"] if tile is not None]
    while len(museum) < layout("british_museum", players)["slots"] and state["green"]:
        museum.append(state["green"].pop())
    state["museum"] = museum
    pile = state["share_piles"][state["round"]]
    state["bank"] = pile[: layout("bank", players)["slots"]]
    state["share_piles"][state["round"]] = []
    state["market_gears"] = [
        i for i, space in enumerate(_market_spaces(state)) if space.get("gear")
    ]
    state["board"] = {
        location: {
            "placed": [None] * len(layout(location, players)["placement"]),
            "acted": [None] * len(layout(location, players)["action"]),
        }
        for location in location_order(state["options"])
    }
    state["menus_used"] = {"waterloo": [], "port": []}


def _market_spaces(state: State) -> list[dict[str, Any]]:
    spaces: list[dict[str, Any]] = components()["black_market"]["spaces"]
    return spaces[: len(state["market"])]


# -- measures, effects and payments -------------------------------------------------


def _measure(state: State, seat: int, name: str) -> int:
    """A quantity a goal level or a computed effect reads (§7.2, §10.1, §13.3)."""
    player = state["seats"][seat]
    if name in ("westminster", "dice", "buzz", "newspapers"):
        return int(player[name])
    if name == "dice_total":
        return sum(player["rolled"])
    if name == "research_immediate":
        return sum(1 for t in player["research"] if research_tiles()[t]["timing"] == "IMM")
    if name in ("characters", "prototypes", "shares"):
        return len(player[name])
    if name == "resources":
        return int(player["gears"] + player["energy"])
    if name == "market_assistants":
        return sum(1 for holder in state["market"] if holder == seat)
    raise KeyError(f"unknown measure {name!r} in the data")


def _amount(state: State, seat: int, raw: Any) -> int:
    if isinstance(raw, int):
        return raw
    value = _measure(state, seat, raw["per"]) * raw.get("times", 1) + raw.get("plus", 0)
    if "min" in raw:
        value = max(raw["min"], value)
    if "max" in raw:
        value = min(raw["max"], value)
    return int(value)


def _perm(state: State, seat: int, key: str) -> int:
    """The sum of a permanent modifier over the seat's research tiles and characters."""
    player = state["seats"][seat]
    total = sum(research_tiles()[t].get("perm", {}).get(key, 0) for t in player["research"])
    return int(
        total + sum(characters()[c].get("perm", {}).get(key, 0) for c in player["characters"])
    )


def _dice_cost(state: State, seat: int, values: Sequence[int]) -> int:
    """What the seat pays in phase 1 for dice set to ``values`` (§4): £1 a pip, less
    its permanent discounts, but never under £1 a die."""
    cost = sum(values) * components()["dice_cost_per_pip"] + _perm(state, seat, "dice_cost")
    return int(max(len(values), cost))


def _recruit_cost(state: State, seat: int, card: str) -> int:
    """What the seat pays to recruit the character ``card`` (§11.5), permanent
    discounts included."""
    return int(max(0, characters()[card]["cost"] + _perm(state, seat, "recruit_cost")))


def _take_loan(state: State, seat: int, events: list[Event], *, forced: bool) -> None:
    loans = components()["loans"]
    value = state["loans"].pop() if state["loans"] else loans["when_stack_empty"]
    player = state["seats"][seat]
    player["loans"].append(value)
    player["money"] += loans["amount"]
    events.append({"type": "loan", "seat": seat, "forced": forced})


def _pay(state: State, seat: int, amount: int, events: list[Event]) -> None:
    """A cost in £: loans are taken for any shortfall (§9)."""
    player = state["seats"][seat]
    while player["money"] < amount:
        _take_loan(state, seat, events, forced=True)
    player["money"] -= amount


def _clamp(value: int, top: int) -> int:
    return max(0, min(top, value))


def _gain(
    state: State, seat: int, effect: Effect, events: list[Event], *, lose_up_to: bool = False
) -> None:
    """Apply an effect map to a seat, in the map's order (costs are listed first).

    A negative £ amount is a cost paid with loans if needed, unless
    ``lose_up_to``: then it, like every other negative amount, takes only what
    the seat has.
    """
    player = state["seats"][seat]
    for key, raw in effect.items():
        if key == "research":
            _draw_violet(state, seat, raw, events)
            continue
        amount = _amount(state, seat, raw)
        if key == "money":
            if amount < 0 and not lose_up_to:
                _pay(state, seat, -amount, events)
            else:
                player["money"] = max(0, player["money"] + amount)
        elif key in ("gears", "energy"):
            player[key] = max(0, player[key] + amount)
        elif key == "newspapers":
            player[key] = _clamp(player[key] + amount, _limit("newspapers"))
        elif key == "income":
            player[key] = _clamp(player[key] + amount, _limit("income"))
        elif key == "buzz":
            _buzz(state, seat, amount, events)
        elif key == "vp":
            player["vp"] += amount
        elif key == "westminster":
            for _ in range(amount):
                _westminster_step(state, seat, events)
        elif key == "dice":
            player["dice"] += amount
        elif key == "ticket":
            state["tickets"] -= amount
            player["tickets"] += amount
        else:
            raise KeyError(f"unknown effect {key!r} in the data")


def _buzz(state: State, seat: int, amount: int, events: list[Event]) -> None:
    """§13.3: the buzz track (0–40); each threshold pays once, the first time it is reached."""
    player = state["seats"][seat]
    player["buzz"] = _clamp(player["buzz"] + amount, _limit("buzz"))
    for threshold, bonus in components()["buzz_thresholds"]:
        if player["buzz_peak"] < threshold <= player["buzz"]:
            player["buzz_peak"] = threshold
            _gain(state, seat, bonus, events)
    player["buzz_peak"] = max(player["buzz_peak"], player["buzz"])


def _westminster_step(state: State, seat: int, events: list[Event]) -> None:
    """§11.4: one step on the Westminster track and that step's one-time bonus."""
    player = state["seats"][seat]
    player["westminster"] += 1
    track = components()["westminster_track"]
    step = player["westminster"]
    _gain(
        state,
        seat,
        track[step - 1] if step <= len(track) else components()["westminster_beyond"],
        events,
    )


def _free_research_space(state: State, seat: int) -> bool:
    return bool(len(state["seats"][seat]["research"]) < _limit("research_spaces"))


def _gain_tile(state: State, seat: int, tile: str, events: list[Event]) -> None:
    """§10: a research tile goes on an empty research space; IMM effects resolve at once."""
    player = state["seats"][seat]
    player["research"].append(tile)
    player["vp"] += _perm(state, seat, "research_vp")
    info = research_tiles()[tile]
    if info["timing"] == "IMM":
        _gain(state, seat, info["effect"], events)


def _draw_violet(state: State, seat: int, color: str, events: list[Event]) -> None:
    stack = state["violet"][color]
    if stack and _free_research_space(state, seat):
        tile = stack.pop()
        events.append({"type": "research", "seat": seat, "tile": tile})
        _gain_tile(state, seat, tile, events)


def _can_hold(state: State, seat: int, effect: Effect) -> bool:
    """Whether the seat holds the gears and energy an effect costs (£ may be borrowed)."""
    player = state["seats"][seat]
    return all(
        player[k] + _amount(state, seat, v) >= 0
        for k, v in effect.items()
        if k in ("gears", "energy")
    )


# -- phase 1: dice (§4) ----------------------------------------------------------------


def _dice_actions(state: State, seat: int) -> list[Action]:
    low, high = _limit("die_values")
    return [{"type": "die", "value": v} for v in range(low, high + 1)]


def _do_die(state: State, seat: int, action: Action, events: list[Event]) -> None:
    player = state["seats"][seat]
    player["secret"].append(action["value"])
    if len(player["secret"]) == player["dice"]:
        player["ready"] = True
        events.append({"type": "ready", "seat": seat})


def _reveal(state: State, events: list[Event]) -> None:
    """§4 steps 2–5, once every seat is ready: reveal, pay, first player, newspapers."""
    seats = state["seats"]
    previous = state["order"]
    for player in seats:
        player["rolled"] = sorted(player["secret"], reverse=True)
        player["secret"] = []
        player["ready"] = False
    keys = [(sum(p["rolled"]), p["rolled"]) for p in seats]
    best = max(keys)
    tied = [s for s, key in enumerate(keys) if key == best]
    if len(tied) == 1:
        first = tied[0]
    elif state["round"] == 0:
        rng = Rng(state["rng"])
        first = tied[rng.below(len(tied))]
        state["rng"] = rng.state
    else:
        first = min(tied, key=previous.index)
    n = state["players"]
    state["order"] = [(first + i) % n for i in range(n)]
    totals = [sum(p["rolled"]) for p in seats]
    paid = [_dice_cost(state, seat, p["rolled"]) for seat, p in enumerate(seats)]
    for seat in state["order"]:
        _pay(state, seat, paid[seat], events)
    lowest = min(totals)
    if len(set(totals)) == 1:
        readers = [s for s in range(n) if s != first]
    else:
        readers = [s for s in range(n) if totals[s] == lowest]
    for seat in readers:
        _gain(state, seat, {"newspapers": components()["newspaper_for_lowest_total"]}, events)
    events.append(
        {
            "type": "reveal",
            "dice": [p["rolled"] for p in seats],
            "first": first,
            "newspapers": readers,
            "paid": paid,
        }
    )


# -- phase 2: placement (§5) and assistants (§7.1) ----------------------------------------


def _place_actions(state: State, seat: int) -> list[Action]:
    actions: list[Action] = []
    values = sorted(set(state["seats"][seat]["unplaced"]), reverse=True)
    for location in location_order(state["options"]):
        spaces = layout(location, state["players"])["placement"]
        for i, held in enumerate(state["board"][location]["placed"]):
            if held is None:
                actions += [
                    {"type": "place", "location": location, "space": i, "value": v}
                    for v in values
                    if v >= spaces[i]["min"]
                ]
    return [*actions, {"type": "pass"}]


def _placement_is_legal(state: State, seat: int, action: Action) -> bool:
    """The same answer as looking ``action`` up in ``_place_actions``, without building them."""
    if action.keys() != {"type", "location", "space", "value"}:
        return False
    location, space, value = action["location"], action["space"], action["value"]
    if type(location) is not str or type(space) is not int or type(value) is not int:
        return False
    board = state["board"].get(location)
    if board is None or not 0 <= space < len(board["placed"]) or board["placed"][space] is not None:
        return False
    minimum = layout(location, state["players"])["placement"][space]["min"]
    return value >= minimum and value in state["seats"][seat]["unplaced"]


def _is_legal(state: State, seat: int, action: Action, legal_actions: Any) -> bool:
    if action["type"] == "place" and state["step"]["kind"] == "place":
        return _placement_is_legal(state, seat, action)
    return any(same(action, legal) for legal in legal_actions(state, seat))


def _next_placer(state: State, after: int) -> None:
    """§5.5: the next seat clockwise (in this round's order) with dice left, or phase 3."""
    order = state["order"]
    start = order.index(after)
    for i in range(1, len(order) + 1):
        seat = order[(start + i) % len(order)]
        player = state["seats"][seat]
        if player["unplaced"] and not player["passed"]:
            state["turn"] = seat
            state["step"] = {"kind": "place"}
            return
    _begin_resolution(state)


def _do_place(state: State, seat: int, action: Action, events: list[Event]) -> None:
    location, space, value = action["location"], action["space"], action["value"]
    player = state["seats"][seat]
    player["unplaced"].remove(value)
    state["board"][location]["placed"][space] = [seat, value]
    events.append(
        {"type": "place", "seat": seat, "location": location, "space": space, "value": value}
    )
    printed = layout(location, state["players"])["placement"][space]
    if printed["fee"]:
        _pay(state, seat, printed["fee"], events)
    if printed["assistant"] and (
        len(_assistant_actions(state, seat)) > 1 or _exchanges_would_meet_goal(state, seat)
    ):
        state["step"] = {"kind": "assistant", "seat": seat}
        return
    _next_placer(state, seat)


def _exchanges_would_meet_goal(state: State, seat: int) -> bool:
    """§8: gears or a die bought with newspapers can meet the next goal level
    (Prussia counts gears and energy, Japan dice); then the seat is asked."""
    for kind in ("gear", "die"):
        trial = state
        exchange = {"type": "exchange", "for": kind}
        while exchange in _free_actions(trial, seat):
            trial = copy_state(trial)
            _do_exchange(trial, seat, exchange, [])
            if _goal_met(trial, seat):
                return True
    return False


def _do_pass(state: State, seat: int, action: Action, events: list[Event]) -> None:
    state["seats"][seat]["passed"] = True
    events.append({"type": "pass", "seat": seat})
    _next_placer(state, seat)


def _goal_met(state: State, seat: int) -> bool:
    player = state["seats"][seat]
    nation = next(n for n in components()["nations"] if n["id"] == player["nation"])
    if player["goal"] >= len(nation["levels"]):
        return False
    need = nation["levels"][player["goal"]]
    return all(_measure(state, seat, name) >= value for name, value in need.items())


def _market_above(state: State, start: int) -> int | None:
    """The lowest free Black Market space above ``start`` (−1: from the bottom)."""
    for i in range(start + 1, len(state["market"])):
        if state["market"][i] is None:
            return i
    return None


def _assistant_actions(state: State, seat: int) -> list[Action]:
    actions: list[Action] = []
    if _goal_met(state, seat):
        actions.append({"type": "goal"})
    if state["seats"][seat]["assistants"] and _market_above(state, -1) is not None:
        actions.append({"type": "market"})
    for i, holder in enumerate(state["market"]):
        if holder == seat and _market_above(state, i) is not None:
            actions.append({"type": "market", "from": i})
    return [*actions, {"type": "skip"}]


def _do_goal(state: State, seat: int, action: Action, events: list[Event]) -> None:
    state["seats"][seat]["goal"] += 1
    events.append({"type": "goal", "seat": seat, "level": state["seats"][seat]["goal"]})
    _next_placer(state, seat)


def _do_market(state: State, seat: int, action: Action, events: list[Event]) -> None:
    player = state["seats"][seat]
    start = action.get("from", -1)
    target = _market_above(state, start)
    assert target is not None  # guaranteed by the legal actions
    moved = {} if start < 0 else {"from": start}
    events.append({"type": "market", "seat": seat, "space": target, **moved})
    _pay(state, seat, _market_spaces(state)[target]["cost"], events)
    if start < 0:
        player["assistants"] -= 1
    else:
        state["market"][start] = None
    state["market"][target] = seat
    if target in state["market_gears"]:
        state["market_gears"].remove(target)
        player["gears"] += 1
    _next_placer(state, seat)


def _do_skip(state: State, seat: int, action: Action, events: list[Event]) -> None:
    _next_placer(state, seat)


# -- phase 3: resolution (§6, §11) ----------------------------------------------------------


def _begin_resolution(state: State) -> None:
    state["phase"] = 3
    state["turn"] = None
    queue = []
    for location in location_order(state["options"]):
        placed = state["board"][location]["placed"]
        dice = [(-held[1], i) for i, held in enumerate(placed) if held is not None]
        queue += [[location, i] for _, i in sorted(dice)]
    state["queue"] = queue
    state["step"] = {"kind": "resolve"}


def _current_die(state: State) -> tuple[int, str, int]:
    location, space = state["queue"][0]
    seat, _value = state["board"][location]["placed"][space]
    return seat, location, space


def _free_action_space(state: State, location: str) -> int | None:
    acted = state["board"][location]["acted"]
    return next((i for i, held in enumerate(acted) if held is None), None)


def _action_variants(
    state: State, seat: int, location: str, extra_dice: int = 0
) -> list[dict[str, Any]]:
    """The ways the seat can perform ``location``'s action now (parameters only),
    or with ``extra_dice`` more dice."""
    player = state["seats"][seat]
    kind = layout(location, state["players"])["action_kind"]
    if kind == "patent":
        return [{"card": c} for c in state["patents"]["row"]]
    if kind == "research":
        if not _free_research_space(state, seat):
            return []
        return [{"tile": t} for t in state["museum"]]
    if kind == "share":
        return [{"share": s} for s in state["bank"]]
    if kind == "character":
        return [{"card": c} for c in state["characters"]["row"]]
    if kind == "westminster":
        return [{}]
    if kind == "publisher":
        choices = publishers()[state["publisher"]]["choices"]
        usable = [i for i, effect in enumerate(choices) if _can_hold(state, seat, effect)]
        return [{"choice": i} for i in usable] if len(choices) > 1 else [{} for _ in usable]
    options = layout(location, state["players"])["menu"]
    variants = []
    for option in options:
        if option in state["menus_used"][location]:
            continue
        effect = components()["menu_options"][option]["effect"]
        dice = player["dice"] + extra_dice + effect.get("dice", 0)
        if not _limit("keep_dice_after_sale") <= dice <= _limit("dice")[1]:
            continue
        if effect.get("ticket") and state["tickets"] < effect["ticket"]:
            continue
        if _can_hold(state, seat, effect):
            variants.append({"option": option})
    return variants


def _resolve_actions(state: State, seat: int, extra_dice: int = 0) -> list[Action]:
    _, location, _ = _current_die(state)
    variants = _action_variants(state, seat, location, extra_dice)
    if _free_action_space(state, location) is not None:
        return [*({"type": "act", **v} for v in variants), {"type": "decline"}]
    if state["seats"][seat]["tickets"] and variants:
        return [*({"type": "ticket", **v} for v in variants), {"type": "compensation"}]
    return [{"type": "compensation"}]


def _perform(
    state: State, seat: int, location: str, action: Action, events: list[Event]
) -> dict[str, int]:
    """The location action itself (§11), with the parameters the action carries.

    Returns what the ``act`` or ``ticket`` event adds for the log: the ``price``
    paid for a share or a character, as charged after the action space's bonus."""
    player = state["seats"][seat]
    kind = layout(location, state["players"])["action_kind"]
    if kind == "share":
        share = shares()[action["share"]]
        state["bank"].remove(action["share"])
        _pay(state, seat, share["price"], events)
        player["shares"].append(action["share"])
        _gain(state, seat, share["gain"], events)
        return {"price": share["price"]}
    if kind == "character":
        card = characters()[action["card"]]
        price = _recruit_cost(state, seat, action["card"])
        state["characters"]["row"].remove(action["card"])
        _pay(state, seat, price, events)
        player["vp"] += card["vp"][state["round"]] + _perm(state, seat, "recruit_vp")
        player["characters"].append(action["card"])
        return {"price": price}
    if kind == "patent":
        state["patents"]["row"].remove(action["card"])
        player["patents"].append(action["card"])
    elif kind == "research":
        state["museum"].remove(action["tile"])
        _gain_tile(state, seat, action["tile"], events)
    elif kind == "westminster":
        _westminster_step(state, seat, events)
    elif kind == "publisher":
        choices = publishers()[state["publisher"]]["choices"]
        _gain(state, seat, choices[action.get("choice", 0)], events)
    else:
        state["menus_used"][location].append(action["option"])
        _gain(state, seat, components()["menu_options"][action["option"]]["effect"], events)
    return {}


def _do_act(state: State, seat: int, action: Action, events: list[Event]) -> None:
    _, location, space = _current_die(state)
    board = state["board"][location]
    slot = _free_action_space(state, location)
    assert slot is not None  # guaranteed by the legal actions
    board["acted"][slot] = board["placed"][space]
    board["placed"][space] = None
    state["queue"].pop(0)
    event = {
        "type": "act",
        "seat": seat,
        "location": location,
        "space": slot,
        **_chosen(state, location, action),
    }
    events.append(event)
    bonus = layout(location, state["players"])["action"][slot]
    leftmost = publishers()[state["publisher"]].get("leftmost_bonus")
    if location == "london_times" and slot == 0 and leftmost:
        bonus = leftmost
    _gain(state, seat, bonus, events)
    event.update(_perform(state, seat, location, action, events))


def _chosen(state: State, location: str, action: Action) -> dict[str, Any]:
    """What an ``act`` or ``ticket`` chose (card, tile, share, choice or option, and
    the London Times' publisher): public, for the log."""
    chosen = {k: v for k, v in action.items() if k in ("card", "tile", "share", "choice", "option")}
    if location == "london_times":
        chosen["publisher"] = state["publisher"]
    return chosen


def _do_ticket(state: State, seat: int, action: Action, events: list[Event]) -> None:
    _, location, _ = _current_die(state)
    state["queue"].pop(0)
    state["seats"][seat]["tickets"] -= 1
    state["spent_tickets"] += 1
    event = {
        "type": "ticket",
        "seat": seat,
        "location": location,
        **_chosen(state, location, action),
    }
    events.append(event)
    event.update(_perform(state, seat, location, action, events))


def _do_decline(state: State, seat: int, action: Action, events: list[Event]) -> None:
    _, location, _ = _current_die(state)
    state["queue"].pop(0)
    events.append({"type": "decline", "seat": seat, "location": location})


def _do_compensation(state: State, seat: int, action: Action, events: list[Event]) -> None:
    _, location, _ = _current_die(state)
    state["queue"].pop(0)
    _gain(state, seat, components()["compensation"], events)
    events.append({"type": "compensation", "seat": seat, "location": location})


def _auto_resolve(state: State, events: list[Event]) -> bool:
    """Resolve the next die when its owner has only one thing it can do. True if done."""
    seat, _, _ = _current_die(state)
    actions = _resolve_actions(state, seat)
    if len(actions) != 1 or _a_die_would_open_an_action(state, seat):
        return False
    _HANDLERS[actions[0]["type"]](state, seat, actions[0], events)
    return True


def _a_die_would_open_an_action(state: State, seat: int) -> bool:
    """§8: newspapers buy a die at any time, and one more die can make Waterloo's
    "sell a die" possible; then the seat is asked rather than declined for."""
    player = state["seats"][seat]
    rate = components()["exchanges"]["die"]["newspapers"]
    if player["newspapers"] < rate or player["dice"] >= _limit("dice")[1]:
        return False
    return len(_resolve_actions(state, seat, extra_dice=1)) > 1


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
    may pass 7 or a loss find none. ``tests/test_crystal_palace_order.py`` checks
    this against every order of random hands.
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


# -- end of game (§14) ----------------------------------------------------------------------


def _begin_repay(state: State) -> None:
    state["phase"] = "final"
    state["turn"] = None
    state["step"] = {"kind": "repay"}
    cost = components()["loans"]["repay_cost"]
    state["shown"] = [_repay_public(player) for player in state["seats"]]
    for seat, player in enumerate(state["seats"]):
        means = player["money"] + _newspaper_money(state, seat)
        player["ready"] = not (player["loans"] and means >= cost)


_REPAY_HIDES = ("money", "newspapers", "gears", "income", "repaid")
"""What a seat's repayment step may change (repay, newspaper exchanges): hidden
from the others until every seat is ready (item 13.10), as phase 1 hides dice."""


def _repay_public(player: dict[str, Any]) -> dict[str, Any]:
    return {key: player[key] for key in _REPAY_HIDES}


def _repay_actions(state: State, seat: int) -> list[Action]:
    player = state["seats"][seat]
    most = min(len(player["loans"]), player["money"] // components()["loans"]["repay_cost"])
    return [{"type": "repay", "count": n} for n in range(most + 1)]


def _do_repay(state: State, seat: int, action: Action, events: list[Event]) -> None:
    player = state["seats"][seat]
    player["money"] -= action["count"] * components()["loans"]["repay_cost"]
    player["repaid"] = action["count"]
    player["ready"] = True


def _majority(values: list[tuple[int, ...]], points: list[int]) -> list[int]:
    """Majority VP: higher keys rank first; tied seats share their ranks' points (rounded down).
    Seats whose first key is 0 do not rank."""
    awarded = [0] * len(values)
    ranked = sorted((v for v in values if v[0] > 0), reverse=True)
    position = 0
    while position < len(ranked) and position < len(points):
        key = ranked[position]
        tied = [s for s, v in enumerate(values) if v == key]
        share = sum(points[position : position + len(tied)]) // len(tied)
        for seat in tied:
            awarded[seat] = share
        position += len(tied)
    return awarded


def _final_scoring(state: State, events: list[Event]) -> None:
    data = components()
    seats = state["seats"]
    points = data["majority_vp"][str(state["players"])]
    buzz = _majority([(p["buzz"],) for p in seats], points)
    tops = [
        max((i + 1 for i, holder in enumerate(state["market"]) if holder == s), default=0)
        for s in range(state["players"])
    ]
    market = _majority(
        [(_measure(state, s, "market_assistants"), tops[s]) for s in range(state["players"])],
        points,
    )
    final = []
    for seat, player in enumerate(seats):
        worst_first = sorted(player["loans"])
        repaid, kept = worst_first[: player["repaid"]], worst_first[player["repaid"] :]
        details = {
            "play": player["vp"],
            "loans": len(repaid) * data["loans"]["repaid_vp"] + sum(kept),
            "research": (_limit("research_spaces") - len(player["research"]))
            * data["empty_research_vp"],
            "goal": data["goal_vp"][player["goal"]],
            "buzz_majority": buzz[seat],
            "market_majority": market[seat],
            "tickets": player["tickets"] * data["ticket_vp"],
        }
        total = sum(details.values())
        final.append(
            {
                **details,
                "total": total,
                "money": player["money"],
                "westminster": player["westminster"],
                "loan_values": player["loans"],
            }
        )
    for seat, player in enumerate(seats):
        if player["repaid"]:
            events.append({"type": "repay", "seat": seat, "count": player["repaid"]})
    events.append({"type": "game_end", "scores": [f["total"] for f in final]})
    state["final"] = final
    state["finished"] = True
    state["turn"] = None


# -- free actions: loans and newspapers (§8, §9) --------------------------------------------


def _free_actions(state: State, seat: int) -> list[Action]:
    player = state["seats"][seat]
    actions: list[Action] = []
    if state["loans"] and state["step"]["kind"] != "repay":
        actions.append({"type": "loan"})
    rates = components()["exchanges"]
    for kind in EXCHANGES:
        if player["newspapers"] < rates[kind]["newspapers"]:
            continue
        if kind == "die" and (
            player["dice"] >= _limit("dice")[1] or state["step"]["kind"] == "repay"
        ):
            continue
        if kind == "income" and player["income"] >= _limit("income"):
            continue
        actions.append({"type": "exchange", "for": kind})
    return actions


def _do_loan(state: State, seat: int, action: Action, events: list[Event]) -> None:
    _take_loan(state, seat, events, forced=False)


def _do_exchange(state: State, seat: int, action: Action, events: list[Event]) -> None:
    player = state["seats"][seat]
    rate = components()["exchanges"][action["for"]]
    player["newspapers"] -= rate["newspapers"]
    if state["step"]["kind"] != "repay":  # the final repayment stays secret (item 13.10)
        events.append({"type": "exchange", "seat": seat, "for": action["for"]})
    if action["for"] == "die":
        player["dice"] += 1  # set this round if still in phase 1 (§8), else from the next
    else:
        _gain(state, seat, rate["gain"], events)


# -- flow ---------------------------------------------------------------------------------


def _advance(state: State, events: list[Event]) -> None:
    """Run the phases that need no decision until one does, or the game ends."""
    while not state["finished"]:
        kind = state["step"]["kind"]
        if kind in ("dice", "repay"):
            if not all(p["ready"] for p in state["seats"]):
                return
            if kind == "repay":
                _final_scoring(state, events)
                return
            _reveal(state, events)
            _begin_placement(state)
        elif kind in ("place", "assistant"):
            return
        elif kind == "resolve":
            if state["queue"]:
                if not _auto_resolve(state, events):
                    return
                continue
            _salaries(state, 0, events)
        elif kind in ("salary", "target"):
            return
        elif kind == "abilities":
            if not _settle_abilities(state, events):
                return
            _abilities(state, state["order"].index(state["step"]["seat"]) + 1, events)
        elif kind == "build":
            if state["turn"] is not None:
                return
            _phase6(state, events)
            if state["round"] == len(components()["rounds"]) - 1:
                _begin_repay(state)
            else:
                _phase7(state)
            events.append({"type": "phase", "round": state["round"], "phase": state["phase"]})


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
    if kind == "goal" and state["step"]["kind"] == "assistant" and not _goal_met(state, seat):
        return "goal_not_met"
    return "not_allowed_now"


_STEP_ACTIONS = {
    "dice": _dice_actions,
    "place": _place_actions,
    "assistant": _assistant_actions,
    "resolve": _resolve_actions,
    "salary": lambda state, seat: [{"type": "pay"}],
    "abilities": lambda state, seat: [
        {"type": "ability", "card": card} for card in state["step"]["left"]
    ],
    "build": _build_actions,
    "target": lambda state, seat: [{"type": "accept"}],
    "repay": _repay_actions,
}

_HANDLERS = {
    "die": _do_die,
    "place": _do_place,
    "pass": _do_pass,
    "goal": _do_goal,
    "market": _do_market,
    "skip": _do_skip,
    "act": _do_act,
    "ticket": _do_ticket,
    "decline": _do_decline,
    "compensation": _do_compensation,
    "pay": _do_pay,
    "ability": _do_ability,
    "build": _do_build,
    "accept": _do_accept,
    "done": _do_done,
    "repay": _do_repay,
    "loan": _do_loan,
    "exchange": _do_exchange,
}
