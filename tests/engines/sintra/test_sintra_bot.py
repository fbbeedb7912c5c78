"""The greedy Sintra bot: declared, always legal, deterministic from its seed, and it
reads only its seat's view (never the state)."""

from __future__ import annotations

import copy
from typing import Any

from engines.base import Action
from engines.bots import has_greedy, make_bot
from engines.sintra import ENGINE as sintra
from engines.sintra.bot import GreedyBot


def _play(seed: int, players: int) -> list[Action]:
    """A whole game of greedy bots; every chosen action is checked legal on the way."""
    bots = [make_bot("greedy", "sintra", s, seed * 10 + s) for s in range(players)]
    state = sintra.setup(players, {}, seed)
    chosen = []
    while sintra.result(state) is None:
        seat = min(sintra.to_act(state))
        actions = sintra.legal_actions(state, seat)
        action = bots[seat].choose(sintra.view(state, seat), actions)
        assert action in actions
        chosen.append(action)
        state, _ = sintra.apply(state, seat, action)
    return chosen


def test_sintra_declares_a_greedy_bot() -> None:
    assert has_greedy("sintra")
    assert isinstance(make_bot("greedy", "sintra", 0, 1), GreedyBot)


def test_greedy_bots_play_whole_games_with_legal_moves() -> None:
    for seed in range(3):
        assert _play(seed, 2 + seed % 3)


def test_the_same_seed_plays_the_same_game() -> None:
    assert _play(7, 2) == _play(7, 2)


def test_it_chooses_from_the_view_alone_and_leaves_it_unchanged() -> None:
    state = sintra.setup(2, {}, 3)
    seat = min(sintra.to_act(state))
    view: Any = sintra.view(state, seat)
    before = copy.deepcopy(view)
    actions = sintra.legal_actions(state, seat)
    choice = GreedyBot(seat, 1).choose(view, actions)
    assert choice in actions
    assert view == before
    assert GreedyBot(seat, 1).choose(copy.deepcopy(view), actions) == choice


def test_it_prefers_placing_to_breaking() -> None:
    state = sintra.setup(2, {}, 5)
    seat = min(sintra.to_act(state))
    actions = sintra.legal_actions(state, seat)
    choice = GreedyBot(seat, 1).choose(sintra.view(state, seat), actions)
    assert choice["type"] == "take" and choice["strip"] is not None
