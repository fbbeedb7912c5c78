"""Attacks from issue 13 against a real server, each shown to fail now: sockets that
never read, slowloris, oversized bodies, floods over the rate limits, too many
connections; and the /metrics page that counts them.

Servers are spawned (``tablewire serve``, uvicorn with tablewire's HTTP
protocol) or run in the test's loop; every timeout and limit is made small
through settings, and no test asserts on time.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from dataclasses import fields
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from starlette.websockets import WebSocket
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from wire import GUARD, UNLIMITED_FRAMES, scrape, until

from clients import bots
from clients.addresses import ws_url
from clients.client import LobbyClient, RoomClient
from clients.lean import LeanClient
from clients.rude import NonReader, RelayMover, idle_spectator, server_closed, slowloris
from clients.spawn import SpawnedServer
from conftest import Running
from protocol.codec import decode, encode
from server.app import create_app
from server.connection import FREE_LEGAL, FREE_LEGAL_SAVED, SocketConnection
from server.limits import Kind
from server.metrics import Tallied
from server.settings import Settings
from support import ROOT


@pytest.fixture
async def spawned(request: pytest.FixtureRequest) -> AsyncIterator[SpawnedServer]:
    server = await SpawnedServer(**request.param).start()
    yield server
    await server.stop()


# -- 1. sockets that never read ------------------------------------------------------

CUTOFF = {
    "send_buffer": 16384,
    "send_timeout": 0.5,
    "close_timeout": 0.5,
    **UNLIMITED_FRAMES,
}


@pytest.mark.parametrize("spawned", [CUTOFF], indirect=True)
async def test_spectators_that_never_read_are_cut_off_and_forgotten(
    spawned: SpawnedServer,
) -> None:
    mover = RelayMover(spawned.url)
    room_id = await mover.open()
    moving = asyncio.create_task(mover.run())
    readers = [NonReader(spawned.url, room_id) for _ in range(20)]
    try:
        for reader in readers:
            await reader.connect()
        samples = await until(
            spawned.url,
            lambda s: (
                s["tablewire_slow_client_closes_total"] >= len(readers)
                and s["tablewire_connections"] == 4
            ),
        )
        assert samples["tablewire_room_connections"] == 4, "only the four players are left"
        for reader in readers:
            assert await reader.closed_by_server() in ("reset", "eof")
        made = mover.made
        async with asyncio.timeout(GUARD):
            await mover.players[0].wait_version(mover.players[0].version + 8)
        assert mover.made > made, "the room kept moving"
    finally:
        moving.cancel()
        mover.close()
        for reader in readers:
            reader.close()


@pytest.mark.parametrize("spawned", [CUTOFF], indirect=True)
async def test_clients_that_ask_for_answers_they_never_read_are_cut_off(
    spawned: SpawnedServer,
) -> None:
    async with LobbyClient(spawned.url) as lobby:
        room = await lobby.create_room("sintra", seats=2)  # waiting: no frames of its own
    readers = [NonReader(spawned.url, room["id"]) for _ in range(10)]
    try:
        for reader in readers:
            await reader.connect()
            for _ in range(20):
                await reader.send({"t": "ping", "data": "x" * 30000})
        await until(spawned.url, lambda s: s["tablewire_connections"] == 0)
        for reader in readers:
            assert await reader.closed_by_server() in ("reset", "eof")
    finally:
        for reader in readers:
            reader.close()


# -- 4. slowloris ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "spawned", [{"header_timeout": 0.5, "body_timeout": 0.5, "keepalive_timeout": 1}], indirect=True
)
async def test_silent_and_half_sent_connections_are_closed(spawned: SpawnedServer) -> None:
    loop = asyncio.get_running_loop()
    silent = [await slowloris(spawned.url, half=False) for _ in range(20)]
    half = [await slowloris(spawned.url, half=True) for _ in range(20)]
    body = await slowloris(spawned.url, half=False)
    await loop.sock_sendall(
        body, b"POST /api/rooms HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{}"
    )
    idle = await slowloris(spawned.url, half=False)
    await loop.sock_sendall(idle, b"GET /api/games HTTP/1.1\r\nHost: localhost\r\n\r\n")
    try:
        async with asyncio.timeout(GUARD):
            closes = [await server_closed(sock) for sock in [*silent, *half, body, idle]]
        assert len(closes) == 42
    finally:
        for sock in [*silent, *half, body, idle]:
            sock.close()
    samples = await scrape(spawned.url)
    cutoffs = {
        reason: samples[f'tablewire_http_cutoffs_total{{reason="{reason}"}}']
        for reason in ("header_timeout", "headers_too_large", "body_timeout")
    }
    assert cutoffs == {"header_timeout": 40, "headers_too_large": 0, "body_timeout": 1}
    await spawned.stop()
    logged = [json.loads(line) for line in spawned.log if '"request cut off"' in line]
    assert sorted(line["reason"] for line in logged) == ["body_timeout"] + ["header_timeout"] * 40
    assert {line["peer"] for line in logged} == {"127.0.0.1"}


@pytest.mark.parametrize("spawned", [{"body_timeout": 0.5}], indirect=True)
@pytest.mark.parametrize(
    ("leaves", "end"),
    [(False, ("request cut off", "body_timeout")), (True, ("request abandoned", None))],
)
async def test_a_body_that_never_comes_is_one_info_line_not_an_error(
    spawned: SpawnedServer, leaves: bool, end: tuple[str, str | None]
) -> None:
    """A body that never comes is one line with the request's path, not a traceback
    (it was ``request failed``): ``request cut off`` at the body deadline, alone (it was
    followed by ``request abandoned``); ``request abandoned`` if the client leaves."""
    sock = await slowloris(spawned.url, half=False)
    try:
        await asyncio.get_running_loop().sock_sendall(
            sock, b"POST /api/rooms HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{"
        )
        if leaves:  # its end read by the server, which closes too: the request is in
            sock.shutdown(socket.SHUT_WR)
        async with asyncio.timeout(GUARD):
            assert await server_closed(sock) in ("reset", "eof")
    finally:
        sock.close()
    await spawned.stop()  # (the request's handling ends before the server does)
    lines = [json.loads(line) for line in spawned.log if line.startswith("{")]
    assert not [line for line in lines if line["level"] == "error"], spawned.log
    assert not [line for line in spawned.log if "Traceback" in line]
    ends = [line for line in lines if line["event"].startswith("request ")]
    assert [(line["event"], line.get("reason"), line["path"]) for line in ends] == [
        (*end, "/api/rooms")
    ]


@pytest.mark.parametrize("spawned", [{"max_header_bytes": 2048}], indirect=True)
async def test_oversized_headers_get_431(spawned: SpawnedServer) -> None:
    loop = asyncio.get_running_loop()
    sock = await slowloris(spawned.url, half=True)
    try:
        await loop.sock_sendall(sock, b"y" * 4096)
        answer = await loop.sock_recv(sock, 4096)
        assert answer.startswith(b"HTTP/1.1 431")
        assert await server_closed(sock) in ("reset", "eof")
    finally:
        sock.close()
    samples = await scrape(spawned.url)
    assert samples['tablewire_http_cutoffs_total{reason="headers_too_large"}'] == 1


def request(server_url: str, header: int, body: bytes = b"") -> bytes:
    """A whole request whose headers take about ``header`` bytes, ``body`` after them."""
    head = f"POST /api/rooms HTTP/1.1\r\nHost: {urlsplit(server_url).netloc}\r\n"
    head += f"Connection: close\r\nContent-Length: {len(body)}\r\nX-Pad: "
    pad = header - len(head) - 4
    return head.encode() + b"y" * pad + b"\r\n\r\n" + body


@pytest.mark.parametrize("spawned", [{"max_header_bytes": 2048}], indirect=True)
@pytest.mark.parametrize("size", [4096, 60_000, 1_000_000])
async def test_oversized_headers_in_one_write_get_431(spawned: SpawnedServer, size: int) -> None:
    """Whole headers past the cap in one write (they were counted only across reads);
    past one read (1 MB), a client still writing got a reset, not the 431 (closed unread)."""
    sock = await slowloris(spawned.url, half=False)
    try:
        await asyncio.get_running_loop().sock_sendall(sock, request(spawned.url, size))
        status, _ = await _http_answer(sock)
        assert status.startswith(b"HTTP/1.1 431"), status
    finally:
        sock.close()


@pytest.mark.parametrize("spawned", [{"max_header_bytes": 2048}], indirect=True)
async def test_headers_within_the_cap_are_served_with_a_body_past_it_in_the_same_write(
    spawned: SpawnedServer,
) -> None:
    body = json.dumps({"engine": "sintra", "seats": 2}).encode() + b" " * 3000
    sock = await slowloris(spawned.url, half=False)
    try:
        await asyncio.get_running_loop().sock_sendall(sock, request(spawned.url, 2000, body))
        status, answer = await _http_answer(sock)
        assert status.startswith(b"HTTP/1.1 201"), (status, answer)
    finally:
        sock.close()


# -- 5. bodies refused before they are read --------------------------------------------


async def _http_answer(sock: socket.socket) -> tuple[bytes, bytes]:
    """Read one HTTP response until the server closes: status line and body."""
    loop = asyncio.get_running_loop()
    data = b""
    async with asyncio.timeout(GUARD):
        while chunk := await loop.sock_recv(sock, 65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0], body


@pytest.mark.parametrize("spawned", [{}], indirect=True)
async def test_a_256_mib_content_length_gets_413_before_any_body(spawned: SpawnedServer) -> None:
    loop = asyncio.get_running_loop()
    sock = await slowloris(spawned.url, half=False)
    try:
        request = (
            b"POST /api/rooms HTTP/1.1\r\nHost: localhost\r\nContent-Length: 268435456\r\n\r\n"
        )
        await loop.sock_sendall(sock, request)  # and not one byte of the body
        status, body = await _http_answer(sock)
        assert status.startswith(b"HTTP/1.1 413")
        assert b'"body_too_large"' in body
    finally:
        sock.close()


@pytest.mark.parametrize("spawned", [{}], indirect=True)
async def test_a_chunked_body_past_the_limit_gets_413(spawned: SpawnedServer) -> None:
    loop = asyncio.get_running_loop()
    sock = await slowloris(spawned.url, half=False)
    chunk = b"2000\r\n" + b" " * 0x2000 + b"\r\n"  # 8 KiB
    try:
        await loop.sock_sendall(
            sock,
            b"POST /api/rooms HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n",
        )
        await loop.sock_sendall(sock, chunk * 3)  # 24 KiB, and no end: the server stops reading
        status, body = await _http_answer(sock)
        assert status.startswith(b"HTTP/1.1 413")
        assert b'"body_too_large"' in body
    finally:
        sock.close()


async def test_a_streamed_body_is_not_read_past_the_limit() -> None:
    sent = 0

    async def endless() -> AsyncIterator[bytes]:
        nonlocal sent
        for _ in range(10_000):
            sent += 1
            yield b" " * 4096

    transport = httpx.ASGITransport(app=create_app(Settings(max_body=16384)))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        response = await client.post("/api/rooms", content=endless())
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "body_too_large"
    assert sent <= 6, "reading stopped at the limit"


# -- 11. rate limits -------------------------------------------------------------------


async def test_lobby_requests_over_the_rate_get_429() -> None:
    app = create_app(Settings(http_rate=0.001, http_burst=2))
    transport = httpx.ASGITransport(app=app, client=("203.0.113.9", 1234))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        codes = [(await client.get("/api/games")).status_code for _ in range(3)]
        refused = await client.get("/api/games")
        probes = [(await client.get(path)).status_code for path in ("/healthz", "/readyz")]
    assert codes == [200, 200, 429]
    assert refused.json()["error"]["code"] == "rate_limited"
    assert probes == [200, 200], "only the lobby (/api/) is limited, not the probes"


@pytest.fixture
def settings() -> Settings:
    return Settings(
        hello_timeout=5,
        ping_rate=0.001,
        ping_burst=2,
        intent_rate=0.001,
        intent_burst=2,
        query_rate=1000,
        query_burst=1000,
        address_factor=0,
        rate_strikes=4,
        max_room_connections=3,
    )


@pytest.fixture
def store_kind() -> str:
    return "memory"


async def _joined(server: Running, room_id: str) -> Any:
    ws = await connect(f"{server.ws}/ws/rooms/{room_id}", max_size=None)
    await ws.send(encode({"t": "hello", "protocol": 1, "token": None}))
    assert decode(await ws.recv(decode=False))["t"] == "welcome"
    assert decode(await ws.recv(decode=False))["t"] == "snapshot"
    return ws


LOAD_TEST = {
    "room_rate": 0.001,
    "room_burst": 2,
    "http_rate": 0.001,
    "http_burst": 8,
    "connect_rate": 0.001,
    "connect_burst": 2,
    "max_benchmark_rooms": 7,
    "load_test_clients": "127.0.0.1",
}


@pytest.mark.parametrize("spawned", [LOAD_TEST], indirect=True)
async def test_a_load_generator_named_by_the_operator_is_limited_only_by_the_benchmark_cap(
    spawned: SpawnedServer,
) -> None:
    """Benchmark rooms from a ``load_test_clients`` address skip the limits per address
    (the shared harness runs a thousand rooms from one address); games never do, and
    the same requests through a proxy from elsewhere are limited."""
    async with httpx.AsyncClient(base_url=spawned.url) as http:

        async def create(engine: str, **headers: str) -> httpx.Response:
            body = {"engine": engine, "private": True, "seed": 1}
            return await http.post("/api/rooms", json=body, headers=headers)

        rooms = [(await create("turn-relay")).json()["id"] for _ in range(4)]
        tokens = [
            (await http.post(f"/api/rooms/{room}/seats", json={})).json()["token"]
            for room in rooms
            for _ in range(4)
        ]
        assert len(tokens) == 16, "16 seat requests past an http burst of 8"
        clients = [LeanClient(spawned.ws, rooms[0], token) for token in tokens[:4]]
        clients += [LeanClient(spawned.ws, rooms[0]) for _ in range(4)]
        for client in clients:
            await client.connect()  # 8 handshakes past a connect burst of 2
        assert [(await create("sintra")).status_code for _ in range(3)] == [201, 201, 429]
        proxied = {"x-forwarded-for": "203.0.113.9"}  # loopback is a trusted proxy
        assert [(await create("turn-relay", **proxied)).status_code for _ in range(3)] == [
            201,
            201,
            429,
        ]
        assert (await create("turn-relay")).status_code == 201  # the seventh benchmark room
        refused = await create("turn-relay")
        assert (refused.status_code, refused.json()["error"]["code"]) == (503, "too_many_rooms")
        for client in clients:
            client.close()


@pytest.mark.parametrize("spawned", [{**LOAD_TEST, "load_test_clients": ""}], indirect=True)
async def test_without_the_setting_a_load_generator_on_this_machine_is_limited_like_anyone(
    spawned: SpawnedServer,
) -> None:
    """No address is exempt by default, loopback included: an exemption is the operator's
    word (``load_test_clients``), never where a request comes from."""
    async with httpx.AsyncClient(base_url=spawned.url) as http:
        body = {"engine": "turn-relay", "private": True, "seed": 1}
        created = [(await http.post("/api/rooms", json=body)).status_code for _ in range(3)]
        assert created == [201, 201, 429]


@pytest.mark.parametrize(
    ("spawned", "separate"),
    [
        ({"room_rate": 0.001, "room_burst": 2}, True),
        ({"room_rate": 0.001, "room_burst": 2, "trusted_proxies": "192.0.2.1"}, False),
    ],
    indirect=["spawned"],
)
async def test_behind_a_trusted_proxy_each_player_has_the_limits_of_an_address(
    spawned: SpawnedServer, separate: bool
) -> None:
    """nginx forwards every player from one address: the limits count the address in
    X-Forwarded-For when the proxy is trusted (loopback by default), else the proxy's."""
    async with httpx.AsyncClient(base_url=spawned.url) as http:

        async def create(player: str) -> int:
            headers = {"x-forwarded-for": player}
            answer = await http.post("/api/rooms", json={"engine": "sintra"}, headers=headers)
            return answer.status_code

        assert [await create("203.0.113.5") for _ in range(3)] == [201, 201, 429]
        assert await create("203.0.113.6") == (201 if separate else 429)


