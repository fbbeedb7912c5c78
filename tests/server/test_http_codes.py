"""Every code of docs/protocol.md's "HTTP codes" table, provoked for real.

The table is read from the document itself: each row's status and codes. :data:`CASES`
maps each code to a trigger that runs a real server (:func:`conftest.running`, with
settings of its own where the code needs them), sends it real HTTP requests and
returns the answer that carries the code; the test checks the code and that the
status is one the table gives it. A code added to the table without a case fails
:func:`test_every_code_of_the_table_has_a_case`, and so does a case for a code the
table does not list. To cover a new code: add its row to the table and one trigger
here (``@case("code")``, or :func:`refused` for a single request).
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

import httpx
import pytest
from wire import Raw

from clients import bots
from clients.client import LobbyClient, RoomClient
from conftest import Running, redis_server
from engines.bots import RandomBot
from server.errors import UNAVAILABLE_RETRY
from support import CodeEnv, Trigger, Triggers, code_env, codes_in, table_rows

__all__ = ["code_env"]  # the fixture, used through ``env``

GUARD = 30.0
"""Seconds a case may take at most (a guard against a hang, not a measurement)."""

TABLE = "HTTP codes"


def table_statuses() -> dict[str, set[int]]:
    """Each code of the table and the statuses its rows give it (``400 / 403``: both)."""
    statuses: dict[str, set[int]] = {}
    for status, codes, *_ in table_rows(TABLE):
        for code in codes_in(codes):
            statuses.setdefault(code, set()).update(int(s) for s in status.split("/"))
    return statuses


CASES: Triggers[httpx.Response] = Triggers()
"""Each code of the table, and the trigger that provokes it."""
case = CASES.case

UNTESTABLE: dict[str, str] = {}
"""Codes of the table that cannot be provoked without a mock, each with the reason. None
today: every code has a real trigger; keep it so."""


def http(server: Running, **options: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=server.url, **options)


def refused(method: str, path: str, **request: Any) -> Trigger[httpx.Response]:
    """A trigger: this one request to a new server with the default settings."""

    async def trigger(env: CodeEnv) -> httpx.Response:
        async with env.serve() as server, http(server) as client:
            return await client.request(method, path, **request)

    return trigger


def created(body: dict[str, Any]) -> Trigger[httpx.Response]:
    """A trigger: ``POST /api/rooms`` with ``body`` (JSON)."""
    return refused("POST", "/api/rooms", json=body)


def sintra(**fields: Any) -> dict[str, Any]:
    return {"engine": "sintra", **fields}


CASES.update(
    {
        "bad_json": refused("POST", "/api/rooms", content=b"{not json"),
        "body_too_large": refused("POST", "/api/rooms", content=b"{" + b" " * 20000 + b"}"),
        "unknown_engine": created({"engine": "chess"}),
        "bad_seats": created(sintra(seats=5)),
        "bad_options": created(sintra(options={"side": "C"})),
        "bad_seed": created(sintra(seed=-1, private=True)),
        "seed_needs_private": created(sintra(seed=1)),
        "bad_limit": refused("GET", "/api/rooms", params={"limit": "0"}),
        "bad_cursor": refused("GET", "/api/rooms", params={"after": "not a cursor"}),
        "bad_private": created(sintra(private="yes")),
        "bad_status": refused("GET", "/api/rooms", params={"status": "sleeping"}),
        "bad_kind": refused("GET", "/api/games", params={"kind": "toys"}),
        "no_such_room": refused("GET", "/api/rooms/nosuchroom"),
        "bad_views": refused("GET", "/api/rooms/nosuchroom/record", params={"views": "yes"}),
        "bad_kept": refused("GET", "/api/rooms/nosuchroom/record", params={"kept": "yes"}),
        "bad_clock": created(sintra(options={"clock": "move:1"})),
        "bad_bot_delay": created(sintra(options={"bot_delay": 31})),
        "bad_grace": created(sintra(options={"grace": 7200})),
        "bad_expel_after": created(sintra(options={"expel_after": 101})),
        "bad_abandon_after": created(sintra(options={"abandon_after": 5})),
        "bad_idle": created(sintra(options={"idle": 10})),
        "bad_confirm": created(sintra(options={"confirm": "yes"})),
        "bad_spectator_chat": created(sintra(options={"spectator_chat": 1})),
        "bad_bots": created(sintra(bots=[1])),
        "bad_bot_kind": created(sintra(bots={"kind": "clever"})),
        "bad_host": refused("GET", "/api/games", headers={"host": "rebinding.example"}),
        "cross_origin": refused(
            "POST", "/api/rooms", json=sintra(), headers={"origin": "https://elsewhere.example"}
        ),
        "bad_idempotency_key": refused(
            "POST", "/api/quickplay", json=sintra(), headers={"idempotency-key": "too short"}
        ),
        "not_found": refused("GET", "/api/nothing-here"),
        "method_not_allowed": refused("DELETE", "/api/rooms"),
    }
)


async def new_room(client: httpx.AsyncClient, **fields: Any) -> str:
    answer = await client.post("/api/rooms", json=sintra(seats=2, **fields))
    assert answer.status_code == 201, answer.text
    room_id: str = answer.json()["id"]
    return room_id


async def seat(client: httpx.AsyncClient, room_id: str, **fields: Any) -> httpx.Response:
    return await client.post(f"/api/rooms/{room_id}/seats", json=fields)


@case("bad_seat")
async def bad_seat(env: CodeEnv) -> httpx.Response:
    async with env.serve() as server, http(server) as client:
        return await seat(client, await new_room(client), seat=9)


@case("bad_name")
async def bad_name(env: CodeEnv) -> httpx.Response:
    async with env.serve() as server, http(server) as client:
        return await seat(client, await new_room(client), name="two\nlines")


@case("seat_taken")
async def seat_taken(env: CodeEnv) -> httpx.Response:
    async with env.serve() as server, http(server) as client:
        room_id = await new_room(client)
        assert (await seat(client, room_id, seat=0)).status_code == 201
        return await seat(client, room_id, seat=0)


@case("name_taken")
async def name_taken(env: CodeEnv) -> httpx.Response:
    async with env.serve() as server, http(server) as client:
        room_id = await new_room(client)
        assert (await seat(client, room_id, name="ana")).status_code == 201
        return await seat(client, room_id, name="ANA")


@case("room_full")
async def room_full(env: CodeEnv) -> httpx.Response:
    async with env.serve() as server, http(server) as client:
        room_id = await new_room(client)
        for _ in range(2):
            assert (await seat(client, room_id)).status_code == 201
        return await seat(client, room_id)


async def finished_room(server: Running) -> str:
    """A room of bots alone that played its game to the end (its spectator saw the
    result)."""
    async with LobbyClient(server.url) as lobby:
        options = {"moves": 12, "bot_delay": 0}
        room = await lobby.create_room("turn-relay", seats=4, options=options)
        await lobby.add_bots(room["id"], "random")
    raw = await Raw.open(server, room["id"])
    try:
        await raw.join()
        await raw.recv_until("result")
    finally:
        await raw.ws.close()
    room_id: str = room["id"]
    return room_id


@case("game_over")
async def game_over(env: CodeEnv) -> httpx.Response:
    async with env.serve() as server, http(server) as client:
        return await seat(client, await finished_room(server))


@case("record_trimmed")
async def record_trimmed(env: CodeEnv) -> httpx.Response:
    async with env.serve(memory_log=1, snapshot_every=4) as server, http(server) as client:
        return await client.get(f"/api/rooms/{await finished_room(server)}/record")


async def played_game(server: Running) -> tuple[str, list[str]]:
    """A game of two people (played here by bot clients) and two server bots, over: the
    room and the people's seat tokens."""
    async with LobbyClient(server.url) as lobby:
        options = {"moves": 12, "bot_delay": 0}
        room = await lobby.create_room("turn-relay", seats=4, options=options)
        tokens = [(await lobby.reserve(room["id"], name=name))["token"] for name in ("ana", "bo")]
        await lobby.add_bots(room["id"], "random")

    async def play(token: str) -> None:
        async with RoomClient(server.ws, room["id"], token) as me:
            await bots.play_seat(me, RandomBot(1), bots.Summary("turn-relay"))

    await asyncio.gather(*(play(token) for token in tokens))
    room_id: str = room["id"]
    return room_id, tokens


