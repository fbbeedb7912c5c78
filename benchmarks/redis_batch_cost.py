"""Redis's own CPU for one group-commit batch of the store's appends, by batch size and
``appendfsync`` policy: the two numbers that bound one Redis primary.

    python benchmarks/redis_batch_cost.py [--batches 3000] [--sizes 1 2 4 8 16]

For each policy (``always``, as docker-compose.yml runs Redis, then ``no``) a fresh
redis-server takes ``--batches`` batches of each size, each the store's own write of
one batch (what the group commit sends: one append script call for the batch), the
rooms taken round robin from 250. It prints redis-server's CPU a batch at each size
and a least-squares line through them: a fixed cost a batch (the call, and with
``always`` the ``fsync`` of the append-only file, which the kernel charges to Redis)
and a cost an append (the script's lease check and ``XADD``). A primary's CPU is
then about batches a second × the first + moves a second × the second; the group
commit's interval bounds the batches a second of each process.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import sys
from pathlib import Path
from typing import Any

from common import machine, record

from clients.spawn import SpawnedRedis
from clients.stats import tree_cpu_seconds
from server.store.redis import Append, RedisStore

ROOT = Path(__file__).resolve().parent.parent
ROOMS = 250
LEASE = "bench:1"
ENTRY = {"k": "intent", "seat": 1, "id": 57, "action": {"take": 0, "colour": 2}, "at": 1.0e9}
"""A turn-relay move as the log keeps it (the size of the harness's entries)."""


async def per_batch(redis: SpawnedRedis, sizes: list[int], batches: int) -> dict[int, float]:
    """Milliseconds of redis-server's CPU a batch, by batch size."""
    assert redis.process is not None
    store = RedisStore.connect(redis.url, prefix="bench")
    try:
        rooms = [f"r{i}" for i in range(ROOMS)]
        for room in rooms:
            await store.redis.set(store.key(room, "lease"), LEASE)
        versions = dict.fromkeys(rooms, 0)
        costs, turn = {}, 0
        for size in sizes:
            start = tree_cpu_seconds(redis.process.pid)
            for _ in range(batches):
                batch: list[Append] = []
                for _ in range(size):
                    room = rooms[turn % ROOMS]
                    turn += 1
                    versions[room] += 1
                    batch.append((room, versions[room], ENTRY, LEASE, None))
                # The write one batch of the group commit makes (GroupCommit.write).
                outcomes = await store._write(batch)
                assert not any(outcomes), outcomes
            costs[size] = 1000 * (tree_cpu_seconds(redis.process.pid) - start) / batches
        return costs
    finally:
        await store.close()


def fit(costs: dict[int, float]) -> tuple[float, float]:
    """The least-squares line through (size, ms a batch): ms a batch, ms an append."""
    xs, ys = list(costs), list(costs.values())
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )
    return my - slope * mx, slope


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=3000, help="batches at each size")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    args = parser.parse_args()
    if len(set(args.sizes)) < 2 or min(args.sizes) < 1 or args.batches < 1:
        parser.error("give two sizes or more, each 1 or more, and 1 batch or more")
    print(machine(), file=sys.stderr)
    stamp = datetime.date.today().isoformat()
    out = ROOT / "benchmarks" / "results" / f"redis-batch-cost-{stamp}.jsonl"
    for policy in ("always", "no"):
        redis = SpawnedRedis("--save", "", "--appendonly", "yes", "--appendfsync", policy)
        redis.start()
        try:
            costs = asyncio.run(per_batch(redis, args.sizes, args.batches))
        finally:
            redis.cleanup()
        fixed, each = fit(costs)
        result: dict[str, Any] = {
            "appendfsync": policy,
            "batches": args.batches,
            "redis_ms_per_batch": {str(size): round(ms, 4) for size, ms in costs.items()},
            "redis_ms_fixed_per_batch": round(fixed, 4),
            "redis_ms_per_append": round(each, 4),
        }
        record(out, result)
        print(
            f"appendfsync {policy}: {fixed:.3f} ms a batch + {each:.4f} ms an append "
            f"(sizes {', '.join(f'{s}: {ms:.3f}' for s, ms in costs.items())} ms a batch)",
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()