async def test_pings_and_intents_over_the_rate_are_refused_then_the_connection_closed(
    server: Running,
) -> None:
    async with LobbyClient(server.url) as lobby:
        room = await lobby.create_room("sintra", seats=2)
    ws = await _joined(server, room["id"])
    for i in range(3):
        await ws.send(encode({"t": "ping", "data": i}))
    answers = [decode(await ws.recv(decode=False)) for _ in range(3)]
    assert [a["t"] for a in answers] == ["pong", "pong", "error"]
    assert answers[2]["code"] == "rate_limited" and not answers[2]["fatal"]
    assert answers[2]["of"] == "ping" and answers[2]["retry_after"] > 0
    await ws.send(encode({"t": "intent", "id": 7, "action": {}}))
    await ws.send(encode({"t": "intent", "id": 8, "action": {}}))
    await ws.send(encode({"t": "intent", "id": 9, "action": {}}))
    answers = [decode(await ws.recv(decode=False)) for _ in range(3)]
    codes = {a["id"]: (a["t"], a["code"]) for a in answers}  # a refusal can overtake the queue
    assert codes == {
        7: ("reject", "spectator"),
        8: ("reject", "spectator"),
        9: ("reject", "rate_limited"),
    }
    assert next(a for a in answers if a["id"] == 9)["retry_after"] > 0
    for i in range(3):
        await ws.send(encode({"t": "ping", "data": i}))
    frames = []
    with pytest.raises(ConnectionClosed):
        while True:
            frames.append(decode(await ws.recv(decode=False)))
    assert frames[-1]["code"] == "rate_limited" and frames[-1]["fatal"]


