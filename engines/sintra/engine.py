"""Azul: Stained Glass of Sintra, per ``rules/sintra.md``.

This module holds the engine: setup (§2), whose turn, legal actions, apply and
views. The rules are in one module per part of a turn, named for it, reading like
the rulebook:

* :mod:`~engines.sintra.data`: the components, read from ``data/components.json``
  (strips, window points, ornaments, tracks, option defaults); no printed value is
  in the code;
* :mod:`~engines.sintra.supply`: the bag, the tower and the factories (§2.8–2.9);
* :mod:`~engines.sintra.board`: a player's board (§2.4–2.7) and the glazier's reset
  (§3.2 B);
* :mod:`~engines.sintra.take`: the take action (§3.2 A), with strip completion (A3);
* :mod:`~engines.sintra.glass`: the broken-glass track (§6);
* :mod:`~engines.sintra.rounds`: the end of a turn, a round and the game (§3.3);
* :mod:`~engines.sintra.scoring`: final scoring (§7–§8);
* :mod:`~engines.sintra.words`: action labels and the game log.

State (plain data, colours are ints 0..4, a strip's wild space is ``-1``)::

    players, options, rng, round, turn, start, center_tile, finished,
    bag[5], tower[5], factories[F][5], center[5], indicator[6],
    boards[seat] = {score, track, wraps, glazier, strips[8], windows[8][2], final}
    strips[slot] = None | {id, side, pieces[5]}     pieces[i] = colour | None

Actions::

    {"type": "reset"}
    {"type": "take", "factory": int | None, "color": int,
     "strip": int | None, "wild": int, "keep": int | None}

``factory`` None takes from the centre. ``strip`` is the target slot (0..7),
None only when no reachable strip can take the colour (everything breaks).
``wild`` is how many of the placed pieces go to wild spaces. ``keep`` is the
colour kept for the window when the placement completes the strip, else None.

Choices where the spec is silent or [proposed] (all from rules/sintra.md):

* The glazier stays put when every piece breaks (§3.2 A2, FAQ 3).
* Placement fills as many spaces as possible; the player picks how many wild
  spaces to use (§3.2 A2 [proposed]).
* The start-player step is applied before the broken pieces; each step that
  reaches the bottom scores -18 at once and the marker restarts from the top
  (§6 [proposed]).
* Scores cannot go below 0 unless the ``negative_scores`` option is on (§7).
* Labels (``describe``) price broken glass by what it costs at the end of the
  game: the change of the track's value plus each −18 hit, the score floor
  ignored.
* "Points lost on the broken-glass track" for the tie-break = 18 per wrap plus
  the final track value (§8 [proposed]).
* If nobody takes from the centre, the previous start player starts again
  (§3.3, FAQ 9).
* The bag's composition and the tower's are hidden: views give their sizes.
* Views carry the printed component data of the game's options (``printed``),
  so a client draws names, points and tracks without a copy of the data file.
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
    copy_state,
    player_options,
    rank,
    resolve_options,
)
from engines.rng import Rng, seed_state
from engines.sintra.board import board_view, can_reset, leftmost_strip, new_board
from engines.sintra.data import COLORS, components, printed
from engines.sintra.rounds import end_turn
from engines.sintra.scoring import leftover_points, ornament_bonus, window_colour_bonus
from engines.sintra.supply import draw, refill_factories, sources
from engines.sintra.take import (
    check_keys,
    check_take,
    check_take_shape,
    fitting_strips,
    take,
    take_actions,
)
from engines.sintra.words import describe_action, narrate_event

# The engine, and the names other modules (the terminal renderer, tests) import from
# here: they live in the part modules.
__all__ = ["Sintra", "components", "leftover_points", "ornament_bonus", "window_colour_bonus"]


class Sintra:
    """The ``sintra`` engine (see the module docstring)."""

    id = "sintra"
    title = "Azul: Stained Glass of Sintra"
    min_players = 2
    max_players = 4
    kind = "game"
    seat_views_differ = False

    @property
    def options(self) -> Mapping[str, Mapping[str, Any]]:
        return player_options(components()["options"])

    # -- setup (§2) ---------------------------------------------------------

    def setup(self, players: int, options: Mapping[str, Any], seed: int) -> State:
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"sintra takes 2-4 players, not {players}")
        data = components()
        opts = resolve_options(self, options)
        rng = Rng(seed_state(seed))
        boards = [new_board(rng) for _ in range(players)]
        bag = [data["pieces_per_color"]] * COLORS
        later_rounds = list(range(COLORS))
        rng.shuffle(later_rounds)
        for color in later_rounds:
            bag[color] -= 1
        first_round = draw(bag, rng)
        state: State = {
            "players": players,
            "options": opts,
            "rng": 0,
            "round": 1,
            "start": rng.below(players),
            "turn": 0,
            "center_tile": True,
            "finished": False,
            "bag": bag,
            "tower": [0] * COLORS,
            "factories": [[0] * COLORS for _ in range(data["factories_by_players"][str(players)])],
            "center": [0] * COLORS,
            "indicator": [first_round, *later_rounds],
            "boards": boards,
        }
        refill_factories(state, rng)
        state["turn"] = state["start"]
        state["rng"] = rng.state
        return state

    # -- whose turn ---------------------------------------------------------

    def to_act(self, state: State) -> frozenset[int]:
        return frozenset() if state["finished"] else frozenset((state["turn"],))

    # -- legal actions (§11) ------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if state["finished"] or seat != state["turn"]:
            return []
        board = state["boards"][seat]
        actions: list[Action] = []
        if can_reset(board):
            actions.append({"type": "reset"})
        fits: dict[int, dict[int, tuple[int, int]]] = {}
        for factory, counts in sources(state):
            for color, n in enumerate(counts):
                if n:
                    if color not in fits:
                        fits[color] = fitting_strips(board, color)
                    actions.extend(take_actions(board, factory, color, n, fits[color]))
        return actions

    # -- apply (§3.2) -------------------------------------------------------

    def apply(self, state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
        if state["finished"]:
            raise IllegalAction("game_over", "the game is over")
        if seat != state["turn"]:
            # Seats as players see them: numbered from 1.
            raise IllegalAction(
                "not_your_turn", f"it is not your turn: seat {state['turn'] + 1} plays now"
            )
        kind = action.get("type") if isinstance(action, dict) else None
        if kind == "reset":
            check_keys(action, {"type"})
            if not can_reset(state["boards"][seat]):
                raise IllegalAction(
                    "reset_not_allowed", "the glazier is already on the leftmost strip"
                )
            state = copy_state(state)
            board = state["boards"][seat]
            board["glazier"] = leftmost_strip(board)
            events: list[Event] = [{"type": "reset", "seat": seat, "slot": board["glazier"]}]
        elif kind == "take":
            check_take_shape(action)
            check_take(state, seat, action)
            state = copy_state(state)
            events = take(state, seat, action)
        else:
            raise IllegalAction("bad_action", "that is not a move of this game")
        end_turn(state, events)
        return state, events

    # -- views --------------------------------------------------------------

    def view(self, state: State, viewer: int | None) -> View:
        """Everything is public except the PRNG and what is in the bag and tower."""
        return {
            "players": state["players"],
            "options": state["options"],
            "round": state["round"],
            "turn": None if state["finished"] else state["turn"],
            "start": state["start"],
            "center_tile": state["center_tile"],
            "finished": state["finished"],
            "bag": sum(state["bag"]),
            "tower": sum(state["tower"]),
            "factories": state["factories"],
            "center": state["center"],
            "indicator": state["indicator"][state["round"] - 1 :] if not state["finished"] else [],
            "boards": [board_view(b) for b in state["boards"]],
            "printed": printed(state["options"]),
        }

    def result(self, state: State) -> Result | None:
        if not state["finished"]:
            return None
        boards = state["boards"]
        scores = [b["score"] for b in boards]
        lost = [b["final"]["glass_lost"] for b in boards]
        ranks = rank([(s, -g) for s, g in zip(scores, lost, strict=True)])
        return {
            "scores": scores,
            "ranks": ranks,
            "winners": [seat for seat, r in enumerate(ranks) if r == 1],
            "details": [b["final"] for b in boards],
        }

    def narrate(self, event: Event, names: Sequence[str]) -> str:
        return narrate_event(event, names)

    def describe(self, state: State, seat: int, action: Action) -> str:
        return describe_action(state, seat, action)
