"""How often a greedy bot beats random bots, in-process.

    python benchmarks/bot_winrate.py [--game chartered] [--games 200] [--players 4]

Plays ``--games`` seeded games: one greedy seat (rotating over the seats from
game to game) against random bots. A shared win counts as a fraction. Prints
the greedy bot's win rate next to what a random bot would get (1/players).
"""

from __future__ import annotations

import argparse
import time

from common import machine

from engines import ENGINES
from engines.bots import make_bot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="chartered")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--option", action="append", default=[], metavar="NAME=true|false")
    args = parser.parse_args()
    options = {k: v == "true" for k, v in (o.split("=") for o in args.option)}
    engine = ENGINES[args.game]
    print(machine())
    wins = 0.0
    started = time.perf_counter()
    for game in range(args.games):
        greedy = game % args.players
        bots = [
            make_bot("greedy" if seat == greedy else "random", args.game, seat, game * 10 + seat)
            for seat in range(args.players)
        ]
        state = engine.setup(args.players, options, game)
        while (result := engine.result(state)) is None:
            seat = min(engine.to_act(state))
            action = bots[seat].choose(engine.view(state, seat), engine.legal_actions(state, seat))
            state, _ = engine.apply(state, seat, action)
        if greedy in result["winners"]:
            wins += 1 / len(result["winners"])
    print(
        f"{args.game}, {args.players} players, options {options or 'default'}: greedy won "
        f"{wins:.1f} of {args.games} games = {wins / args.games:.1%} "
        f"(a random bot: {1 / args.players:.1%}); {time.perf_counter() - started:.1f} s"
    )


if __name__ == "__main__":
    main()