@case("not_finished")
async def not_finished(env: CodeEnv) -> httpx.Response:
    async with env.serve() as server, http(server) as client:
        rematch = f"/api/rooms/{await new_room(client)}/rematch"
        return await client.post(rematch, json={"token": "any"})


@case("player_required")
async def player_required(env: CodeEnv) -> httpx.Response:
    async with env.serve() as server, http(server) as client:
        return await client.post(f"/api/rooms/{await finished_room(server)}/rematch", json={})


@case("seat_held")
async def seat_held(env: CodeEnv) -> httpx.Response:
    """A stranger asks for a seat of a rematch while its player's hold lasts."""
    async with env.serve() as server, http(server) as client:
        room_id, tokens = await played_game(server)
        again = await client.post(f"/api/rooms/{room_id}/rematch", json={"token": tokens[0]})
        assert again.status_code == 201, again.text
        held = (await client.get(f"/api/rooms/{again.json()['id']}")).json()
        assert held["held"] == [True, True, False, False] and held["names"][:2] == ["ana", None]
        answer = await seat(client, held["id"], name="bo")
        assert 0 < answer.json()["error"]["retry_after"] <= 120
        return answer


@case("owner_required")
async def owner_required(env: CodeEnv) -> httpx.Response:
    async with env.serve() as server, http(server) as client:
        return await client.post(f"/api/rooms/{await new_room(client)}/bots", json={})


