"""Fixtures: a throwaway redis-server, and a real tablewire server (uvicorn on an
ephemeral port) in the test's loop, on the memory store or the Redis store."""

from __future__ import annotations

import asyncio
import contextlib
import faulthandler
import os
import shutil
import signal
import socket
import tempfile
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import hypothesis
import pytest
import uvicorn
from browser import DESKTOP, Served, Watched, chromium_path, screenshots_dir
from playwright.sync_api import Browser, sync_playwright

from clients.compose import nginx_binary
from clients.spawn import SpawnedCluster, SpawnedRedis, SpawnedServer
from server import native
from server.app import create_app
from server.lobby import Lobby
from server.settings import Settings
from server.store import MemoryStore
from server.timers import ManualTimers
from server.transport import BoundedWebSocket

# hypothesis is imported above, at collection: its pytest plugin otherwise imports it
# at session end, and CPython 3.11.7 then intermittently fails in ast.parse with
# "SystemError: AST constructor recursion depth mismatch" (CPython gh-106905).
# No deadline: hypothesis fails an example slower than 200 ms by default, a wall-clock
# assertion that a loaded machine breaks (a 1 ms diff took 310 ms beside other tests).
hypothesis.settings.register_profile("tablewire", deadline=None)
hypothesis.settings.load_profile("tablewire")


