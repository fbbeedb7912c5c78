"""How ``tablewire bots`` and ``tablewire loadtest`` (:func:`clients.bots.play_seat`) take
a connection the server ends (docs/protocol.md §2, How a connection ends): a final code
ends the seat's run, counted as an error with a line; a code to retry fails over."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from handshakes import RefusedHandshakes

from clients import bots
from clients.bots import Summary, play_seat
from clients.client import LobbyClient, RoomClient
from clients.retry import DEFAULT_WAIT
from clients.spawn import free_port
from conftest import running
from engines.bots import RandomBot
from protocol import messages
from protocol.codec import encode
from server.room import Room
from server.settings import Settings

ENDING = 20
"""Seconds a seat's run may take to end once its connection is ended."""


async def _seated_bot(url: str) -> tuple[str, RoomClient]:
    """A bot's client on seat 2 of a two-seat room whose seat 1 never plays: it waits."""
    async with LobbyClient(url) as lobby:
        room_id = (await lobby.create_room("sintra", seats=2))["id"]
        await lobby.reserve(room_id, name="ana", seat=0)
        seat = await lobby.reserve(room_id, name="bot", seat=1)
    client = RoomClient(url.replace("http", "ws", 1), room_id, seat["token"])
    await client.connect()
    return room_id, client


async def _reconnected(client: RoomClient, summary: Summary, room: Room) -> None:
    """Wait until the bot has reconnected: each join changes its mirror (a snapshot)."""
    while not (summary.reconnects and room.conns):
        async with client._changed:
            await client._changed.wait()


@dataclass
class _Bot:
    room: Room
    client: RoomClient
    summary: Summary
    playing: asyncio.Task[bool]
    """The seat's run (:func:`play_seat`): False once it has ended."""


@contextlib.asynccontextmanager
async def _bot_playing() -> AsyncIterator[_Bot]:
    """A bot playing seat 2 of :func:`_seated_bot`'s room, its first document in; what the
    test does with it must be over within :data:`ENDING` seconds."""
    async with running(Settings()) as server:
        room_id, client = await _seated_bot(server.url)
        summary = Summary("sintra")
        playing = asyncio.create_task(play_seat(client, RandomBot(1), summary))
        try:
            async with asyncio.timeout(ENDING):
                await client.wait_for(lambda doc: True)
                yield _Bot(server.lobby.rooms[room_id], client, summary, playing)
        finally:
            await client.close()


async def test_a_room_closed_ends_the_seat_with_an_error_and_no_reconnect() -> None:
    async with _bot_playing() as bot:
        await bot.room.close()
        assert await bot.playing is False
    assert (bot.summary.errors, bot.summary.reconnects) == (1, 0)
    assert bot.summary.failures == [
        "seat 1: the server ended its connection: room_closed: room closed"
    ], bot.summary.failures


@pytest.mark.parametrize("code", ["internal_error", "too_slow"])
async def test_a_code_to_retry_reconnects_and_plays_on(code: str) -> None:
    async with _bot_playing() as bot:
        for conn in list(bot.room.conns):
            conn.close(code, "the server ended this connection")
        await _reconnected(bot.client, bot.summary, bot.room)
        assert not bot.playing.done()
        await bot.room.close()
        assert await bot.playing is False
    assert bot.summary.reconnects == 1 and bot.summary.errors == 1, bot.summary


