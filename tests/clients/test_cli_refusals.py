"""Refusals are exit status 4 and one line, for ``bots`` as for the other commands, and
nothing is taken that is then abandoned."""

from __future__ import annotations

import asyncio
import http.server
import json
import threading
from collections.abc import Iterator

import pytest
from cli_runs import one_line, run

from clients.client import RoomClient
from clients.exits import Status
from clients.spawn import free_port


async def _new(server_at: str, *more: str) -> dict[str, str]:
    code, out, err = await run("new", "--server", server_at, "--seats", "2", *more)
    assert code == 0, err
    room: dict[str, str] = json.loads(out)
    return room


async def test_bots_for_a_full_or_private_room_are_refused_in_one_line(server_at: str) -> None:
    full = await _new(server_at, "--bots", "2")
    code, out, err = await run("bots", "--server", server_at, f"--room={full['id']}")
    assert code == Status.REFUSED and "room_full" in one_line(err) and out == ""
    assert f"`tablewire spectate --server=http://{server_at} --room={full['id']}`" in err
    both = f"{server_at},{server_at}"  # bots may name several servers; spectate takes one
    code, _, err = await run("bots", "--server", both, f"--room={full['id']}")
    assert f"`tablewire spectate --server=http://{server_at} --room={full['id']}`" in err
    private = await _new(server_at, "--private")
    for invite in ([], ["--invite=wrong"]):
        code, out, err = await run(
            "bots", "--server", server_at, f"--room={private['id']}", *invite
        )
        assert code == Status.REFUSED and "invite" in one_line(err) and out == "", err


async def test_play_with_bots_in_a_room_of_another_takes_no_seat(server_at: str) -> None:
    room = await _new(server_at, "--private")
    argv = ["play", "--server", server_at, f"--room={room['id']}", f"--invite={room['invite']}"]
    code, out, err = await run(*argv, "--bots", "1", stdin=b"")
    assert code == Status.REFUSED and "owner_required" in one_line(err)
    assert "Seat" not in out and "come back" not in out
    code, out, _ = await run(*argv, stdin=b"")  # both seats still free: one is taken
    assert code == 0 and "Seat 1 in room" in out


