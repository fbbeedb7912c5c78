"""What an operator sees of a running server: what ``tablewire serve`` logs at
``info`` as clients come and go (docs/operations.md, "How connections end": nothing
per connection or per request), and the image's health check ("Health and readiness")."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

from clients.client import LobbyClient, RoomClient
from clients.spawn import SpawnedServer, free_port
from support import ROOT

BIN = Path(sys.executable).parent
"""Where this environment's ``python`` is: the image's ``python``."""

PER_CONNECTION = ('"WebSocket /ws/rooms/', "connection open", "connection closed", '"GET /')
"""uvicorn's and websockets' words for one connection or one request."""


async def _lines_of_a_visit(log_level: str) -> list[dict[str, Any]]:
    """The JSON log lines of a server that served a lobby request, a health probe and a
    spectator who came and left."""
    server = await SpawnedServer(log_level=log_level).start()
    try:
        async with LobbyClient(server.url) as lobby:
            room_id = (await lobby.create_room("sintra", seats=2))["id"]
        async with httpx.AsyncClient() as http:
            assert (await http.get(f"{server.url}/healthz")).status_code == 200
        spectator = RoomClient(server.ws, room_id)
        await spectator.connect()
        await spectator.close()
    finally:
        await server.stop(within=30)
    return [json.loads(line) for line in server.log if line.startswith("{")]


async def test_info_logs_nothing_per_connection_or_request() -> None:
    """Every WebSocket was two `info` lines of uvicorn's (`"WebSocket /ws/rooms/…"
    [accepted]`, `connection open`) and every HTTP request one (`uvicorn.access`): a
    busy server's log was mostly those, against the docs' quiet log."""
    lines = await _lines_of_a_visit("info")
    noisy = [line for line in lines if any(word in line["event"] for word in PER_CONNECTION)]
    assert noisy == []
    assert any(line["event"] == "room created" for line in lines), "the rest is still there"


async def test_debug_still_logs_each_connection_and_request() -> None:
    lines = await _lines_of_a_visit("debug")
    for word in ('"WebSocket /ws/rooms/', "connection open", '"GET /healthz'):
        seen = [line for line in lines if word in line["event"]]
        assert seen and {line["level"] for line in seen} == {"debug"}, (word, seen)


# -- the image's health check ----------------------------------------------------------------


def _healthcheck() -> str:
    """The Dockerfile's ``HEALTHCHECK`` command, as the shell form Docker runs it."""
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("HEALTHCHECK"))
    command = ""
    for line in lines[start:]:
        command += line.rstrip("\\").strip() + " "
        if not line.endswith("\\"):
            break
    return command.split(" CMD ", 1)[1].strip()


async def test_the_images_health_check_asks_the_port_the_server_listens_on() -> None:
    """The image's HEALTHCHECK asked 127.0.0.1:8000 whatever ``TABLEWIRE_PORT`` said: a
    container told to listen on another port was unhealthy for ever (and one whose port
    served nothing was reported healthy if something else answered on 8000)."""
    server = await SpawnedServer().start()
    try:
        env = {**os.environ, "TABLEWIRE_PORT": str(server.port), "PATH": f"{BIN}:/usr/bin:/bin"}
        env.pop("TABLEWIRE_HOST", None)
        healthy = await asyncio.create_subprocess_exec("sh", "-c", _healthcheck(), env=env)
        assert await healthy.wait() == 0
    finally:
        await server.stop(within=30)
    env["TABLEWIRE_PORT"] = str(free_port())  # nothing listens there
    unhealthy = await asyncio.create_subprocess_exec(
        "sh", "-c", _healthcheck(), env=env, stderr=subprocess.DEVNULL
    )
    assert await unhealthy.wait() != 0
