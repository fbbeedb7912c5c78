"""``tablewire play`` when the server goes away mid-game: it reconnects and goes on, says
when the room did not survive, and gives up after a bounded time."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator

import pytest
from rich.console import Console

from clients.bots import Summary, play_seat
from clients.client import LobbyClient, RoomClient, ServerError, Unreachable
from clients.seating import SeatRequest
from clients.spawn import SpawnedServer
from clients.terminal import RoomClosed, play
from engines.bots import RandomBot


class Typist:
    """A player who answers 1 to every prompt (the first move, or the first group), as
    answers piped in: read at the player's prompts only (a terminal's keyboard is read
    between turns too, for ``/say``)."""

    echoes = False

    def discard(self) -> None:
        pass

    async def ended(self) -> None:
        await asyncio.Future()  # answers never run out

    async def line(self) -> str | None:
        await asyncio.sleep(0)
        return "1"


class Table:
    """ana plays seat 1 of a two-seat Sintra room from the terminal client; a bot plays
    seat 2 through its own connection (which fails over by itself)."""

    def __init__(self, server: SpawnedServer, reconnect_for: float = 60.0) -> None:
        self.server = server
        self.reconnect_for = reconnect_for
        self.out = io.StringIO()
        self.console = Console(file=self.out, width=80, height=24, color_system=None)
        self.bot: RoomClient | None = None

    async def start(self) -> tuple[asyncio.Task[object], asyncio.Task[None]]:
        async with LobbyClient(self.server.url) as lobby:
            room = await lobby.create_room("sintra", seats=2)
            seat = await lobby.reserve(room["id"], name="bot", seat=1)
        self.bot = RoomClient(self.server.ws, room["id"], seat["token"])
        await self.bot.connect()
        bot = asyncio.create_task(play_seat(self.bot, RandomBot(1), Summary("sintra")))
        request = SeatRequest(room=room["id"], name="ana")
        player = asyncio.create_task(
            play(self.server.url, request, self.console, Typist(), self.reconnect_for)
        )
        await self.bot.wait_version(10)  # seated, started, a few moves each
        return player, bot

    async def close(self) -> None:
        if self.bot is not None:
            await self.bot.close()


@pytest.fixture
async def memory_server() -> AsyncIterator[SpawnedServer]:
    server = await SpawnedServer().start()
    yield server
    await server.stop()


async def test_play_reconnects_through_a_server_restart_and_finishes_the_game(
    redis_url: str, prefix: str
) -> None:
    settings = {"redis_url": redis_url, "redis_prefix": prefix, "lease_ttl": 1.0}
    server = await SpawnedServer(**settings).start()
    table = Table(server)
    restarted = None
    try:
        player, bot = await table.start()
        await server.stop()
        restarted = await SpawnedServer(server.port, **settings).start()
        async with asyncio.timeout(120):
            result = await player
            await bot
        assert isinstance(result, dict) and sorted(result["ranks"]) in ([1, 2], [1, 1])
        shown = table.out.getvalue()
        print(shown[shown.index("Lost the server") - 2000 : shown.index("Reconnected.") + 1500])
        assert "Lost the server" in shown and "Reconnected." in shown
        assert "wins." in shown or "share the win." in shown
    finally:
        await table.close()
        await server.stop()
        if restarted is not None:
            await restarted.stop()


async def test_a_room_the_restart_lost_is_said_plainly(memory_server: SpawnedServer) -> None:
    table = Table(memory_server)
    player, bot = await table.start()
    await memory_server.stop()
    restarted = await SpawnedServer(memory_server.port).start()
    try:
        with pytest.raises(ServerError) as gone:
            await player
        assert gone.value.code == "room_gone" and "--redis-url" in gone.value.frame["message"]
    finally:
        bot.cancel()
        await asyncio.gather(bot, return_exceptions=True)
        await table.close()
        await restarted.stop()


async def test_play_gives_up_after_its_bound_and_says_how_to_come_back(
    memory_server: SpawnedServer,
) -> None:
    table = Table(memory_server, reconnect_for=0.5)
    player, bot = await table.start()
    await memory_server.stop()
    try:
        with pytest.raises(Unreachable) as unreachable:
            await player
        assert "has not come back for 0.5 s" in unreachable.value.reason
        shown = table.out.getvalue()
        assert "reconnecting for up to 0.5 s" in shown
        last = shown.split("reconnecting")[-1]
        assert "To come back: tablewire play --server=" in last and " --token=" in last
    finally:
        bot.cancel()
        await asyncio.gather(bot, return_exceptions=True)
        await table.close()


async def test_a_room_the_server_removed_ends_play_without_reconnecting() -> None:
    """A room removed while a player waited in it (``waiting_ttl``) was taken for a lost
    server: "reconnecting for up to 60 s", then "the server restarted without keeping
    it". A ``room_closed`` is the end of the room (docs/protocol.md, 2): said as such."""
    server = await SpawnedServer(waiting_ttl=0.5, sweep_interval=0.1).start()
    out = io.StringIO()
    console = Console(file=out, width=80, height=24, color_system=None)
    try:
        async with LobbyClient(server.url) as lobby:
            room = await lobby.create_room("sintra", seats=2)
        request = SeatRequest(room=room["id"], name="ana")
        with pytest.raises(RoomClosed) as closed:
            await play(server.url, request, console, Typist())
        assert "nobody took all its seats" in str(closed.value)
        assert "reconnecting" not in out.getvalue() and "Waiting for players" in out.getvalue()
    finally:
        await server.stop()