@pytest.mark.parametrize(
    "spawned", [{"query_rate": 20, "query_burst": 3, "address_factor": 0}], indirect=True
)
async def test_bots_asking_legal_over_the_limit_wait_and_finish_their_game(
    spawned: SpawnedServer,
) -> None:
    """A refused `legal` is an error naming it (`of`); the client library asks again
    later, so its callers (bots, the terminal) get their moves (they used to wait for an
    answer forever)."""
    async with LobbyClient(spawned.url) as lobby:
        room = await lobby.create_room("sintra", seats=2)
        tokens = [(await lobby.reserve(room["id"]))["token"] for _ in range(2)]  # it starts
    async with RoomClient(ws_url(spawned.url), room["id"]) as watching:
        first = (await watching.wait_for(lambda doc: doc["to_act"]))["to_act"][0]
    token = tokens[first]  # the seat with moves
    ws = await connect(f"{ws_url(spawned.url)}/ws/rooms/{room['id']}", max_size=None)
    await ws.send(encode({"t": "hello", "protocol": 2, "token": token}))
    asks = FREE_LEGAL + 4  # the free ones at this version, a burst of 3, one too many
    for _ in range(asks):
        await ws.send(encode({"t": "legal"}))
    frames: list[dict[str, Any]] = []
    while len(frames) < asks:  # answers, among the welcome, snapshot and presence patches
        frame = decode(await ws.recv(decode=False))
        if isinstance(frame, dict) and frame.get("t") in ("legal", "error"):
            frames.append(frame)
    refused = frames[-1]
    assert [f["t"] for f in frames] == ["legal"] * (asks - 1) + ["error"]
    assert (refused["code"], refused["of"], refused["fatal"]) == ("rate_limited", "legal", False)
    assert 0 < refused["retry_after"] <= 1 / 20
    await ws.close()
    async with RoomClient(ws_url(spawned.url), room["id"], token) as client:
        answers = [await client.legal() for _ in range(10)]  # more than a burst
    assert all(answers)
    summary = await bots.run(spawned.url, "sintra", rooms=1, players=2, time_limit=60)
    assert (summary.games_finished, summary.errors, summary.reconnects) == (1, 0, 0)
    assert summary.intents > 2 * 3  # more `legal` than one burst per seat


