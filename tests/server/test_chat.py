"""Room chat over real WebSockets (docs/protocol.md §3, Chat): a line reaches everyone
in the room, on every process, and changes nothing else; refused lines change nothing;
who joins gets the recent lines."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from dataclasses import replace
from typing import Any

import httpx
import pytest
from wire import Raw, new_room

from clients.client import LobbyClient
from conftest import Running, running
from server.chat import HISTORY, Pace
from server.room import Room
from server.settings import Settings

GUARD = 30.0
"""Seconds a test may take at most (a guard against a hang, not a measurement)."""


async def next_chat(raw: Raw) -> dict[str, Any]:
    """The next ``chat`` frame (or a failure on an ``error`` first)."""
    while (frame := await raw.recv())["t"] != "chat":
        assert frame["t"] != "error", frame
    return frame


async def refused(raw: Raw, text: Any) -> str:
    """Say ``text``: the ``error`` it gets (a ``chat`` frame first fails the test)."""
    await raw.send({"t": "say", "text": text})
    while (frame := await raw.recv())["t"] != "error":
        assert frame["t"] != "chat", frame
    assert frame["of"] == "say" and not frame["fatal"], frame
    code: str = frame["code"]
    return code


async def gathered(
    stack: AsyncExitStack, server: Running, room_id: str, tokens: list[str]
) -> tuple[Raw, Raw, Raw, Room]:
    """Both players of a two-seat room and a spectator joined (closed with ``stack``),
    and the room."""
    ana = await stack.enter_async_context(Raw.joined(server, room_id, tokens[0]))
    bo = await stack.enter_async_context(Raw.joined(server, room_id, tokens[1]))
    watcher = await stack.enter_async_context(Raw.joined(server, room_id))
    room = server.lobby.room(room_id)
    assert room is not None
    return ana, bo, watcher, room


def texts(frame: dict[str, Any]) -> list[str]:
    return [line["text"] for line in frame["lines"]]


async def test_a_players_line_reaches_the_other_player_and_a_spectator_as_plain_text(
    server: Running,
) -> None:
    room_id, tokens = await new_room(server, seats=2)
    async with asyncio.timeout(GUARD), AsyncExitStack() as stack:
        ana, bo, watcher, room = await gathered(stack, server, room_id, tokens)
        before = (room.version, room.state)
        await ana.send({"t": "say", "text": "  good luck <b>all</b>  "})
        for raw in (ana, bo, watcher):
            frame = await next_chat(raw)
            assert "history" not in frame
            [line] = frame["lines"]
            assert (line["seat"], line["name"], line["text"]) == (0, "p0", "good luck <b>all</b>")
            assert isinstance(line["at"], float)
        assert (room.version, room.state) == before, "chat changes neither version nor game"
        async with httpx.AsyncClient() as http:
            record = (await http.get(f"{server.url}/api/rooms/{room_id}/record")).json()
        assert record["version"] == room.version and "good luck" not in str(record)


async def test_refused_lines_get_their_code_and_reach_nobody(server: Running) -> None:
    room_id, tokens = await new_room(server, seats=2)
    async with asyncio.timeout(GUARD), AsyncExitStack() as stack:
        ana, bo, watcher, room = await gathered(stack, server, room_id, tokens)
        version = room.version
        assert await refused(watcher, "psst: take the blue one") == "chat_not_allowed"
        assert await refused(ana, " \t ") == "chat_empty"
        assert await refused(ana, "x" * 301) == "chat_too_long"
        assert await refused(ana, "two\nlines") == "chat_bad_text"
        assert await refused(ana, "\u202egnp.exe") == "chat_bad_text"
        assert await refused(ana, ["not", "text"]) == "bad_field"
        await ana.send({"t": "say", "text": "x" * 300})
        assert texts(await next_chat(bo)) == ["x" * 300], "the refused lines reached nobody"
        assert room.version == version and not [line for line in room.chat if line["seat"] is None]


async def test_a_connection_saying_too_much_is_told_when_to_retry(server: Running) -> None:
    room_id, tokens = await new_room(server, seats=2)
    async with asyncio.timeout(GUARD), Raw.joined(server, room_id, tokens[0]) as ana:
        for n in range(Settings().chat_burst):
            await ana.send({"t": "say", "text": f"line {n}"})
            assert texts(await next_chat(ana)) == [f"line {n}"]
        await ana.send({"t": "say", "text": "one too many"})
        frame = await ana.recv()
        assert (frame["t"], frame["code"], frame["of"]) == ("error", "rate_limited", "say")
        assert 0 < frame["retry_after"] <= 5


async def test_spectators_chat_before_the_game_and_during_it_where_the_room_allows(
    server: Running,
) -> None:
    async with asyncio.timeout(GUARD):
        waiting, _ = await new_room(server, seats=2, fill=1)
        async with Raw.joined(server, waiting) as watcher:
            await watcher.send({"t": "say", "text": "may I play next?"})
            [line] = (await next_chat(watcher))["lines"]
            assert (line["seat"], line["name"]) == (None, "spectator")
        async with LobbyClient(server.url) as lobby:
            room = await lobby.create_room("sintra", seats=2, options={"spectator_chat": True})
            for name in ("ana", "bo"):
                await lobby.reserve(room["id"], name=name)
        async with Raw.joined(server, room["id"]) as watcher:
            await watcher.send({"t": "say", "text": "nice move"})
            assert texts(await next_chat(watcher)) == ["nice move"]


async def test_who_joins_gets_the_recent_lines_after_the_state(settings: Settings) -> None:
    async with (
        running(replace(settings, chat_rate=0, room_chat_rate=0)) as server,
        asyncio.timeout(GUARD),
    ):
        room_id, tokens = await new_room(server, seats=2)
        async with Raw.joined(server, room_id, tokens[0]) as ana:
            for n in range(HISTORY + 5):
                await ana.send({"t": "say", "text": f"line {n}"})
            for n in range(HISTORY + 5):
                assert texts(await next_chat(ana)) == [f"line {n}"]
        back = await Raw.open(server, room_id)
        try:
            await back.join(tokens[0], since=0)
            assert (await back.recv())["t"] in ("snapshot", "patch")
            frame = await next_chat(back)
        finally:
            await back.ws.close()
        assert frame["history"] is True
        assert texts(frame) == [f"line {n}" for n in range(5, HISTORY + 5)]


@pytest.mark.usefixtures("redis_url")
async def test_a_line_reaches_the_rooms_connections_on_another_process(
    redis_url: str, prefix: str, settings: Settings
) -> None:
    """Room owned by ``a``; a seat and a spectator on ``b``, which follows it."""
    shared = replace(settings, redis_url=redis_url, redis_prefix=prefix)
    async with (
        running(replace(shared, node="a")) as a,
        running(replace(shared, node="b")) as b,
        asyncio.timeout(GUARD),
        AsyncExitStack() as stack,
    ):
        room_id, tokens = await new_room(a, seats=2)
        ana = await stack.enter_async_context(Raw.joined(a, room_id, tokens[0]))
        bo = await stack.enter_async_context(Raw.joined(b, room_id, tokens[1]))
        watcher = await stack.enter_async_context(Raw.joined(b, room_id))
        replica = b.lobby.room(room_id)
        assert replica is not None and replica.lease is None, "b follows the room a owns"
        await bo.send({"t": "say", "text": "from b"})
        for raw in (ana, bo, watcher):
            assert texts(await next_chat(raw)) == ["from b"]
        await ana.send({"t": "say", "text": "from a"})
        for raw in (ana, bo, watcher):
            assert texts(await next_chat(raw)) == ["from a"]
        async with Raw.joined(b, room_id) as late:
            frame = await next_chat(late)
        assert frame["history"] is True and texts(frame) == ["from b", "from a"]


async def test_a_room_takes_no_more_lines_than_its_chat_rate_from_everyone_together(
    settings: Settings,
) -> None:
    """Many connections, each within its own rate and from addresses of their own, still
    say no more in one room than its chat rate lets them (spectators: half of
    ``room_chat_burst`` at once, then ``room_chat_rate`` a second): the next line is
    refused as ``rate_limited`` with ``retry_after``, reaches nobody and is not kept."""
    paced = replace(settings, room_chat_rate=0.001, room_chat_burst=6, address_factor=0)
    async with running(paced) as server, asyncio.timeout(GUARD), AsyncExitStack() as stack:
        waiting, _ = await new_room(server, seats=2, fill=1)
        watchers = [await stack.enter_async_context(Raw.joined(server, waiting)) for _ in range(4)]
        room = server.lobby.room(waiting)
        assert room is not None
        for n, speaker in enumerate(watchers[:3]):
            await speaker.send({"t": "say", "text": f"line {n}"})
            for raw in watchers:
                assert texts(await next_chat(raw)) == [f"line {n}"]
        before = (list(room.chat), room.version)
        await watchers[3].send({"t": "say", "text": "one too many"})
        frame = await watchers[3].recv()
        assert (frame["t"], frame["code"], frame["of"]) == ("error", "rate_limited", "say")
        assert frame["retry_after"] > 0 and not frame["fatal"]
        assert (list(room.chat), room.version) == before
        await watchers[0].send({"t": "ping", "data": 1})
        assert (await watchers[0].recv())["t"] == "pong", "the refused line reached nobody"


@pytest.mark.usefixtures("redis_url")
async def test_lines_said_on_another_process_count_against_the_rooms_chat_rate(
    redis_url: str, prefix: str, settings: Settings
) -> None:
    """The room's chat rate holds across processes: lines said on ``a`` use up what ``b``
    takes."""
    shared = replace(
        settings, redis_url=redis_url, redis_prefix=prefix, room_chat_rate=0.001, room_chat_burst=2
    )
    async with (
        running(replace(shared, node="a")) as a,
        running(replace(shared, node="b")) as b,
        asyncio.timeout(GUARD),
        AsyncExitStack() as stack,
    ):
        room_id, tokens = await new_room(a, seats=2)
        ana = await stack.enter_async_context(Raw.joined(a, room_id, tokens[0]))
        bo = await stack.enter_async_context(Raw.joined(b, room_id, tokens[1]))
        for n in range(2):
            await ana.send({"t": "say", "text": f"from a {n}"})
            for raw in (ana, bo):
                assert texts(await next_chat(raw)) == [f"from a {n}"]
        assert await refused(bo, "from b") == "rate_limited"


async def test_spectators_saying_all_they_may_leave_the_players_half_the_rooms_chat(
    settings: Settings,
) -> None:
    """Spectators together take a room's chat down to half its burst at most, so that a
    crowd of them (many addresses) cannot silence the players: their next line is
    refused, a player's is still taken."""
    paced = replace(settings, room_chat_rate=0.001, room_chat_burst=4, address_factor=0)
    async with running(paced) as server, asyncio.timeout(GUARD), AsyncExitStack() as stack:
        room_id, tokens = await new_room(server, seats=2, fill=1)
        ana = await stack.enter_async_context(Raw.joined(server, room_id, tokens[0]))
        watchers = [await stack.enter_async_context(Raw.joined(server, room_id)) for _ in range(3)]
        for n, speaker in enumerate(watchers[:2]):
            await speaker.send({"t": "say", "text": f"crowd {n}"})
            for raw in (ana, watchers[2]):
                assert texts(await next_chat(raw)) == [f"crowd {n}"]
        assert await refused(watchers[2], "crowd 2") == "rate_limited"
        for n in range(2):
            await ana.send({"t": "say", "text": f"ana {n}"})
            assert texts(await next_chat(ana)) == [f"ana {n}"]
        assert await refused(ana, "ana 2") == "rate_limited"


@pytest.mark.parametrize("burst", [1, 2, 3, 20])
def test_a_spectator_may_always_say_a_line_to_a_quiet_room(burst: int) -> None:
    """Whatever the burst (1 too), the half kept for the players leaves a quiet room a
    line for a spectator: half the burst is rounded down."""
    pace = Pace(Settings(room_chat_rate=0.001, room_chat_burst=burst), now=0.0)
    assert pace.refusal(0.0, None) is None
    assert sum(pace.refusal(0.0, None) is None for _ in range(burst)) == burst - burst // 2 - 1
