"""The Redis store beside the memory store, in one run of the shared harness.

    python benchmarks/redis_store.py [--rooms 100 250 500 1000] [--duration-s 15]

For each room count, the shared turn-relay harness (../shared/peers/colyseus,
protocol 2) drives ``tablewire serve`` twice, memory store then Redis store, with
everything else at its defaults but the load generator's exemption
(``load_test_clients``). The Redis store runs over a redis-server of its own as
docker-compose.yml runs it (``appendonly yes``, ``appendfsync always``), pinned to
the load generator's CPU so that it never takes the server's. Prints the harness's
JSON line of each run with ``store`` and ``redis_cpu_ms_per_move`` (redis-server's
user+system CPU over the run, from /proc, per move) added, appends them to
benchmarks/results/redis-store-DATE.jsonl, and ends with a table: Redis beside
memory at each room count, and the ratios the Redis-load issue sets as targets.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from common import REDIS_ARGS, harness, record

from clients.spawn import SpawnedRedis
from clients.stats import tree_cpu_seconds

ROOT = Path(__file__).resolve().parent.parent


def run(rooms: int, duration: int, redis: SpawnedRedis | None) -> dict[str, Any] | None:
    """One harness run against ``tablewire serve`` on the memory or the Redis store."""
    serve = f"{ROOT}/.venv/bin/tablewire serve --host {{host}} --port {{port}}"
    if redis is not None:
        serve += f" --redis-url {redis.url}"
    command = [
        "./run.sh",
        "--server-cmd",
        f"env TABLEWIRE_LOAD_TEST_CLIENTS=127.0.0.1 {serve}",
        "--protocol",
        "tablewire2",
        "--rooms",
        str(rooms),
        "--duration-s",
        str(duration),
    ]
    pid = redis.process.pid if redis is not None and redis.process is not None else None
    before = tree_cpu_seconds(pid) if pid else 0.0
    done = subprocess.run(command, cwd=harness(), capture_output=True, text=True, check=False)
    if not done.stdout.strip():
        print(f"harness failed ({done.returncode}): {done.stderr[-1500:]}", file=sys.stderr)
        return None
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["store"] = "redis" if redis is not None else "memory"
    if pid:
        spent = tree_cpu_seconds(pid) - before
        result["redis_cpu_s"] = round(spent, 3)
        result["redis_cpu_ms_per_move"] = round(1000 * spent / max(1, result["moves"]), 4)
    return result


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| rooms | store | moves / target | errors | p99 ms | server CPU ms/move "
        "| Redis CPU ms/move | CPU vs memory | p99 vs memory |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    memory: dict[int, dict[str, Any]] = {}  # each Redis run beside the memory run before it
    for r in results:
        if r["store"] == "memory":
            memory[r["rooms"]] = r
        base = memory.get(r["rooms"])
        cpu = r["server_cpu_ms_per_move"] / base["server_cpu_ms_per_move"] if base else None
        p99 = r["p99_ms"] / base["p99_ms"] if base else None
        lines.append(
            f"| {r['rooms']} | {r['store']} | {r['moves']:,} / {r['moves_target']:,} "
            f"| {r['errors']} | {r['p99_ms']:.1f} | {r['server_cpu_ms_per_move']:.3f} "
            f"| {r.get('redis_cpu_ms_per_move', '')} "
            f"| {'' if cpu is None or r['store'] == 'memory' else f'{cpu:.2f}×'} "
            f"| {'' if p99 is None or r['store'] == 'memory' else f'{p99:.2f}×'} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, nargs="+", default=[100, 250])
    parser.add_argument("--duration-s", type=int, default=15)
    args = parser.parse_args()
    stamp = datetime.date.today().isoformat()
    out = ROOT / "benchmarks" / "results" / f"redis-store-{stamp}.jsonl"
    results = []
    for rooms in args.rooms:
        redis = SpawnedRedis(*REDIS_ARGS, cpus="1" if (os.cpu_count() or 1) >= 2 else None)
        redis.start()
        try:
            for store in (None, redis):
                result = run(rooms, args.duration_s, store)
                if result is None:
                    continue
                record(out, result)
                results.append(result)
        finally:
            redis.cleanup()
    print(table(results))
    print(f"JSON lines: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
