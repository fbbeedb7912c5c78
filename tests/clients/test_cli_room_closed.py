"""A room the server closes under ``tablewire play`` or ``tablewire spectate``
(``room_closed``, docs/protocol.md §2): the command does not reconnect, says in one line
that the room was closed and why, and exits with status 4."""

from __future__ import annotations

import asyncio
import json
import os

import pytest
from cli_runs import one_line, run

from clients.exits import Status
from clients.spawn import TABLEWIRE
from conftest import running
from server.settings import Settings

ENDING = 30
"""Seconds the command may take to end once its room is closed."""


@pytest.mark.parametrize("command", ["spectate", "play"])
async def test_a_room_closed_under_the_command_ends_it_without_a_reconnect(
    command: str,
) -> None:
    async with running(Settings(waiting_ttl=0.0)) as server:
        at = server.url.removeprefix("http://")
        _, out, _ = await run("new", "--server", at, "--seats", "2")
        room_id = json.loads(out)["id"]
        process = await asyncio.create_subprocess_exec(
            TABLEWIRE,
            command,
            "--server",
            at,
            f"--room={room_id}",
            *(["--name", "ana"] if command == "play" else []),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "COLUMNS": "80", "LINES": "24"},
        )
        assert process.stdout is not None
        shown = b""
        async with asyncio.timeout(ENDING):
            while b"Waiting for players" not in shown:
                chunk = await process.stdout.read(4096)
                assert chunk, shown.decode()
                shown += chunk
            assert await server.lobby.sweep() == [room_id]
            out_bytes, err_bytes = await process.communicate()
    shown += out_bytes
    assert process.returncode == Status.REFUSED, err_bytes.decode()
    line = one_line(err_bytes.decode())
    assert line.startswith("tablewire: the server closed room " + room_id), line
    assert "nobody took all its seats" in line and "(room_closed)" in line
    assert "reconnecting" not in shown.decode() and "Lost the server" not in shown.decode()
    assert "To come back" not in shown.decode().split("Waiting for players")[-1]