def _serving(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """``handler`` answering on a free port, in a thread: its ``host:port``."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def foreign() -> Iterator[str]:
    """A plain HTTP server: it answers POST with 501 Not Implemented."""
    yield from _serving(http.server.SimpleHTTPRequestHandler)


@pytest.mark.parametrize(
    "command",
    [
        ["new"],
        ["play", "--bots", "1"],
        ["bots"],
        ["spectate", "--room=r"],
        ["play", "--room=r", "--token=t"],
    ],
)
async def test_a_server_that_is_not_tablewire_is_said_so(foreign: str, command: list[str]) -> None:
    """The game connection too (spectate, play with a token): a plain HTTP server's
    HTTP/1.0 answer to the handshake was status 3, "did not receive a valid HTTP response"."""
    code, _, err = await run(*command, "--server", foreign, stdin=b"")
    line = one_line(err)
    assert code == Status.REFUSED and "not_tablewire" in line and "server_failed" not in line


class _OtherApi(http.server.BaseHTTPRequestHandler):
    """Another service's JSON API on the port: 200 and its first answer to every GET."""

    answers: tuple[object, ...] = ({"status": "ok", "items": []}, [{"id": 5}], {"games": 5}, [1, 2])

    def do_GET(self) -> None:
        body = json.dumps(self.answers[0])
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


@pytest.mark.parametrize("command", [["games"], ["games", "--json"], ["rooms"]])
@pytest.mark.parametrize("answer", range(len(_OtherApi.answers)))
async def test_a_json_api_that_is_not_tablewire_is_said_so(command: list[str], answer: int) -> None:
    """``games`` of a server answering JSON of another shape was "unexpected error:
    TypeError: string indices must be integers" (status 1), or listed it as games; rooms
    printed it as the rooms. Each says that the server is not tablewire, status 4."""
    handler = type("Api", (_OtherApi,), {"answers": (_OtherApi.answers[answer],)})
    for url in _serving(handler):
        code, out, err = await run(*command, "--server", url)
        line = one_line(err)
        assert code == Status.REFUSED and "not_tablewire" in line and out == "", line


SERVER_COMMANDS = [
    ["new"],
    ["rooms"],
    ["bots"],
    ["spectate", "--room=r"],
    ["play", "--room=r", "--token=t"],
]
"""A command of each kind that asks a server: the lobby's requests and the game connection."""

ESCAPES = "\x1b]0;owned\x07\x1b[2J\u202e"
"""Terminal escape sequences (a title change, a screen clear) and a bidirectional override."""


class _Hostile(http.server.BaseHTTPRequestHandler):
    """Refuses everything with a tablewire-shaped error whose words hold :data:`ESCAPES`,
    but ``GET /api/games``: one game whose every word holds them."""

    def _answer(self, status: int, data: object) -> None:
        body = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        words = {"code": "room_full\x1b[31m", "message": f"{ESCAPES}gone"}
        self._answer(409, {"error": words})

    def do_GET(self) -> None:
        if not self.path.startswith("/api/games"):
            return self.do_POST()
        option = {"choices": [ESCAPES, "b"], "default": "b", "description": f"what{ESCAPES}"}
        game = {"id": f"g{ESCAPES}", "kind": "game", "title": f"T{ESCAPES}", "min_players": 2}
        game |= {"max_players": 4, "options": {f"o{ESCAPES}": option}}
        self._answer(200, [game])

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


class _NoUpstream(http.server.BaseHTTPRequestHandler):
    """A reverse proxy with no server behind it: nginx's own 502 page to every request."""

    body = b"<html><center><h1>502 Bad Gateway</h1></center></html>"
    kind = "text/html"
    protocol_version = "HTTP/1.1"  # as nginx answers (a WebSocket client needs it)

    status = 502

    def _answer(self) -> None:
        body = self.body
        self.send_response(self.status)
        self.send_header("Content-Type", self.kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer


@pytest.fixture
def hostile() -> Iterator[str]:
    yield from _serving(_Hostile)


class _NoUpstreamJson(_NoUpstream):
    """deploy/nginx.conf with no replica behind it: its 502 in the lobby's JSON form."""

    body = b'{"error": {"code": "server_unavailable", "message": "no server answered"}}'
    kind = "application/json"


@pytest.fixture(params=[_NoUpstream, _NoUpstreamJson])
def gateway(request: pytest.FixtureRequest) -> Iterator[str]:
    yield from _serving(request.param)


@pytest.mark.parametrize("command", [["new"], ["rooms"], ["play", "--bots", "1"], ["bots"]])
async def test_a_refusal_prints_no_escape_sequence_the_server_sent(
    hostile: str, command: list[str]
) -> None:
    code, _, err = await run(*command, "--server", hostile, stdin=b"")
    line = one_line(err)
    assert code == Status.REFUSED and "gone" in line and "room_full" in line
    assert not any(c in line for c in "\x1b\x07\u202e"), repr(line)


async def test_the_games_of_a_server_are_listed_without_its_escape_sequences(hostile: str) -> None:
    code, out, _ = await run("games", "--server", hostile)
    assert code == 0 and "what" in out and "owned" in out
    assert not any(c in out for c in "\x1b\x07\u202e"), repr(out)


@pytest.mark.parametrize(
    "command",
    SERVER_COMMANDS,
)
async def test_a_proxy_with_no_server_behind_it_is_a_server_that_cannot_be_reached(
    gateway: str, command: list[str]
) -> None:
    """Every replica down behind nginx: status 3 (it was 4, "the server refused"), for the
    lobby's requests as for the game connection's handshake."""
    code, _, err = await run(*command, "--server", gateway, stdin=b"")
    line = one_line(err)
    assert code == Status.UNREACHABLE and "cannot reach the server" in line and "502" in line


class _Full(_NoUpstream):
    """A server at its max_connections: uvicorn's own plain 503 to every request."""

    status = 503
    body = b"Service Unavailable"
    kind = "text/plain; charset=utf-8"


@pytest.fixture
def full() -> Iterator[str]:
    yield from _serving(_Full)


@pytest.mark.parametrize(
    "command",
    SERVER_COMMANDS,
)
async def test_a_full_server_is_said_busy_not_failed_nor_foreign(
    full: str, command: list[str]
) -> None:
    """A plain 503 (uvicorn at max_connections) was "the server failed: its log says why"
    for the lobby's requests and "is it a tablewire server?" for the game connection."""
    code, _, err = await run(*command, "--server", full, stdin=b"")
    line = one_line(err)
    assert code == Status.REFUSED and "server_busy" in line and "503" in line, line
    assert "try again in a moment" in line and "failed" not in line and "is it a" not in line


async def test_a_lost_connection_no_server_takes_back_says_what_timed_out() -> None:
    client = RoomClient(f"ws://127.0.0.1:{free_port()}", "r", "t")
    with pytest.raises(TimeoutError, match=r"no server took it back within 0\.5 s"):
        await client.failover(within=0.5)


async def test_a_server_that_hangs_up_unanswered_is_one_sentence_of_one_line() -> None:
    """Something that is not tablewire (a Redis, say) and closes an HTTP request unanswered."""

    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1)
        writer.close()

    async with await asyncio.start_server(hang_up, "127.0.0.1", 0) as listener:
        port = listener.sockets[0].getsockname()[1]
        for command in (["rooms"], ["spectate", "--room=r"]):
            code, _, err = await run(*command, "--server", f"127.0.0.1:{port}")
            line = one_line(err)
            assert code == Status.UNREACHABLE, line
            assert "without sending a response. Is it" in line and ".." not in line, line


async def test_bots_for_a_finished_room_are_refused_as_game_over_not_room_full(
    server_at: str,
) -> None:
    room = await _new(server_at)
    code, _, err = await run("bots", "--server", server_at, f"--room={room['id']}")
    assert code == 0, err
    for command in (["bots"], ["play", "--bots", "1", "--name", "ana"]):
        code, out, err = await run(
            *command, "--server", server_at, f"--room={room['id']}", stdin=b""
        )
        line = one_line(err)
        assert code == Status.REFUSED and "(game_over)" in line and out == "", line
        watch = f"`tablewire spectate --server=http://{server_at} --room={room['id']}`"
        assert f"{watch} shows its result" in line, "the room's own line, not --room=ID"


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("", "bad_name"),
        ("a" * 300, "bad_name"),
        ("Spectator", "name_taken"),
        ("greedy bot 2", "name_taken"),
        ("random bot 1", "name_taken"),
        ("ana (you)", "bad_name"),
    ],
)
async def test_play_with_bots_and_a_name_refused_opens_no_room(
    server_at: str, name: str, code: str
) -> None:
    """The name is refused before the room is made: it was made first, with its bots,
    and left waiting in the public list (and against the address's room rate). The
    client checked it alone, and could not know every name of the room: its bots'."""
    argv = ["play", "--server", server_at, "--bots", "1", "--name", name]
    status, out, err = await run(*argv, stdin=b"")
    assert status == Status.REFUSED and f"({code})" in one_line(err) and out == ""
    status, out, _ = await run("rooms", "--server", server_at)
    assert status == 0 and json.loads(out) == []