async def test_a_room_admits_its_spectators_up_to_the_limit(server: Running) -> None:
    async with LobbyClient(server.url) as lobby:
        room = await lobby.create_room("sintra", seats=2)
    joined = [await _joined(server, room["id"]) for _ in range(3)]
    refused = await connect(f"{server.ws}/ws/rooms/{room['id']}", max_size=None)
    await refused.send(encode({"t": "hello", "protocol": 1, "token": None}))
    frame = decode(await refused.recv(decode=False))
    assert (frame["t"], frame["code"], frame["fatal"]) == ("error", "too_many_connections", True)
    for ws in joined:
        await ws.close()


@pytest.mark.parametrize("spawned", [{"address_connections": 2}], indirect=True)
async def test_one_address_holds_at_most_address_connections_and_others_still_get_in(
    spawned: SpawnedServer,
) -> None:
    async with LobbyClient(spawned.url) as lobby:
        room = await lobby.create_room("sintra", seats=2)
    url = f"{spawned.ws}/ws/rooms/{room['id']}"
    held = [await idle_spectator(url, "127.0.0.1") for _ in range(2)]
    assert [frame["t"] for _, frame in held] == ["welcome", "welcome"]
    refused, frame = await idle_spectator(url, "127.0.0.1")
    assert (frame["t"], frame["fatal"]) == ("error", True)
    assert frame["code"] == "too_many_connections" and "holds 2" in frame["message"]
    await refused.close()
    other, frame = await idle_spectator(url, "127.0.0.2")
    assert frame["t"] == "welcome", "another address gets in"
    await held[0][0].close()
    await until(spawned.url, lambda samples: samples["tablewire_connections"] == 2)
    again, frame = await idle_spectator(url, "127.0.0.1")
    assert frame["t"] == "welcome", "a connection that ended frees its place"
    for ws in (held[1][0], other, again):
        await ws.close()


