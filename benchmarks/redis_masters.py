"""Moves per second and Redis CPU per move on one Redis master and on 3, at the store.

    python benchmarks/redis_masters.py [--rooms 600] [--seconds 10] [--clients 2]

The same load against each Redis: ``clients`` processes, each appending moves (a
turn-relay intent entry) to its share of ``rooms`` rooms, every room one move after
the other, as fast as group commit takes them, for ``seconds``. The Redis:

* ``single``: one redis-server, not a cluster (one script call per batch);
* ``cluster-1``: one cluster-enabled master holding every slot (a call per slot);
* ``cluster-3``: 3 masters (``redis-cli --cluster create``), no replicas.

Every master runs as docker-compose.yml runs Redis (``appendonly yes``,
``appendfsync always``), ``redis_durability`` master. Each master's user+system
CPU over the run comes from /proc/<pid>/stat, and its moves from the rooms whose
slots it serves: per master, CPU ms per move and the moves/s one core of it would
take (1000 / that). The appending processes' own CPU per move is the store's
share of a server's cost (group commit, the script calls, one per slot on a
cluster). Every process shares this machine's cores, so the moves/s
measured are what the machine allows, and the per-master cost is what scales.

With ``--master-cpu F`` each master is held to F of one core (a cgroup v1 ``cpu``
quota of its own, as a container's ``cpus: F`` would): a master then saturates at a
load this machine can generate, so the moves/s of 3 masters against one, each held
to F, is the scaling a cluster of real machines shows, on 2 cores. Needs a
writable /sys/fs/cgroup/cpu (root); without one the script says so and exits 2.
Prints one JSON line per Redis (appended to benchmarks/results/redis-masters-DATE.jsonl)
and a table.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import redis
from common import REDIS_ARGS, machine, record

from clients.spawn import SpawnedCluster, SpawnedRedis
from clients.stats import tree_cpu_seconds
from server.store.base import RoomRecord
from server.store.redis import RedisStore

ROOT = Path(__file__).resolve().parent.parent
ENTRY = {"k": "intent", "seat": 0, "id": 1, "action": {"pass": 1}}
"""A turn-relay move as the log holds it."""


async def appender(url: str, prefix: str, rooms: list[str], seconds: float) -> dict[str, Any]:
    """Each room's moves appended within ``seconds`` (``moves``, by room id), after its
    record and lease are written (then "go" is printed: the parent measures from
    there), and this process's CPU seconds meanwhile (``cpu_s``)."""
    store = RedisStore.connect(url, prefix=prefix, lease_ttl=3600)  # nothing renews them
    leases: dict[str, str] = {}
    for room_id in rooms:
        await store.save_room(RoomRecord(room_id, "turn-relay", 4, {}, False, 1, 0.0, 0.0))
        lease = await store.acquire(room_id, "bench")
        assert lease is not None, room_id
        leases[room_id] = lease
    moves = dict.fromkeys(rooms, 0)
    print("go", flush=True)
    cpu = time.process_time()
    deadline = time.monotonic() + seconds

    async def play(room_id: str) -> None:
        while time.monotonic() < deadline:
            await store.append(room_id, moves[room_id] + 1, ENTRY, leases[room_id])
            moves[room_id] += 1

    await asyncio.gather(*(play(room_id) for room_id in rooms))
    spent = time.process_time() - cpu
    await store.close()
    return {"moves": moves, "cpu_s": spent}


CGROUP = Path("/sys/fs/cgroup/cpu")
PERIOD_US = 100_000


