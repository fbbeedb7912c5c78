"""The turn-relay standard matrix (bench/turn-relay.md §8), side by side with Colyseus.

    python benchmarks/turn_relay_matrix.py [--rooms 10,100,250,500,1000] [--duration-s 20]
                                           [--spectators 0] [--store memory]

Runs ``tablewire loadtest --spawn --workload turn-relay`` once per room count
(a fresh, pinned server each time, 2 s apart), prints every JSON line
verbatim, then a table with the ratio to Colyseus's figures (its "immediate"
series, measured on this kind of machine; from the spec's header).
"""

from __future__ import annotations

import argparse
import time

from common import loadtest, machine

COLYSEUS = {  # rooms: (moves/s, p50 ms, p99 ms, server CPU ms/move, RSS MiB, B/update)
    100: (1000, 0.18, 2.3, 0.128, 133, 41.9),
    250: (2500, 0.27, 17.1, 0.091, 179, 41.9),
    500: (5000, 0.56, 25.7, 0.076, 207, 41.9),
    1000: (8566, 112.7, 172.3, 0.093, 326, 41.9),
}


def run(rooms: int, args: argparse.Namespace) -> dict[str, object]:
    result = loadtest(
        "--workload", "turn-relay", "--rooms", str(rooms), "--duration-s", str(args.duration_s),
        "--spectators", str(args.spectators), "--store", args.store,
    )  # fmt: skip
    return result if result is not None else {"rooms": rooms, "errors": "failed"}


def ratio(ours: object, theirs: float) -> str:
    return f"{ours / theirs:.2f}×" if isinstance(ours, int | float) else "—"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", default="10,100,250,500,1000")
    parser.add_argument("--duration-s", type=float, default=20.0)
    parser.add_argument("--spectators", type=int, default=0)
    parser.add_argument("--store", default="memory", choices=["memory", "redis"])
    args = parser.parse_args()
    print(machine())
    results = []
    for i, rooms in enumerate(int(r) for r in args.rooms.split(",")):
        if i:
            time.sleep(2)
        results.append(run(rooms, args))
    print()
    print(
        "| rooms | moves/s | p50 ms | p99 ms | CPU ms/move | RSS MiB | B/update | errors "
        "| loadgen util | vs Colyseus immediate: CPU/move, p99, B/update |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        count = r.get("rooms")
        peer = COLYSEUS.get(count) if isinstance(count, int) else None
        versus = (
            f"{ratio(r['server_cpu_ms_per_move'], peer[3])}, {ratio(r['p99_ms'], peer[2])}, "
            f"{ratio(r['bytes_per_update_avg'], peer[5])}"
            if peer
            else "—"
        )
        bound = " (loadgen-bound)" if r.get("loadgen_bound") else ""
        short = f" (saturated: {r.get('limit')})" if r.get("saturated") else ""
        print(
            f"| {count} | {r.get('moves_per_s')}{short} | {r.get('p50_ms')} | {r.get('p99_ms')} "
            f"| {r.get('server_cpu_ms_per_move')} | {r.get('server_rss_mb')} "
            f"| {r.get('bytes_per_update_avg')} | {r.get('errors')} "
            f"| {r.get('loadgen_cpu_util')}{bound} | {versus} |"
        )


if __name__ == "__main__":
    main()
