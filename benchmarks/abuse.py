"""The attacks of issue 13, measured against a spawned ``tablewire serve``.

    python benchmarks/abuse.py slow-readers [--sockets 200] [--spectators 100]
    python benchmarks/abuse.py slowloris [--connections 1200] [--wait-s 30]
    python benchmarks/abuse.py big-body [--mib 256]
    python benchmarks/abuse.py legal-flood [--rooms 20] [--duration-s 10]
    python benchmarks/abuse.py idle-flood [--connections 2000]

* ``slow-readers``: (a) ``--sockets`` spectators that never read, each asking
  for ~1.2 MB of pongs: the server's RSS before, once they are connected and
  10 s later, and what /metrics says of them; (b) a turn-relay room moving as
  fast as its four seats can: moves per second with no spectator, in the 10 s
  after ``--spectators`` non-reading spectators join it, and after.
* ``slowloris``: half silent connections, half unfinished requests; how many
  the server still holds after ``--wait-s``.
* ``big-body``: a ``--mib`` MiB POST, by Content-Length and chunked: the
  answer, how much of the body the server took, its peak RSS.
* ``legal-flood``: ``tablewire loadtest --workload turn-relay`` over
  ``--rooms`` rooms (T = 100 ms), alone, then while one client floods
  ``legal`` (reconnecting whenever it is closed), with the default limits and
  with the rate limits off (the attack as it was).
* ``idle-flood``: one address opens ``--connections`` idle spectator
  WebSockets (each says ``hello``, then nothing) as fast as the server takes
  them: how many it holds, how many were refused and why, and whether a
  player from another address still gets in.

Servers run with their default settings except where a line says otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import socket
import subprocess
import time
from collections import Counter
from typing import Any

import httpx
from common import TABLEWIRE, machine
from prometheus_client.parser import text_string_to_metric_families
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from clients.addresses import ws_url
from clients.client import LobbyClient
from clients.rude import NonReader, RelayMover, idle_spectator, slowloris
from clients.spawn import SpawnedServer
from clients.stats import tree_rss_mib
from protocol.codec import encode

NO_RATE_LIMITS = {
    "address_factor": 0,
    "intent_rate": 0,
    "query_rate": 0,
    "ping_rate": 0,
    "address_connections": 0,
}


async def metrics(url: str, *names: str) -> dict[str, float]:
    async with httpx.AsyncClient() as client:
        text = (await client.get(f"{url}/metrics")).text
    return {
        sample.name: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name in names
    }


def rss(server: SpawnedServer, key: str = "VmRSS") -> str:
    return f"{tree_rss_mib(server.pid, key):.1f} MiB"


# -- slow readers ----------------------------------------------------------------------


async def slow_readers(sockets: int, spectators: int) -> None:
    server = await SpawnedServer(**NO_RATE_LIMITS).start()
    readers: list[NonReader] = []
    try:
        async with LobbyClient(server.url) as lobby:
            room = await lobby.create_room("sintra", seats=2)
        print(f"(a) {sockets} non-reading spectators, each sending 30 pings of 40 kB")
        print(f"  server RSS before: {rss(server)}")
        for wave in (1, 2):
            for _ in range(sockets):
                reader = NonReader(server.url, room["id"])
                await reader.connect()
                for _ in range(30):
                    await reader.send({"t": "ping", "data": "x" * 40_000})
                readers.append(reader)
            print(f"  wave {wave} connected: RSS {rss(server)}")
            await asyncio.sleep(10)
            seen = await metrics(
                server.url,
                "tablewire_connections",
                "tablewire_slow_client_closes_total",
                "tablewire_connection_aborts_total",
            )
            print(f"  10 s later: RSS {rss(server)} (peak {rss(server, 'VmHWM')}); {seen}")
    finally:
        for reader in readers:
            reader.close()
        await server.stop()

    server = await SpawnedServer(**NO_RATE_LIMITS).start()
    mover = RelayMover(server.url)
    readers = []
    try:
        room_id = await mover.open()
        moving = asyncio.create_task(mover.run())

        async def rate(seconds: float) -> float:
            made, start = mover.made, time.monotonic()
            await asyncio.sleep(seconds)
            return (mover.made - made) / (time.monotonic() - start)

        print("(b) one turn-relay room, four seats moving as fast as they can")
        await asyncio.sleep(1)
        print(f"  no spectator: {await rate(5):.0f} moves/s")
        for _ in range(spectators):
            reader = NonReader(server.url, room_id)
            await reader.connect()
            readers.append(reader)
        print(
            f"  first 10 s with {spectators} non-reading spectators: {await rate(10):.0f} moves/s"
        )
        seen = await metrics(server.url, "tablewire_room_connections")
        print(
            f"  after (room connections {seen['tablewire_room_connections']:.0f}): "
            f"{await rate(5):.0f} moves/s"
        )
        moving.cancel()
    finally:
        mover.close()
        for reader in readers:
            reader.close()
        await server.stop()


# -- slowloris -------------------------------------------------------------------------


def still_open(sock: socket.socket) -> bool:
    """Drain what the server sent without blocking; False once it has closed."""
    try:
        while data := sock.recv(65536, socket.MSG_DONTWAIT):
            del data
        return False
    except BlockingIOError:
        return True
    except OSError:
        return False


async def slowloris_run(connections: int, wait_s: float) -> None:
    server = await SpawnedServer().start()
    socks = []
    try:
        for i in range(connections):
            socks.append(await slowloris(server.url, half=i % 2 == 1))
        print(f"{connections} connections (half silent, half an unfinished request) open")
        await asyncio.sleep(wait_s)
        left = sum(still_open(sock) for sock in socks)
        print(f"after {wait_s:.0f} s: {left} still open; server RSS {rss(server)}")
    finally:
        for sock in socks:
            sock.close()
        await server.stop()


# -- big bodies ------------------------------------------------------------------------


async def post(url: str, mib: int, chunked: bool) -> tuple[str, int]:
    """Send up to ``mib`` MiB of body; the status line and the bytes the server took."""
    loop = asyncio.get_running_loop()
    sock = await slowloris(url, half=False)
    size = mib << 20
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {size}"
    await loop.sock_sendall(
        sock, f"POST /api/rooms HTTP/1.1\r\nHost: localhost\r\n{framing}\r\n\r\n".encode()
    )
    piece = b" " * (1 << 16)
    if chunked:
        piece = b"10000\r\n" + piece + b"\r\n"
    sent = 0
    answer = loop.create_task(loop.sock_recv(sock, 4096))
    try:
        while sent < size and not answer.done():
            await asyncio.wait_for(loop.sock_sendall(sock, piece), 2)
            sent += 1 << 16
    except (OSError, TimeoutError):
        pass
    status = (await asyncio.wait_for(answer, 10)).split(b"\r\n")[0].decode()
    sock.close()
    return status, sent


async def big_body(mib: int) -> None:
    server = await SpawnedServer().start()
    try:
        print(f"server peak RSS at start: {rss(server, 'VmHWM')}")
        for chunked in (False, True):
            start = time.monotonic()
            status, sent = await post(server.url, mib, chunked)
            kind = "chunked" if chunked else "Content-Length"
            print(
                f"{mib} MiB POST by {kind}: {status!r} after {time.monotonic() - start:.3f} s, "
                f"{sent >> 10} KiB of the body sent; server peak RSS {rss(server, 'VmHWM')}"
            )
    finally:
        await server.stop()


# -- legal flood -----------------------------------------------------------------------


async def flood(url: str, stop: asyncio.Event, counts: dict[str, int]) -> None:
    """Hold a Crystal Palace seat and send ``legal`` without pause, reconnecting when closed."""
    async with LobbyClient(url) as lobby:
        room = await lobby.create_room("crystal-palace", seats=2)
        tokens = [(await lobby.reserve(room["id"]))["token"] for _ in range(2)]
    frame = encode({"t": "legal"})
    while not stop.is_set():
        try:
            async with connect(f"{ws_url(url)}/ws/rooms/{room['id']}", max_size=None) as ws:
                await ws.send(encode({"t": "hello", "protocol": 1, "token": tokens[0]}))
                counts["connections"] += 1

                async def drain() -> None:
                    with contextlib.suppress(ConnectionClosed):
                        async for _ in ws:
                            counts["answers"] += 1

                reading = asyncio.create_task(drain())
                while not stop.is_set() and not reading.done():
                    for _ in range(64):
                        await ws.send(frame)
                    counts["sent"] += 64
                    await asyncio.sleep(0)  # let the answers in
                reading.cancel()
        except (ConnectionClosed, InvalidStatus, OSError):
            await asyncio.sleep(0.05)


def loadtest(url: str, pid: int, rooms: int, duration: float) -> dict[str, Any]:
    command = [TABLEWIRE, "loadtest", "--server", url, "--server-pid", str(pid)]
    command += ["--workload", "turn-relay", "--rooms", str(rooms), "--duration-s", str(duration)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


async def legal_flood(rooms: int, duration: float) -> None:
    for label, settings in (("default limits", {}), ("rate limits off", NO_RATE_LIMITS)):
        server = await SpawnedServer(**settings).start()
        try:
            for flooding in (False, True):
                stop, counts = asyncio.Event(), {"connections": 0, "sent": 0, "answers": 0}
                flooder = asyncio.create_task(flood(server.url, stop, counts)) if flooding else None
                result = await asyncio.to_thread(loadtest, server.url, server.pid, rooms, duration)
                stop.set()
                if flooder is not None:
                    await flooder
                latency = result.get("latency_ms", result)
                what = f"during a legal flood {counts}" if flooding else "no flood"
                print(f"{label}, {rooms} rooms, {what}: {json.dumps(latency)}", flush=True)
        finally:
            await server.stop()


# -- idle connections from one address ---------------------------------------------------


async def idle_flood(connections: int) -> None:
    server = await SpawnedServer().start()
    held: list[Any] = []
    try:
        async with LobbyClient(server.url) as lobby:
            room = await lobby.create_room("sintra", seats=2)
        url = f"{ws_url(server.url)}/ws/rooms/{room['id']}"
        answers: Counter[str] = Counter()
        started = time.perf_counter()
        for _ in range(connections):
            ws, frame = await idle_spectator(url, "127.0.0.1")
            answers[frame.get("code", frame["t"])] += 1
            if frame["t"] == "welcome":
                held.append(ws)
            else:
                await ws.close()
        seconds = time.perf_counter() - started
        counts = await metrics(server.url, "tablewire_connections")
        print(f"one address, {connections} attempts in {seconds:.1f} s: {dict(answers)}; {counts}")
        ws, frame = await idle_spectator(url, "127.0.0.2")
        await ws.close()
        print(f"then a client from another address: {frame.get('code', frame['t'])}")
    finally:
        for ws in held:
            await ws.close()
        await server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("slow-readers")
    one.add_argument("--sockets", type=int, default=200)
    one.add_argument("--spectators", type=int, default=100)
    two = commands.add_parser("slowloris")
    two.add_argument("--connections", type=int, default=1200)
    two.add_argument("--wait-s", type=float, default=30)
    three = commands.add_parser("big-body")
    three.add_argument("--mib", type=int, default=256)
    four = commands.add_parser("legal-flood")
    four.add_argument("--rooms", type=int, default=20)
    four.add_argument("--duration-s", type=float, default=10)
    five = commands.add_parser("idle-flood")
    five.add_argument("--connections", type=int, default=2000)
    args = parser.parse_args()
    print(machine())
    if args.command == "slow-readers":
        asyncio.run(slow_readers(args.sockets, args.spectators))
    elif args.command == "slowloris":
        asyncio.run(slowloris_run(args.connections, args.wait_s))
    elif args.command == "big-body":
        asyncio.run(big_body(args.mib))
    elif args.command == "legal-flood":
        asyncio.run(legal_flood(args.rooms, args.duration_s))
    else:
        asyncio.run(idle_flood(args.connections))
