"""The cost of each ``redis_durability`` per move, at the store: append latency of one
room alone, and appends per second of many rooms at once (group commit), on a
throwaway single Redis and a throwaway 3-master Redis Cluster (one replica each).

    python benchmarks/redis_durability.py [--rooms 200] [--moves 50]

``master`` acknowledges once the master has an entry; ``replica`` once ``WAIT 1``
says a replica has it too. Every process runs on this machine (2 cores here), so
the figures compare the settings, not a deployment.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from common import machine

from clients.spawn import SpawnedCluster, SpawnedRedis
from server.store.base import RoomRecord
from server.store.redis import DURABILITIES, RedisStore


def _record(room_id: str) -> RoomRecord:
    return RoomRecord(room_id, "sintra", 2, {}, False, 1, time.time(), time.time())


async def measure(url: str, durability: str, rooms: int, moves: int) -> tuple[float, float]:
    """Median ms of one room's append alone, and appends/s of ``rooms`` rooms at once."""
    store = RedisStore.connect(url, prefix=f"bench{time.time_ns()}", durability=durability)
    ids = [f"r{i}" for i in range(rooms)]
    leases = {}
    for room_id in ids:
        await store.save_room(_record(room_id))
        leases[room_id] = await store.acquire(room_id, "bench")
    alone = []
    for version in range(1, moves + 1):
        started = time.perf_counter()
        await store.append(ids[0], version, {"k": "presence", "seat": 0}, leases[ids[0]])
        alone.append((time.perf_counter() - started) * 1000)

    async def play(room_id: str, first: int) -> None:
        for version in range(first, first + moves):
            await store.append(room_id, version, {"k": "presence", "seat": 0}, leases[room_id])

    started = time.perf_counter()
    await asyncio.gather(*(play(i, moves + 1 if i == ids[0] else 1) for i in ids))
    rate = rooms * moves / (time.perf_counter() - started)
    await store.close()
    return statistics.median(alone), rate


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--moves", type=int, default=50)
    args = parser.parse_args()
    print(machine())
    primary = SpawnedRedis("--save", "", "--appendonly", "yes", "--appendfsync", "always")
    primary.start()
    replica = SpawnedRedis("--save", "", "--replicaof", "127.0.0.1", str(primary.port))
    replica.start()
    cluster = SpawnedCluster()
    cluster.start()
    try:
        for name, url in (("single Redis + replica", primary.url), ("cluster 3+3", cluster.url)):
            for durability in DURABILITIES:
                alone, rate = await measure(url, durability, args.rooms, args.moves)
                print(
                    f"{name:24} {durability:8} one room {alone:6.2f} ms/append   "
                    f"{args.rooms} rooms {rate:8.0f} appends/s"
                )
    finally:
        cluster.cleanup()
        replica.cleanup()
        primary.cleanup()


if __name__ == "__main__":
    asyncio.run(main())