async def test_bots_for_a_full_room_are_not_told_to_leave_out_the_room(server_at: str) -> None:
    """`play --room` of a full room may leave out --room to be seated elsewhere; `bots`
    without --room plays new rooms of bots to their end, not what was asked: it is told
    the room is full and how to watch it."""
    _, made, _ = await run("new", "--server", server_at, "--seats", "2", "--bots", "2")
    room = json.loads(made)["id"]
    code, _, err = await run("bots", "--server", server_at, f"--room={room}")
    line = one_line(err)
    assert code == Status.REFUSED and "room_full" in line
    assert "Leave out --room" not in line
    url = "http://" + server_at.removeprefix("http://")
    assert line.endswith(f"Watch it: `tablewire spectate --server={url} --room={room}`.")
    code, _, err = await run("play", "--server", server_at, f"--room={room}", stdin=b"")
    assert code == Status.REFUSED and "Leave out --room" in one_line(err)


@pytest.mark.parametrize(
    "command",
    [["spectate"], ["play"], ["play", "--token", "t"], ["bots"]],
    ids=["spectate", "play", "play-with-token", "bots"],
)
async def test_a_room_that_does_not_exist_is_the_same_line_for_every_command(
    server_at: str, command: list[str]
) -> None:
    """Whether the command asks the lobby (``play``, ``bots``) or connects to the room
    (``spectate``, ``play --token``), a missing room is said in the same words."""
    code, _, err = await run(*command, "--server", server_at, "--room", "nope")
    assert (code, one_line(err)) == (
        Status.REFUSED,
        "tablewire: the server refused: no room 'nope' (no_such_room). "
        "Check the room id; `tablewire rooms` lists the public rooms.",
    )