class CpuCap:
    """Each process of ``pids`` held to ``share`` of one core, in a cgroup of its own
    (removed by :meth:`remove` once the processes are gone)."""

    def __init__(self, share: float, pids: list[int]) -> None:
        self.groups: list[Path] = []
        try:
            for pid in pids:
                group = CGROUP / f"tablewire-bench-{pid}"
                group.mkdir()
                self.groups.append(group)
                (group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
                (group / "cpu.cfs_quota_us").write_text(str(round(share * PERIOD_US)))
                (group / "cgroup.procs").write_text(str(pid))
        except BaseException:
            self.remove()  # no cgroup left behind by a cap half made
            raise

    def remove(self) -> None:
        for group in self.groups:
            for pid in (group / "cgroup.procs").read_text().split():
                (CGROUP / "cgroup.procs").write_text(pid)
            group.rmdir()

    @staticmethod
    def usable() -> bool:
        """Whether cgroups of the ``cpu`` controller can be made here."""
        return (CGROUP / "cpu.cfs_quota_us").exists() and os.access(CGROUP, os.W_OK)


def masters_of(url: str, keys: dict[str, str]) -> dict[str, int]:
    """The port of the master serving each key (by room id); one master: its own."""
    client = redis.Redis.from_url(url)
    try:
        if not client.info("cluster").get("cluster_enabled"):
            port = client.connection_pool.connection_kwargs["port"]
            return dict.fromkeys(keys, port)
        ranges: Any = client.cluster("slots")
        owners = {}
        for room_id, key in keys.items():
            slot = client.cluster("keyslot", key)
            owners[room_id] = next(m[1] for low, high, m, *_ in ranges if low <= slot <= high)
        return owners
    finally:
        client.close()


def run(name: str, nodes: list[SpawnedRedis], url: str, args: argparse.Namespace) -> dict[str, Any]:
    """The load of ``args`` against ``nodes`` (all masters); the JSON line of the run."""
    prefix = f"bench{time.time_ns()}"
    rooms = [f"r{i}" for i in range(args.rooms)]
    pids = {node.port: node.process.pid for node in nodes if node.process is not None}
    shares = [rooms[i :: args.clients] for i in range(args.clients)]
    workers = [
        subprocess.Popen(
            [sys.executable, __file__, "--worker", url, prefix, str(args.seconds), *share],
            stdout=subprocess.PIPE,
            text=True,
        )
        for share in shares
    ]
    # The workers set their rooms up first; the CPU is read over the appending alone:
    # from the first worker's "go" line (its setup done) to the end.
    for worker in workers:
        assert worker.stdout is not None
        worker.stdout.readline()
    before = {port: tree_cpu_seconds(pid) for port, pid in pids.items()}
    started = time.monotonic()
    moves: dict[str, int] = {}
    client_cpu = 0.0
    for worker in workers:
        out, _ = worker.communicate()
        report = json.loads(out)
        moves.update(report["moves"])
        client_cpu += report["cpu_s"]
    elapsed = time.monotonic() - started
    spent = {port: tree_cpu_seconds(pid) - before[port] for port, pid in pids.items()}
    keys = {room_id: f"{prefix}:room:{{{room_id}}}" for room_id in rooms}
    per_master: Counter[int] = Counter()
    for room_id, port in masters_of(url, keys).items():
        per_master[port] += moves[room_id]
    total = sum(moves.values())
    masters = [
        {
            "port": port,
            "moves": per_master[port],
            "cpu_s": round(spent[port], 3),
            "busy": round(spent[port] / elapsed, 3),
            "cpu_ms_per_move": round(1000 * spent[port] / max(1, per_master[port]), 5),
        }
        for port in pids
    ]
    return {
        "redis": name,
        "masters": len(nodes),
        "rooms": args.rooms,
        "clients": args.clients,
        "seconds": round(elapsed, 2),
        "moves": total,
        "moves_per_s": round(total / elapsed),
        "redis_cpu_ms_per_move": round(1000 * sum(spent.values()) / max(1, total), 5),
        "client_cpu_ms_per_move": round(1000 * client_cpu / max(1, total), 5),
        "per_master": masters,
        "load_after": os.getloadavg()[0],
        "machine": machine(),
    }


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| Redis | masters | moves/s | client CPU ms/move | Redis CPU ms/move (all) "
        "| per master: CPU ms/move (busy) | moves/s one core of a master takes |",
        "|---|---:|---:|---:|---:|---|---:|",
    ]
    for r in results:
        each = ", ".join(f"{m['cpu_ms_per_move']:.4f} ({m['busy']:.0%})" for m in r["per_master"])
        cost = max(m["cpu_ms_per_move"] for m in r["per_master"])
        lines.append(
            f"| {r['redis']} | {r['masters']} | {r['moves_per_s']:,} "
            f"| {r['client_cpu_ms_per_move']:.4f} | {r['redis_cpu_ms_per_move']:.4f} "
            f"| {each} | {1000 / cost:,.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=600)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=2, help="appending processes")
    parser.add_argument("--only", nargs="+", default=["single", "cluster-1", "cluster-3"])
    parser.add_argument(
        "--master-cpu", type=float, help="hold each master to this share of one core (0.1)"
    )
    args = parser.parse_args()
    if args.master_cpu is not None and not (0 < args.master_cpu <= 1 and CpuCap.usable()):
        print(
            "redis_masters.py: --master-cpu needs a share in (0, 1] and a writable "
            f"{CGROUP} (cgroup v1 cpu controller, as root)",
            file=sys.stderr,
        )
        sys.exit(2)
    print(machine(), f"load average {os.getloadavg()}", flush=True)
    stamp = datetime.date.today().isoformat()
    out = ROOT / "benchmarks" / "results" / f"redis-masters-{stamp}.jsonl"
    results = []
    for name in args.only:
        if name == "single":
            single = SpawnedRedis(*REDIS_ARGS)
            nodes, url, cleanup = [single], single.url, single.cleanup
            single.start()
        else:
            cluster = SpawnedCluster(masters=int(name.split("-")[1]), replicas=0)
            for node in cluster.nodes:
                node.command += ["--appendfsync", "always"]
            cluster.start()
            nodes, url, cleanup = cluster.nodes, cluster.url, cluster.cleanup
        cap = None
        try:
            if args.master_cpu is not None:
                pids = [n.process.pid for n in nodes if n.process is not None]
                cap = CpuCap(args.master_cpu, pids)
            result = run(name, nodes, url, args)
            result["master_cpu"] = args.master_cpu
        finally:
            cleanup()
            if cap is not None:
                cap.remove()
        record(out, result)
        results.append(result)
    print(table(results))
    print(f"JSON lines: {out}", file=sys.stderr)


def worker(url: str, prefix: str, seconds: str, rooms: list[str]) -> None:
    """One appending process (:func:`appender`): its moves per room, as JSON."""
    print(json.dumps(asyncio.run(appender(url, prefix, rooms, float(seconds)))))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        url, prefix, seconds, *rooms = sys.argv[2:]
        worker(url, prefix, seconds, rooms)
    else:
        main()
