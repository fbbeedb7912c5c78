"""``tablewire serve``'s process settings."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
import uvicorn

from clients.client import LobbyClient
from clients.spawn import TABLEWIRE, SpawnedServer, free_port
from conftest import listening_socket, redis_server
from engines.turn_relay.engine import client_move
from protocol.messages import Intent
from server.app import create_app
from server.lobby import Lobby
from server.room import Room
from server.serve import tune_gc, where_to_open
from server.settings import Settings
from server.store import MemoryStore
from server.transport import BoundedWebSocket, guarded


@pytest.fixture
def restore_gc() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


@pytest.mark.usefixtures("restore_gc")
def test_startup_objects_are_frozen_and_thresholds_change_only_when_set() -> None:
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    tune_gc(Settings(gc_thresholds=""))
    assert gc.get_threshold() == before and gc.get_freeze_count() > frozen
    tune_gc(Settings())
    assert gc.get_threshold() == (20000, 10, 10), "the default"
    tune_gc(Settings(gc_thresholds="40000,15,90"))
    assert gc.get_threshold() == (40000, 15, 90)


def test_the_thresholds_come_from_the_environment() -> None:
    assert Settings().gc_thresholds == "20000,10,10"
    assert Settings.from_env({"TABLEWIRE_GC_THRESHOLDS": ""}).gc_thresholds == ""
    env = {"TABLEWIRE_GC_THRESHOLDS": "10000,10,10"}
    assert Settings.from_env(env).gc_thresholds == "10000,10,10"


SERVER_ONLY = """
import sys
from clients import cli
from server import app, serve
app.create_app()
print(sorted(name for name in sys.modules if name.split(".")[0] in ("httpx", "rich", "redis")
             or name in ("clients.commands", "clients.client", "clients.terminal", "clients.screen",
                         "clients.bots")))
"""


def test_the_server_process_loads_no_client_or_redis_code() -> None:
    """Memory: ``tablewire serve`` with the embedded store imports neither the client
    commands (an HTTP client, the terminal interface, bots) nor the Redis client."""
    out = subprocess.run([sys.executable, "-c", SERVER_ONLY], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


STUCK = """
import asyncio, contextlib, uvicorn
from starlette.applications import Starlette
from server import logs, serve
from server.settings import Settings

@contextlib.asynccontextmanager
async def lifespan(app):
    yield
    await asyncio.Event().wait()  # a stop that never ends

serve.STOP_MARGIN = 0.2
logs.configure("info")
config = uvicorn.Config(Starlette(lifespan=lifespan), port=0, log_config=None)
serve._Server(config, Settings(shutdown_timeout=0)).run()
"""
"""uvicorn under tablewire's server class, with an application whose stopping hangs."""


async def test_a_server_whose_stopping_hangs_ends_itself_saying_what_still_ran() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", STUCK, stderr=asyncio.subprocess.PIPE
    )
    assert process.stderr is not None
    async with asyncio.timeout(60):
        async for line in process.stderr:
            if b"Uvicorn running" in line:
                break
        process.send_signal(signal.SIGTERM)
        shown = (await process.stderr.read()).decode()
        assert await process.wait() == 1
    assert "still stopping after 0.2 s: exiting now" in shown
    assert "lifespan" in shown, "the task still running is named"
    assert "Current thread" in shown, "and every thread's stack is shown"


async def test_a_server_told_to_stop_ends_by_the_signal_not_the_watchdog() -> None:
    server = await SpawnedServer().start()
    async with LobbyClient(server.url) as lobby:
        await lobby.create_room("sintra", seats=2)
    await server.stop(within=30)
    assert server.process is not None and server.process.returncode == -signal.SIGTERM
    assert not [line for line in server.log if "still stopping" in line]


async def test_a_spawned_server_answers_a_wait_for_a_line_once_it_logs_it() -> None:
    """``SpawnedServer.logged``: a line logged already is answered at once, one logged
    later once it is written, and a wait for a line never logged fails when the log ends."""
    server = await SpawnedServer().start()
    assert "Uvicorn running" in await server.logged("Uvicorn running")
    later = asyncio.ensure_future(server.logged("Shutting down"))
    never = asyncio.ensure_future(server.logged("no such line"))
    await server.stop(within=30)
    assert '"Shutting down"' in await later
    with pytest.raises(RuntimeError, match="ended without logging 'no such line'"):
        await never
    with pytest.raises(RuntimeError, match="not running and never logged 'no such line'"):
        await server.logged("no such line")


