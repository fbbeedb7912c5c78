"""One and two replicas behind nginx over one Redis: docker-compose.yml's shape under load.

    python benchmarks/replicas.py [--replicas 1 2] [--rooms 100 250 500] [--duration-s 15]
                                  [--replica-cpus 0] [--rest-cpus 1] [--conf deploy/nginx.conf]

For each room count and replica count, the shape docker-compose.yml ships, started
without Docker (clients/compose.py): a redis-server with ``appendonly yes`` and
``appendfsync always``, N ``tablewire serve`` replicas on it with default settings
but the load generator's exemption (``load_test_clients``; ``trusted_proxies``
127.0.0.1, so they see the client's address from nginx's ``X-Forwarded-For``), and
nginx from deploy/nginx.conf in front, its caps per client address raised for the
one address the load generator is. The shared turn-relay harness's load generator
(../shared/peers/colyseus/loadgen.js, protocol 2, 4 seats a room, a move every
100 ms a room) drives it through nginx alone: round robin puts a room's seats on
both replicas, so with two, most moves are forwarded through Redis to the room's
owner and its patches published back.

CPU per move is read from /proc over the load generator's run window (from its
"run phase" line to its result): the replicas' sum (the figure to compare with one
process), each replica, redis-server and nginx (master and workers). By default
every replica is pinned to CPU 0 and everything else (nginx, redis-server, the load
generator) to CPU 1, as benchmarks/redis_store.py pins one server: on two cores two
replicas then share one core, so the runs measure what a move costs, not the
capacity a second core adds (on a larger machine: ``--replica-cpus 0 1 --rest-cpus
2,3``). Prints each run's JSON line, appends them to
benchmarks/results/replicas-DATE.jsonl, and ends with a table.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from common import REDIS_ARGS, RUN_PHASE, commit, harness, machine, record

from clients.compose import Shape, compose_shape, nginx_binary
from clients.spawn import SpawnedRedis
from clients.stats import tree_cpu_seconds, tree_rss_mib

ROOT = Path(__file__).resolve().parent.parent
CONF = ROOT / "deploy" / "nginx.conf"


def cpu(shape: Shape) -> dict[str, Any]:
    """CPU seconds so far of every process of the shape."""
    assert isinstance(shape.redis, SpawnedRedis) and shape.redis.process is not None
    return {
        "replicas": [tree_cpu_seconds(r.pid) for r in shape.replicas],
        "redis": tree_cpu_seconds(shape.redis.process.pid),
        "nginx": tree_cpu_seconds(shape.nginx.pid),
    }


def pinned(cpus: str | None, command: list[str]) -> list[str]:
    return ["taskset", "-c", cpus, *command] if cpus and shutil.which("taskset") else command


async def drive(
    shape: Shape, loadgen: Path, args: argparse.Namespace, rooms: int
) -> dict[str, Any]:
    """Run loadgen.js against nginx; its JSON line with the shape's CPU over its window."""
    command = ["node", "loadgen.js", "--rooms", str(rooms), "--spectators", "0"]
    command += ["--interval-ms", "100", "--duration-s", str(args.duration_s)]
    command += ["--host", "127.0.0.1", "--port", str(shape.port), "--protocol", "tablewire2"]
    command += ["--peer", f"tablewire2-nginx-{len(shape.replicas)}"]
    process = await asyncio.create_subprocess_exec(
        *pinned(args.rest_cpus, command),
        cwd=loadgen,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    window: list[dict[str, Any]] = []
    tail: list[bytes] = []

    async def watch(stream: asyncio.StreamReader) -> None:
        async for line in stream:
            tail[:] = [*tail[-20:], line]
            if RUN_PHASE in line:
                window.append(cpu(shape))

    async with asyncio.timeout(args.duration_s + 300):  # run.sh's bound on the load generator
        watching = asyncio.create_task(watch(process.stderr))
        line = await process.stdout.readline()
        window.append(cpu(shape))
        await process.wait()
        await watching
    if not line.strip() or len(window) != 2:
        raise RuntimeError("loadgen.js gave no result:\n" + b"".join(tail).decode(errors="replace"))
    result: dict[str, Any] = json.loads(line)
    before, after = window
    moves = max(1, result["moves"])
    each = [a - b for a, b in zip(after["replicas"], before["replicas"], strict=True)]
    spent = {"server": sum(each), "redis": after["redis"] - before["redis"]}
    spent["nginx"] = after["nginx"] - before["nginx"]
    result.update(
        replicas=len(shape.replicas),
        store="redis",
        proxy="nginx",
        server_cpu_s=round(spent["server"], 3),
        server_cpu_ms_per_move=round(1000 * spent["server"] / moves, 4),
        replica_cpu_ms_per_move=[round(1000 * s / moves, 4) for s in each],
        redis_cpu_ms_per_move=round(1000 * spent["redis"] / moves, 4),
        nginx_cpu_ms_per_move=round(1000 * spent["nginx"] / moves, 4),
        server_rss_mb=round(sum(tree_rss_mib(r.pid) for r in shape.replicas), 1),
        replica_cpus=args.replica_cpus,
        rest_cpus=args.rest_cpus,
        conf=str(args.conf),
        machine=machine(),
    )
    return result


async def run(
    args: argparse.Namespace, binary: str, loadgen: Path, rooms: int, replicas: int
) -> dict[str, Any]:
    """One run: a fresh shape of ``replicas`` replicas, driven at ``rooms`` rooms."""
    async with compose_shape(
        args.conf,
        binary,
        SpawnedRedis(*REDIS_ARGS, cpus=args.rest_cpus),
        replicas=replicas,
        one_address=True,
        replica_cpus=args.replica_cpus,
        nginx_cpus=args.rest_cpus,
        trusted_proxies="127.0.0.1",
        load_test_clients="127.0.0.1",
    ) as shape:
        return await drive(shape, loadgen, args, rooms)


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| rooms | replicas | moves / target | errors | p99 ms | server CPU ms/move "
        "| each replica | Redis CPU ms/move | nginx CPU ms/move |",
        "|---:|---:|---:|---:|---:|---:|---|---:|---:|",
    ]
    for r in results:
        each = " + ".join(f"{c:.3f}" for c in r["replica_cpu_ms_per_move"])
        lines.append(
            f"| {r['rooms']} | {r['replicas']} | {r['moves']:,} / {r['moves_target']:,} "
            f"| {r['errors']} | {r['p99_ms']:.1f} | {r['server_cpu_ms_per_move']:.3f} | {each} "
            f"| {r['redis_cpu_ms_per_move']:.3f} | {r['nginx_cpu_ms_per_move']:.3f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rooms", type=int, nargs="+", default=[100, 250, 500])
    parser.add_argument("--duration-s", type=int, default=15)
    parser.add_argument(
        "--conf", type=Path, default=CONF, help="nginx configuration (deploy/nginx.conf's form)"
    )
    two = (os.cpu_count() or 1) >= 2
    parser.add_argument(
        "--replica-cpus",
        nargs="+",
        default=["0"] if two else None,
        help="CPU lists the replicas are pinned to, replica i to the (i mod n)th",
    )
    parser.add_argument(
        "--rest-cpus",
        default="1" if two else None,
        help="CPU list of nginx, redis-server and the load generator",
    )
    args = parser.parse_args()
    out = ROOT / "benchmarks" / "results" / f"replicas-{datetime.date.today().isoformat()}.jsonl"
    binary = nginx_binary()
    if binary is None:
        raise SystemExit("nginx is missing (apt-get install nginx)")
    loadgen = harness(install=True)
    results = []
    for rooms in args.rooms:
        for replicas in args.replicas:
            try:
                result = asyncio.run(run(args, binary, loadgen, rooms, replicas))
            except (RuntimeError, TimeoutError) as failed:
                print(f"{rooms} rooms, {replicas} replicas failed: {failed}", file=sys.stderr)
                continue
            result["commit"] = commit()
            record(out, result)
            results.append(result)
    print(table(results))
    print(f"JSON lines: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
