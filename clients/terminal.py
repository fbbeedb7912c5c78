"""``tablewire play`` and ``tablewire spectate``: the terminal clients.

``play`` takes a seat (with a token, a room id, or quick play), redraws the
view on every change, and on the seat's turn lists the legal actions,
numbered, and sends the one typed. ``spectate`` only redraws.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.columns import Columns
from rich.console import Console

from clients.client import LobbyClient, RoomClient, ws_url
from clients.render import render


async def _choose(console: Console, moves: list[tuple[dict[str, Any], str]]) -> dict[str, Any]:
    """List the moves, numbered; a number picks one, words narrow the list."""
    actions = [action for action, _ in moves]
    described = [(i, label.lower()) for i, (_, label) in enumerate(moves, 1)]
    words: list[str] = []
    while True:
        shown = [(i, text) for i, text in described if all(w in text for w in words)]
        console.print(
            Columns(
                [f"[bold]{i:>3}[/bold] {text}" for i, text in shown],
                column_first=True,
                padding=(0, 3),
            )
            if shown
            else "[red]no move matches those words[/red]"
        )
        answer = await asyncio.to_thread(
            input, f"move number (1-{len(actions)}), or words to narrow the list: "
        )
        answer = answer.strip().lower()
        if answer.isdigit() and 1 <= int(answer) <= len(actions):
            return actions[int(answer) - 1]
        words = answer.split()


async def _take_turn(client: RoomClient, console: Console) -> None:
    """Ask for a move until one is accepted, then wait until the mirror shows it."""
    while True:
        reply = await client.intent(await _choose(console, await client.moves()))
        if reply["t"] == "ack":
            await client.wait_version(reply["v"])
            return
        console.print(f"[red]rejected: {reply['code']}: {reply['message']}[/red]")


async def _follow(client: RoomClient, console: Console, play: bool) -> dict[str, Any] | None:
    """Redraw on every version; when ``play`` and it is our turn, ask for a move."""
    engine = client.welcome["engine"]
    shown = -1
    while True:
        doc = await client.wait_version(shown + 1)
        shown = client.version or 0
        render(console, engine, doc, client.seat)
        if doc["status"] == "finished":
            result = await client.wait_result()
            console.print(f"[bold]Game over:[/bold] {result}")
            return result
        if play and client.seat in doc["to_act"]:
            await _take_turn(client, console)


async def play(
    server: str,
    room_id: str | None,
    token: str | None,
    name: str | None,
    game: str,
    console: Console | None = None,
) -> dict[str, Any] | None:
    """Play one seat of a room from the terminal until the game ends."""
    console = console or Console()
    if token is None:
        async with LobbyClient(server) as lobby:
            seat = (
                await lobby.reserve(room_id, name=name)
                if room_id
                else await lobby.quickplay(game, name=name)
            )
        room_id, token = seat["room"], seat["token"]
        console.print(
            f"Seat {seat['seat'] + 1} in room [bold]{room_id}[/bold]. To come back later: "
            f"tablewire play --room {room_id} --token {token}"
        )
    assert room_id is not None
    async with RoomClient(ws_url(server), room_id, token) as client:
        return await _follow(client, console, play=True)


async def spectate(server: str, room_id: str, console: Console | None = None) -> None:
    """Watch a room from the terminal until the game ends."""
    async with RoomClient(ws_url(server), room_id) as client:
        await _follow(client, console or Console(), play=False)