# -- 12. metrics -----------------------------------------------------------------------


async def test_metrics_count_rooms_connections_intents_and_rejects(server: Running) -> None:
    async with LobbyClient(server.url) as lobby:
        room = await lobby.create_room("sintra", seats=2)
    ws = await _joined(server, room["id"])
    await ws.send(encode({"t": "intent", "id": 1, "action": {}}))
    assert decode(await ws.recv(decode=False))["code"] == "spectator"
    samples = await scrape(server.url)
    assert samples['tablewire_rooms{engine="sintra",owned="yes",status="waiting"}'] == 1
    assert samples["tablewire_connections"] == 1
    assert samples["tablewire_room_connections"] == 1
    assert samples["tablewire_intents_total"] >= 1
    assert samples['tablewire_rejects_total{code="spectator"}'] >= 1
    assert samples["tablewire_frames_out_total"] >= 3  # welcome, snapshot, reject
    assert samples["tablewire_bytes_out_total"] > samples["tablewire_frames_out_total"]
    assert samples["tablewire_intent_patch_seconds_count"] >= 1
    assert "tablewire_event_loop_lag_seconds_count" in samples
    assert "process_resident_memory_bytes" in samples
    await ws.close()


def test_a_tallied_histogram_is_exported_as_prometheus_cumulative_buckets() -> None:
    tallied = Tallied("t_seconds", "test", (0.001, 0.01))
    for value in (0.0005, 0.001, 0.005, 3.0):
        tallied.observe(value)
    samples = {(s.name, s.labels.get("le")): s.value for s in tallied.family().samples}
    assert samples[("t_seconds_bucket", "0.001")] == 2, "a bound is inclusive (le)"
    assert samples[("t_seconds_bucket", "0.01")] == 3
    assert samples[("t_seconds_bucket", "+Inf")] == samples[("t_seconds_count", None)] == 4
    assert samples[("t_seconds_sum", None)] == 3.0065


