"""The greedy Crystal Palace bot: always legal, finishes games, beats random play."""

from __future__ import annotations

from engines.bots import make_bot
from engines.crystal_palace import ENGINE as cp
from engines.crystal_palace.bot import GreedyBot
from support import game, placement_turn


def play(kinds: list[str], seed: int) -> list[int]:
    """A whole game between bots of these kinds; the winners."""
    bots = [make_bot(kind, cp.id, seat, seed * 10 + seat) for seat, kind in enumerate(kinds)]
    state = cp.setup(len(kinds), {}, seed)
    while (result := cp.result(state)) is None:
        seat = min(cp.to_act(state))
        actions = cp.legal_actions(state, seat)
        action = bots[seat].choose(cp.view(state, seat), actions)
        assert action in actions
        state, _ = cp.apply(state, seat, action)
    return result["winners"]


def test_greedy_bots_play_whole_games_with_legal_moves() -> None:
    for seed in range(4):
        play(["greedy"] * (2 + seed), seed)


def test_greedy_beats_random_bots_in_most_games() -> None:
    games = 12
    wins = 0
    for seed in range(games):
        kinds = ["random"] * 3
        kinds[seed % 3] = "greedy"
        wins += seed % 3 in play(kinds, seed)
    assert wins > games // 2


def test_greedy_sets_dice_it_can_pay_for_without_a_loan() -> None:
    state = game(2)
    state["seats"][0]["money"] = 9
    bot = GreedyBot(0)
    values = []
    for _ in range(4):
        action = bot.choose(cp.view(state, 0), cp.legal_actions(state, 0))
        values.append(action["value"])
        state, _ = cp.apply(state, 0, action)
    assert sum(values) <= 9 and state["seats"][0]["loans"] == []


def test_greedy_never_places_where_higher_dice_fill_every_action_space() -> None:
    state = placement_turn(2, 0, [3])
    state["board"]["westminster"]["placed"][0:2] = [[1, 6], [1, 5]]
    action = GreedyBot(0).choose(cp.view(state, 0), cp.legal_actions(state, 0))
    assert action["type"] == "place" and action["location"] != "westminster"
