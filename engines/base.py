"""The engine contract: what every tablewire game engine provides.

An engine is a stateless object of pure functions over plain data, in the
spirit of OpenSpiel's ``State`` API and boardgame.io's game objects:

* ``setup(players, options, seed) -> state``: a new game, deterministic from
  the seed. The PRNG's whole state lives inside ``state``.
* ``to_act(state) -> frozenset[int]``: the seats expected to act now. More than
  one seat means a simultaneous step; an empty set means the game is over.
* ``legal_actions(state, seat) -> list[Action]``: every legal action of that
  seat, complete (validation, bots and thin clients rely on it).
* ``apply(state, seat, action) -> (state, events)``: a *new* state; the input is
  never modified. An illegal action raises :class:`IllegalAction`.
* ``view(state, viewer) -> View``: what ``viewer`` (a seat, or ``None`` for a
  spectator) may see. Hidden information never appears in another seat's view.
* ``result(state) -> Result | None``: the final result once the game is over.
* ``describe(state, seat, action) -> str``: one line for a person choosing
  ``action`` (legal for ``seat`` in ``state``): what it does and what it costs,
  in words, never bare ids. It may use only what ``seat`` may see. A label may
  be split into choice steps with :data:`STEP` (``"factory 3: 2 red → strip
  4"``), so a client short of room can let the player narrow step by step.
* ``narrate(event, names) -> str``: one sentence for an event of the game log,
  seats called by their ``names``.

States, actions, views, events and results are plain msgpack-able data: dicts
with ``str`` keys, lists, ints, strs, bools and ``None``. Events hold only
public information; they are broadcast to every viewer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any, Protocol, TypedDict, runtime_checkable

import msgpack

State = dict[str, Any]
Action = dict[str, Any]
View = dict[str, Any]
Event = dict[str, Any]

STEP = " → "
"""Separates the choice steps of an action's label (see ``describe``)."""


class Result(TypedDict):
    """The outcome of a finished game.

    ``ranks[seat]`` is 1 for the winner(s); tied seats share a rank (the rank
    after a tie skips, as in sport: 1, 1, 3). ``winners`` lists every seat of
    rank 1; more than one means a shared victory.
    """

    scores: list[int]
    ranks: list[int]
    winners: list[int]
    details: list[dict[str, Any]]


class IllegalAction(Exception):
    """An action the engine refuses; ``code`` is stable and machine-readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class OptionError(ValueError):
    """Room options that do not fit an engine's option schema."""


@runtime_checkable
class Engine(Protocol):
    """A turn-based game engine; see the module docstring for the contract."""

    id: str
    title: str
    min_players: int
    max_players: int
    #: "game" for the games players are offered, "benchmark" for load-test workloads.
    kind: str
    #: False when every seat and spectators always see the same view, so the
    #: server can compute and encode one view per version for everyone.
    seat_views_differ: bool

    @property
    def options(self) -> Mapping[str, Mapping[str, Any]]:
        """``{name: {"choices": [...], "default": value, "name": str, "description": str}}``:
        ``name`` and ``description`` are player text (the lobby's form, the rules page's
        house rules): a name and one line, no option ids or notes about the spec. An
        option whose choices are not yes/no adds ``choice_names``, ``{str(choice): words}``
        (the lobby's select, the room's "Rules changed"), for every choice but the ids of
        printed components, which the game's web/words.js names."""

    def setup(self, players: int, options: Mapping[str, Any], seed: int) -> State: ...

    def to_act(self, state: State) -> frozenset[int]: ...

    def legal_actions(self, state: State, seat: int) -> list[Action]: ...

    def apply(self, state: State, seat: int, action: Action) -> tuple[State, list[Event]]: ...

    def view(self, state: State, viewer: int | None) -> View: ...

    def result(self, state: State) -> Result | None: ...

    def describe(self, state: State, seat: int, action: Action) -> str: ...

    def narrate(self, event: Event, names: Sequence[str]) -> str: ...


