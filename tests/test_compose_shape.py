"""docker-compose.yml's shape run without Docker: nginx from deploy/nginx.conf in front
of two ``tablewire serve`` replicas sharing one redis-server, every client through nginx.

The nginx configuration run is deploy/nginx.conf with its two upstream ``server``
lines pointed at the replicas' ports and its ``listen`` at a free port; nothing
else of the file changes. Paths of this run's own (pid, logs, temporary files) are
given on nginx's command line and at the top of the ``http`` block, so that nothing
is written outside a temporary directory.

Clients bind to addresses of their own in 127/8 (Linux routes all of it locally):
nginx tells the replicas each client's address (``X-Forwarded-For``), and the
limits per address count it. Without nginx or redis-server the tests are skipped,
and fail in CI (.ci/run installs both).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from clients import bots
from clients.client import LobbyClient, RoomClient
from clients.spawn import SpawnedRedis, SpawnedServer, free_port
from conftest import redis_server
from protocol.codec import decode, encode
from server.store.redis import RedisStore

ROOT = Path(__file__).resolve().parent.parent
CONF = ROOT / "deploy" / "nginx.conf"
UPSTREAM = re.compile(r"server tablewire-(\d):8000")
LISTEN = "listen 80;"
HELLO = encode({"t": "hello", "protocol": 2, "token": None, "since": None})
ADDRESS_CAP = 256
"""deploy/nginx.conf's ``limit_conn`` per client address."""
HALF_SENT = 600
"""Sockets that send half a request line and stop, from one address."""


def nginx_binary() -> str:
    """nginx's path; without it: skipped locally, failed in CI."""
    binary = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
    if binary is None:
        message = "nginx is missing (apt-get install nginx): the compose shape cannot run"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return binary


def derived_conf(binary: str, directory: Path, port: int, upstreams: list[int]) -> Path:
    """deploy/nginx.conf serving ``port`` in front of ``upstreams`` (127.0.0.1 ports), its
    logs and temporary files in ``directory``."""
    text = CONF.read_text()
    assert len(UPSTREAM.findall(text)) == len(upstreams) and text.count(LISTEN) == 1
    text = UPSTREAM.sub(lambda m: f"server 127.0.0.1:{upstreams[int(m[1]) - 1]}", text)
    text = text.replace(LISTEN, f"listen 127.0.0.1:{port};")
    built = subprocess.run([binary, "-V"], capture_output=True, text=True, check=True).stderr
    temps = [
        f"{kind}_temp_path {directory / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        if f"--without-http_{kind}_module" not in built
    ]
    local = "\n    ".join([f"access_log {directory / 'access.log'};", *temps])
    conf = directory / "nginx.conf"
    conf.write_text(text.replace("http {\n", f"http {{\n    {local}\n", 1))
    return conf


class Nginx:
    """nginx in the foreground with ``conf``; :meth:`start` returns once its workers run."""

    def __init__(self, binary: str, conf: Path, directory: Path) -> None:
        self.command = [binary, "-p", str(directory), "-c", str(conf), "-e", "stderr"]
        self.command += [
            "-g",
            f"daemon off; pid {directory / 'nginx.pid'}; error_log stderr notice;",
        ]
        self.log: list[str] = []
        self.process: asyncio.subprocess.Process | None = None
        self._drain: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            *self.command, stderr=asyncio.subprocess.PIPE
        )
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._drain = asyncio.create_task(self._read(ready))
        async with asyncio.timeout(30):
            await ready

    async def _read(self, ready: asyncio.Future[None]) -> None:
        assert self.process is not None and self.process.stderr is not None
        async for line in self.process.stderr:
            self.log.append(line.decode())
            if b"start worker process" in line and not ready.done():
                ready.set_result(None)
        if not ready.done():
            ready.set_exception(RuntimeError("nginx exited:\n" + "".join(self.log)))

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.terminate()
            await self.process.wait()
        if self._drain is not None:
            await self._drain


@dataclass
class Shape:
    """The deployment: nginx's URL is the only one clients use."""

    url: str
    ws: str
    replicas: list[SpawnedServer]
    redis: SpawnedRedis
    nginx: Nginx


