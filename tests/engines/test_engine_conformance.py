"""The conformance suite every engine must pass (OpenSpiel-style random simulation).

For every registered engine: seeded random playouts end with a result and
never raise; ``to_act`` seats always have legal actions; replay from the seed
and the action log is bit-identical; state and views round-trip through
msgpack; views and a seat's legal actions leak no hidden information (they do
not change when a scrambler changes what the seat may not see); ``apply`` never
mutates its input; junk and near-miss actions are rejected with a code and change
nothing; every legal action has a label (``describe``) and every event a sentence
(``narrate``).

``TABLEWIRE_PLAYOUTS`` sets the number of random playouts per engine (2,000): the
first :data:`QUICK` of them run in ``make test``, the rest in the ``soak`` test
(``make test-all`` and CI).
"""

from __future__ import annotations

import copy
import os
import random
from typing import Any

import msgpack
import pytest

from engines import ENGINES, Engine
from engines.base import IllegalAction, State
from support import BOUNDED_CHOICES, packed, playout, random_options, scrambler

PLAYOUTS = int(os.environ.get("TABLEWIRE_PLAYOUTS", "2000"))
QUICK = min(PLAYOUTS, 200)
"""The playouts per engine of the quick test; the ``soak`` test plays the others."""
SHARES = 4
"""Each engine's playouts run as this many tests (seeds ``share, share + SHARES, ...``),
so that parallel workers (``make test``) share them."""
DEEP = 40
"""Playouts per engine that also run the expensive per-step checks."""

engines = pytest.mark.parametrize("engine", list(ENGINES.values()), ids=list(ENGINES))
shares = pytest.mark.parametrize("share", range(SHARES))


def _game(engine: Engine, seed: int) -> tuple[int, dict[str, Any], random.Random]:
    rnd = random.Random(seed)
    players = rnd.randint(engine.min_players, engine.max_players)
    return players, random_options(engine, rnd), rnd


def _play_out(engine: Engine, seeds: range) -> None:
    """A random game from each seed ends with a result, ``to_act`` naming exactly the
    seats with legal actions at every step."""
    for seed in seeds:
        players, options, rnd = _game(engine, seed)
        steps = 0
        state = engine.setup(players, options, seed)
        while engine.result(state) is None:  # support.playout's game, each seat's moves asked once
            steps += 1
            to_act = engine.to_act(state)
            assert to_act, f"seed {seed}: no seat to act before the end"
            legal = [engine.legal_actions(state, seat) for seat in range(players)]
            for seat in range(players):
                assert bool(legal[seat]) == (seat in to_act), f"seed {seed} seat {seat}"
            seat = rnd.choice(sorted(to_act))
            state, _ = engine.apply(state, seat, rnd.choice(legal[seat]))
        assert steps > 0


@engines
@shares
def test_random_playouts_finish_with_a_result(engine: Engine, share: int) -> None:
    _play_out(engine, range(share, QUICK, SHARES))


@pytest.mark.soak
@engines
@shares
def test_many_more_random_playouts_finish_with_a_result(engine: Engine, share: int) -> None:
    _play_out(engine, range(QUICK + share, PLAYOUTS, SHARES))


@engines
def test_result_ranks_every_seat(engine: Engine) -> None:
    for seed in range(20):
        players, options, rnd = _game(engine, seed)
        *_, (state, seat, action) = playout(engine, seed, players, options, rnd)
        final, _ = engine.apply(state, seat, action)
        result = engine.result(final)
        assert result is not None
        assert engine.to_act(final) == frozenset()
        assert len(result["scores"]) == len(result["ranks"]) == players
        assert result["winners"] == [s for s in range(players) if result["ranks"][s] == 1]
        assert result["winners"], "somebody wins"
        with pytest.raises(IllegalAction) as refused:
            engine.apply(final, seat, action)
        assert refused.value.code == "game_over"


@engines
def test_replay_from_seed_and_log_is_identical(engine: Engine) -> None:
    for seed in range(30):
        players, options, rnd = _game(engine, seed)
        log = [(seat, action) for _, seat, action in playout(engine, seed, players, options, rnd)]
        runs = []
        for _ in range(2):
            state = engine.setup(players, options, seed)
            for seat, action in log:
                state, _ = engine.apply(state, seat, copy.deepcopy(action))
            runs.append(packed(state))
        assert runs[0] == runs[1]
        assert engine.result(msgpack.unpackb(runs[0])) is not None


@engines
def test_different_seeds_give_different_games(engine: Engine) -> None:
    setups = {packed(engine.setup(engine.min_players, {}, seed)) for seed in range(20)}
    assert len(setups) == 20


