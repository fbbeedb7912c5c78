"""Engine throughput: random games per second on one core, and apply / legal_actions cost.

    python benchmarks/engine_throughput.py [--games N] [--players P]

Plays N seeded random games per engine in this process (one core) and prints
games/s, the median and p99 of one ``apply`` and of one ``legal_actions``.
"""

from __future__ import annotations

import argparse
import random
import time

from common import machine, percentile

from engines import ENGINES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--players", type=int, default=None, help="default: the maximum")
    args = parser.parse_args()
    print(machine())
    for engine in ENGINES.values():
        players = args.players or engine.max_players
        applies: list[int] = []
        legals: list[int] = []
        started = time.perf_counter()
        for seed in range(args.games):
            rnd = random.Random(seed)
            state = engine.setup(players, {}, seed)
            while engine.result(state) is None:
                seat = rnd.choice(sorted(engine.to_act(state)))
                t0 = time.perf_counter_ns()
                actions = engine.legal_actions(state, seat)
                t1 = time.perf_counter_ns()
                state, _ = engine.apply(state, seat, rnd.choice(actions))
                t2 = time.perf_counter_ns()
                legals.append(t1 - t0)
                applies.append(t2 - t1)
        elapsed = time.perf_counter() - started
        print(
            f"{engine.id}: {players} players, {args.games} games in {elapsed:.2f} s = "
            f"{args.games / elapsed:.1f} games/s on one core; "
            f"{len(applies) / args.games:.0f} moves/game; "
            f"apply p50 {percentile(applies, 50) / 1000:.1f} us p99 "
            f"{percentile(applies, 99) / 1000:.1f} us; "
            f"legal_actions p50 {percentile(legals, 50) / 1000:.1f} us p99 "
            f"{percentile(legals, 99) / 1000:.1f} us"
        )


if __name__ == "__main__":
    main()
