"""Soak: one server under load for a long time; RSS and latency must not drift.

    python benchmarks/soak.py [--minutes 30] [--workload turn-relay|games] [--rooms 100]
                              [--round-s 20] [--png PATH] [--store memory]

One spawned ``tablewire serve`` (pinned to CPU 0 when possible, default
settings) takes round after round of load until ``--minutes`` are up:

* ``turn-relay`` (the default): each round is one ``tablewire loadtest
  --workload turn-relay`` run of ``--rooms`` rooms for ``--round-s`` seconds
  (T = 100 ms): new rooms, new connections, every client's final state
  checked; the rooms of earlier rounds are abandoned and swept;
* ``games``: each round plays ``--rooms`` rooms of every shipped game at once
  (2–5 seats, 2 spectators each) with random bots, through ``tablewire
  loadtest --game``.

The server's resident memory (VmRSS) is sampled every second, and every
round prints its latency p50/p99 (move → update of the mover) and errors.
The end prints the first and last quarter side by side and writes a PNG
(RSS and latency over time; matplotlib, a benchmark-only dependency:
``pip install -e '.[bench]'``). Finished rooms are swept after 60 s
(``TABLEWIRE_FINISHED_TTL``, unless set) so that the run reaches a steady
state within minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import time
from pathlib import Path

from common import machine

from clients import loadtest, spawn
from clients.stats import percentile, tree_rss_mib

GAMES = {"sintra": 4, "chartered": 4, "crystal-palace": 3}
RESULTS = Path(__file__).parent / "results"


async def relay_round(args: argparse.Namespace, server: spawn.Server) -> tuple[float, float, int]:
    config = loadtest.Config(workload="turn-relay", rooms=args.rooms, duration_s=args.round_s)
    result = await loadtest.run_turn_relay(config, server, loadtest.Progress())
    return result["p50_ms"] or 0.0, result["p99_ms"] or 0.0, result["errors"]


async def games_round(
    args: argparse.Namespace, server: spawn.Server, round_: int
) -> tuple[float, float, int]:
    latencies: list[float] = []
    errors = 0
    for game, players in GAMES.items():
        each = loadtest.Config(
            game=game, rooms=args.rooms, players=players, spectators=2, seed=round_ * 1000
        )
        result = await loadtest.run_games(each, server, loadtest.Progress())
        errors += result["errors"]
        latencies += [result["patch_p50_ms"], result["patch_p99_ms"]]
    return percentile(latencies[0::2], 50), max(latencies[1::2]), errors


async def sample_rss(pid: int, started: float, samples: list[tuple[float, float]]) -> None:
    while True:
        samples.append(((time.monotonic() - started) / 60, tree_rss_mib(pid, "VmRSS")))
        await asyncio.sleep(1.0)


def plot(
    path: Path,
    rss: list[tuple[float, float]],
    rounds: list[tuple[float, float, float, float, int]],
    title: str,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (top, bottom) = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    top.plot([m for m, _ in rss], [r for _, r in rss], lw=1)
    top.set_ylabel("server RSS (MiB)")
    top.set_ylim(bottom=0)
    top.grid(alpha=0.3)
    top.set_title(title, fontsize=9)
    minutes = [r[0] for r in rounds]
    bottom.plot(minutes, [r[2] for r in rounds], "o-", ms=3, label="p50")
    bottom.plot(minutes, [r[3] for r in rounds], "o-", ms=3, label="p99")
    bottom.set_ylabel("move → update latency per round (ms)")
    bottom.set_xlabel("minutes")
    bottom.set_yscale("log")
    bottom.grid(alpha=0.3)
    bottom.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)


async def main(args: argparse.Namespace) -> None:
    print(machine())
    os.environ.setdefault("TABLEWIRE_FINISHED_TTL", "60")
    os.environ.setdefault("TABLEWIRE_SWEEP_INTERVAL", "10")
    config = loadtest.Config(game="sintra", spawn=True, store=args.store)
    rounds: list[tuple[float, float, float, float, int]] = []
    samples: list[tuple[float, float]] = []
    started = time.monotonic()
    async with loadtest.server_under_test(config) as server:
        assert server.pid is not None
        sampler = asyncio.create_task(sample_rss(server.pid, started, samples))
        round_ = 0
        while time.monotonic() - started < args.minutes * 60:
            if args.workload == "turn-relay":
                p50, p99, errors = await relay_round(args, server)
            else:
                p50, p99, errors = await games_round(args, server, round_)
            rss = tree_rss_mib(server.pid, "VmRSS")
            elapsed = (time.monotonic() - started) / 60
            rounds.append((elapsed, rss, p50, p99, errors))
            print(
                f"round {round_:3d} at {elapsed:5.1f} min: RSS {rss:6.1f} MiB, "
                f"latency p50 {p50:7.2f} ms, p99 {p99:7.2f} ms, errors {errors}",
                flush=True,
            )
            round_ += 1
        sampler.cancel()
    quarter = max(1, len(rounds) // 4)
    for label, part in (("first quarter", rounds[:quarter]), ("last quarter", rounds[-quarter:])):
        print(
            f"{label}: RSS {max(r[1] for r in part):.1f} MiB max, "
            f"p50 {percentile([r[2] for r in part], 50):.2f} ms, "
            f"p99 {max(r[3] for r in part):.2f} ms"
        )
    print(f"rounds {len(rounds)}, errors {sum(r[4] for r in rounds)}")
    today = datetime.date.today().isoformat()
    png = args.png or RESULTS / f"soak-{args.workload}-{today}.png"
    title = (
        f"tablewire soak, {args.workload}, {args.rooms} rooms, {args.minutes:g} min, "
        f"{today} · {machine()}"
    )
    plot(Path(png), samples, rounds, title)
    print(f"plot: {png}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--workload", choices=["turn-relay", "games"], default="turn-relay")
    parser.add_argument("--rooms", type=int, default=None, help="default 100 (games: 8)")
    parser.add_argument("--round-s", type=float, default=20.0, help="turn-relay: seconds a round")
    parser.add_argument("--png", default=None, help="default results/soak-WORKLOAD-DATE.png")
    parser.add_argument("--store", default="memory", choices=["memory", "redis"])
    arguments = parser.parse_args()
    if arguments.rooms is None:
        arguments.rooms = 100 if arguments.workload == "turn-relay" else 8
    asyncio.run(main(arguments))
