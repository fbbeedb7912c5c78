"""The greedy Chartered bot: always legal, finishes games, prefers the bigger payout."""

from __future__ import annotations

from chartered_positions import build, company, plot_card, table

from engines.bots import make_bot
from engines.chartered import ENGINE as chartered
from engines.chartered.bot import GreedyBot


def test_greedy_bots_play_whole_games_with_legal_moves() -> None:
    for seed in range(6):
        players = 2 + seed % 5
        bots = [make_bot("greedy", "chartered", s, seed) for s in range(players)]
        state = chartered.setup(players, {"events": seed % 2 == 1}, seed)
        while chartered.result(state) is None:
            seat = min(chartered.to_act(state))
            actions = chartered.legal_actions(state, seat)
            action = bots[seat].choose(chartered.view(state, seat), actions)
            assert action in actions
            state, _ = chartered.apply(state, seat, action)


def test_greedy_builds_for_the_biggest_payout() -> None:
    state = table()
    company(state, "gold", 29, [30, 28], 30)
    company(state, "tea", 8, [7, 16], 200)
    state["hands"][0] = [plot_card(31), plot_card(15), plot_card(1)]
    actions = chartered.legal_actions(state, 0)
    choice = GreedyBot(0).choose(chartered.view(state, 0), actions)
    assert choice == build(plot_card(15)), "expanding the ƒ200 company pays ƒ210"
