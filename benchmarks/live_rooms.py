"""Turn clocks and server-side bots under load: timer overhead and timeout lateness.

    python benchmarks/live_rooms.py [--idle 1000] [--idle-s 10] [--playing 500]
                                    [--clocked 50] [--play-s 20] [--bot-delay 1.0]

Real ``Room`` actors on the memory store and the wall clock, in this process:

1. **Idle rooms with running clocks.** ``--idle`` two-seat Sintra rooms whose
   seats are taken and connected (a connection that only collects frames),
   with a ``fischer:3600+5`` clock running and nobody moving; then as many
   without a clock. Prints this process's CPU time per second of wall time
   over ``--idle-s`` seconds for each, i.e. the cost of keeping the clocks
   (one pending timer handle per room, no polling).
2. **Timeout lateness under load.** ``--playing`` Sintra rooms of four random
   bots (``--bot-delay``, the room option's default 1 s) play game after game
   while ``--clocked`` rooms hold a seat that never moves under ``move:5`` (a
   zombie plays it at each deadline). For ``--play-s`` seconds; prints p50/p99/max of (when the move
   was logged - when it was due), for the bot moves and for the clock
   timeouts, read from the logs' ``at`` stamps.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import time
from typing import Any

from common import machine, percentile

from server.lobby import Lobby
from server.room import Room
from server.settings import Settings
from server.store import MemoryStore


class Watcher:
    """A connection that drops its frames."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.protocol = 1

    def send(self, frame: bytes) -> None:
        pass

    def close(self, code: str, message: str) -> None:
        pass


async def seated_room(lobby: Lobby, options: dict[str, Any], seats: int, bots: int) -> Room:
    body: dict[str, Any] = {"engine": "sintra", "seats": seats, "options": options}
    if bots:
        body["bots"] = {"seats": list(range(seats - bots, seats)), "kind": "random"}
    room = lobby.room((await lobby.create(body))["id"])
    assert room is not None
    for seat in range(seats - bots):
        await room.reserve(f"p{seat}", seat)
        await room.arrive(seat)
        room.attach(Watcher(seat), None)
    return room


async def idle_cpu(rooms: int, seconds: float, clock: str) -> float:
    lobby = Lobby(MemoryStore(), Settings())
    for _ in range(rooms):
        await seated_room(lobby, {"clock": clock}, 2, 0)
    start_cpu, start = time.process_time(), time.monotonic()
    await asyncio.sleep(seconds)
    used = (time.process_time() - start_cpu) / (time.monotonic() - start)
    await lobby.close()
    return used


async def lateness(
    playing: int, clocked: int, seconds: float, delay: float
) -> dict[str, list[float]]:
    lobby = Lobby(MemoryStore(), Settings())
    bot_rooms = [await seated_room(lobby, {"bot_delay": delay}, 4, 4) for _ in range(playing)]
    clock_rooms = [
        await seated_room(lobby, {"clock": "move:5", "bot_delay": 0}, 2, 1) for _ in range(clocked)
    ]
    for room in bot_rooms:
        room.attach(Watcher(None), None)
    late: dict[str, list[float]] = {"bot": [], "clock": []}
    deadline = time.monotonic() + seconds
    rematches: list[Room] = []
    while time.monotonic() < deadline:
        await asyncio.sleep(1.0)
        for room in list(bot_rooms):  # a finished game: a new room of bots takes its place
            if room.record.status == "finished":
                bot_rooms.remove(room)
                rematches.append(room)
                bot_rooms.append(await seated_room(lobby, {"bot_delay": delay}, 4, 4))
    for room in [*bot_rooms, *rematches]:
        entries = [e for _, e in await lobby.store.read_log(room.id)]
        for before, entry in itertools.pairwise(entries):
            if entry.get("by") == "bot":  # its decision started with the entry before
                late["bot"].append(entry["at"] - (before["at"] + delay))
    for room in clock_rooms:
        entries = [e for _, e in await lobby.store.read_log(room.id)]
        for before, entry in itertools.pairwise(entries):
            if entry.get("why") == "clock":
                late["clock"].append(entry["at"] - (before["at"] + 5))
    await lobby.close()
    return late


def show(name: str, values: list[float]) -> None:
    ms = sorted(v * 1000 for v in values)
    if not ms:
        print(f"{name}: no samples")
        return
    print(
        f"{name}: {len(ms)} moves, lateness p50 {percentile(ms, 50):.1f} ms, "
        f"p99 {percentile(ms, 99):.1f} ms, max {ms[-1]:.1f} ms"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--idle", type=int, default=1000)
    parser.add_argument("--idle-s", type=float, default=10.0)
    parser.add_argument("--playing", type=int, default=500)
    parser.add_argument("--clocked", type=int, default=50)
    parser.add_argument("--play-s", type=float, default=20.0)
    parser.add_argument("--bot-delay", type=float, default=1.0)
    args = parser.parse_args()
    print(machine())
    with_clock = await idle_cpu(args.idle, args.idle_s, "fischer:3600+5")
    without = await idle_cpu(args.idle, args.idle_s, "none")
    print(
        f"{args.idle} idle rooms, clocks running: {with_clock * 1000:.2f} ms CPU per second; "
        f"without clocks: {without * 1000:.2f} ms"
    )
    late = await lateness(args.playing, args.clocked, args.play_s, args.bot_delay)
    print(
        f"{args.playing} rooms of 4 bots playing (bot_delay {args.bot_delay} s), "
        f"{args.clocked} clocked:"
    )
    show("bot moves", late["bot"])
    show("clock timeouts (move:5)", late["clock"])


if __name__ == "__main__":
    asyncio.run(main())
