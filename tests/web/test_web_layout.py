"""The room page's layout on your turn, in real Chromium, for each game at a desktop
(1280x800) and a phone (390x844) size: the board is the main surface (its top and the
first legal move control within the first screen, nothing sideways), it carries
``data-board``, and on the phone no visible text is under 12 px (SVG text measured at
its rendered size). Screenshots of each go to the screenshots folder."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from browser import (
    CLICKABLE,
    DESKTOP,
    FOLDED,
    PHONE,
    PLAY_FIRST,
    READY,
    Served,
    Watched,
    play_to_end,
)
from playwright.sync_api import expect

GAMES = {"sintra": 3, "chartered": 3, "crystal-palace": 3}
SIZES = {"desktop": DESKTOP, "phone": PHONE}
# The first move control a player sees: a board part, the moves list's buttons, or the
# folded list's summary; its box and the board's, relative to the first screen.
MEASURE = """(selector) => {
  const visible = (el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== "hidden";
  };
  const board = document.querySelector("[data-board]");
  const firstOf = (css) => [...document.querySelectorAll(css)].filter(visible)
    .map((el) => el.getBoundingClientRect()).sort((a, b) => a.top - b.top)[0];
  const first = firstOf(selector);
  const part = firstOf(".o-board [data-move]");
  return {
    board: board ? board.getBoundingClientRect().top : null,
    engine: board ? board.dataset.board : null,
    first: first ? { top: first.top, bottom: first.bottom } : null,
    part: part ? part.top : null,
    height: document.documentElement.scrollHeight,
  };
}"""
# The smallest rendered font size of any visible text: HTML text at its computed size,
# SVG text at its computed size times the SVG's scale on screen.
SMALLEST_TEXT = """() => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let smallest = { size: Infinity, text: "" };
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || !node.textContent.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const box = range.getBoundingClientRect();
    if (!box.width || !box.height || el.closest(".visually-hidden")) continue;
    let size = parseFloat(getComputedStyle(el).fontSize);
    const svg = el.closest("svg");
    if (svg && el instanceof SVGElement) {
      const matrix = el.getScreenCTM();
      if (matrix) size *= Math.hypot(matrix.a, matrix.b);
    }
    if (size < smallest.size) smallest = { size, text: node.textContent.trim().slice(0, 40) };
  }
  return smallest;
}"""


def my_turn(served: Served, open_page: Callable[..., Watched], engine: str, size: str) -> Watched:
    """A page holding seat 0 against server bots, on its turn, at ``size``."""
    reservation = served.room_with_bots(engine, seats=GAMES[engine], bots=GAMES[engine] - 1)
    watched = open_page(SIZES[size])
    watched.hold_seat(reservation)
    watched.open_room(reservation["room"])
    watched.page.wait_for_selector(f"{CLICKABLE}, {FOLDED}", timeout=30_000)
    return watched


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("engine", GAMES)
def test_the_board_comes_first_on_your_turn(
    served: Served, open_page: Callable[..., Watched], shots: Path, engine: str, size: str
) -> None:
    watched = my_turn(served, open_page, engine, size)
    page = watched.page
    viewport = SIZES[size]
    found = page.evaluate(MEASURE, f"{CLICKABLE}, {FOLDED}")
    watched.shoot(shots, f"layout-{engine}-{size}")
    page.screenshot(path=str(shots / f"layout-{engine}-{size}-screen.png"))
    print(f"{engine} {size}: {found}")
    assert found["engine"] == engine
    assert 0 <= found["board"] < viewport["height"]
    assert found["first"] is not None
    assert found["first"]["top"] >= 0 and found["first"]["bottom"] <= viewport["height"]
    assert watched.no_horizontal_scroll()


@pytest.mark.parametrize("engine", GAMES)
def test_no_text_under_12_px_on_a_phone(
    served: Served, open_page: Callable[..., Watched], engine: str
) -> None:
    watched = my_turn(served, open_page, engine, "phone")
    smallest = watched.page.evaluate(SMALLEST_TEXT)
    print(f"{engine} phone smallest text: {smallest}")
    assert smallest["size"] >= 12 - 0.01, smallest


class Enough(Exception):
    """Stops ``play_to_end`` once enough of the game was looked at."""


# The smallest visible board part that makes a move: its width and height in px.
SMALLEST_PART = """() => {
  const boxes = [...document.querySelectorAll(".o-board [data-move]")]
    .map((el) => el.getBoundingClientRect()).filter((box) => box.width && box.height);
  return boxes.length ? Math.min(...boxes.map((box) => Math.min(box.width, box.height))) : null;
}"""


@pytest.mark.parametrize("engine", GAMES)
def test_a_phone_stays_readable_and_playable_through_the_game(
    served: Served, open_page: Callable[..., Watched], engine: str
) -> None:
    """Thirty clicks into the game (boards grow: companies, prototypes, filled strips),
    the phone page still shows no text under 12 px, board parts of at least 24 px and
    nothing sideways."""
    watched = my_turn(served, open_page, engine, "phone")
    seen: list[tuple[float, float | None]] = []

    def look(clicks: int) -> None:
        watched.page.wait_for_selector(READY, timeout=60_000)
        smallest = watched.page.evaluate(SMALLEST_TEXT)
        assert smallest["size"] >= 12 - 0.01, (clicks, smallest)
        seen.append((smallest["size"], watched.page.evaluate(SMALLEST_PART)))
        assert watched.no_horizontal_scroll(), clicks
        if clicks >= 30:
            raise Enough

    with pytest.raises(Enough):
        play_to_end(watched, random.Random(engine), on_click=look)
    parts = [part for _, part in seen if part is not None]
    texts = min(size for size, _ in seen)
    print(f"{engine} phone through the game: text >= {texts} px, parts >= {min(parts)} px")
    assert min(parts) >= 24


# Whether the log's newest line shows within the first screen (the page at its top), in
# the log or anywhere else, and the board's top with it.
NEWEST_ON_FIRST_SCREEN = """() => {
  const lines = [...document.querySelectorAll(".o-log .log li")];
  if (!lines.length) return null;
  const newest = lines[lines.length - 1].textContent;
  const seen = (el) => {
    const box = el.getBoundingClientRect();
    return box.height > 0 && box.top >= 0 && box.bottom <= innerHeight;
  };
  return {
    newest,
    shown: [...document.querySelectorAll("li")].some((li) => li.textContent === newest && seen(li)),
    board: document.querySelector("[data-board]").getBoundingClientRect().top < innerHeight,
  };
}"""
LOG_LINES = """(n) => document.querySelectorAll(".o-log .log li").length >= n
  && !tablewireRoom.pending.size"""


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("engine", GAMES)
def test_what_was_just_played_shows_by_the_board(
    served: Served, open_page: Callable[..., Watched], shots: Path, engine: str, size: str
) -> None:
    """A few moves in, the log's newest line is on the first screen with the board (on
    a phone the whole log is screens below it), and a link leads to the whole log."""
    watched = my_turn(served, open_page, engine, size)
    page = watched.page
    for _ in range(3):  # this seat's moves, and the bots' answers
        page.wait_for_function("() => tablewireRoom.myTurn")
        page.evaluate(PLAY_FIRST)
    page.wait_for_function(LOG_LINES, arg=3)
    page.wait_for_selector(READY, timeout=60_000)
    page.evaluate("() => scrollTo(0, 0)")
    found = page.evaluate(NEWEST_ON_FIRST_SCREEN)
    page.screenshot(path=str(shots / f"recent-{engine}-{size}-screen.png"))
    watched.shoot(shots, f"recent-{engine}-{size}")
    assert found["shown"], found
    assert found["board"], found
    page.get_by_role("link", name=re.compile(r"^Whole game log")).click()
    expect(page.locator("#log-title")).to_be_in_viewport()
