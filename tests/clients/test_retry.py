"""The clients wait out the server's limits (clients/retry.py): ``tablewire bots`` and
``loadtest`` against a server with a tiny room limit, the Python SDK's lobby and room
clients, and a server that keeps refusing (one line, exit status 4)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest
from cli_runs import one_line, run

from clients.client import LobbyClient, LobbyError, RoomClient
from clients.exits import Status
from clients.retry import (
    DEFAULT_WAIT,
    UNAVAILABLE_WAIT,
    Patience,
    Wait,
    frame_refusal,
    http_refusal,
)
from clients.spawn import SpawnedServer
from conftest import Running
from server.settings import Settings

TINY_ROOM_LIMIT = {"room_rate": 1, "room_burst": 2}
"""Two rooms at once, then one a second: a client creating four waits about 2 s."""


@pytest.fixture
async def limited() -> AsyncIterator[str]:
    """``tablewire serve`` with :data:`TINY_ROOM_LIMIT`: its ``host:port``."""
    server = await SpawnedServer(**TINY_ROOM_LIMIT).start()
    yield f"127.0.0.1:{server.port}"
    await server.stop()


@pytest.fixture
def settings() -> Settings:
    """The in-loop server of conftest: one room, then one a second; one intent a second."""
    return Settings(room_rate=1, room_burst=1, intent_rate=1, intent_burst=1)


@pytest.fixture
def store_kind() -> str:
    return "memory"


async def test_bots_wait_for_the_room_limit_and_finish_every_game(limited: str) -> None:
    code, out, err = await run(
        "bots", "--server", limited, "--rooms", "4", "--players", "2", "--timeout", "120"
    )
    summary = json.loads(out)
    assert code == Status.OK, err
    assert (summary["rooms"], summary["games_finished"], summary["errors"]) == (4, 4, 0)
    assert "tablewire: server busy (rate_limited): waiting 1 s" in err.splitlines()
    assert "Traceback" not in err


async def test_loadtest_waits_for_the_room_limit(limited: str) -> None:
    code, out, err = await run(
        "loadtest", "--server", limited, "--game", "sintra", "--rooms", "3", "--players", "2"
    )
    result = json.loads(out)
    assert code == Status.OK, err
    assert (result["games_finished"], result["errors"]) == (3, 0)
    assert "tablewire: server busy (rate_limited): waiting 1 s" in err


async def test_a_server_that_keeps_refusing_is_one_line_and_exit_status_4() -> None:
    # Retry-After 600 s is past the clients' patience: no wait, one clear line.
    server = await SpawnedServer(room_rate=1 / 600, room_burst=1).start()
    try:
        served = f"127.0.0.1:{server.port}"
        assert (await run("new", "--server", served))[0] == Status.OK
        code, out, err = await run("bots", "--server", served, "--players", "2")
    finally:
        await server.stop()
    assert code == Status.REFUSED and out == ""
    line = one_line(err)
    assert line.startswith("tablewire: the server refused: too many rooms created")
    assert "(rate_limited). The server's limit holds longer than tablewire waits" in line


async def test_the_lobby_client_waits_and_creates_the_room(server: Running) -> None:
    waits: list[Wait] = []
    async with LobbyClient(server.url, on_wait=waits.append) as lobby:
        first = await lobby.create_room("sintra", seats=2)
        second = await lobby.create_room("sintra", seats=2)
        seat = await lobby.quickplay("chartered", seats=3)  # opens a room: limited too
    assert first["id"] != second["id"] and seat["token"]
    assert [(w.what, w.code, w.attempt) for w in waits] == [
        ("POST /api/rooms", "rate_limited", 1),
        ("POST /api/quickplay", "rate_limited", 1),
    ]
    assert all(w.seconds > 0 for w in waits)


async def test_the_lobby_client_gives_up_past_its_patience(server: Running) -> None:
    waits: list[Wait] = []
    async with LobbyClient(server.url, on_wait=waits.append) as lobby:
        await lobby.create_room("sintra")
        for patience in (Patience(attempts=1), Patience(within=0.5)):  # Retry-After: 1
            lobby.patience = patience
            with pytest.raises(LobbyError) as refused:
                await lobby.create_room("sintra")
            assert (refused.value.status, refused.value.code) == (429, "rate_limited")
    assert waits == [], "neither allows a wait of 1 s"


async def test_a_refusal_after_waiting_says_how_long_it_waited(server: Running) -> None:
    waits: list[Wait] = []
    async with LobbyClient(
        server.url, patience=Patience(attempts=2), on_wait=waits.append
    ) as lobby:
        await lobby.create_room("sintra")
        # Both wait a second; one room is allowed then: the other is refused a second time.
        both = [lobby.create_room("sintra"), lobby.create_room("sintra")]
        outcomes = await asyncio.gather(*both, return_exceptions=True)
    refused = [o for o in outcomes if isinstance(o, LobbyError)]
    assert len(refused) == 1 and len(waits) == 2
    assert refused[0].code == "rate_limited"
    # The wait is the server's retry_after: about a second, less if the bucket refilled
    # in between (a busy machine).
    said = {f"(still refused after 1 waits, {round(wait.seconds, 1):g} s)" for wait in waits}
    assert any(refused[0].message.endswith(ending) for ending in said), refused[0].message
    assert all(0 < wait.seconds <= 1 for wait in waits)


async def test_the_room_client_sends_a_rate_limited_intent_again(server: Running) -> None:
    async with LobbyClient(server.url) as lobby:
        room = await lobby.create_room("sintra", seats=2)
        seat = await lobby.reserve(room["id"], name="ana")
    waits: list[Wait] = []
    async with RoomClient(server.ws, room["id"], seat["token"], on_wait=waits.append) as client:
        first = await client.intent({"not": "an action"})
        second = await client.intent({"not": "an action"})  # over 1 a second: waits
    assert first["t"] == second["t"] == "reject"
    assert first["code"] == second["code"] == "not_started"
    assert [(w.what, w.code) for w in waits] == [("intent", "rate_limited")]
    assert client.reject_codes["rate_limited"] == 1
    assert client.waits == {"rate_limited": 1}, "the client counts what it waited out"


def test_the_wait_is_the_body_s_then_the_header_s_then_one_second() -> None:
    def answer(status: int, body: object, headers: dict[str, str] | None = None) -> httpx.Response:
        return httpx.Response(status, json=body, headers=headers)

    error = {"code": "rate_limited", "message": "slow down"}
    both = answer(429, {"error": {**error, "retry_after": 2.5}}, {"Retry-After": "3"})
    assert http_refusal(both) == ("rate_limited", 2.5)
    assert http_refusal(answer(429, {"error": error}, {"Retry-After": "3"})) == ("rate_limited", 3)
    assert http_refusal(answer(429, {"error": error})) == ("rate_limited", DEFAULT_WAIT)
    full = {"error": {"code": "too_many_rooms", "message": "full"}}
    assert http_refusal(answer(503, full, {"Retry-After": "30"})) == ("too_many_rooms", 30)
    down = {"error": {"code": "store_unavailable", "message": "retry"}}
    assert http_refusal(answer(503, down)) is None, "a 503 without Retry-After is not a wait"
    assert http_refusal(answer(409, {"error": {"code": "room_full", "message": ""}})) is None
    frame = {"t": "reject", "id": 1, "code": "rate_limited", "message": "slow down"}
    assert frame_refusal({**frame, "retry_after": 0.25}) == ("rate_limited", 0.25)
    assert frame_refusal(frame) == ("rate_limited", DEFAULT_WAIT)
    assert frame_refusal({**frame, "t": "error", "fatal": True}) is None
    assert frame_refusal({**frame, "code": "not_your_turn"}) is None
    for code in ("store_unavailable", "owner_unavailable"):
        assert frame_refusal({**frame, "code": code}) == (code, UNAVAILABLE_WAIT)
        said = {**frame, "code": code, "retry_after": 2}
        assert frame_refusal(said) == (code, 2), "the reject's own wait, where it says one"
        assert frame_refusal({**frame, "t": "error", "code": code, "fatal": False}) is None
        assert str(Wait("intent", code, UNAVAILABLE_WAIT, 1)).startswith("the room's server")


def test_only_noticeable_waits_are_told_and_at_most_one_every_few_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from clients import retry
    from clients.retry import Wait, WaitNotices

    now = [100.0]
    monkeypatch.setattr(retry.time, "monotonic", lambda: now[0])
    lines: list[str] = []
    notices = WaitNotices(lines.append)
    for _ in range(1000):  # intents sent again at once: not a wait anyone notices
        notices(Wait("intent", "rate_limited", 0.0, 1))
    assert lines == []
    notices(Wait("POST /api/rooms", "rate_limited", 1.0, 1))
    now[0] += 1
    notices(Wait("POST /api/rooms", "rate_limited", 2.0, 2))
    assert lines == ["tablewire: server busy (rate_limited): waiting 1 s"]
    now[0] += 5
    notices(Wait("POST /api/rooms", "rate_limited", 2.0, 3))
    assert lines[-1] == "tablewire: server busy (rate_limited): waiting 2 s" and len(lines) == 2