@pytest.fixture
async def shape() -> AsyncIterator[Shape]:
    binary = nginx_binary()
    redis = redis_server("--appendonly", "yes", "--appendfsync", "always")
    redis.start()
    replicas = [
        SpawnedServer(
            redis_url=redis.url,
            node=f"tablewire-{n}",
            trusted_proxies="127.0.0.1",
            load_test_clients="",
            allowed_hosts="127.0.0.1,localhost",
            room_burst=1000,  # test_lease_renewals_keep_up_… creates 100 rooms per address
        )
        for n in (1, 2)
    ]
    directory = Path(tempfile.mkdtemp(prefix="tablewire-nginx-"))
    port = free_port()
    nginx = Nginx(
        binary, derived_conf(binary, directory, port, [r.port for r in replicas]), directory
    )
    try:
        await asyncio.gather(*(r.start() for r in replicas))
        await nginx.start()
        yield Shape(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}", replicas, redis, nginx)
    finally:
        await nginx.stop()
        await asyncio.gather(*(r.stop(signal.SIGKILL) for r in replicas))
        redis.cleanup()
        shutil.rmtree(directory, ignore_errors=True)


def lobby_from(shape: Shape, address: str) -> LobbyClient:
    """The lobby through nginx, from ``address``."""
    return LobbyClient(shape.url, transport=httpx.AsyncHTTPTransport(local_address=address))


async def open_rooms(shape: Shape, count: int, address: str) -> list[str]:
    """``count`` waiting four-seat Sintra rooms, created through nginx from ``address``."""
    async with lobby_from(shape, address) as lobby:
        return [(await lobby.create_room("sintra", seats=4))["id"] for _ in range(count)]


async def spectate(shape: Shape, room_id: str, address: str) -> tuple[ClientConnection, Any]:
    """A spectator's WebSocket through nginx from ``address``, and its first frame."""
    ws = await connect(f"{shape.ws}/ws/rooms/{room_id}", local_addr=(address, 0), open_timeout=30)
    await ws.send(HELLO)
    return ws, decode(await ws.recv())