def pytest_configure(config: pytest.Config) -> None:
    """Refuse to test old code: a compiled module older than its source (server.native)."""
    # The servers of module-wide fixtures leave their address here, not in the user's.
    os.environ["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="tablewire-run-")
    if old := native.stale():
        names = ", ".join(str(source.relative_to(native.ROOT)) for source in old)
        pytest.exit(
            f"{names}: edited since compiled, and the compiled module would run. "
            "`make test` rebuilds it (or `make pure`, then the source runs)",
            returncode=4,
        )
    # The terminal's stderr, kept before a test's output is captured (fd 2 is then a
    # temporary file, lost when the run ends there): where a hung test's stacks go.
    config.stash[TERMINAL] = os.fdopen(os.dup(2), "w")


TERMINAL = pytest.StashKey[Any]()
HUNG_AFTER = 120
"""Seconds past a test's ``timeout`` after which, still running, it ends the run."""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """A test still running (setup and teardown included) ``HUNG_AFTER`` seconds past its
    ``timeout`` ends the run, every thread's stack printed. pytest-timeout's signal fails
    a test once, and pytest cancels faulthandler's timer on a failure; a hang left behind
    (a teardown waiting on a process or a thread) would otherwise hold CI to its own
    limit with nothing printed."""
    marked = item.get_closest_marker("timeout")
    limit = float(marked.args[0] if marked and marked.args else item.config.getini("timeout") or 0)
    if not limit:
        yield
        return
    watchdog = threading.Timer(limit + HUNG_AFTER, _hung, (item, limit + HUNG_AFTER))
    watchdog.daemon = True
    watchdog.start()
    try:
        yield
    finally:
        watchdog.cancel()


def _hung(item: pytest.Item, after: float) -> None:
    """End the run: ``item`` still runs ``after`` seconds in (its children are killed)."""
    terminal = item.config.stash[TERMINAL]
    terminal.write(f"\n{item.nodeid} still running {after:g} s after it began; the run ends\n")
    terminal.flush()
    faulthandler.dump_traceback(terminal, all_threads=True)
    for child in _children():
        with contextlib.suppress(OSError):
            os.kill(child, signal.SIGKILL)
    os._exit(3)


def _children() -> list[int]:
    """This process's child processes (the servers, Redis and nginx a test started)."""
    mine = str(os.getpid())
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if fields[1] == mine:
                found.append(int(stat.parent.name))
    return found


@pytest.fixture(autouse=True)
def runtime_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own XDG_RUNTIME_DIR: the servers it spawns leave their address there
    (server/local.py), and its client commands find only those, not the servers of
    tests running beside it nor the developer's own."""
    folder = tmp_path_factory.mktemp("run")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    return folder


BROWSER_FIXTURES = frozenset({"chromium", "open_page", "served"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests that drive Chromium ``browser`` (``-m "not browser"`` leaves them)."""
    for item in items:
        if BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)


@dataclass
class Running:
    url: str
    ws: str
    lobby: Lobby


def listening_socket() -> socket.socket:
    """A socket already listening on a free port: clients can connect at once,
    the kernel queues them until the server accepts. ``IPPROTO_TCP`` matters:
    asyncio sets TCP_NODELAY only on sockets that name it, and without it
    Nagle's algorithm delays the second of two small frames by ~40 ms."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(512)
    return sock


def redis_server(*extra: str) -> SpawnedRedis:
    """A throwaway redis-server; without the binary: skipped locally, failed in CI."""
    if shutil.which("redis-server") is None:
        message = "redis-server is missing (apt-get install redis-server): Redis tests cannot run"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return SpawnedRedis(*extra)


def nginx() -> str:
    """nginx's path (for docker-compose.yml's shape run without Docker); without it:
    skipped locally, failed in CI (.ci/run installs it)."""
    binary = nginx_binary()
    if binary is None:
        message = "nginx is missing (apt-get install nginx): the compose shape cannot run"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return binary


def redis_cluster(node_timeout: int = 1000) -> SpawnedCluster:
    """A throwaway Redis Cluster of 3 masters and 3 replicas (:class:`SpawnedCluster`);
    without redis-server or redis-cli: skipped locally, failed in CI."""
    missing = [name for name in ("redis-server", "redis-cli") if shutil.which(name) is None]
    if missing:
        message = f"{' and '.join(missing)} missing (apt-get install redis-server): "
        message += "Redis Cluster tests cannot run"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return SpawnedCluster(node_timeout=node_timeout)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """``TABLEWIRE_TEST_REDIS_URL``, or a throwaway redis-server with persistence off."""
    if url := os.environ.get("TABLEWIRE_TEST_REDIS_URL"):
        yield url
        return
    server = redis_server("--save", "", "--appendonly", "no")
    server.start()
    yield server.url
    server.cleanup()


@pytest.fixture
def prefix() -> str:
    """A key prefix of this test's own, so tests never see each other's rooms."""
    return f"test-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def settings() -> Settings:
    return Settings(max_frame=4096, history=8, hello_timeout=0.5)


@pytest.fixture
def timers() -> ManualTimers:
    """The clock and timers of :func:`lobby`, moved on by hand."""
    return ManualTimers()


@pytest.fixture
async def lobby(timers: ManualTimers) -> AsyncIterator[Lobby]:
    """A lobby on the memory store, in process, whose time is ``timers``' (a test file
    with a lobby of other settings defines its own)."""
    lobby = Lobby(MemoryStore(), Settings(), clock=timers, timers=timers)
    yield lobby
    await lobby.close()


@pytest.fixture(params=["memory", "redis"])
def store_kind(request: pytest.FixtureRequest) -> str:
    kind: str = request.param
    return kind


@pytest.fixture
async def server(
    settings: Settings, store_kind: str, request: pytest.FixtureRequest, prefix: str
) -> AsyncIterator[Running]:
    """The app on the memory store or (``store_kind``) the Redis store."""
    if store_kind == "redis":
        url = request.getfixturevalue("redis_url")
        settings = replace(settings, redis_url=url, redis_prefix=prefix)
    async with running(settings) as served:
        yield served


@pytest.fixture
async def http(server: Running) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client of the ``server`` fixture's server."""
    async with httpx.AsyncClient(base_url=server.url) as client:
        yield client


@contextlib.asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[Running]:
    """The app with ``settings`` under uvicorn on an ephemeral port, in this loop (what
    the ``server`` fixture serves; a test that needs several servers, or settings of
    its own per case, uses it directly)."""
    app = create_app(settings)
    sock = listening_socket()
    port = sock.getsockname()[1]
    # As `tablewire serve` runs it: frames straight from the parser to the room, and the
    # client's address found by the app (server/proxies.py), not by uvicorn.
    config = uvicorn.Config(
        app, ws=BoundedWebSocket, log_config=None, ws_max_size=1 << 20, proxy_headers=False
    )
    instance = uvicorn.Server(config)
    task = asyncio.create_task(instance.serve(sockets=[sock]))
    try:
        yield Running(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}", app.state.lobby)
    finally:
        instance.should_exit = True
        await task
        sock.close()


@pytest.fixture
async def server_at() -> AsyncIterator[str]:
    """``tablewire serve`` (the memory store) in its own process on a free port, for the
    client commands to reach: its ``host:port``."""
    server = await SpawnedServer().start()
    yield f"127.0.0.1:{server.port}"
    await server.stop()


# The browser tests (tests/browser.py): one `tablewire serve` and one Chromium per
# module, a fresh page per test that fails the test on console errors.


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    server = Served().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """Module-scoped: Playwright's sync API holds an event loop in this thread while it
    runs, which the asyncio tests of later modules must not find."""
    path = chromium_path()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def shots() -> Path:
    return screenshots_dir()


@pytest.fixture
def open_page(chromium: Browser, served: Served) -> Iterator[Callable[..., Watched]]:
    """``open_page(viewport=DESKTOP)``: a new browser context's page on ``served``; at the
    end of the test, no page may have logged an error or asked another host."""
    opened: list[Watched] = []

    def open_one(viewport: dict[str, int] = DESKTOP) -> Watched:
        context = chromium.new_context(viewport=viewport)  # type: ignore[arg-type]
        watched = Watched(context.new_page(), served.url)
        watched.attach()
        opened.append(watched)
        return watched

    yield open_one
    errors = [error for watched in opened for error in watched.errors]
    for watched in opened:
        watched.page.context.close()
    assert not errors, "\n".join(errors)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    folder = screenshots_dir()
    if any(folder.glob("*.png")):
        terminalreporter.write_line(f"browser screenshots: {folder}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failed browser test's report carries the end of its server's log (what the
    server said while the page waited: a refused move, a failing command)."""
    report = yield
    served = getattr(item, "funcargs", {}).get("served")
    if report.failed and isinstance(served, Served):
        report.sections.append(("tablewire serve log (last 60 lines)", "".join(served.log[-60:])))
    return report
