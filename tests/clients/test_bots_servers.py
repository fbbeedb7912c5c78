"""``tablewire bots --server A,B``: the lobby's requests (rooms created, seats taken) fail
over to the next server as the bots' game connections do, so a run starts while one of
its servers is down; when none answers, the one line names them all."""

from __future__ import annotations

import json

from cli_runs import one_line, run

from clients.exits import Status
from clients.spawn import free_port


async def test_bots_create_their_rooms_through_the_next_server_when_the_first_is_down(
    server_at: str,
) -> None:
    """It failed (status 3, 'cannot reach the server at' the first) with the second up."""
    down = f"127.0.0.1:{free_port()}"
    code, out, err = await run(
        "bots", "--server", f"{down},{server_at}", "--rooms", "2", "--players", "2"
    )
    assert code == Status.OK, err
    summary = json.loads(out)
    assert (summary["rooms"], summary["games_finished"], summary["errors"]) == (2, 2, 0)


async def test_bots_fill_a_room_through_the_next_server_when_the_first_is_down(
    server_at: str,
) -> None:
    code, out, err = await run("new", "--server", server_at, "--seats", "2")
    assert code == Status.OK, err
    room = json.loads(out)["id"]
    down = f"127.0.0.1:{free_port()}"
    code, out, err = await run("bots", "--server", f"{down},{server_at}", f"--room={room}")
    assert code == Status.OK, err
    assert json.loads(out)["games_finished"] == 1


async def test_bots_whose_servers_are_all_down_name_them_in_one_line() -> None:
    first, second = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    code, _, err = await run("bots", "--server", f"{first},{second}", "--rooms", "1")
    line = one_line(err)
    assert code == Status.UNREACHABLE, line
    assert f"http://{first}" in line and f"http://{second}" in line, line
    assert "connection refused" in line, line