def test_nginx_accepts_the_shipped_config(tmp_path: Path) -> None:
    binary = nginx_binary()
    conf = derived_conf(binary, tmp_path, free_port(), [free_port(), free_port()])
    pid = f"pid {tmp_path / 'nginx.pid'};"
    checked = subprocess.run(
        [binary, "-t", "-p", str(tmp_path), "-c", str(conf), "-e", "stderr", "-g", pid],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr
    text = CONF.read_text()
    assert "worker_processes auto;" in text and "client_header_timeout 10s;" in text
    assert f"limit_conn per_address {ADDRESS_CAP};" in text and "limit_conn_status 429;" in text


async def test_600_spectators_from_three_addresses_are_all_welcomed(shape: Shape) -> None:
    rooms = await open_rooms(shape, 3, "127.0.0.1")
    addresses = ["127.0.0.1", "127.0.0.2", "127.0.0.3"]
    opening = asyncio.Semaphore(100)

    async def one(i: int) -> tuple[ClientConnection, Any]:
        async with opening:
            return await spectate(shape, rooms[i % 3], addresses[i % 3])

    async with asyncio.timeout(60):
        held = await asyncio.gather(*(one(i) for i in range(600)), return_exceptions=True)
    sockets = [h[0] for h in held if isinstance(h, tuple)]
    welcomed = [h for h in held if isinstance(h, tuple) and h[1]["t"] == "welcome"]
    try:
        assert len(welcomed) == 600, [h for h in held if not isinstance(h, tuple)][:3]
    finally:
        await asyncio.gather(*(ws.close() for ws in sockets))


async def test_one_address_holds_at_most_the_proxy_cap_across_both_replicas(shape: Shape) -> None:
    """Each replica would take 256 from one address; nginx holds the sum to 256."""
    (room,) = await open_rooms(shape, 1, "127.0.0.1")
    opening = asyncio.Semaphore(50)

    async def one() -> tuple[ClientConnection, Any]:
        async with opening:
            return await spectate(shape, room, "127.0.0.7")

    async with asyncio.timeout(60):
        held = await asyncio.gather(*(one() for _ in range(300)), return_exceptions=True)
    sockets = [h[0] for h in held if isinstance(h, tuple)]
    try:
        refused = [h for h in held if isinstance(h, InvalidStatus)]
        assert len(sockets) == ADDRESS_CAP, [h for h in held if not isinstance(h, tuple)][:3]
        assert {(r.response.status_code, r.response.headers["Retry-After"]) for r in refused} == {
            (429, "1")
        }
        body = json.loads(refused[0].response.body)
        assert body["error"]["code"] == "rate_limited", "the lobby's form: clients wait and retry"
        assert len(refused) == 300 - ADDRESS_CAP
        async with httpx.AsyncClient(
            transport=httpx.AsyncHTTPTransport(local_address="127.0.0.8")
        ) as http:
            assert (await http.get(f"{shape.url}/api/games")).status_code == 200
    finally:
        await asyncio.gather(*(ws.close() for ws in sockets))


async def lease_holder(shape: Shape, room_id: str) -> str:
    store = RedisStore(shape.redis.url)
    holder = await store.redis.get(store.key(room_id, "lease"))
    await store.close()
    return holder.decode() if holder else ""


async def test_games_through_nginx_finish_when_a_replica_dies(shape: Shape) -> None:
    rooms = await open_rooms(shape, 4, "127.0.0.1")
    watcher = RoomClient(shape.ws, rooms[0], None)
    await watcher.connect()
    runs = [
        asyncio.create_task(bots.run(shape.url, "sintra", 0, 4, room_id=room, time_limit=120))
        for room in rooms
    ]
    async with asyncio.timeout(60):
        await watcher.wait_version(20)
    owner = (await lease_holder(shape, rooms[0])).split(":")[0]
    (dying,) = [r for r in shape.replicas if r.settings["node"] == owner]
    (survivor,) = [r for r in shape.replicas if r is not dying]
    await dying.stop(signal.SIGKILL)
    summaries = await asyncio.gather(*runs)
    await watcher.close()
    assert [s.games_finished for s in summaries] == [1] * 4, [s.failures for s in summaries]
    assert all(s.ok for s in summaries), [s.failures for s in summaries]
    assert sum(s.reconnects for s in summaries) > 0, "some bots played on the dead replica"
    assert (await lease_holder(shape, rooms[0])).startswith(f"{survivor.settings['node']}:")


async def test_lease_renewals_keep_up_with_400_waiting_rooms(shape: Shape) -> None:
    """400 rooms wait (their owners renew 400 leases), then 20 games are played: no owner
    loses a lease. The rooms come from four addresses, each within nginx's lobby burst."""
    await asyncio.gather(*(open_rooms(shape, 100, f"127.0.0.{n}") for n in (2, 3, 4, 5)))
    summary = await bots.run(shape.url, "sintra", 20, 4, time_limit=120)
    assert summary.ok, summary.failures
    assert summary.games_finished == 20
    for replica in shape.replicas:
        assert not [line for line in replica.log if "room lease lost" in line]


async def test_half_sent_headers_do_not_take_the_site_down(shape: Shape) -> None:
    """More sockets than the 512 connections of nginx's default (which they took down),
    from one address, each stopping in its request line: nginx holds them (limit_conn
    counts a request once its headers are in) until client_header_timeout closes them."""
    host, port = "127.0.0.1", int(shape.url.rsplit(":", 1)[1])
    held = []
    for _ in range(HALF_SENT):
        reader, writer = await asyncio.open_connection(host, port, local_addr=("127.0.0.6", 0))
        writer.write(b"GET /api/ga")
        held.append((reader, writer))
    await asyncio.gather(*(w.drain() for _, w in held))
    transport = httpx.AsyncHTTPTransport(local_address="127.0.0.9")
    async with httpx.AsyncClient(transport=transport) as http:
        assert (await http.get(f"{shape.url}/api/games")).status_code == 200
    assert not any(r.at_eof() for r, _ in held), "nginx still holds every half-sent request"

    async def answer(reader: asyncio.StreamReader) -> bytes:
        try:
            return await reader.read()
        except ConnectionResetError:
            return b""

    async with asyncio.timeout(30):  # client_header_timeout closes them, answering nothing
        answers = await asyncio.gather(*(answer(r) for r, _ in held))
    assert answers == [b""] * HALF_SENT
    for _, writer in held:
        writer.close()
