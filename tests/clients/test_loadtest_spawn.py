"""``tablewire loadtest --spawn`` as the README shows it, run as a user runs it: the server
it starts is its own, so it asks for no other."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_runs import run

from clients.cli import DEFAULT_SERVER
from clients.commands import _answers
from clients.exits import Status
from clients.spawn import free_port

SPAWN = ["loadtest", "--spawn", "--no-pin", "--game", "sintra", "--rooms", "1", "--players", "2"]


async def test_spawn_needs_no_server_when_others_run_here(runtime_dir: Path) -> None:
    """Nothing at the default address and two `tablewire serve` here: a command that
    names no server must choose (status 2), but --spawn uses the one it starts."""
    if _answers(DEFAULT_SERVER):
        pytest.skip(f"something answers at {DEFAULT_SERVER}: no server is looked for then")
    servers = runtime_dir / "tablewire" / "servers"
    servers.mkdir(parents=True, mode=0o700)
    for n, port in enumerate((free_port(), free_port())):  # this test's process: alive
        url = f"http://127.0.0.1:{port}"
        (servers / f"{n}.json").write_text(json.dumps({"url": url, "pid": os.getpid()}))
    code, _, err = await run("rooms")
    assert code == Status.USAGE, "the others, with no --spawn, are asked to choose"
    code, out, err = await run(*SPAWN)
    assert code == Status.OK, err
    assert "--server" not in err and "using the server" not in err
    assert json.loads(out.splitlines()[-1])["games_finished"] == 1


async def test_spawn_prints_its_one_json_line_and_nothing_else(runtime_dir: Path) -> None:
    """The spawned server's own greeting (`tablewire is serving: open … in a browser`)
    is not the load test's: standard output is the one JSON line, for `| jq` or a file."""
    code, out, _ = await run(*SPAWN)
    assert code == Status.OK
    assert len(out.splitlines()) == 1, out
    assert json.loads(out)["games_finished"] == 1
