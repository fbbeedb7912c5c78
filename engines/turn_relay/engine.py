"""The "turn-relay" workload of ``bench/turn-relay.md`` §2 as a tablewire engine.

Four seats take turns; a move ``{"take": factory, "colour": c}`` takes every
tile of colour ``c`` from one of nine factories into the seat's hand (modulo
100) and score, sends the rest to the centre (emptied past 16 tiles) and
refills the factory from the room's xorshift32 generator. The whole history
of a room follows from its seed, so every client's final state can be checked
against :func:`simulate`.

The room's seed maps to the generator's state as ``seed mod (2³²−1) + 1``
(never 0): a room created with seed ``i`` is the spec's ``roomIndex`` ``i``.

The view is the spec's canonical state (§2.1), the same for every viewer. The
workload has no end; the ``moves`` option ends the game after that many moves
so a room is finite (100,000 by default; the server's ``max_moves`` bounds every game too).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from engines.base import (
    Action,
    Event,
    IllegalAction,
    Result,
    State,
    View,
    rank,
    resolve_options,
)
from engines.turn_relay.words import describe_move, narrate_event

SEATS: Final = 4
HAND_SIZE: Final = 5
HAND_MOD: Final = 100
FACTORIES: Final = 9
TILES_PER_FACTORY: Final = 4
COLOURS: Final = 5
CENTER_MAX: Final = 16
MASK: Final = 0xFFFFFFFF


def xorshift32(x: int) -> int:
    """One step of the spec's generator (shifts 13, 17, 5) on an unsigned 32-bit int."""
    x ^= (x << 13) & MASK
    x ^= x >> 17
    x ^= (x << 5) & MASK
    return x


def seed_to_state(seed: int) -> int:
    return seed % MASK + 1


class TurnRelay:
    """The ``turn-relay`` engine (see the module docstring)."""

    id = "turn-relay"
    title = "turn-relay (benchmark workload)"
    min_players = SEATS
    max_players = SEATS
    kind = "benchmark"
    seat_views_differ = False

    @property
    def options(self) -> Mapping[str, Mapping[str, Any]]:
        return {
            "moves": {
                "choices": [12, 100, 1_000, 100_000],
                "default": 100_000,
                "description": "the game ends after this many moves (the workload has no end)",
            }
        }

    def setup(self, players: int, options: Mapping[str, Any], seed: int) -> State:
        if players != SEATS:
            raise ValueError(f"turn-relay takes {SEATS} players, not {players}")
        opts = resolve_options(self, options)
        x = seed_to_state(seed)
        board = []
        for _ in range(FACTORIES):
            factory = []
            for _ in range(TILES_PER_FACTORY):
                x = xorshift32(x)
                factory.append(x % COLOURS)
            board.append(factory)
        return {
            "seats": [{"score": 0, "hand": [0] * HAND_SIZE} for _ in range(SEATS)],
            "board": board,
            "center": [],
            "turn": 0,
            "moveCount": 0,
            "rng": x,
            "limit": opts["moves"],
        }

    def to_act(self, state: State) -> frozenset[int]:
        if state["moveCount"] >= state["limit"]:
            return frozenset()
        return frozenset((state["turn"],))

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if seat not in self.to_act(state):
            return []
        return [
            {"take": f, "colour": c}
            for f, factory in enumerate(state["board"])
            for c in sorted(set(factory))
        ]

    def apply(self, state: State, seat: int, action: Any) -> tuple[State, list[Event]]:
        """§2.4: validate, then take, spill to the centre, refill, next turn. ``action``
        may be anything (a compiled module checks declared types on the way in): what
        is not an action is ``bad_action``."""
        if state["moveCount"] >= state["limit"]:
            raise IllegalAction("game_over", "the game is over")
        if seat != state["turn"]:
            raise IllegalAction(
                "not_your_turn", f"it is not your turn: seat {state['turn'] + 1} plays now"
            )
        if not isinstance(action, dict) or action.keys() != {"take", "colour"}:
            raise IllegalAction("bad_action", "an action is {take: factory, colour: c}")
        take, colour = action["take"], action["colour"]
        if type(take) is not int or not 0 <= take < FACTORIES:
            raise IllegalAction("no_such_factory", f"take must be an int in 0..{FACTORIES - 1}")
        if type(colour) is not int or not 0 <= colour < COLOURS:
            raise IllegalAction("no_such_colour", f"colour must be an int in 0..{COLOURS - 1}")
        tiles = state["board"][take]
        n = tiles.count(colour)
        if not n:
            raise IllegalAction("colour_not_in_factory", f"factory {take} holds no {colour}")
        seats = list(state["seats"])  # unchanged parts are shared: the diff skips them
        hand = list(seats[seat]["hand"])
        hand[colour] = (hand[colour] + n) % HAND_MOD
        seats[seat] = {"score": seats[seat]["score"] + n, "hand": hand}
        center = state["center"] + [t for t in tiles if t != colour]
        if len(center) > CENTER_MAX:
            center = []
        x = state["rng"]
        refill = []
        for _ in range(TILES_PER_FACTORY):
            x = xorshift32(x)
            refill.append(x % COLOURS)
        board = list(state["board"])
        board[take] = refill
        new: State = {
            "seats": seats,
            "board": board,
            "center": center,
            "turn": (state["turn"] + 1) % SEATS,
            "moveCount": state["moveCount"] + 1,
            "rng": x,
            "limit": state["limit"],
        }
        return new, []

    def view(self, state: State, viewer: int | None) -> View:
        """The canonical state of §2.1, in its key order."""
        return {k: state[k] for k in ("seats", "board", "center", "turn", "moveCount")}

    def result(self, state: State) -> Result | None:
        if state["moveCount"] < state["limit"]:
            return None
        scores = [s["score"] for s in state["seats"]]
        ranks = rank([(s,) for s in scores])
        return {
            "scores": scores,
            "ranks": ranks,
            "winners": [s for s, r in enumerate(ranks) if r == 1],
            "details": [{"hand": s["hand"]} for s in state["seats"]],
        }

    def narrate(self, event: Event, names: Sequence[str]) -> str:
        return narrate_event(event, names)

    def describe(self, state: State, seat: int, action: Action) -> str:
        return describe_move(action)


def client_move(view: View) -> Action:
    """§2.5: the move the seat to play makes, from its own copy of the state."""
    take = view["moveCount"] % FACTORIES
    return {"take": take, "colour": view["board"][take][0]}


def simulate(seed: int, moves: int) -> View:
    """The reference simulation: the canonical state of room ``seed`` after ``moves``."""
    engine = TurnRelay()
    state = engine.setup(SEATS, {}, seed)
    for _ in range(moves):
        state, _ = engine.apply(state, state["turn"], client_move(engine.view(state, None)))
    return engine.view(state, None)
