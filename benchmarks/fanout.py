"""Spectator fan-out: one turn-relay room watched by 1, 100 and 1,000 spectators.

    python benchmarks/fanout.py [--spectators 1,100,1000] [--duration-s 20]

For each count, ``tablewire loadtest --spawn --workload turn-relay --rooms 1
--spectators S``: every move's update is delivered to all S spectators; prints
the delivery latency (intent sent → each spectator holds the new version),
p50 / p99 over every (move, spectator), and the server's CPU per move.
"""

from __future__ import annotations

import argparse
import time

from common import loadtest, machine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spectators", default="1,100,1000")
    parser.add_argument("--duration-s", type=float, default=20.0)
    args = parser.parse_args()
    print(machine())
    for i, count in enumerate(int(s) for s in args.spectators.split(",")):
        if i:
            time.sleep(2)
        result = loadtest(
            "--workload", "turn-relay", "--rooms", "1", "--spectators", str(count),
            "--duration-s", str(args.duration_s),
        )  # fmt: skip
        if result is None:
            continue
        print(
            f"{count} spectators: delivery p50 {result['spectator_p50_ms']} ms, "
            f"p99 {result['spectator_p99_ms']} ms; moves {result['moves']}, "
            f"server CPU {result['server_cpu_ms_per_move']} ms/move, errors {result['errors']}, "
            f"loadgen util {result['loadgen_cpu_util']}",
            flush=True,
        )


if __name__ == "__main__":
    main()
