"""Chat in ``tablewire play`` against a real server: a line typed at the prompt reaches
the other seat's connection and shows on the player's own screen; a line the room
refuses is told with its code and changes nothing of the game."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator

import pytest
from cli_runs import run
from rich.console import Console

from clients.bots import Summary, play_seat
from clients.client import LobbyClient, RoomClient
from clients.seating import SeatRequest
from clients.spawn import SpawnedServer
from clients.terminal import play
from engines.bots import RandomBot


class Talker:
    """A player who says its lines first, then answers 1 to every prompt (piped in)."""

    echoes = False

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def discard(self) -> None:
        pass

    async def ended(self) -> None:
        await asyncio.Future()  # answers never run out

    async def line(self) -> str | None:
        await asyncio.sleep(0)
        return self.lines.pop(0) if self.lines else "1"


@pytest.fixture
async def server() -> AsyncIterator[SpawnedServer]:
    spawned = await SpawnedServer().start()
    yield spawned
    await spawned.stop()


async def test_a_line_said_at_the_prompt_reaches_the_room(server: SpawnedServer) -> None:
    async with LobbyClient(server.url) as lobby:
        room = await lobby.create_room("sintra", seats=2)
        seat = await lobby.reserve(room["id"], name="bot", seat=1)
    other = RoomClient(server.ws, room["id"], seat["token"])
    await other.connect()
    out = io.StringIO()
    console = Console(file=out, width=80, height=24, color_system=None)
    said = ["/say [b]good luck[/b]", "/say " + "x" * 301]
    try:
        bot = asyncio.create_task(play_seat(other, RandomBot(1), Summary("sintra")))
        request = SeatRequest(room=room["id"], name="ana")
        async with asyncio.timeout(120):
            result = await play(server.url, request, console, Talker(said), 10.0)
            await bot
        assert sorted(result["ranks"]) in ([1, 2], [1, 1])
        assert [(line["name"], line["text"]) for line in other.chat] == [
            ("ana", "[b]good luck[/b]")
        ]
        shown = out.getvalue()
        assert "ana: [b]good luck[/b]" in shown
        assert "(chat_too_long)" in shown
    finally:
        await other.close()


async def test_a_line_piped_in_is_echoed_without_its_escape_sequences(server_at: str) -> None:
    """Piped in, a typed line is printed after its prompt for the transcript: as it came,
    its escape sequences reached the terminal (here a cleared screen)."""
    code, out, err = await run(
        "play", "--server", server_at, "--bots", "1", stdin=b"\x1b[2J\x07/say hi\n"
    )
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out, out
    assert "[2J/say hi" in out, out
