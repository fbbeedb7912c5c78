"""The end of input leaves ``tablewire play`` at any time: at the prompt, while the
others play, in a waiting room; and a closed standard input takes no seat."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator

import pytest
from cli_runs import run
from test_cli import Terminal

from clients.exits import Status
from clients.spawn import TABLEWIRE, SpawnedServer

LEAVING = 30


@pytest.fixture
async def served() -> AsyncIterator[str]:
    server = await SpawnedServer().start()
    yield f"127.0.0.1:{server.port}"
    await server.stop()


async def test_a_closed_standard_input_takes_no_seat(served: str) -> None:
    process = await asyncio.create_subprocess_exec(
        TABLEWIRE,
        "play",
        "--server",
        served,
        "--bots",
        "1",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        preexec_fn=lambda: os.close(0),  # `<&-`
    )
    async with asyncio.timeout(LEAVING):
        out, err = await process.communicate()
    assert process.returncode == Status.OK, err.decode()
    assert not err and "Seat" not in out.decode() and "no seat taken" in out.decode()
    _, rooms, _ = await run("rooms", "--server", served)
    assert json.loads(rooms) == []


@pytest.mark.parametrize("stdin", [None, b""], ids=["dev-null", "pipe-closed"])
async def test_the_end_of_input_leaves_a_waiting_room(served: str, stdin: bytes | None) -> None:
    process = await asyncio.create_subprocess_exec(
        TABLEWIRE,
        "play",
        "--server",
        served,
        "--seats",
        "2",
        stdin=asyncio.subprocess.DEVNULL if stdin is None else asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "COLUMNS": "80", "LINES": "24"},
    )
    async with asyncio.timeout(LEAVING):
        out, err = await process.communicate(stdin)
    shown = out.decode()
    assert process.returncode == Status.OK, (shown, err.decode())
    assert not err and "You left the game (end of input)." in shown
    assert "To come back: tablewire play" in shown


async def test_ctrl_d_while_waiting_for_players_leaves_at_once(served: str) -> None:
    player = await Terminal.start("play", "--server", served, "--seats", "2")
    await player.until(b"Others join with")
    await asyncio.sleep(0.5)
    os.write(player.master, b"\x04")  # Ctrl-D on an empty line: end of input
    assert await player.finish() == Status.OK
    assert "You left the game" in player.out.decode()
