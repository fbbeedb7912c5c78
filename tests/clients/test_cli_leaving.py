"""The end of input leaves ``tablewire play`` at any time: at the prompt, while the
others play, in a waiting room; a closed standard input takes no seat; and Ctrl-C
says it stopped a command."""

from __future__ import annotations

import asyncio
import json
import os
import signal

import httpx
import pytest
from cli_runs import run, started
from test_cli import Terminal

from clients.addresses import ws_url
from clients.client import RoomClient
from clients.exits import Status
from clients.spawn import TABLEWIRE

LEAVING = 30


async def test_a_closed_standard_input_takes_no_seat(server_at: str) -> None:
    process = await asyncio.create_subprocess_exec(
        TABLEWIRE,
        "play",
        "--server",
        server_at,
        "--bots",
        "1",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        preexec_fn=lambda: os.close(0),  # `<&-`
    )
    async with asyncio.timeout(LEAVING):
        out, err = await process.communicate()
    assert process.returncode == Status.FAILED, err.decode()  # not done: nothing was played
    assert not out
    assert err.decode() == "tablewire: cannot read the input: it is closed; no seat taken.\n"
    _, rooms, _ = await run("rooms", "--server", server_at)
    assert json.loads(rooms) == []


@pytest.mark.parametrize("stdin", [None, b""], ids=["dev-null", "pipe-closed"])
async def test_the_end_of_input_leaves_a_waiting_room(server_at: str, stdin: bytes | None) -> None:
    process = await asyncio.create_subprocess_exec(
        TABLEWIRE,
        "play",
        "--server",
        server_at,
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


async def test_ctrl_d_while_waiting_for_players_leaves_at_once(server_at: str) -> None:
    player = await Terminal.start("play", "--server", server_at, "--seats", "2")
    await player.until(b"Others join with")
    await asyncio.sleep(0.5)
    os.write(player.master, b"\x04")  # Ctrl-D on an empty line: end of input
    assert await player.finish() == Status.OK
    assert "You left the game" in player.out.decode()


async def test_ctrl_c_stops_bots_saying_so_as_play_and_spectate_do(server_at: str) -> None:
    _, out, _ = await run("new", "--server", server_at, "--seats", "2")
    room_id = json.loads(out)["id"]
    async with httpx.AsyncClient(base_url=f"http://{server_at}") as http:
        (await http.post(f"/api/rooms/{room_id}/seats", json={"seat": 0})).raise_for_status()
    bots = await started("bots", "--server", server_at, f"--room={room_id}")
    async with asyncio.timeout(LEAVING), RoomClient(ws_url(server_at), room_id) as watcher:
        await watcher.wait_for(lambda doc: doc["status"] == "playing")  # the bot sat
        bots.send_signal(signal.SIGINT)
        out, err = await bots.communicate()
    assert bots.returncode == Status.INTERRUPTED
    assert not out and err.decode() == "Interrupted.\n"


@pytest.mark.parametrize(
    "command", [["play", "--bots", "1"], ["spectate", "--room=abcdefgh"]], ids=["play", "spectate"]
)
async def test_ctrl_c_before_the_screen_is_drawn_says_so(command: list[str]) -> None:
    """Stopped while its seat request or its connection waits on a server that never
    answers, play and spectate said nothing (status 130): only their screen said it."""
    asked = asyncio.Event()

    async def never_answer(reader: asyncio.StreamReader, _: asyncio.StreamWriter) -> None:
        asked.set()
        await reader.read()

    silent = await asyncio.start_server(never_answer, "127.0.0.1", 0)
    port = silent.sockets[0].getsockname()[1]
    process = await started(*command, "--server", f"127.0.0.1:{port}")
    async with silent, asyncio.timeout(LEAVING):
        await asked.wait()
        process.send_signal(signal.SIGINT)
        out, err = await process.communicate()
    assert process.returncode == Status.INTERRUPTED, err
    assert out.decode().strip() == "Interrupted." and not err, (out, err)
