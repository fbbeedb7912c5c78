"""How ``tablewire play`` and ``tablewire spectate`` take a connection the server ends
with a fatal error (docs/protocol.md §2, How a connection ends): a room the server
closes (``room_closed``) ends the command without a reconnect, with one line saying why
and status 4, as does a close code 1002, 1007 or 1009; the errors the protocol says to
retry are retried, a fatal ``rate_limited`` after its pause."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from cli_runs import one_line, run
from handshakes import RefusedHandshakes
from rich.console import Console

from clients import terminal
from clients.client import LobbyClient, ServerError
from clients.commands import explain
from clients.exits import Status
from clients.retry import DEFAULT_WAIT
from clients.spawn import TABLEWIRE
from clients.terminal import RoomClosed, spectate
from conftest import Running, running
from protocol import messages
from protocol.codec import encode
from server.room import Room
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


class Printed(io.StringIO):
    """A console's file that tells when a text has been printed."""

    def __init__(self) -> None:
        super().__init__()
        self.awaited: list[tuple[str, asyncio.Future[None]]] = []

    def write(self, text: str) -> int:
        written = super().write(text)
        for awaited, future in self.awaited:
            if awaited in self.getvalue() and not future.done():
                future.set_result(None)
        return written

    async def shows(self, text: str) -> None:
        future = asyncio.get_running_loop().create_future()
        self.awaited.append((text, future))
        self.write("")
        await future


@dataclass
class _Watched:
    server: Running
    room: Room
    printed: Printed
    watching: asyncio.Task[object]
    """``tablewire spectate``'s run (:func:`spectate`)."""


@contextlib.asynccontextmanager
async def _spectating() -> AsyncIterator[_Watched]:
    """``tablewire spectate`` on a waiting two-seat room (removed at the next sweep), once
    it shows the room; what the test does with it must be over within :data:`ENDING`."""
    async with running(Settings(waiting_ttl=0.0)) as server:
        async with LobbyClient(server.url) as lobby:
            room_id = (await lobby.create_room("sintra", seats=2))["id"]
        printed = Printed()
        console = Console(file=printed, width=80, height=24, color_system=None)
        watching = asyncio.create_task(spectate(server.url, room_id, console))
        async with asyncio.timeout(ENDING):
            await printed.shows("Waiting for players")
            yield _Watched(server, server.lobby.rooms[room_id], printed, watching)


@pytest.mark.parametrize(
    "code", ["internal_error", "too_many_connections", "rate_limited", "hello_timeout"]
)
async def test_a_fatal_error_the_protocol_says_to_retry_is_retried(code: str) -> None:
    async with _spectating() as watched:
        for conn in list(watched.room.conns):
            conn.close(code, "the server ended this connection")
        back = asyncio.ensure_future(watched.printed.shows("Reconnected."))
        await asyncio.wait([watched.watching, back], return_when=asyncio.FIRST_COMPLETED)
        assert back.done(), watched.printed.getvalue()
        await watched.server.lobby.sweep()
        with pytest.raises(RoomClosed):
            await watched.watching
    assert "Lost the server (the server ended this connection)" in watched.printed.getvalue()


@pytest.mark.parametrize("close_code", [1002, 1007, 1009])
async def test_a_connection_closed_as_a_protocol_error_is_final(close_code: int) -> None:
    async with _spectating() as watched:
        for conn in list(watched.room.conns):
            await conn.ws.close(close_code)
        with pytest.raises(ServerError) as ended:
            await watched.watching
    assert ended.value.code == "protocol_error"
    assert "Lost the server" not in watched.printed.getvalue()
    status, line = explain(ended.value, watched.server.url)
    assert status == Status.REFUSED
    assert f"close code {close_code}" in line and "(protocol_error)" in line, line


@pytest.mark.parametrize("close_code", [1002, 1007, 1009])
async def test_a_reconnect_closed_as_a_protocol_error_before_welcome_is_final(
    close_code: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reconnect's handshake the server closes with 1002, 1007 or 1009 ends the command
    as the same close after ``welcome`` does: the same hello would be refused again."""
    refusing = RefusedHandshakes(monkeypatch, close_code)
    async with _spectating() as watched:
        refusing.start()
        for conn in list(watched.room.conns):
            conn.close("too_slow", "the server ended this connection")  # a code to retry
        assert not await refusing.retried_or(watched.watching), watched.printed.getvalue()
        with pytest.raises(ServerError) as ended:
            await watched.watching
    assert refusing.refused == 1
    assert ended.value.code == "protocol_error"
    status, line = explain(ended.value, watched.server.url)
    assert status == Status.REFUSED
    assert f"close code {close_code}" in line and "(protocol_error)" in line, line


@pytest.mark.parametrize("retry_after", [2.5, None])
async def test_a_fatal_rate_limited_waits_its_pause_before_reconnecting(
    retry_after: float | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reconnect after a pause (docs/protocol.md §2): the frame's ``retry_after`` if it
    carries one, else the clients' default wait; and only then connect again."""
    rests: list[tuple[float, bool]] = []

    async def rest(seconds: float) -> None:
        rests.append((seconds, "Reconnected." in watched.printed.getvalue()))

    monkeypatch.setattr(terminal, "rest", rest)
    async with _spectating() as watched:
        for conn in list(watched.room.conns):
            if retry_after is None:
                conn.close("rate_limited", "too many frames over the rate limit; slow down")
                continue
            frame = messages.error("rate_limited", "slow", fatal=True, retry_after=retry_after)
            await conn.ws.send_bytes(encode(frame))
            await conn.ws.close(1008)
        await watched.printed.shows("Reconnected.")
        watched.watching.cancel()
    assert rests[0] == (retry_after or DEFAULT_WAIT, False), rests
