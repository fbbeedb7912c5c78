"""Intent→ack and intent→patch latency with the memory store vs the Redis store,
and the Redis memory used per finished and per active room.

    python benchmarks/store_latency.py [--rooms 20] [--redis-url redis://...]

For each store it spawns ``tablewire serve`` (and, unless ``--redis-url`` is
given, a throwaway ``redis-server`` with AOF and ``appendfsync always``, the
durable setting), then plays ``--rooms`` two-seat Sintra games at once with
random moves over real WebSockets. Latency is measured on the mover's client:
from sending the intent to its ``ack``, and to the patch that carries it.
Then it plays ``--rooms`` more games halfway and sums ``MEMORY USAGE`` over
every key of a room, for finished and for active rooms.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from typing import Any

import redis.asyncio as aioredis
from common import machine, percentile

from clients.client import LobbyClient, RoomClient
from clients.spawn import SpawnedRedis, SpawnedServer

PREFIX = "bench"


async def play(server: SpawnedServer, seed: int, moves: int | None) -> tuple[list[float], ...]:
    """Play one two-seat room (to the end, or ``moves`` moves); return the latencies in ms."""
    async with LobbyClient(server.url) as lobby:
        room = await lobby.create_room("sintra", seats=2, seed=seed)
        tokens = [(await lobby.reserve(room["id"]))["token"] for _ in range(2)]
    clients = [RoomClient(server.ws, room["id"], token) for token in tokens]
    for client in clients:
        await client.connect()
    rnd = random.Random(seed)
    to_ack: list[float] = []
    to_patch: list[float] = []
    last = 2  # both seats taken: the game has started
    try:
        while moves is None or len(to_ack) < moves:
            doc = await clients[0].wait_version(last)
            if doc["status"] == "finished":
                break
            mover = clients[doc["to_act"][0]]
            await mover.wait_version(last)
            action = rnd.choice(await mover.legal())
            started = time.perf_counter()
            reply = await mover.intent(action)
            acked = time.perf_counter()
            assert reply["t"] == "ack", reply
            await mover.wait_version(reply["v"])
            last = reply["v"]
            to_ack.append((acked - started) * 1000)
            to_patch.append((time.perf_counter() - started) * 1000)
    finally:
        for client in clients:
            await client.close()
    return to_ack, to_patch, [room["id"]]


async def room_memory(url: str, room_ids: list[str]) -> float:
    """Mean bytes of Redis memory per room (every key of the room)."""
    redis = aioredis.Redis.from_url(url)
    total = 0
    for room_id in room_ids:
        for key in await redis.keys(f"{PREFIX}:room:{room_id}*"):
            total += await redis.memory_usage(key) or 0
    await redis.aclose()
    return total / len(room_ids)


async def measure(label: str, rooms: int, **settings: Any) -> dict[str, Any]:
    server = await SpawnedServer(unlimited=True, **settings).start()
    try:
        runs = await asyncio.gather(*(play(server, seed, None) for seed in range(rooms)))
        to_ack = [ms for run in runs for ms in run[0]]
        to_patch = [ms for run in runs for ms in run[1]]
        figures: dict[str, Any] = {
            "store": label,
            "intents": len(to_ack),
            "ack_p50_ms": round(percentile(to_ack, 50), 3),
            "ack_p99_ms": round(percentile(to_ack, 99), 3),
            "patch_p50_ms": round(percentile(to_patch, 50), 3),
            "patch_p99_ms": round(percentile(to_patch, 99), 3),
        }
        if "redis_url" in settings:
            finished = [room_id for run in runs for room_id in run[2]]
            active = await asyncio.gather(*(play(server, 1000 + seed, 30) for seed in range(rooms)))
            figures["redis_bytes_per_finished_room"] = round(
                await room_memory(settings["redis_url"], finished)
            )
            figures["redis_bytes_per_active_room"] = round(
                await room_memory(settings["redis_url"], [r[2][0] for r in active])
            )
        return figures
    finally:
        await server.stop()


async def main(rooms: int, redis_url: str) -> None:
    print(machine())
    print(await measure("memory", rooms))
    print(await measure("redis", rooms, redis_url=redis_url, redis_prefix=PREFIX))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--redis-url", default=None, help="default: a throwaway redis-server")
    args = parser.parse_args()
    redis = None
    if args.redis_url is None:  # durable, as in production: AOF with fsync on every write
        redis = SpawnedRedis("--appendonly", "yes", "--appendfsync", "always", "--save", "")
        redis.start()
        args.redis_url = redis.url
    try:
        asyncio.run(main(args.rooms, args.redis_url))
    finally:
        if redis is not None:
            redis.cleanup()
