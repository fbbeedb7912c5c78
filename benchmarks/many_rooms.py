"""Thousands of rooms on one process: the memory store beside the Redis store.

    python benchmarks/many_rooms.py [--rooms 10000] [--idle-s 30]

For each store, one ``tablewire serve`` (defaults, but ``room_burst`` raised so that
one client may create them all; Redis as docker-compose.yml runs it: AOF,
``appendfsync always``) is filled with ``--rooms`` waiting Sintra rooms, one seat of
each taken, through the lobby. Then, measured: creation rate, the server's CPU while
the rooms sit idle for ``--idle-s`` seconds (from /proc), the latency of a listing
page and of a quick play (p50/p99 of 50 each, the last ones at ``max_rooms``), and
the "room lease lost" lines in the server's log. One JSON line per store.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

from clients.client import LobbyClient
from clients.spawn import SpawnedRedis, SpawnedServer
from clients.stats import percentile, tree_cpu_seconds


async def timed(calls: int, call: Any) -> tuple[float, float]:
    """p50 and p99 in ms of ``calls`` awaits of ``call()``."""
    spent = []
    for _ in range(calls):
        start = time.perf_counter()
        await call()
        spent.append(1000 * (time.perf_counter() - start))
    return round(percentile(spent, 50), 2), round(percentile(spent, 99), 2)


async def one(store: str, rooms: int, idle: float) -> dict[str, Any]:
    redis = None
    settings: dict[str, Any] = {"room_burst": rooms + 1000, "http_burst": 10 * rooms}
    if store == "redis":
        redis = SpawnedRedis("--save", "", "--appendonly", "yes", "--appendfsync", "always")
        redis.start()
        settings["redis_url"] = redis.url
    server = await SpawnedServer(**settings).start()
    try:
        async with LobbyClient(server.url) as lobby:
            start = time.perf_counter()
            for _ in range(rooms):
                room = await lobby.create_room("sintra", seats=3)
                await lobby.reserve(room["id"], name="ana")
            created = time.perf_counter() - start
            before = tree_cpu_seconds(server.pid)
            await asyncio.sleep(idle)  # the measurement: what idle rooms cost
            idle_cpu = (tree_cpu_seconds(server.pid) - before) / idle
            listing = await timed(50, lambda: lobby.rooms_page(limit=100))
            quick = await timed(50, lambda: lobby.quickplay("sintra", seats=3))
        lost = sum("lease lost" in line for line in server.log)
        return {
            "benchmark": "many_rooms",
            "store": store,
            "rooms": rooms,
            "created_per_s": round(rooms / created, 1),
            "idle_cpu_cores": round(idle_cpu, 3),
            "listing_p50_ms": listing[0],
            "listing_p99_ms": listing[1],
            "quickplay_p50_ms": quick[0],
            "quickplay_p99_ms": quick[1],
            "leases_lost": lost,
        }
    finally:
        await server.stop()
        if redis is not None:
            redis.cleanup()


async def main(rooms: int, idle: float) -> None:
    for store in ("memory", "redis"):
        print(json.dumps(await one(store, rooms, idle)), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=10000)
    parser.add_argument("--idle-s", type=float, default=30.0)
    args = parser.parse_args()
    asyncio.run(main(args.rooms, args.idle_s))
