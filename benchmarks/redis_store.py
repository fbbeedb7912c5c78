"""The Redis store beside the memory store, in one run of the shared harness.

    python benchmarks/redis_store.py [--rooms 100 250 500 1000] [--duration-s 15]
        [--intervals 0 0.001 0.003] [--redis-first]

For each room count, the shared turn-relay harness (../shared/peers/colyseus,
protocol 2) drives ``tablewire serve`` twice, memory store then Redis store, with
everything else at its defaults but the load generator's exemption
(``load_test_clients``). The Redis store runs over a redis-server of its own as
docker-compose.yml runs it (``appendonly yes``, ``appendfsync always``), pinned to
the load generator's CPU so that it never takes the server's. Prints the harness's
JSON line of each run with ``store`` and ``redis_cpu_ms_per_move`` (redis-server's
user+system CPU, from /proc, per move, over the harness's own window: from the load
generator's "run phase" to the window's end, as the harness takes the server's CPU;
``redis_cpu_total_s`` is over the whole run, joins and teardown included) and
``redis_disk_stall_ms`` (the longest append-only-file write or ``fsync`` redis-server's
latency monitor saw during the run: a slow disk stalls every move in flight under
``appendfsync always``, whatever the server does) added, appends them to
benchmarks/results/redis-store-DATE.jsonl, and ends with a table: Redis beside
memory at each room count, and the ratios the Redis-load issue sets as targets.

``--intervals`` runs the Redis store once for each group-commit batch interval given
(seconds, as ``TABLEWIRE_REDIS_BATCH_INTERVAL``; the server's default otherwise),
each beside the memory run before it. ``--redis-first`` runs redis-server under
``SCHED_FIFO`` (as root): on a 2-core machine it shares the load generator's core,
and at that priority it takes the core whenever it has work, as a core of its own
would give it (its 2–6 % of a core is then the load generator's loss).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import redis as sync_redis
from common import REDIS_ARGS, RUN_PHASE, harness, record

from clients.spawn import SpawnedRedis
from clients.stats import tree_cpu_seconds

ROOT = Path(__file__).resolve().parent.parent


def run(
    rooms: int, duration: int, redis: SpawnedRedis | None, interval: float | None = None
) -> dict[str, Any] | None:
    """One harness run against ``tablewire serve`` on the memory or the Redis store (with
    the group commit's ``interval``, if given)."""
    serve = f"{ROOT}/.venv/bin/tablewire serve --host {{host}} --port {{port}}"
    if redis is not None:
        serve += f" --redis-url {redis.url}"
    env = "TABLEWIRE_LOAD_TEST_CLIENTS=127.0.0.1"
    if interval is not None:
        env += f" TABLEWIRE_REDIS_BATCH_INTERVAL={interval}"
    command = [
        "./run.sh",
        "--server-cmd",
        f"env {env} {serve}",
        "--protocol",
        "tablewire2",
        "--rooms",
        str(rooms),
        "--duration-s",
        str(duration),
    ]
    watch = Window(redis, time.time(), duration) if redis is not None else None
    done = subprocess.run(command, cwd=harness(), capture_output=True, text=True, check=False)
    redis_figures = watch.finish() if watch is not None else {}
    if not done.stdout.strip():
        print(f"harness failed ({done.returncode}): {done.stderr[-1500:]}", file=sys.stderr)
        return None
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["store"] = "redis" if redis is not None else "memory"
    if redis is not None and interval is not None:
        result["batch_interval_s"] = interval
    result.update(redis_figures)
    if "redis_cpu_s" in result:
        result["redis_cpu_ms_per_move"] = round(
            1000 * result["redis_cpu_s"] / max(1, result["moves"]), 4
        )
    return result


class Window(threading.Thread):
    """redis-server's CPU over the harness's window, as the harness takes the server's:
    from the load generator's "run phase" line (in the newest ``results/loadgen-*.log``
    written since ``since``: run.sh keeps its stderr there) to ``seconds`` later, joins
    and teardown left out; and the longest disk stall its latency monitor saw."""

    def __init__(self, redis: SpawnedRedis, since: float, seconds: float) -> None:
        super().__init__(daemon=True)
        assert redis.process is not None
        self.pid = redis.process.pid
        self.since = since
        self.seconds = seconds
        self.stop = threading.Event()
        self.spent: float | None = None
        self.total = tree_cpu_seconds(self.pid)
        self.monitor = sync_redis.Redis.from_url(redis.url, decode_responses=True)
        self.monitor.config_set("latency-monitor-threshold", 1)
        self.monitor.latency_reset()
        self.start()

    def _in_run_phase(self) -> bool:
        fresh = [
            p
            for p in (harness() / "results").glob("loadgen-*.log")
            if p.stat().st_mtime >= self.since
        ]
        return any(RUN_PHASE in p.read_bytes() for p in fresh)

    def run(self) -> None:
        while not self._in_run_phase():
            if self.stop.wait(0.02):
                return
        start = tree_cpu_seconds(self.pid)
        if not self.stop.wait(self.seconds):  # the harness ended first: no window
            self.spent = tree_cpu_seconds(self.pid) - start

    def finish(self) -> dict[str, Any]:
        """Once the harness has ended: ``redis_cpu_s`` (if its window was seen),
        ``redis_cpu_total_s`` (the whole run) and ``redis_disk_stall_ms``."""
        self.stop.set()
        self.join()
        stalls = [int(e[3]) for e in self.monitor.latency_latest() if str(e[0]).startswith("aof")]
        self.monitor.close()
        figures: dict[str, Any] = {
            "redis_cpu_total_s": round(tree_cpu_seconds(self.pid) - self.total, 3),
            "redis_disk_stall_ms": max(stalls, default=0),
        }
        if self.spent is not None:
            figures["redis_cpu_s"] = round(self.spent, 3)
        return figures


def first(redis: SpawnedRedis) -> None:
    """Put redis-server under ``SCHED_FIFO`` (priority 1), or end with one line why not."""
    assert redis.process is not None
    try:
        os.sched_setscheduler(redis.process.pid, os.SCHED_FIFO, os.sched_param(1))
    except (AttributeError, PermissionError, OSError) as exc:
        redis.cleanup()
        sys.exit(f"redis_store.py: --redis-first: cannot make redis-server SCHED_FIFO: {exc}")


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| rooms | store | moves / target | errors | p99 ms | server CPU ms/move "
        "| Redis CPU ms/move | CPU vs memory | p50 / p99 vs memory | disk stall ms |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    memory: dict[int, dict[str, Any]] = {}  # each Redis run beside the memory run before it
    for r in results:
        if r["store"] == "memory":
            memory[r["rooms"]] = r
        base = memory.get(r["rooms"])
        cpu = r["server_cpu_ms_per_move"] / base["server_cpu_ms_per_move"] if base else None
        p50 = r["p50_ms"] / base["p50_ms"] if base else None
        p99 = r["p99_ms"] / base["p99_ms"] if base else None
        store = r["store"]
        if "batch_interval_s" in r:
            store += f" ({1000 * r['batch_interval_s']:g} ms)"
        lines.append(
            f"| {r['rooms']} | {store} | {r['moves']:,} / {r['moves_target']:,} "
            f"| {r['errors']} | {r['p99_ms']:.1f} | {r['server_cpu_ms_per_move']:.3f} "
            f"| {r.get('redis_cpu_ms_per_move', '')} "
            f"| {'' if cpu is None or r['store'] == 'memory' else f'{cpu:.2f}×'} "
            f"| {'' if p99 is None or r['store'] == 'memory' else f'{p50:.1f}× / {p99:.2f}×'} "
            f"| {r.get('redis_disk_stall_ms', '')} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, nargs="+", default=[100, 250])
    parser.add_argument("--duration-s", type=int, default=15)
    parser.add_argument(
        "--intervals",
        type=float,
        nargs="+",
        default=[None],
        help="group-commit batch intervals (s) to run the Redis store at, one run each",
    )
    parser.add_argument(
        "--redis-first",
        action="store_true",
        help="run redis-server under SCHED_FIFO, ahead of the load generator on its core",
    )
    args = parser.parse_args()
    stamp = datetime.date.today().isoformat()
    out = ROOT / "benchmarks" / "results" / f"redis-store-{stamp}.jsonl"
    results = []
    for rooms in args.rooms:
        redis = SpawnedRedis(*REDIS_ARGS, cpus="1" if (os.cpu_count() or 1) >= 2 else None)
        redis.start()
        try:
            if args.redis_first:
                first(redis)
            for interval in args.intervals:
                for store in (None, redis):
                    result = run(rooms, args.duration_s, store, interval)
                    if result is None:
                        continue
                    if store is not None:
                        result["redis_sched"] = "fifo" if args.redis_first else "other"
                    record(out, result)
                    results.append(result)
        finally:
            redis.cleanup()
    print(table(results))
    print(f"JSON lines: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
