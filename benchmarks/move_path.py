"""The server's own work for one move, in process: a turn-relay intent frame handed to
``SocketConnection.take`` (as the socket's read hands it) to the four writes it
causes, on fake transports. No sockets and no system calls: what is left is what
the server's code costs (decode, rate limit, validate, apply, log, document, diff,
encode, fan-out), the part the compiled modules speed up.

    python benchmarks/move_path.py [--moves 20000] [--rooms 50]
    python benchmarks/move_path.py --instructions      # needs valgrind

The first form prints the CPU time per move (it varies with the machine's load by
±15 %). ``--instructions`` runs the same thing under callgrind twice, with 1,000 and
3,000 moves, and prints the difference per move: the instructions one move costs,
the same from run to run within a fraction of a percent, whatever else the machine
is doing.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import subprocess
import sys
import tempfile
import time
from typing import Any

from common import machine
from doubles import FakeProtocol

from protocol.codec import encode
from server import native
from server.connection import SocketConnection
from server.limits import Gate
from server.lobby import Lobby
from server.room import Room
from server.settings import Settings
from server.store import MemoryStore
from server.writer import DirectWriter


class Socket:
    scope: dict[str, Any] = {"client": ("127.0.0.1", 1)}  # noqa: RUF012


async def seated_rooms(count: int) -> list[tuple[Room, list[SocketConnection]]]:
    """``count`` playing turn-relay rooms, each with its four players connected
    (protocol 2, as the side-by-side harness runs it)."""
    settings = Settings()
    lobby = Lobby(MemoryStore(settings.memory_log), settings, node="bench")
    gate = Gate(settings)
    rooms = []
    for seed in range(count):
        created = await lobby.create({"engine": "turn-relay", "seed": seed, "private": True})
        for seat in range(4):
            await lobby.reserve(created["id"], {"seat": seat, "invite": created["invite"]})
        room = await lobby.open(created["id"])
        assert room is not None
        conns = []
        for seat in range(4):
            protocol = FakeProtocol(stalled=False)
            conn = SocketConnection(
                Socket(),  # type: ignore[arg-type]
                settings,
                DirectWriter.of(protocol.send),
                gate.frame_limits("127.0.0.1", load_test=True),
            )
            conn.seat, conn.protocol, conn.room = seat, 2, room
            await room.arrive(seat)
            room.attach(conn, None)
            conns.append(conn)
        await room.settled()
        rooms.append((room, conns))
    return rooms


async def play(moves: int, rooms: int) -> float:
    """CPU seconds per move over ``moves`` moves (after a warm-up), round-robin over
    the rooms, one turn of the event loop per round as on a server."""
    seated = await seated_rooms(rooms)
    ids = [0] * rooms

    async def rounds(count: int) -> None:
        for _ in range(count):
            for i, (room, conns) in enumerate(seated):
                state = room.state
                assert state is not None
                ids[i] += 1
                action = {"take": 0, "colour": state["board"][0][0]}
                conns[state["turn"]].take(encode({"t": "intent", "id": ids[i], "action": action}))
            await asyncio.sleep(0)

    await rounds(20)
    count = max(1, moves // rooms)
    start = time.process_time()
    await rounds(count)
    return (time.process_time() - start) / (count * rooms)


def instructions(rooms: int) -> float:
    """Instructions per move: callgrind's totals of two runs, differenced."""
    totals = []
    for moves in (1000, 3000):
        with tempfile.TemporaryDirectory() as folder:
            out = subprocess.run(
                [
                    "valgrind",
                    "--tool=callgrind",
                    f"--callgrind-out-file={folder}/out",
                    sys.executable,
                    __file__,
                    "--moves",
                    str(moves),
                    "--rooms",
                    str(rooms),
                ],
                capture_output=True,
                text=True,
                check=True,
            )
        found = re.search(r"Collected : (\d+)", out.stderr)
        assert found, out.stderr[-500:]
        totals.append(int(found.group(1)))
    return (totals[1] - totals[0]) / 2000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=20000)
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--instructions", action="store_true", help="count them (valgrind)")
    args = parser.parse_args()
    print(machine())
    print(f"compiled modules: {len(native.compiled())}", file=sys.stderr)
    if args.instructions:
        print(f"{instructions(args.rooms):,.0f} instructions a move")
        return
    seconds = asyncio.run(play(args.moves, args.rooms))
    print(f"{seconds * 1e6:.1f} µs CPU a move ({args.moves} moves, {args.rooms} rooms)")


if __name__ == "__main__":
    main()
