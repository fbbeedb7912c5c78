"""Hidden information through the engine's other channels than the view, for every game.

The conformance suite proves each view blind to what its game's ``hidden.scramble``
changes. A seat also receives its legal moves with their labels (``describe``) and the
words of its refusals, and everyone receives the events of each move with their
sentences (``narrate``). Over seeded random games, for each seat and state: its legal
moves, their labels and its refusals are the same in a state scrambled for it; and a
move's events, told to every viewer, are the same whenever the move leaves a viewer's
view the same from a scrambled state (what differs in its events it cannot have seen).

One difference is the rules' own: in Chartered with hidden shares, a share can be
bought only while the bank holds one (rules §10.1), so whether the bank is out of a
company shows in the buyer's legal moves, though others' face-down shares count as the
bank's in its view. Those purchases are left out of the comparison.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from engines import ENGINES, Engine
from engines.base import Action, IllegalAction, State
from support import packed, playout, random_options, scrambler

SEEDS = 3
"""Random games per engine."""
EVERY = 3
"""Only every third state of a game is checked in full (the cost of a full check)."""


def _rules_own(engine: Engine, state: State, action: Action) -> bool:
    """A Chartered purchase whose legality tells whether the bank is out of the company."""
    return (
        engine.id == "chartered"
        and action.get("type") == "trade"
        and action.get("op") == "buy"
        and state["options"]["hidden_shares"]
    )


def _scramble(engine: Engine) -> Callable[[State, int | None, random.Random], State]:
    found = scrambler(engine.id)
    assert found is not None, "every game has hidden.py"
    return found


def _refusal(engine: Engine, state: State, seat: int, action: Any) -> tuple[str, str] | None:
    try:
        engine.apply(state, seat, action)
    except IllegalAction as refused:
        return refused.code, refused.message
    return None


def _near(action: Action) -> list[Any]:
    """Actions one field away from ``action``."""
    misses: list[Any] = []
    for key, value in action.items():
        if key != "type":
            misses += [{**action, key: other} for other in (0, 1, -1, 99, None, "gold", "P01")]
            if isinstance(value, int) and not isinstance(value, bool):
                misses += [{**action, key: value + 1}, {**action, key: value - 1}]
    return misses


def _seat_channels(
    engine: Engine, state: State, seat: int, action: Action, rnd: random.Random
) -> None:
    scrambled = _scramble(engine)(state, seat, rnd)
    mine = [a for a in engine.legal_actions(state, seat) if not _rules_own(engine, state, a)]
    theirs = [a for a in engine.legal_actions(scrambled, seat) if not _rules_own(engine, state, a)]
    assert packed(mine) == packed(theirs), f"seat {seat}'s legal moves tell a secret"
    for legal in mine:
        assert engine.describe(state, seat, legal) == engine.describe(scrambled, seat, legal)
    for tried in [action, *_near(action)]:
        if not _rules_own(engine, state, tried):
            assert _refusal(engine, state, seat, tried) == _refusal(engine, scrambled, seat, tried)


def _told_channels(
    engine: Engine, state: State, seat: int, action: Action, players: int, rnd: random.Random
) -> None:
    after, events = engine.apply(state, seat, action)
    names = [f"p{s}" for s in range(players)]
    for viewer in [None, *range(players)]:
        if viewer == seat:
            continue
        scrambled = _scramble(engine)(state, viewer, rnd)
        try:
            other, other_events = engine.apply(scrambled, seat, action)
        except IllegalAction:
            continue  # the mover's own secrets were scrambled away
        if packed(engine.view(after, viewer)) != packed(engine.view(other, viewer)):
            continue
        assert packed(events) == packed(other_events), f"the events tell viewer {viewer} a secret"
        told = [engine.narrate(e, names) for e in events]
        assert told == [engine.narrate(e, names) for e in other_events]


@pytest.mark.parametrize("engine", list(ENGINES.values()), ids=list(ENGINES))
def test_legal_moves_labels_refusals_and_events_keep_every_secret(engine: Engine) -> None:
    for seed in range(SEEDS):
        rnd = random.Random(seed)
        players = rnd.randint(engine.min_players, engine.max_players)
        options = random_options(engine, rnd)
        for step, (state, seat, action) in enumerate(playout(engine, seed, players, options, rnd)):
            if step % EVERY == 0:
                for asked in sorted(engine.to_act(state)):
                    _seat_channels(engine, state, asked, action if asked == seat else {}, rnd)
                _told_channels(engine, state, seat, action, players, rnd)
