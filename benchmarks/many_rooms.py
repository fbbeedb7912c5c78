"""Thousands of rooms on one process: the memory store beside the Redis store.

    python benchmarks/many_rooms.py [--rooms 10000] [--idle-s 30]
        [--abandon 2000 --abandon-after 60] [--parallel 4] [--stores memory,redis]
        [--profile DIR]

For each store, one ``tablewire serve`` (defaults, but ``room_burst`` raised so that
one client may create them all; Redis as docker-compose.yml runs it: AOF,
``appendfsync always``) is filled with ``--rooms`` Sintra rooms through the lobby
(``--parallel`` requests at a time). The first ``--abandon`` of them are started
with two bots beside a player who never connects, with ``abandon_after`` set to
``--abandon-after`` seconds: abandoned games, each due to end that long after its
player sat down. The others wait, one seat of each taken. Then, measured:
creation rate, the server's CPU while the rooms sit idle for ``--idle-s`` seconds
(from /proc), the latency of a listing page and of a quick play (p50/p99 of
``--samples``, 500 by default: a p99 of 50 is their second-slowest; the quick plays
at ``max_rooms``, each joining a waiting room), and the "room lease lost" lines in the
server's log. With ``--abandon``: once the last abandoned room is due (plus 10 s),
how many are not ended, how late the others ended (p50 and max, from their
records), and on Redis how many keys of those ended rooms have no expiry. One
JSON line per store. (Abandonment is checked last: by then the waiting rooms'
players, who never connect, are away past their grace period, and quick play would
choose none of them. Abandoned rooms that end within the idle window count in its
CPU: an ``--abandon-after`` longer than creation and idle keeps them out.)
``--profile DIR``: a py-spy profile (1,000 samples a second) of the server during
the idle window, in DIR (py-spy must be installed).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from clients.client import LobbyClient
from clients.spawn import SpawnedRedis, SpawnedServer
from clients.stats import percentile, tree_cpu_seconds

SPY = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or "py-spy"
"""py-spy beside this Python (a venv's), else on the PATH."""
MARGIN = 10.0
"""Seconds after the last abandoned room is due before they are checked."""


async def timed(calls: int, call: Any) -> tuple[float, float]:
    """p50 and p99 in ms of ``calls`` awaits of ``call()``."""
    spent = []
    for _ in range(calls):
        start = time.perf_counter()
        await call()
        spent.append(1000 * (time.perf_counter() - start))
    return round(percentile(spent, 50), 2), round(percentile(spent, 99), 2)


async def fill(
    lobby: LobbyClient, rooms: int, abandon: int, abandon_after: float, parallel: int
) -> list[str]:
    """Create the rooms, the abandoned ones first; their ids."""
    numbers = itertools.count()
    abandoned: list[str] = []

    async def creator() -> None:
        while (n := next(numbers)) < rooms:
            if n < abandon:
                options = {"abandon_after": abandon_after}
                room = await lobby.create_room("sintra", 3, options, bots={"seats": [1, 2]})
                abandoned.append(room["id"])
            else:
                room = await lobby.create_room("sintra", seats=3)
            await lobby.reserve(room["id"], name="ana")

    await asyncio.gather(*(creator() for _ in range(parallel)))
    return abandoned


async def ended(lobby: LobbyClient, ids: list[str], abandon_after: float) -> dict[str, Any]:
    """How many of the abandoned rooms are not ended, and how late the others were."""
    records: list[dict[str, Any]] = []
    for start in range(0, len(ids), 20):
        records += await asyncio.gather(*(lobby.room(i) for i in ids[start : start + 20]))
    late = [
        r["updated"] - (r["away_since"][0] + abandon_after)
        for r in records
        if r["status"] == "finished" and (r["result"] or {}).get("abandoned")
    ]
    return {
        "abandoned": len(ids),
        "abandoned_not_ended": len(ids) - len(late),
        "abandoned_late_p50_s": round(percentile(late, 50), 2) if late else None,
        "abandoned_late_max_s": round(max(late), 2) if late else None,
    }


PARTS = ("", ":tokens", ":log", ":snap", ":lease", ":epoch")
"""A room's keys (server/store/redis.py), after ``tw:room:{id}``."""


async def keys_without_ttl(url: str, ids: list[str]) -> int:
    """Keys of these rooms (record, log, tokens …) that would never expire."""
    redis = aioredis.Redis.from_url(url)
    try:
        count = 0
        for start in range(0, len(ids), 100):
            async with redis.pipeline(transaction=False) as pipe:
                for room_id in ids[start : start + 100]:
                    for part in PARTS:
                        pipe.ttl(f"tw:room:{room_id}{part}")
                count += sum(ttl == -1 for ttl in await pipe.execute())
        return count
    finally:
        await redis.aclose()


async def one(store: str, args: argparse.Namespace) -> dict[str, Any]:
    redis = None
    rooms = args.rooms
    settings: dict[str, Any] = {"room_burst": rooms + 1000, "http_burst": 10 * rooms}
    if store == "redis":
        redis = SpawnedRedis("--save", "", "--appendonly", "yes", "--appendfsync", "always")
        redis.start()
        settings["redis_url"] = redis.url
    server = await SpawnedServer(**settings).start()
    profiler = None
    try:
        async with LobbyClient(server.url) as lobby:
            start = time.perf_counter()
            abandoned = await fill(lobby, rooms, args.abandon, args.abandon_after, args.parallel)
            created = time.perf_counter() - start
            if args.profile:
                profiler = await profile(server.pid, args.idle_s, args.profile, store)
            before = tree_cpu_seconds(server.pid)
            await asyncio.sleep(args.idle_s)  # the measurement: what idle rooms cost
            idle_cpu = (tree_cpu_seconds(server.pid) - before) / args.idle_s
            if profiler is not None:
                await profiler.wait()
            listing = await timed(args.samples, lambda: lobby.rooms_page(limit=100))
            quick = await timed(args.samples, lambda: lobby.quickplay("sintra", seats=3))
            result: dict[str, Any] = {
                "benchmark": "many_rooms",
                "store": store,
                "rooms": rooms,
                "created_per_s": round(rooms / created, 1),
                "idle_cpu_cores": round(idle_cpu, 3),
                "listing_p50_ms": listing[0],
                "listing_p99_ms": listing[1],
                "quickplay_p50_ms": quick[0],
                "quickplay_p99_ms": quick[1],
                "samples": args.samples,
            }
            if abandoned:
                # The last abandoned room was seated at about `created` s after the start.
                due = start + args.abandon * created / rooms + args.abandon_after + MARGIN
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                result |= await ended(lobby, abandoned, args.abandon_after)
                if redis is not None:
                    result["ended_keys_without_ttl"] = await keys_without_ttl(redis.url, abandoned)
        result["leases_lost"] = sum("lease lost" in line for line in server.log)
        return result
    finally:
        await server.stop()
        if redis is not None:
            redis.cleanup()


async def profile(pid: int, seconds: float, folder: str, store: str) -> Any:
    """py-spy sampling ``pid`` for ``seconds`` (collapsed stacks in ``folder``)."""
    output = Path(folder) / f"many-rooms-{store}.txt"
    command = [SPY, "record", "--pid", str(pid), "--duration", str(int(seconds))]
    command += ["--rate", "1000", "--format", "raw", "--nonblocking", "--output", str(output)]
    return await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
    )


async def main(args: argparse.Namespace) -> None:
    for store in args.stores.split(","):
        print(json.dumps(await one(store, args)), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=10000)
    parser.add_argument("--idle-s", type=float, default=30.0)
    parser.add_argument("--abandon", type=int, default=0, help="rooms started, then abandoned")
    parser.add_argument("--abandon-after", type=float, default=60.0)
    parser.add_argument("--parallel", type=int, default=1, help="creation requests at a time")
    parser.add_argument("--stores", default="memory,redis")
    parser.add_argument("--samples", type=int, default=500, help="listings and quick plays timed")
    parser.add_argument("--profile", metavar="DIR", help="py-spy the idle server into DIR")
    args = parser.parse_args()
    if args.profile:
        if shutil.which(SPY) is None:
            raise SystemExit("--profile needs py-spy (pip install py-spy)")
        Path(args.profile).mkdir(parents=True, exist_ok=True)
    asyncio.run(main(args))