@pytest.mark.parametrize("retry_after", [2.5, None])
async def test_a_fatal_rate_limited_reconnects_after_its_pause(
    retry_after: float | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    rests: list[tuple[float, bool]] = []

    async def rest(seconds: float) -> None:
        rests.append((seconds, bot.client.closed is None))  # None: connected again

    monkeypatch.setattr(bots, "rest", rest)
    async with _bot_playing() as bot:
        for conn in list(bot.room.conns):
            frame = messages.error("rate_limited", "slow", fatal=True, retry_after=retry_after)
            await conn.ws.send_bytes(encode(frame))
            await conn.ws.close(1008)
        await _reconnected(bot.client, bot.summary, bot.room)
        await bot.room.close()
        assert await bot.playing is False
    assert rests == [(retry_after or DEFAULT_WAIT, False)], rests


@pytest.mark.parametrize("close_code", [1002, 1007, 1009])
async def test_a_connection_closed_as_a_protocol_error_ends_the_seat(close_code: int) -> None:
    async with _bot_playing() as bot:
        for conn in list(bot.room.conns):
            await conn.ws.close(close_code)
        assert await bot.playing is False
    assert (bot.summary.errors, bot.summary.reconnects) == (1, 0)
    ended = "seat 1: the server ended its connection: protocol_error: WebSocket close code"
    assert bot.summary.failures[0].startswith(f"{ended} {close_code}"), bot.summary.failures


@pytest.mark.parametrize("close_code", [1002, 1007, 1009])
async def test_a_reconnect_closed_as_a_protocol_error_before_welcome_ends_the_seat(
    close_code: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    refusing = RefusedHandshakes(monkeypatch, close_code)
    async with _bot_playing() as bot:
        refusing.start()
        for conn in list(bot.room.conns):
            conn.close("too_slow", "the server ended this connection")  # a code to retry
        assert not await refusing.retried_or(bot.playing), bot.summary
        assert await bot.playing is False
    assert refusing.refused == 1
    assert (bot.summary.errors, bot.summary.reconnects) == (1, 1), bot.summary
    ended = "seat 1: the server ended its connection: protocol_error: "
    assert bot.summary.failures[0].startswith(ended), bot.summary.failures
    assert f"WebSocket close code {close_code}" in bot.summary.failures[0]


async def test_bots_whose_first_server_is_down_at_the_start_join_through_the_next() -> None:
    """``tablewire bots --server A,B`` with B down from the start (a replica that died
    before the run, as one that dies during it): the clients started on B failed their
    first join, Unreachable, and every room was an error, unplayed. A client fails over
    from its first join as from a lost connection; the lobby is A's."""
    async with running(Settings()) as server:
        down = f"http://127.0.0.1:{free_port()}"
        summary = await bots.run(f"{server.url},{down}", "sintra", rooms=2, players=2, bot="random")
    assert (summary.games_finished, summary.errors) == (2, 0), summary.failures


class _TurnMovedOn(RoomClient):
    """A client whose ``at``-th ``legal`` is asked once a move was made for its seat after
    the document the bot read (as a clock's move is): the server's answer is empty."""

    def __init__(self, *args: Any, at: int) -> None:
        super().__init__(*args)
        self.at = at
        self.asked = 0

    async def legal(self) -> list[dict[str, Any]]:
        self.asked += 1
        if self.asked != self.at:
            return await super().legal()
        moved = await self.intent((await super().legal())[0], self.new_intent_id())
        assert moved["t"] == "ack", moved
        return []


@pytest.mark.parametrize(
    ("engine", "seats", "options", "at"),
    [
        ("sintra", 2, {}, 1),
        # The last seat's third move is the game's twelfth and last: no version follows.
        ("turn-relay", 4, {"moves": 12}, 3),
    ],
)
async def test_an_empty_legal_answer_waits_for_the_next_version_and_plays_on(
    engine: str, seats: int, options: dict[str, Any], at: int
) -> None:
    """A bot given no legal action on its turn chose from an empty list: an IndexError
    ended its run (the helper that found the Redis Cluster race saw it possible). It
    waits for the version after the document it read, not after the one it holds now:
    when the move made for it ended the game, no later version comes."""
    async with running(Settings()) as server, LobbyClient(server.url) as lobby:
        room_id = (await lobby.create_room(engine, seats=seats, options=options))["id"]
        ws = server.url.replace("http", "ws", 1)
        tokens = [
            (await lobby.reserve(room_id, name=f"b{s}", seat=s))["token"] for s in range(seats)
        ]
        clients = [RoomClient(ws, room_id, token) for token in tokens[:-1]]
        clients.append(_TurnMovedOn(ws, room_id, tokens[-1], at=at))
        summary = Summary(engine)
        try:
            for client in clients:
                await client.connect()
            async with asyncio.timeout(ENDING):
                played = await asyncio.gather(
                    *(play_seat(c, RandomBot(s), summary) for s, c in enumerate(clients))
                )
        finally:
            for client in clients:
                await client.close()
    assert played == [True] * seats and summary.errors == 0, summary.failures
    assert clients[-1].asked >= at
