"""The ``tablewire`` command end to end: a real ``serve`` process and the client commands."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest

from clients.spawn import TABLEWIRE, SpawnedServer


async def run(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        TABLEWIRE,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate(stdin)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


@pytest.fixture
async def served() -> AsyncIterator[str]:
    """``tablewire serve`` (the memory store) on a free port."""
    server = await SpawnedServer().start()
    yield server.url
    await server.stop()


async def test_serve_new_rooms_and_bots(served: str) -> None:
    code, out, _ = await run("new", "--server", served, "--seats", "2", "--option", "side=B")
    room = json.loads(out)
    assert code == 0 and room["options"]["side"] == "B"
    code, out, _ = await run("rooms", "--server", served)
    assert [r["id"] for r in json.loads(out)] == [room["id"]]
    code, out, _ = await run(
        "bots", "--server", served, "--rooms", "3", "--players", "4", "--spectators", "2"
    )
    summary = json.loads(out)
    assert code == 0, summary
    assert (summary["rooms"], summary["games_finished"], summary["errors"]) == (3, 3, 0)
    assert summary["intents"] > 0


async def test_play_a_seat_from_the_terminal_against_a_bot(served: str) -> None:
    _, out, _ = await run("new", "--server", served, "--seats", "2")
    room_id = json.loads(out)["id"]
    player = await asyncio.create_subprocess_exec(
        TABLEWIRE,
        *("play", "--server", served, "--room", room_id, "--name", "me"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert player.stdout is not None
    seated = await player.stdout.readline()
    assert b"Seat 1 in room" in seated
    rest_of_game = asyncio.create_task(player.communicate(b"1\n" * 400))
    code, out, _ = await run("bots", "--server", served, "--room", room_id)
    assert code == 0, out
    rest, _ = await rest_of_game
    assert player.returncode == 0
    assert b"move number" in rest and b"Game over" in rest


async def test_client_commands_report_refusals(served: str) -> None:
    code, _, err = await run("new", "--server", served, "--game", "chess")
    assert code == 2 and "unknown_engine" in err
    code, _, err = await run("spectate", "--server", served, "--room", "nope")
    assert code == 2 and "no_such_room" in err
