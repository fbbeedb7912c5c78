"""What ``tablewire serve`` logs at ``info`` as clients come and go (docs/operations.md,
"How connections end"): nothing per connection or per request."""

from __future__ import annotations

import json
from typing import Any

import httpx

from clients.client import LobbyClient, RoomClient
from clients.spawn import SpawnedServer

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