@case("invite_required")
async def invite_required(env: CodeEnv) -> httpx.Response:
    async with env.serve() as server, http(server) as client:
        return await seat(client, await new_room(client, private=True), name="<b>eve</b>")


@case("bad_token")
async def bad_token(env: CodeEnv) -> httpx.Response:
    async with env.serve() as server, http(server) as client:
        room_id = await finished_room(server)
        return await client.post(f"/api/rooms/{room_id}/rematch", json={"token": "nobody"})


@case("rate_limited")
async def rate_limited(env: CodeEnv) -> httpx.Response:
    async with env.serve(http_rate=0.001, http_burst=1) as server, http(server) as client:
        assert (await client.get("/api/games")).status_code == 200
        answer = await client.get("/api/games")
        delay = answer.json()["error"]["retry_after"]
        assert delay > 0 and answer.headers["retry-after"] == str(math.ceil(delay))
        return answer


@case("too_many_rooms")
async def too_many_rooms(env: CodeEnv) -> httpx.Response:
    async with env.serve(max_rooms=1) as server, http(server) as client:
        await new_room(client)
        answer = await client.post("/api/rooms", json=sintra())
        assert int(answer.headers["retry-after"]) > 0
        return answer


@case("store_unavailable")
async def store_unavailable(env: CodeEnv) -> httpx.Response:
    """A server whose Redis went away (a server cannot start without it: exit 3)."""
    redis = redis_server("--save", "", "--appendonly", "no")
    redis.start()
    try:
        settings = {"redis_url": redis.url, "redis_prefix": env.prefix}
        async with env.serve(**settings) as server, http(server) as client:
            redis.stop()
            answer = await client.get("/api/rooms")
            wait = (answer.headers["retry-after"], answer.json()["error"]["retry_after"])
            assert wait == ("1", UNAVAILABLE_RETRY), "a pause: clients send it again soon"
            return answer
    finally:
        redis.cleanup()


@case("owner_unavailable")
async def owner_unavailable(env: CodeEnv) -> httpx.Response:
    """A seat requested from process ``b``; the room's owner, process ``a``, frozen."""

    async def room(url: str) -> str:
        async with LobbyClient(url) as lobby:
            room_id: str = (await lobby.create_room("sintra", seats=2))["id"]
            return room_id

    async with (
        env.frozen_owner(room) as room_id,
        env.follower() as follower,
        http(follower) as client,
    ):
        answer = await seat(client, room_id)
        assert "retry-after" not in answer.headers, "it may have been served: not to repeat"
        return answer


@case("internal")
async def internal(env: CodeEnv) -> httpx.Response:
    """An engine whose setup has a bug: taking the last seat starts the game."""
    engine = env.faulty_engine("setup")
    async with env.serve() as server, http(server) as client:
        room_id = (await client.post("/api/rooms", json={"engine": engine})).json()["id"]
        for _ in range(3):
            assert (await seat(client, room_id)).status_code == 201
        return await seat(client, room_id)


@pytest.fixture
def env(code_env: CodeEnv) -> CodeEnv:
    return code_env


@pytest.mark.parametrize("code", sorted(CASES))
async def test_the_code_is_provoked_for_real(code: str, env: CodeEnv) -> None:
    async with asyncio.timeout(GUARD):
        answer = await CASES[code](env)
    assert answer.headers["content-type"] == "application/json"
    error = answer.json()["error"]
    assert error["code"] == code, answer.text
    assert isinstance(error["message"], str) and error["message"]
    assert answer.status_code in table_statuses()[code], answer.text


def test_every_code_of_the_table_has_a_case() -> None:
    CASES.check_coverage(set(table_statuses()), UNTESTABLE)