def test_a_tallied_histogram_with_labels_exports_them_on_every_sample() -> None:
    tallied = Tallied("t_seconds", "test", (0.001,), labels={"op": "append"})
    tallied.observe(0.002)
    samples = tallied.family().samples
    assert {s.labels["op"] for s in samples} == {"append"}
    buckets = {s.labels.get("le"): s.value for s in samples if s.name == "t_seconds_bucket"}
    assert buckets == {"0.001": 0, "+Inf": 1}


def test_every_setting_is_in_the_operations_table() -> None:
    table = (ROOT / "docs" / "operations.md").read_text()
    missing = [f.name for f in fields(Settings) if f"`{f.name}`" not in table]
    assert not missing, f"docs/operations.md lacks {missing}"


def test_every_rate_limited_kind_is_in_the_metrics_table() -> None:
    table = (ROOT / "docs" / "operations.md").read_text().splitlines()
    (row,) = [line for line in table if line.startswith("| `tablewire_rate_limited_total")]
    assert [kind.value for kind in Kind if f"`{kind}`" not in row] == []


def test_patches_that_arrive_together_still_give_a_free_legal_each() -> None:
    """A client asks after every patch; when three patches reach it together, its three
    requests all find the room at the latest version, and each is still free (versions
    passed give their free requests); asking on at one version is not."""
    scope = {"type": "websocket", "path": "/ws/rooms/r", "headers": []}
    conn = SocketConnection(WebSocket(scope, _never, _never), Settings())
    assert all(conn.free_legal(10) for _ in range(FREE_LEGAL))
    assert not conn.free_legal(10)
    assert all(conn.free_legal(13) for _ in range(3 * FREE_LEGAL))
    assert not conn.free_legal(13)
    assert all(conn.free_legal(10_000) for _ in range(FREE_LEGAL_SAVED))
    assert not conn.free_legal(10_000)


async def _never(*_: Any) -> Any:
    raise AssertionError("the connection is not used")
