"""Issue 13 items 3 and 6, measured: room creation, listing and sweeping at the cap,
and what a fast never-ending room holds in memory.

    python benchmarks/room_limits.py create-rate [--seconds 20]
    python benchmarks/room_limits.py listing [--rooms 10000] [--requests 200]
    python benchmarks/room_limits.py sweep [--rooms 10000] [--redis-url URL]
    python benchmarks/room_limits.py room-memory [--moves 20000]

* ``create-rate``: one client POSTs ``/api/rooms`` back to back for
  ``--seconds`` against a spawned server with the default limits: rooms created
  per minute, and how many requests got 429; then the same with ``room_rate``
  off (the attack as it was).
* ``listing``: a spawned server filled to ``max_rooms`` (``--rooms``, creation
  rate off); ``GET /api/rooms`` (the default page), a filtered page, and a page
  deep in the list by its cursor: p50/p99 of ``--requests`` requests each and
  the body size; then the whole list walked by its cursors.
* ``sweep``: in-process, ``--rooms`` rooms in a lobby (memory store, or Redis
  with ``--redis-url``); the longest event-loop stall seen by a 1 ms ticker
  during a sweep that removes nothing, one that removes every room, and an
  adoption pass; with ``sweep_batch`` at its default and at ``--rooms`` (one
  batch: every room at once, as before).
* ``room-memory``: in-process, a turn-relay room whose four seats move as fast
  as they can: moves/s, the memory the room and its store hold after
  ``--moves`` moves (tracemalloc) and that memory projected to 10 minutes at
  that pace, with the memory store keeping every log entry (as before) and
  with the default ``memory_log`` and ``max_moves``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from common import machine, percentile
from doubles import Mover

from clients.spawn import SpawnedServer
from server.lobby import Lobby
from server.settings import Settings
from server.store import MemoryStore, Store
from server.store.redis import RedisStore
from server.timers import ManualTimers

TEN_MINUTES = 600.0


class Spawned:
    """A spawned ``tablewire serve`` for the length of an ``async with``."""

    def __init__(self, **settings: object) -> None:
        self.server = SpawnedServer(**settings)

    async def __aenter__(self) -> SpawnedServer:
        return await self.server.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.server.stop()


async def create_rate(seconds: float) -> None:
    for label, settings in (("default limits", {}), ("room_rate off", {"room_rate": 0})):
        async with Spawned(http_rate=0, **settings) as server:
            created = refused = 0
            async with httpx.AsyncClient(base_url=server.url) as client:
                end = time.perf_counter() + seconds
                while time.perf_counter() < end:
                    answer = await client.post("/api/rooms", json={"engine": "sintra"})
                    created += answer.status_code == 201
                    refused += answer.status_code == 429
        per_minute = created / seconds * 60
        print(
            f"create-rate ({label}): {created} rooms in {seconds:.0f} s by one client "
            f"= {per_minute:,.0f} a minute; {refused} requests refused with 429",
            flush=True,
        )


async def _fill(client: httpx.AsyncClient, rooms: int) -> int:
    """Create rooms until the server says ``too_many_rooms`` (or ``rooms`` are made)."""
    made = 0
    while made < rooms:
        answers = await asyncio.gather(
            *(client.post("/api/rooms", json={"engine": "sintra"}) for _ in range(50))
        )
        made += sum(a.status_code == 201 for a in answers)
        if any(a.status_code == 503 for a in answers):
            break
    return made


async def _timed(client: httpx.AsyncClient, url: str, requests: int) -> tuple[list[float], int]:
    times, size = [], 0
    for _ in range(requests):
        start = time.perf_counter()
        answer = await client.get(url)
        times.append((time.perf_counter() - start) * 1000)
        size = len(answer.content)
    return times, size


async def listing(rooms: int, requests: int) -> None:
    async with (
        Spawned(http_rate=0, room_rate=0, max_rooms=rooms) as server,
        httpx.AsyncClient(base_url=server.url, timeout=60) as client,
    ):
        made = await _fill(client, rooms + 50)
        refused = await client.post("/api/rooms", json={"engine": "sintra"})
        print(
            f"listing: {made} rooms, the cap; one more: {refused.status_code} "
            f"{refused.json()['error']['code']}",
            flush=True,
        )
        deep = "/api/rooms"
        for _ in range(50):
            deep = (await client.get(deep)).links["next"]["url"]
        for label, url in (
            ("GET /api/rooms", "/api/rooms"),
            ("?engine=sintra&status=waiting", "/api/rooms?engine=sintra&status=waiting"),
            ("page 51 by cursor", deep),
        ):
            times, size = await _timed(client, url, requests)
            print(
                f"listing {label}: p50 {percentile(times, 50):.1f} ms, "
                f"p99 {percentile(times, 99):.1f} ms, {size:,} B",
                flush=True,
            )
        start, pages, seen = time.perf_counter(), 0, 0
        url: str | None = "/api/rooms"
        while url is not None:
            answer = await client.get(url)
            pages, seen = pages + 1, seen + len(answer.json())
            url = answer.links["next"]["url"] if "next" in answer.links else None
        print(
            f"listing: every room by cursor: {seen} rooms in {pages} pages, "
            f"{time.perf_counter() - start:.2f} s",
            flush=True,
        )


async def _worst_stall(work: Callable[[], Awaitable[Any]]) -> tuple[float, float]:
    """The longest gap between two turns of a 1 ms ticker while ``work`` runs (ms),
    and how long the work took (s)."""
    worst = 0.0
    done = False

    async def ticker() -> None:
        nonlocal worst
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            worst = max(worst, now - last - 0.001)
            last = now

    probe = asyncio.create_task(ticker())
    await asyncio.sleep(0.01)
    start = time.perf_counter()
    await work()
    took = time.perf_counter() - start
    done = True
    await probe
    return worst * 1000, took


async def sweep(rooms: int, redis_url: str | None) -> None:
    for batch in (Settings().sweep_batch, rooms):
        store: Store = (
            RedisStore(redis_url, prefix=f"bench{time.time_ns()}") if redis_url else MemoryStore()
        )
        timers = ManualTimers(1000.0)
        lobby = Lobby(store, Settings(sweep_batch=batch, max_rooms=rooms), timers, timers=timers)
        for _ in range(rooms):
            await lobby.create({"engine": "sintra"})
        kind = "redis" if redis_url else "memory"
        for label, work in (
            ("a sweep that removes nothing", lobby.sweep),
            ("an adoption pass", lobby.adopt),
        ):
            stall, took = await _worst_stall(work)
            print(
                f"sweep ({kind}, {rooms} rooms, sweep_batch {batch}): {label}: "
                f"longest stall {stall:.1f} ms, {took:.2f} s in all",
                flush=True,
            )
        timers.advance(Settings().waiting_ttl)
        stall, took = await _worst_stall(lobby.sweep)
        print(
            f"sweep ({kind}, {rooms} rooms, sweep_batch {batch}): a sweep that removes "
            f"every room: longest stall {stall:.1f} ms, {took:.2f} s in all",
            flush=True,
        )
        await lobby.close()
        if isinstance(store, RedisStore):
            await store.close()


async def _relay(settings: Settings, moves: int, traced: bool) -> tuple[float, int, int]:
    """A turn-relay room moved ``moves`` times as fast as possible: moves/s, the memory
    allocated since before the room was created (bytes, when ``traced``) and its version."""
    gc.collect()
    if traced:
        tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0] if traced else 0
    lobby = Lobby(MemoryStore(settings.memory_log), settings)
    room_id = (await lobby.create({"engine": "turn-relay", "seats": 4}))["id"]
    for _ in range(4):
        await lobby.reserve(room_id, {})
    room = lobby.rooms[room_id]
    movers = [Mover(seat) for seat in range(4)]
    start = time.perf_counter()
    for _ in range(moves):
        if room.record.status != "playing":
            break
        assert room.state is not None
        await movers[min(room.engine.to_act(room.state))].move(room)
    rate = moves / (time.perf_counter() - start)
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - base if traced else 0
    if traced:
        tracemalloc.stop()
    version = room.version
    await lobby.close()
    return rate, held, version


async def room_memory(moves: int) -> None:
    for label, settings in (
        ("every log entry kept (before)", Settings(memory_log=10**12, max_moves=10**12)),
        ("defaults (after)", Settings()),
    ):
        rate, _, _ = await _relay(settings, moves, traced=False)
        _, half, _ = await _relay(settings, moves // 2, traced=True)
        _, full, version = await _relay(settings, moves, traced=True)
        per_move = (full - half) / (moves - moves // 2)
        in_ten = rate * TEN_MINUTES
        reached = min(in_ten, settings.max_moves)
        projected = full + max(0.0, per_move) * max(0.0, reached - moves)
        if per_move * 1000 < 1024:  # the memory levelled off: it is what the room holds
            projected = full
        print(
            f"room-memory ({label}): {rate:,.0f} moves/s untraced; after {version:,} versions "
            f"{full / 2**20:.2f} MiB ({per_move:,.0f} B a move over the second half); "
            f"10 minutes at this pace = {in_ten:,.0f} moves (the game stops at "
            f"{settings.max_moves:,} versions): {projected / 2**20:,.1f} MiB",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    rate = commands.add_parser("create-rate")
    rate.add_argument("--seconds", type=float, default=20.0)
    listed = commands.add_parser("listing")
    listed.add_argument("--rooms", type=int, default=Settings().max_rooms)
    listed.add_argument("--requests", type=int, default=200)
    swept = commands.add_parser("sweep")
    swept.add_argument("--rooms", type=int, default=Settings().max_rooms)
    swept.add_argument("--redis-url", default=None)
    memory = commands.add_parser("room-memory")
    memory.add_argument("--moves", type=int, default=20_000)
    args = parser.parse_args()
    print(machine(), flush=True)
    if args.command == "create-rate":
        asyncio.run(create_rate(args.seconds))
    elif args.command == "listing":
        asyncio.run(listing(args.rooms, args.requests))
    elif args.command == "sweep":
        asyncio.run(sweep(args.rooms, args.redis_url))
    else:
        asyncio.run(room_memory(args.moves))


if __name__ == "__main__":
    main()
