"""Server memory per idle WebSocket connection, at 1,000 and 5,000 connections.

    python benchmarks/connection_memory.py [--counts 1000,5000] [--per-room 100]

Spawns ``tablewire serve`` (memory store), creates turn-relay rooms with all
four seats taken (so the rooms are playing), then connects idle spectators
(each joined: welcome and snapshot received) up to each count. Prints the
server's resident memory (VmRSS) before and after, and the difference per
connection in KiB.
"""

from __future__ import annotations

import argparse
import asyncio
import gc

from common import machine

from clients.client import LobbyClient
from clients.lean import LeanClient
from clients.spawn import SpawnedServer
from clients.stats import tree_rss_mib

JOIN_AT_ONCE = 50


async def main(counts: list[int], per_room: int) -> None:
    print(machine())
    server = await SpawnedServer(unlimited=True).start()
    clients: list[LeanClient] = []
    try:
        async with LobbyClient(server.url) as lobby:
            rooms = []
            for i in range(-(-max(counts) // per_room)):
                room = await lobby.create_room("turn-relay", seats=4, seed=i)
                for seat in range(4):
                    await lobby.reserve(room["id"], name=f"p{seat}")
                rooms.append(room["id"])
        await asyncio.sleep(1)
        base = tree_rss_mib(server.pid, "VmRSS")
        print(f"server RSS with {len(rooms)} playing rooms and no connection: {base:.1f} MiB")
        gate = asyncio.Semaphore(JOIN_AT_ONCE)

        async def join(index: int) -> LeanClient:
            async with gate:
                client = LeanClient(server.ws, rooms[index // per_room])
                await client.connect()
                await client.wait_until(lambda c: c.version is not None)
                return client

        for count in counts:
            clients += await asyncio.gather(*(join(i) for i in range(len(clients), count)))
            gc.collect()
            await asyncio.sleep(2)
            rss = tree_rss_mib(server.pid, "VmRSS")
            per = (rss - base) * 1024 / count
            print(
                f"{count} idle connections: server RSS {rss:.1f} MiB, "
                f"+{rss - base:.1f} MiB = {per:.1f} KiB per connection",
                flush=True,
            )
    finally:
        for client in clients:
            client.close()
        await server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", default="1000,5000")
    parser.add_argument("--per-room", type=int, default=100)
    args = parser.parse_args()
    asyncio.run(main([int(c) for c in args.counts.split(",")], args.per_room))
