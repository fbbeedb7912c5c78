"""Browser tests' support: a real ``tablewire serve`` process, Debian's Chromium driven by
Playwright, pages that fail their test on any console error or outside request, and a
player that clicks through a whole game.

Fixtures built on this live in ``tests/conftest.py`` (``served``, ``chromium``,
``open_page``, ``shots``). Screenshots go to ``$TABLEWIRE_SCREENSHOTS`` (default: a
folder under the system's temporary directory); the run prints where.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import ConsoleMessage, Page, Request
from playwright.sync_api import Error as PlaywrightError

from clients.spawn import free_port

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
# What a page offers to click: the move list's buttons and the board's [data-move] parts.
CLICKABLE = ".moves button:not([disabled]), .o-board [data-move]:not([disabled])"
# On a phone the move list is folded under the board: its summary opens it.
FOLDED = ".moves-fold:not([open]) > summary"
FINISHED = ".o-result"
CONFIRM = ".o-confirm button.confirm"
# What a page shows once it waits on its player (or the game is over): something to click,
# a move to confirm, a folded list to open, or the result.
READY = f"{FINISHED}, {CLICKABLE}, {CONFIRM}, {FOLDED}"
PLAY_FIRST = "() => tablewireRoom.legal().then((moves) => tablewireRoom.send(moves[0].action))"
"""A script that plays this page's first legal move through its connection."""
PLAY_TO_THE_END = """async () => {
  const room = globalThis.tablewireRoom;
  while (room.doc.status !== "finished") {
    if (room.myTurn) {
      const moves = await room.legal();
      if (moves.length) await room.send(moves[0].action);
    } else {
      await new Promise((done) => { const off = room.on("doc", () => { off(); done(); }); });
    }
  }
}"""
"""A script that plays this page's seat to the end of the game, its first legal move
each turn, through its connection."""
# While the server is down, Chromium itself logs each refused reconnection attempt of
# the page's WebSocket as a console error (the SDK cannot silence the browser's own
# message); the page handles it by reconnecting with backoff. Only this is forgiven.
REFUSED = re.compile(
    r"^console: WebSocket connection to 'ws://127\.0\.0\.1:\d+/ws/[^']+' failed: "
    r"Error in connection establishment: net::ERR_CONNECTION_REFUSED$"
)


DRAWN = """() => !document.querySelector(".o-board .loading")
  && [...document.querySelectorAll("link[rel=stylesheet]")].every((link) => link.sheet)"""
"""Whether the page's board is drawn (its module loaded) and every style sheet is in:
before that, an unstyled board may be wider than a phone's screen for a moment."""
LOADED = f"""() => {{
  const read = performance.getEntriesByType("resource").map((entry) => entry.name);
  return ({DRAWN})()
    && ["/static/favicon.svg", "/static/favicon-turn.svg", "/help.json"]
      .every((end) => read.some((name) => name.endsWith(end)));
}}"""
"""Whether the room page's late loads are done (resource timing lists a file once it is
read), for a game with a board and a help (each of the three games)."""


def chromium_path() -> str:
    """Debian's Chromium; without it: skipped locally, failed in CI (.ci/run installs it)."""
    for name in CHROMIUM_NAMES:
        if found := shutil.which(name):
            return found
    message = "chromium is missing (apt-get install chromium): browser tests cannot run"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)
    raise AssertionError("unreachable")


def screenshots_dir() -> Path:
    path = Path(
        os.environ.get("TABLEWIRE_SCREENSHOTS")
        or Path(tempfile.gettempdir()) / "tablewire-screenshots"
    )
    path.mkdir(parents=True, exist_ok=True)
    return path


