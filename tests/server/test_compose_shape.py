"""docker-compose.yml's shape run without Docker (clients/compose.py): nginx from
deploy/nginx.conf in front of two ``tablewire serve`` replicas sharing one
redis-server, every client through nginx.

Clients bind to addresses of their own in 127/8 (Linux routes all of it locally):
nginx tells the replicas each client's address (``X-Forwarded-For``), and the
limits per address count it. Without nginx or redis-server the tests are skipped,
and fail in CI (.ci/run installs both).
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from clients import bots
from clients.client import LobbyClient, RoomClient, Unreachable
from clients.compose import Shape, compose_shape, nginx_conf
from clients.spawn import SpawnedRedis, free_port
from conftest import nginx, redis_server
from protocol.codec import decode, encode
from server.store.redis import RedisStore
from support import ROOT

pytestmark = pytest.mark.load

CONF = ROOT / "deploy" / "nginx.conf"
HELLO = encode({"t": "hello", "protocol": 2, "token": None, "since": None})
ADDRESS_CAP = 256
"""deploy/nginx.conf's ``limit_conn`` per client address."""
HALF_SENT = 600
"""Sockets that send half a request line and stop, from one address."""


@pytest.fixture
async def shape() -> AsyncIterator[Shape]:
    async with compose_shape(
        CONF,
        nginx(),
        redis_server("--appendonly", "yes", "--appendfsync", "always"),
        trusted_proxies="127.0.0.1",
        load_test_clients="",
        allowed_hosts="127.0.0.1,localhost",
        room_burst=1000,  # test_lease_renewals_keep_up_… creates 100 rooms per address
    ) as running:
        yield running


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


@pytest.mark.parametrize("replicas", [1, 2, 3])
@pytest.mark.parametrize("one_address", [False, True])
def test_nginx_accepts_the_shipped_config(tmp_path: Path, replicas: int, one_address: bool) -> None:
    binary = nginx()
    ports = [free_port() for _ in range(replicas)]
    conf = nginx_conf(CONF, binary, tmp_path, free_port(), ports, one_address)
    pid = f"pid {tmp_path / 'nginx.pid'};"
    checked = subprocess.run(
        [binary, "-t", "-p", str(tmp_path), "-c", str(conf), "-e", "stderr", "-g", pid],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr
    served = conf.read_text()
    assert [f"127.0.0.1:{p}" in served for p in ports] == [True] * replicas
    assert "tablewire-" not in served.split("upstream tablewire")[1].split("}")[0]
    assert (f"limit_conn per_address {ADDRESS_CAP};" in served) is not one_address
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
    store = RedisStore.connect(shape.redis.url)
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


async def test_nginx_refuses_no_header_the_replicas_take_and_refuses_in_their_form(
    shape: Shape,
) -> None:
    """deploy/nginx.conf's limits are the replicas' own or above (a header line of 9 KiB
    was nginx's 400 page), and its refusals look like theirs: 431, and a JSON 413."""
    async with httpx.AsyncClient(base_url=shape.url) as client:
        taken = await client.get("/api/games", headers={"X-Pad": "a" * 15_000})
        assert taken.status_code == 200
        too_long = await client.get("/api/games", headers={"X-Pad": "a" * 17_000})
        assert too_long.status_code == 431
        body = b"{" + b" " * 20_000 + b"}"
        big = await client.post(
            "/api/rooms", content=body, headers={"Content-Type": "application/json"}
        )
    assert big.status_code == 413
    assert big.json()["error"]["code"] == "body_too_large"
    async with httpx.AsyncClient(base_url=shape.url) as client:
        metrics = await client.get("/metrics")
    assert metrics.status_code == 404 and metrics.json()["error"]["code"] == "not_found"


async def test_with_every_replica_down_nginx_answers_in_the_lobbys_form(shape: Shape) -> None:
    """nginx's own 502 (no replica answered) is JSON with a stable code and a Retry-After,
    not its HTML page; the lobby client takes it for a server it cannot reach."""
    await asyncio.gather(*(replica.stop() for replica in shape.replicas))
    async with httpx.AsyncClient(base_url=shape.url) as client:
        down = await client.get("/api/games")
    assert down.status_code == 502
    assert down.json()["error"]["code"] == "server_unavailable"
    assert down.headers["retry-after"] == "1"
    async with LobbyClient(shape.url) as lobby:
        with pytest.raises(Unreachable, match="502"):
            await lobby.games()


async def test_while_redis_is_away_nginx_passes_the_replicas_answers_and_marks_none_down(
    shape: Shape,
) -> None:
    """A replica's own 503 (``store_unavailable`` while Redis restarts) counted in nginx as
    a failed replica (``proxy_next_upstream … http_503`` with ``max_fails=1``): after one
    such answer from each, nginx answered every request itself for ``fail_timeout`` (5 s),
    502 ``server_unavailable``, health checks and WebSocket joins too, which the clients
    take for no server at all (exit status 3): a Redis restart ended players' commands.
    The replicas' answers now pass as they are (503 with ``Retry-After``: clients wait)."""
    assert isinstance(shape.redis, SpawnedRedis)
    shape.redis.stop()
    try:
        async with httpx.AsyncClient(base_url=shape.url) as client:
            answers = [await client.get("/api/rooms") for _ in range(6)]
            health = await client.get("/healthz")
    finally:
        shape.redis.start()
    assert [answer.status_code for answer in answers] == [503] * 6
    assert {answer.json()["error"]["code"] for answer in answers} == {"store_unavailable"}
    assert health.status_code == 200 and health.json()["ok"]
    async with LobbyClient(shape.url) as lobby:
        assert await lobby.create_room("sintra", seats=2), "Redis back: served at once"