def _roundtrip(value: Any) -> None:
    data = packed(value)
    assert msgpack.unpackb(data) == value
    assert packed(msgpack.unpackb(data)) == data


def _check_step(engine: Engine, state: State, players: int, rnd: random.Random) -> None:
    _roundtrip(state)
    scramble = scrambler(engine.id)
    assert scramble is not None
    for viewer in [None, *range(players)]:
        view = engine.view(state, viewer)
        _roundtrip(view)
        scrambled = scramble(state, viewer, rnd)
        assert packed(engine.view(scrambled, viewer)) == packed(view), (
            f"the view of {viewer} depends on hidden information"
        )
        if viewer is not None:
            legal = [packed(a) for a in engine.legal_actions(state, viewer)]
            assert [packed(a) for a in engine.legal_actions(scrambled, viewer)] == legal, (
                f"the legal actions of {viewer} depend on hidden information"
            )
    if not engine.seat_views_differ:
        views = {packed(engine.view(state, viewer)) for viewer in [None, *range(players)]}
        assert len(views) == 1, "seat_views_differ is False but the views differ"


@engines
def test_the_deep_playouts_try_every_choice_of_every_option(engine: Engine) -> None:
    """The per-step checks see each option's every choice (Chartered's hidden shares)."""
    tried = [_game(engine, seed)[1] for seed in range(DEEP)]
    for name, spec in engine.options.items():
        seen = {packed(options[name]) for options in tried}
        missing = [c for c in spec["choices"] if packed(c) not in seen]
        bounded = BOUNDED_CHOICES.get(engine.id, {}).get(name)
        assert not missing or bounded is not None, f"{name}: {missing} never played"


@engines
def test_views_hide_what_they_must_and_round_trip(engine: Engine) -> None:
    assert scrambler(engine.id) is not None, "add hidden.py (scramble) to the game's folder"
    for seed in range(DEEP):
        players, options, rnd = _game(engine, seed)
        for state, _seat, _action in playout(engine, seed, players, options, rnd):
            _check_step(engine, state, players, rnd)


JUNK: list[Any] = [
    None,
    [],
    "take",
    {},
    {"type": None},
    {"type": "nonsense"},
    {"type": ["take"]},
    {"type": "take"},
    {"type": "reset", "extra": 1},
]


def _near_misses(action: dict[str, Any], rnd: random.Random) -> list[Any]:
    """Actions one field away from a legal one."""
    misses: list[Any] = []
    for key, value in action.items():
        if key == "type":
            continue
        if isinstance(value, int) and not isinstance(value, bool):
            replacements = [value - 1, value + 1, -1, 1000, None, str(value), True, 2**64 - 1]
        else:
            replacements = [0, 1, -1, 99, "x", [value], {"k": value}]
        misses += [{**action, key: r} for r in replacements]
        misses.append({k: v for k, v in action.items() if k != key})
    misses.append({**action, "unexpected": rnd.random()})
    return misses


@engines
def test_illegal_actions_are_rejected_and_change_nothing(engine: Engine) -> None:
    for seed in range(DEEP):
        players, options, rnd = _game(engine, seed)
        for state, seat, action in playout(engine, seed, players, options, rnd):
            before = packed(state)
            legal = [packed(a) for a in engine.legal_actions(state, seat)]
            candidates = JUNK + _near_misses(action, rnd)
            others = [s for s in range(players) if s not in engine.to_act(state)]
            for candidate in candidates:
                if packed(candidate) in legal:
                    continue
                with pytest.raises(IllegalAction) as refused:
                    engine.apply(state, seat, candidate)
                assert refused.value.code and refused.value.message
            for other in others:
                with pytest.raises(IllegalAction):
                    engine.apply(state, other, action)
            assert packed(state) == before, "a refused action changed the state"


@engines
def test_every_legal_action_is_accepted_and_apply_is_pure(engine: Engine) -> None:
    for seed in range(DEEP // 2):
        players, options, rnd = _game(engine, seed)
        for state, seat, _action in playout(engine, seed, players, options, rnd):
            before = packed(state)
            for action in engine.legal_actions(state, seat):
                after, events = engine.apply(state, seat, action)
                assert after is not state
                _roundtrip(events)
                label = engine.describe(state, seat, action)
                assert isinstance(label, str) and label.strip(), f"no label for {action}"
                names = [f"p{i}" for i in range(players)]
                for event in events:
                    text = engine.narrate(event, names)
                    assert isinstance(text, str) and text.strip(), f"no sentence for {event}"
            assert packed(state) == before, "apply modified its input state"
