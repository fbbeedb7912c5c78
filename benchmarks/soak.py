"""Soak: mixed full games against one server for a long time; RSS and latency must not drift.

    python benchmarks/soak.py [--minutes 30] [--rooms 8] [--store memory]

One spawned ``tablewire serve`` (pinned to CPU 0 when possible) plays round
after round of full games with random bots: each round runs ``--rooms`` rooms
of every shipped game at once (2–5 seats, 2 spectators each), through the
``tablewire loadtest --game`` runner. Every round prints the server's
resident memory (VmRSS), intent→update p50/p99 of the players, and errors;
the end prints the first and last quarter side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from common import machine

from clients import loadtest
from clients.stats import percentile, tree_rss_mib

GAMES = {"sintra": 4, "chartered": 4, "crystal-palace": 3}


async def main(minutes: float, rooms: int, store: str) -> None:
    print(machine())
    config = loadtest.Config(game="sintra", spawn=True, store=store)
    rounds: list[tuple[float, float, float, float, int]] = []
    started = time.monotonic()
    async with loadtest.server_under_test(config) as server:
        round_ = 0
        while time.monotonic() - started < minutes * 60:
            latencies: list[float] = []
            errors = 0
            for game, players in GAMES.items():
                each = loadtest.Config(
                    game=game, rooms=rooms, players=players, spectators=2, seed=round_ * 1000
                )
                result = await loadtest.run_games(each, server, loadtest.Progress())
                errors += result["errors"]
                latencies += [result["patch_p50_ms"], result["patch_p99_ms"]]
            assert server.pid is not None
            rss = tree_rss_mib(server.pid, "VmRSS")
            p50 = percentile(latencies[0::2], 50)
            p99 = max(latencies[1::2])
            elapsed = (time.monotonic() - started) / 60
            rounds.append((elapsed, rss, p50, p99, errors))
            print(
                f"round {round_:3d} at {elapsed:5.1f} min: RSS {rss:6.1f} MiB, "
                f"intent→update p50 {p50:6.2f} ms, p99 {p99:6.2f} ms, errors {errors}",
                flush=True,
            )
            round_ += 1
    quarter = max(1, len(rounds) // 4)
    for label, part in (("first quarter", rounds[:quarter]), ("last quarter", rounds[-quarter:])):
        print(
            f"{label}: RSS {max(r[1] for r in part):.1f} MiB max, "
            f"p50 {percentile([r[2] for r in part], 50):.2f} ms, "
            f"p99 {max(r[3] for r in part):.2f} ms"
        )
    print(f"rounds {len(rounds)}, errors {sum(r[4] for r in rounds)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--rooms", type=int, default=8)
    parser.add_argument("--store", default="memory", choices=["memory", "redis"])
    args = parser.parse_args()
    asyncio.run(main(args.minutes, args.rooms, args.store))
