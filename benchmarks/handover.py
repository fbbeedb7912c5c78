"""How long rooms pause when the process that owns them stops (SIGTERM) or dies (SIGKILL).

    python benchmarks/handover.py [--rooms 20] [--signal TERM|KILL]

Two ``tablewire serve`` processes, ``a`` and ``b``, share a redis-server run as
docker-compose.yml runs it (``appendonly yes``, ``appendfsync always``). ``a``
creates ``--rooms`` four-seat Sintra rooms (so it owns them); every player sits on
``b`` (its intents go to ``a``), played by random bots with no pause between moves.
Mid-game ``a`` gets the signal. A room's pause is the longest gap between two
versions its players saw arrive across the moment of the signal; printed per room
(p50 and max) as one JSON line. With SIGTERM ``a`` hands its rooms over (their
leases given up and announced); with SIGKILL they wait for ``lease_ttl``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import signal
import time

from clients.bots import Summary, play_seat
from clients.client import LobbyClient, RoomClient
from clients.spawn import SpawnedRedis, SpawnedServer
from clients.stats import percentile
from engines.bots import RandomBot


async def main(rooms: int, stop: signal.Signals) -> dict[str, object]:
    redis = SpawnedRedis("--save", "", "--appendonly", "yes", "--appendfsync", "always")
    redis.start()
    servers = [SpawnedServer(redis_url=redis.url, node=node) for node in ("a", "b")]
    a, b = servers
    await asyncio.gather(*(s.start() for s in servers))
    try:
        clients: list[list[RoomClient]] = []
        async with LobbyClient(a.url) as lobby:
            for _ in range(rooms):
                room = await lobby.create_room("sintra", seats=4, private=True)
                seats = [await lobby.reserve(room["id"], name=f"p{i}") for i in range(4)]
                clients.append(
                    [RoomClient(b.ws, room["id"], s["token"], timed=True) for s in seats]
                )
        for table in clients:
            for client in table:
                await client.connect()
        summary = Summary("sintra")
        games = asyncio.gather(
            *(
                play_seat(client, RandomBot(i), summary)
                for table in clients
                for i, client in enumerate(table)
            )
        )
        await asyncio.gather(*(table[0].wait_version(20) for table in clients))
        stopped_at = time.monotonic()
        await a.stop(stop)
        await games
        pauses = []
        for table in clients:
            times = sorted({t for client in table for t in (client.arrivals or {}).values()})
            gaps = [
                later - earlier
                for earlier, later in itertools.pairwise(times)
                if later >= stopped_at and earlier <= stopped_at + 10
            ]
            pauses.append(max(gaps, default=0.0))
        return {
            "benchmark": "handover",
            "signal": stop.name,
            "rooms": rooms,
            "pause_p50_s": round(percentile(pauses, 50), 3),
            "pause_max_s": round(max(pauses), 3),
            "rejects": summary.reject_codes,
            "intents": summary.intents,
        }
    finally:
        await asyncio.gather(*(s.stop() for s in servers))
        redis.cleanup()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--signal", choices=["TERM", "KILL"], default="TERM")
    args = parser.parse_args()
    result = asyncio.run(main(args.rooms, signal.Signals[f"SIG{args.signal}"]))
    print(json.dumps(result))