class Served:
    """``tablewire serve`` in its own process on a fixed port, restartable on that port."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, **(env or {})}
        self.process: subprocess.Popen[str] | None = None
        self.log: list[str] = []

    def start(self) -> Served:
        command = [
            str(Path(sys.executable).with_name("tablewire")),
            "serve",
            "--port",
            str(self.port),
        ]
        self.process = subprocess.Popen(
            command, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        ready = threading.Event()
        threading.Thread(target=self._read, args=(self.process, ready), daemon=True).start()
        if not ready.wait(30) or self.process.poll() is not None:
            self.stop()
            raise RuntimeError("tablewire serve did not start:\n" + "".join(self.log))
        return self

    def _read(self, process: subprocess.Popen[str], ready: threading.Event) -> None:
        assert process.stderr is not None
        for line in process.stderr:
            self.log.append(line)
            if "Uvicorn running" in line:
                ready.set()
        ready.set()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def restart(self) -> None:
        self.stop()
        self.start()

    def api(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        answer = httpx.request(method, self.url + path, json=body, timeout=30)
        assert answer.status_code < 400, f"{method} {path}: {answer.status_code} {answer.text}"
        return answer.json()

    def bots_room(
        self,
        engine: str,
        seats: int,
        bots: list[int],
        kind: str = "random",
        options: dict[str, Any] | None = None,
        **request: Any,
    ) -> dict[str, Any]:
        """A room of ``seats`` whose ``bots`` seats are ``kind`` bots acting at once (unless
        ``options`` give a ``bot_delay``), the lobby's answer; ``request``: more of the
        request's fields (``private``, ``seed``)."""
        body = {
            "engine": engine,
            "seats": seats,
            "options": {"bot_delay": 0, **(options or {})},
            "bots": {"seats": bots, "kind": kind},
            **request,
        }
        room: dict[str, Any] = self.api("POST", "/api/rooms", body)
        return room

    def room_with_bots(
        self,
        engine: str,
        seats: int,
        bots: int,
        name: str = "Ana",
        options: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A room of ``seats`` whose last ``bots`` seats are server bots acting at once,
        and this person's reservation of seat 0: ``{room, seat, token}``. Its moves are
        played without a confirmation unless ``options`` asks for one (``confirm``)."""
        playing = list(range(seats - bots, seats))
        room = self.bots_room(engine, seats, playing, options={"confirm": False, **(options or {})})
        reservation: dict[str, Any] = self.api(
            "POST", f"/api/rooms/{room['id']}/seats", {"name": name}
        )
        return reservation


@dataclass
class Watched:
    """A page and what went wrong in it: console errors, uncaught exceptions, requests
    to anything but the server itself."""

    page: Page
    origin: str
    errors: list[str] = field(default_factory=list)

    def attach(self) -> None:
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))
        self.page.on("request", self._request)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            text = f"console: {message.text}"
            if message.text.startswith("Failed to load resource"):  # which one, to mend it
                text += f" ({message.location.get('url', '?')})"
            self.errors.append(text)

    def _request(self, request: Request) -> None:
        url = request.url
        if not (
            url.startswith(self.origin)
            or url.startswith("data:")
            or url.startswith("ws://127.0.0.1")
        ):
            self.errors.append(f"outside request: {url}")

    def hold_seat(self, reservation: dict[str, Any], name: str = "Ana") -> None:
        """Keep ``reservation``'s token in this browser as the lobby page would."""
        self.page.goto(self.origin + "/")
        value = json.dumps(
            {"token": reservation["token"], "seat": reservation["seat"], "name": name}
        )
        self.page.evaluate(
            "([k, v]) => localStorage.setItem(k, v)",
            [f"tablewire:seat:{reservation['room']}", value],
        )

    def sit(self, reservation: dict[str, Any]) -> None:
        """Hold ``reservation``'s seat in this browser and open its room."""
        self.hold_seat(reservation)
        self.open_room(reservation["room"])

    def open_room(self, room_id: str) -> None:
        self.page.goto(f"{self.origin}/rooms/{room_id}")
        self.page.wait_for_selector(".o-board, .o-result", timeout=30_000)

    def wait_loaded(self) -> None:
        """Until the room page has every file it loads after its first paint: the board
        drawn, every style sheet in, the tab icons and the game's help read. A server
        stopped before then would refuse one of these loads (a console error)."""
        self.page.wait_for_function(LOADED, timeout=30_000)

    def wait_drawn(self) -> None:
        """Until the board is drawn and every style sheet is in (:data:`DRAWN`)."""
        self.page.wait_for_function(DRAWN, timeout=30_000)

    def mirror(self) -> Any:
        """The room document the page's connection holds (``globalThis.tablewireRoom``)."""
        return self.page.evaluate("() => globalThis.tablewireRoom.doc")

    def version(self) -> int:
        return int(self.page.evaluate("() => globalThis.tablewireRoom.version"))

    def no_horizontal_scroll(self) -> bool:
        return bool(
            self.page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        )

    def ranking(self) -> list[tuple[str, str]]:
        """The result's table as shown: (player, how it was scored) by rank."""
        rows = self.page.locator(".o-result .ranking tbody tr")
        return [
            (row.locator(".who").inner_text(), row.locator(".how").inner_text())
            for row in rows.all()
        ]

    def result(self) -> Any:
        """The result the page's connection holds."""
        return self.page.evaluate("() => globalThis.tablewireRoom.result")

    def shoot(self, folder: Path, name: str) -> Path:
        path = folder / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


def play_to_end(
    watched: Watched,
    rnd: random.Random,
    board_first: float = 0.7,
    max_clicks: int = 3000,
    on_click: Any = None,
) -> int:
    """Click this page's seat through the whole game: a board part when the board offers
    one (with probability ``board_first``), else a move-list button (a group narrows one
    step; a folded list is opened first). ``on_click(n)`` runs after each click (a
    reload, a restart...). Returns the number of clicks; fails if the game is not over
    after ``max_clicks``."""
    page = watched.page
    for clicks in range(max_clicks):
        page.wait_for_selector(READY, timeout=60_000)
        if page.locator(FINISHED).count():
            return clicks
        if page.locator(CONFIRM).count():  # a room that asks: the move chosen is played
            with contextlib.suppress(PlaywrightError):
                page.locator(CONFIRM).click(timeout=2_000)
            continue
        board = page.locator(".o-board [data-move]:not([disabled])")
        listed = page.locator(".moves button:not([disabled]):visible")
        folded = page.locator(FOLDED)
        if folded.count() and (not board.count() or rnd.random() >= board_first):
            folded.click()
            continue
        choices = (
            board
            if board.count() and (not listed.count() or rnd.random() < board_first)
            else listed
        )
        count = choices.count()
        if not count:
            continue
        try:
            choices.nth(rnd.randrange(count)).click(timeout=2_000)
        except PlaywrightError:  # the page re-rendered under the click: look again
            continue
        if on_click is not None:
            on_click(clicks)
    raise AssertionError(f"the game was not over after {max_clicks} clicks")