def check_turn(engine: Engine, state: State, seat: int, action: Any, over: bool) -> None:
    """The checks an ``apply`` starts with: the game is on, ``seat`` is to act, and
    ``action`` is a map with a string ``type``. Raises :class:`IllegalAction`."""
    if over:
        raise IllegalAction("game_over", "the game is over")
    if seat not in engine.to_act(state):
        raise IllegalAction("not_your_turn", "it is not your turn to decide")
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise IllegalAction("bad_action", "an action is a map with a string type")


def resolve_options(engine: Engine, given: Mapping[str, Any] | None) -> dict[str, Any]:
    """Return the complete options of a room: ``given`` checked, defaults filled in.

    Raises :class:`OptionError` on an unknown name or a value outside the
    option's choices.
    """
    given = dict(given or {})
    unknown = sorted(set(given) - set(engine.options))
    if unknown:
        raise OptionError(f"unknown option(s) for {engine.id}: {', '.join(unknown)}")
    resolved: dict[str, Any] = {}
    for name, spec in engine.options.items():
        value = given.get(name, spec["default"])
        # bool is an int subclass: compare types too, so True never passes for 1.
        if not any(type(value) is type(c) and value == c for c in spec["choices"]):
            raise OptionError(f"option {name!r} must be one of {choices_text(spec['choices'])}")
        resolved[name] = value
    return resolved


def choices_text(choices: Sequence[Any]) -> str:
    """An option's values as they are typed (``--option name=value``, JSON): ``A, B``,
    ``false, true``, never a Python list (``[False, True]`` is no value of either)."""
    return ", ".join(c if isinstance(c, str) else json.dumps(c) for c in choices)


def player_options(block: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """A data file's ``options`` block as ``Engine.options`` serves it: each option without
    its keys that start with ``_`` (developers' notes, such as why the spec chose a
    default), which no player is shown."""
    return {
        name: {key: value for key, value in spec.items() if not key.startswith("_")}
        for name, spec in block.items()
    }


def load_components(package: str) -> dict[str, Any]:
    """An engine's component data: ``data/components.json`` inside its package.

    Read once per process (callers cache it); the engine's functions stay pure.
    """
    text = resources.files(package).joinpath("data/components.json").read_text()
    data: dict[str, Any] = json.loads(text)
    return data


def copy_state(state: State) -> State:
    """A deep copy of plain data, via msgpack (fast, and proves it is msgpack-able)."""
    copied: State = msgpack.unpackb(msgpack.packb(state), raw=False)
    return copied


def same(a: Any, b: Any) -> bool:
    """Equality of plain data that is strict about types: ``True`` is not ``1``."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def rank(scores: list[tuple[int, ...]]) -> list[int]:
    """Competition ranks (1, 1, 3, …) for per-seat sort keys where higher is better."""
    return [1 + sum(1 for other in scores if other > key) for key in scores]


def players_text(low: int, high: int) -> str:
    """How many players a game takes, in words: ``2-4 players``, or ``2 players`` for a
    game of one size."""
    return f"{low} players" if low == high else f"{low}-{high} players"


def seat_name(names: Sequence[str], seat: Any) -> str:
    """A seat as a sentence names it: its player's name, or "seat N" (counted from 1)."""
    if isinstance(seat, int) and 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return f"seat {seat + 1}" if isinstance(seat, int) else "someone"


def narrate_plainly(event: Event, names: Sequence[str]) -> str:
    """A readable sentence for an event an engine has no wording for."""
    who = seat_name(names, event["seat"]) + ": " if "seat" in event else ""
    rest = ", ".join(
        f"{key.replace('_', ' ')} {value}"
        for key, value in event.items()
        if key not in ("type", "seat")
    )
    return f"{who}{str(event.get('type', 'event')).replace('_', ' ')}" + (
        f" ({rest})" if rest else ""
    )