SERVE_SETTINGS = "from server.serve import run; from server.settings import Settings"


def test_a_port_taken_after_the_command_line_checked_it_ends_with_status_3() -> None:
    """``tablewire serve`` checks its address first; one taken between that check and
    uvicorn's bind still ends with the status for an address it cannot listen on."""
    with listening_socket() as taken:
        port = taken.getsockname()[1]
        script = f"{SERVE_SETTINGS}; run(Settings(port={port}))"
        out = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
        )
    assert out.returncode == 3, out.stderr
    assert "address already in use" in out.stderr.lower()
    assert "Traceback" not in out.stderr


def test_a_server_without_its_redis_ends_with_status_3_and_one_error_line() -> None:
    """A ``--redis-url`` nobody answers at (a cluster or not): one line naming it,
    status 3, nothing else on stderr (no traceback, no warning, no JSON log)."""
    url = f"redis://127.0.0.1:{free_port()}/0"
    out = subprocess.run(
        [TABLEWIRE, "serve", "--port", str(free_port()), "--redis-url", url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 3, out.stderr
    assert out.stderr.startswith(f"tablewire serve: cannot reach Redis at {url}: ")
    assert len(out.stderr.splitlines()) == 1, out.stderr


def _serve(*args: str, env: dict[str, str] | None = None, port: bool = True) -> tuple[int, str]:
    """``tablewire serve`` (on a free port) that cannot start: its status and its one line."""
    out = subprocess.run(
        [TABLEWIRE, "serve", *(["--port", str(free_port())] if port else []), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )
    assert "Traceback" not in out.stderr and "never awaited" not in out.stderr, out.stderr
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tablewire serve: "), out.stderr
    return out.returncode, lines[0]


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("TABLEWIRE_GC_THRESHOLDS", "abc", "three whole numbers"),
        ("TABLEWIRE_GC_THRESHOLDS", "1,2", "three whole numbers"),
        ("TABLEWIRE_GC_THRESHOLDS", "99999999999999999999,10,10", "up to 2147483647"),
        ("TABLEWIRE_GC_THRESHOLDS", "\u00b2,10,10", "three whole numbers"),
        ("TABLEWIRE_LOG_LEVEL", "bogus", "debug, info, warning or error"),
        ("TABLEWIRE_ALLOWED_ORIGINS", "notaurl", "scheme://host[:port]"),
        ("TABLEWIRE_ALLOWED_HOSTS", "localhost:8000", "names without a port"),
        ("TABLEWIRE_ALLOWED_HOSTS", "example.com,https://example.com", "names without a port"),
        ("TABLEWIRE_ALLOWED_HOSTS", "example.com/play", "names without a port"),
        ("TABLEWIRE_PORT", "99999", "a port from 1 to 65535"),
        ("TABLEWIRE_PORT", "0", "a port from 1 to 65535"),
        ("TABLEWIRE_PORT", "", "a port from 1 to 65535"),
        ("TABLEWIRE_PORT", "99999999999999999999", "a port from 1 to 65535"),
        ("TABLEWIRE_METRICS_PORT", "abc", "a port from 1 to 65535 (or 0"),
        ("TABLEWIRE_METRICS_PORT", "99999", "a port from 1 to 65535"),
        ("TABLEWIRE_SNAPSHOT_EVERY", "0", "1 or more"),
        ("TABLEWIRE_MAX_CONNECTIONS", "0", "1 or more"),
        ("TABLEWIRE_MAX_FRAME", "0", "1 or more"),
        ("TABLEWIRE_MAX_BODY", "0", "1 or more"),
        ("TABLEWIRE_INTENT_BURST", "0", "1 or more"),
        ("TABLEWIRE_GC_FREEZE", "7", "1 (freeze after each full pass) or 0"),
        ("TABLEWIRE_NODE", " ", "without spaces at its ends"),
        ("TABLEWIRE_NODE", "a\tb", "control characters"),
        ("TABLEWIRE_ROOM_BURST", "0", "1 or more"),
        ("TABLEWIRE_HEADER_TIMEOUT", "0", "more than 0"),
        ("TABLEWIRE_HELLO_TIMEOUT", "0", "more than 0"),
        ("TABLEWIRE_SHUTDOWN_TIMEOUT", "99999999999999999999", "from 0 to 2147483647"),
        ("TABLEWIRE_SOCKET_SEND_BUFFER", "2147483648", "from 0 to 2147483647"),
        ("TABLEWIRE_LEASE_TTL", "1e300", "more than 0 (up to 2147483647)"),
        ("TABLEWIRE_LEASE_TTL", "soon", "a number of seconds more than 0 (up to 2147483647)"),
        ("TABLEWIRE_MAX_ROOMS", "lots", "a whole number of 1 or more (up to 2147483647)"),
        ("TABLEWIRE_MAX_ROOMS", "-1", "a whole number of 1 or more (up to 2147483647)"),
        ("TABLEWIRE_TOKEN_TTL", "inf", "more than 0 (up to 2147483647)"),
        # A rate whose wait no timer holds (1 / rate is infinite): a 500 at the first refusal
        ("TABLEWIRE_ROOM_RATE", "1e-320", "0 (no limit) or a number of at least 4.66e-10"),
        ("TABLEWIRE_INTENT_RATE", "1e-12", "0 (no limit) or a number of at least 4.66e-10"),
        ("TABLEWIRE_ADDRESS_FACTOR", "1e-320", "0 (no limit) or a number of at least 4.66e-10"),
        # ... the rates of bad frames, of a room's chat and of WebSocket fragments too: they
        # were taken, and a room's chat refusal with such a rate was an OverflowError
        ("TABLEWIRE_REFUSED_RATE", "1e-320", "0 (no limit) or a number of at least 4.66e-10"),
        ("TABLEWIRE_ROOM_CHAT_RATE", "1e-320", "0 (no limit) or a number of at least 4.66e-10"),
        ("TABLEWIRE_WS_FRAME_RATE", "1e-12", "0 (no limit) or a number of at least 4.66e-10"),
        ("TABLEWIRE_HOST", "0.0.0.0:8000", "an IP address or a host name, without a port"),
        ("TABLEWIRE_HOST", "http://example.com", "an IP address or a host name, without a port"),
        ("TABLEWIRE_HOST", "[::1]", "an IP address or a host name, without a port"),
        ("TABLEWIRE_HOST", "", "an IP address or a host name, without a port"),
        ("TABLEWIRE_METRICS_HOST", "10.0.0.5:9100", "an IP address or a host name"),
    ],
)
def test_a_wrong_setting_is_one_line_naming_it_and_status_2(
    variable: str, value: str, says: str
) -> None:
    code, line = _serve(env={variable: value}, port=variable != "TABLEWIRE_PORT")
    assert code == 2 and line.startswith(f"tablewire serve: {variable} must be "), line
    assert says in line and ", not " in line, line


@pytest.mark.parametrize(
    ("flag", "value", "says"),
    [
        ("--log-level", "bogus", "debug, info, warning or error"),
        ("--log-level", "", "debug, info, warning or error"),
        ("--allowed-origins", "x", "scheme://host[:port]"),
        ("--redis-url", "redis://127.0.0.1:abc/0", "the port must be a number from 1 to 65535"),
        ("--redis-url", "redis://127.0.0.1:99999/0", "the port must be a number from 1 to 65535"),
        ("--redis-url", "redis://", "the host is missing"),
        ("--redis-url", "redis://127.0.0.1:9/notadb", "the database must be a number"),
        ("--host", "localhost:8000", "an IP address or a host name, without a port"),
        # What the Redis client refuses of a URL: an option it has not (a traceback and
        # status 1), a value it does not take (a line naming neither flag nor URL; protocol
        # 9 said Redis could not be reached, status 3), a bracketed host that is no address
        ("--redis-url", "redis://127.0.0.1:9/0?foo=bar", "it has no option 'foo'"),
        ("--redis-url", "redis://127.0.0.1:9/0?ssl_cert_reqs=none", "no option 'ssl_cert_reqs'"),
        ("--redis-url", "unix:///tmp/tw.sock?db=1&foo=1", "it has no option 'foo'"),
        ("--redis-url", "redis://127.0.0.1:9/0?db=x", "'db'"),
        ("--redis-url", "redis://127.0.0.1:9/0?socket_timeout=soon", "'socket_timeout'"),
        ("--redis-url", "redis://127.0.0.1:9/0?protocol=9", "protocol must be either 2 or 3"),
        ("--redis-url", "redis://[::1/0", "the host is no address"),
        ("--redis-url", "redis://[zz]:9/0", "the host is no address"),
    ],
)
def test_a_wrong_flag_of_serve_is_one_line_naming_it_and_status_2(
    flag: str, value: str, says: str
) -> None:
    code, line = _serve(flag, value)
    assert code == 2 and line.startswith(f"tablewire serve: {flag} ") and says in line, line
    if flag == "--redis-url":
        assert f"{value!r} is not redis://" in line, "the URL as it was given ('redis:' was)"


def test_the_metrics_port_must_not_be_the_servers() -> None:
    port = str(free_port())
    code, line = _serve("--port", port, env={"TABLEWIRE_METRICS_PORT": port}, port=False)
    assert (code, line) == (
        2,
        f"tablewire serve: TABLEWIRE_METRICS_PORT must be another port than the server's "
        f"({port}), not {port}.",
    )


def test_a_redis_database_out_of_range_is_one_line_and_status_2(redis_url: str) -> None:
    """Redis answers, but has no such database: the URL is wrong (status 2)."""
    url = urlsplit(redis_url)._replace(path="/99").geturl()
    code, line = _serve("--redis-url", url)
    assert code == 2 and url in line and "DB index is out of range" in line, line


def test_a_redis_that_refuses_the_urls_credentials_is_one_line_and_status_2() -> None:
    """A Redis that wants a password the URL lacks, or that refuses the URL's: the URL is
    wrong (status 2, as a database out of range), not Redis unreachable, which it was
    (status 3, "cannot reach Redis at ...: HELLO must be called with the client already
    authenticated ...")."""
    server = redis_server("--save", "", "--appendonly", "no", "--requirepass", "sekret")
    server.start()
    try:
        where = urlsplit(server.url)
        for url in (server.url, where._replace(netloc=f":hunter2@{where.netloc}").geturl()):
            code, line = _serve("--redis-url", url)
            assert code == 2 and "refuses it" in line and "cannot reach" not in line, line
            assert "hunter2" not in line, "no password shown"
    finally:
        server.cleanup()


def test_a_redis_password_is_never_shown(redis_url: str) -> None:
    """The one line of a Redis URL that is wrong, or refused, or whose Redis cannot be
    reached names it with its password as ``***`` (the line goes to the logs)."""
    where = urlsplit(redis_url)
    refused = where._replace(netloc=f":sekret@{where.netloc}", path="/99").geturl()
    down = f"redis://user:sekret@127.0.0.1:{free_port()}/0"
    wrong = "redis://:sekret@127.0.0.1:99999/0"
    for url, status in ((refused, 2), (down, 3), (wrong, 2)):
        code, line = _serve("--redis-url", url)
        assert code == status and "sekret" not in line and ":***@" in line, line
    code, line = _serve("--redis-url", f"redis://127.0.0.1:{free_port()}/0?db=1&password=sekret")
    assert code == 3 and "sekret" not in line and "password=***" in line, line


def test_a_redis_url_of_something_else_is_one_line_and_status_3() -> None:
    """An HTTP server where Redis should be: it cannot be reached as Redis (status 3)."""
    with listening_socket() as http:
        port = http.getsockname()[1]

        def answer() -> None:
            with contextlib.suppress(OSError):
                peer, _ = http.accept()
                with peer:
                    peer.recv(1024)
                    peer.sendall(b"<html>hello</html>\r\n")

        helper = threading.Thread(target=answer, daemon=True)
        helper.start()
        url = f"redis://127.0.0.1:{port}/0"
        code, line = _serve("--redis-url", url)
    assert code == 3 and line.startswith(f"tablewire serve: {url} answers, but is not a Redis")


@pytest.mark.parametrize("host", ["::1", "::"])
async def test_serve_listens_on_ipv6(host: str) -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6")
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        TABLEWIRE, "serve", "--host", host, "--port", str(port),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        async with asyncio.timeout(60):
            line = (await process.stdout.readline()).decode()
        assert f"open http://[::1]:{port}/ in a browser" in line, line
        async with httpx.AsyncClient() as http:
            assert (await http.get(f"http://[::1]:{port}/healthz")).status_code == 200
    finally:
        process.terminate()
        await process.wait()


async def test_ctrl_c_stops_serve_with_status_130() -> None:
    """Ctrl-C (SIGINT): the clean stop, then the status the help lists for it; SIGTERM
    ends it as killed by the signal (test_a_server_told_to_stop_ends_by_the_signal...)."""
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        TABLEWIRE, "serve", "--port", str(port),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    assert process.stdout is not None
    async with asyncio.timeout(60):
        await process.stdout.readline()
        process.send_signal(signal.SIGINT)
        assert await process.wait() == 130


FAILS_TO_START = """
import contextlib, uvicorn
from starlette.applications import Starlette
from server import serve
from server.settings import Settings

@contextlib.asynccontextmanager
async def lifespan(app):
    raise RuntimeError("cannot start")
    yield

config = uvicorn.Config(Starlette(lifespan=lifespan), port=0, log_config=None)
serve._Server(config, Settings()).run()
"""


def test_a_server_whose_startup_fails_ends_with_status_3() -> None:
    """The status uvicorn's startup gives (``tablewire serve`` documents 3), pinned."""
    out = subprocess.run(
        [sys.executable, "-c", FAILS_TO_START], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 3, out.stderr
    assert "cannot start" in out.stderr


DROP = """
import asyncio, sys
from clients.addresses import ws_url
from clients.lean import LeanClient

async def drop(url, room):
    clients = [LeanClient(ws_url(url), room) for _ in range(3)]
    for client in clients:
        await client.connect()
        await client.wait_version(0)
        client.close()  # the socket, with no WebSocket close frame

asyncio.run(drop(*sys.argv[1:]))
"""
"""Spectators that join a room, then drop their sockets without a close frame."""


async def test_a_games_connections_requests_and_moves_leave_no_reference_cycles() -> None:
    """What ``freeze_after_full_passes`` relies on: nothing of a whole room's life (lobby requests,
    WebSocket connections, moves, leaving) waits for the collector to be freed."""
    settings = Settings(room_rate=0, http_rate=0, connect_rate=0, address_factor=0)
    sock = listening_socket()
    config = uvicorn.Config(
        create_app(settings),
        http=guarded(settings),
        ws=BoundedWebSocket,
        log_config=None,
        ws_max_size=1 << 20,
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"

    async def one_game() -> None:
        """Clients in processes of their own (only the server's objects are in this one):
        bots that play a game and close, spectators that drop without a close frame."""
        bots = await asyncio.create_subprocess_exec(
            str(Path(sys.executable).with_name("tablewire")),
            *("bots", "--server", url, "--game", "sintra", "--players", "2", "--spectators", "1"),
            stdout=asyncio.subprocess.DEVNULL,
        )
        assert await bots.wait() == 0
        async with httpx.AsyncClient(base_url=url) as http:
            room = (await http.post("/api/rooms", json={"engine": "sintra"})).json()
        droppers = await asyncio.create_subprocess_exec(sys.executable, "-c", DROP, url, room["id"])
        assert await droppers.wait() == 0

    await one_game()  # caches and first-use objects
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        await one_game()
        async with asyncio.timeout(10):  # every connection's task has ended
            await asyncio.gather(*server.server_state.tasks, return_exceptions=True)
        gc.collect()
        ours = ("server.", "uvicorn.", "starlette.", "websockets.", "protocol.", "engines.")
        left = {type(o).__module__ + "." + type(o).__qualname__ for o in gc.garbage}
        left = {name for name in left if name.startswith(ours)}  # not the test's own
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == set(), "freed only by the collector"
    server.should_exit = True
    await task
    sock.close()


async def test_a_room_removed_after_its_game_is_freed_without_the_collector() -> None:
    """A room whose actor was cancelled leaves no cycle behind (the cancelled task's
    traceback held the actor's frame, and with it the room): frozen, it would never go."""

    class Seat:
        def __init__(self, seat: int) -> None:
            self.seat, self.protocol = seat, 2

        def send(self, frame: bytes) -> None:
            pass

        def close(self, code: str, message: str) -> None:
            pass

    lobby = Lobby(MemoryStore(), Settings())
    room_id = (await lobby.create({"engine": "turn-relay", "seats": 4}))["id"]
    room = lobby.rooms[room_id]
    for _ in range(4):
        await lobby.reserve(room_id, {})
    seats = [Seat(seat) for seat in range(4)]
    for seat in seats:
        await room.arrive(seat.seat)
        room.attach(seat, None)
    for k in range(20):
        assert room.state is not None
        turn = room.state["turn"]
        room.submit(seats[turn], Intent(k, client_move(room.engine.view(room.state, None))))
        await room.settled()
    for seat in seats:
        room.detach(seat)
    assert any(o is room for o in gc.get_objects())  # (a compiled Room takes no weak reference)
    del room
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        await lobby._remove(room_id)
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage if type(o).__module__.startswith("server.")]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == []
    assert not [o for o in gc.get_objects() if isinstance(o, Room) and o.id == room_id]
    await lobby.close()


def test_the_line_to_open_names_the_page_and_the_play_command_for_this_address() -> None:
    assert where_to_open(Settings()) == (
        "tablewire is serving: open http://127.0.0.1:8000/ in a browser, "
        "or in another terminal: tablewire play"
    )
    everywhere = where_to_open(Settings(host="0.0.0.0", port=9000))
    assert "open http://127.0.0.1:9000/" in everywhere
    assert everywhere.endswith("tablewire play --server http://127.0.0.1:9000")
    assert "open http://[::1]:8000/" in where_to_open(Settings(host="::1"))


async def test_serve_prints_where_to_open_once_it_listens() -> None:
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        TABLEWIRE, "serve", "--port", str(port),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        async with asyncio.timeout(60):
            line = (await process.stdout.readline()).decode()
        assert f"open http://127.0.0.1:{port}/ in a browser" in line
        async with httpx.AsyncClient() as http:  # listening when it says so
            assert (await http.get(f"http://127.0.0.1:{port}/healthz")).status_code == 200
    finally:
        process.terminate()
        await process.wait()


async def test_a_tablewire_variable_that_is_no_setting_is_warned_of_with_the_closest() -> None:
    """A misspelt setting (``TABLEWIRE_FINISHED_TL``) changed nothing and said nothing:
    the server ran with the default as if it had been taken."""
    env = {**os.environ, "TABLEWIRE_FINISHED_TL": "5", "TABLEWIRE_SERVER": "127.0.0.1:1"}
    process = await asyncio.create_subprocess_exec(
        TABLEWIRE, "serve", "--port", str(free_port()), env=env, stderr=subprocess.PIPE
    )
    assert process.stderr is not None
    seen = []
    try:
        while b"Uvicorn running" not in (line := await process.stderr.readline()) and line:
            seen.append(line.decode())
    finally:
        process.terminate()
        await process.wait()
    warned = [line for line in seen if "TABLEWIRE_FINISHED_TL" in line]
    assert len(warned) == 1 and "TABLEWIRE_FINISHED_TTL" in warned[0], seen
    assert not [line for line in seen if "TABLEWIRE_SERVER" in line], "a client's variable"


async def test_serve_whose_output_cannot_be_written_serves_on() -> None:
    """`tablewire serve > file` on a full disk: the line saying where to open it failed,
    and with it the server (a traceback, status 1). It is a courtesy: a warning, and on."""
    port, full = free_port(), os.open("/dev/full", os.O_WRONLY)
    try:
        process = await asyncio.create_subprocess_exec(
            TABLEWIRE, "serve", "--port", str(port), stdout=full, stderr=subprocess.PIPE
        )
    finally:
        os.close(full)
    assert process.stderr is not None
    seen = []
    try:
        while b"where to open" not in (line := await process.stderr.readline()) and line:
            seen.append(line.decode())
        assert line, seen
        async with httpx.AsyncClient() as http:
            assert (await http.get(f"http://127.0.0.1:{port}/healthz")).status_code == 200
    finally:
        process.send_signal(signal.SIGINT)
        rest = (await process.communicate())[1].decode()
    assert process.returncode == 130 and "Traceback" not in rest, rest
