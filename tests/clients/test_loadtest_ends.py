"""``tablewire loadtest --workload turn-relay`` ended from outside: Ctrl-C says
"Interrupted." as every command does and nothing more (no report of a task cancelled
with it), a server gone is the usual one line, rc 3."""

from __future__ import annotations

import asyncio
import signal

import pytest
from cli_runs import one_line, started

from clients.exits import Status
from clients.spawn import SpawnedServer

RELAY = ["loadtest", "--workload", "turn-relay", "--rooms", "4", "--duration-s", "30"]


async def _start(server: SpawnedServer) -> asyncio.subprocess.Process:
    process = await started(*RELAY, "--server", f"127.0.0.1:{server.port}")
    await asyncio.sleep(6)  # joined (4 private rooms, well under a second), settled: moving
    return process


async def test_ctrl_c_during_a_turn_relay_run_prints_nothing_more_than_interrupted() -> None:
    server = await SpawnedServer().start()
    try:
        process = await _start(server)
        process.send_signal(signal.SIGINT)
        async with asyncio.timeout(30):
            out, err = await process.communicate()
        assert process.returncode == Status.INTERRUPTED
        assert (out, err) == (b"", b"Interrupted.\n")
    finally:
        await server.stop()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["stopped", "killed"])
async def test_a_server_gone_during_a_turn_relay_run_is_one_line_rc_3(sig: int) -> None:
    server = await SpawnedServer().start()
    try:
        process = await _start(server)
        await server.stop(sig)
        async with asyncio.timeout(60):
            out, err = await process.communicate()
        assert process.returncode == Status.UNREACHABLE, (out.decode(), err.decode())
        assert "went away" in one_line(err.decode()) and out == b""
    finally:
        await server.stop()
