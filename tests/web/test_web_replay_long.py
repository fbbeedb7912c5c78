"""The game viewer for a game longer than the memory store keeps: its first moves are
gone from the log (`memory_log`), so it cannot be replayed, and the page says so in
words; the room page of such a game offers no replay and says why. This module's
server keeps 10 entries before a snapshot taken every 10."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from browser import PHONE, Served, Watched, play_to_end
from playwright.sync_api import Page, expect

# Chromium itself logs a refused request (the record's 410); the page handles it.
REFUSED = re.compile(r"^console: Failed to load resource: .* 410 \(Gone\) .*/record\)$")


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    server = Served(env={"TABLEWIRE_MEMORY_LOG": "10", "TABLEWIRE_SNAPSHOT_EVERY": "10"}).start()
    yield server
    server.stop()


def test_a_game_too_long_to_replay_says_so_in_words(
    open_page: Callable[..., Watched], served: Served
) -> None:
    """A viewer once read "410 record_trimmed: the log of room … starts at version 61"."""
    room = served.bots_room("sintra", 2, [0, 1])
    watched = open_page(PHONE)
    page = watched.page
    # The room page reads the record too (its game log), and is refused the same way.
    with page.expect_response(lambda answer: answer.url.endswith("/record")):
        watched.open_room(room["id"])
    page.wait_for_selector(".o-result", timeout=60_000)
    watched.errors.clear()
    page.goto(f"{served.url}/rooms/{room['id']}/replay")
    said = page.locator("section.card")
    expect(said.get_by_role("heading")).to_have_text("No game to show")
    text = said.inner_text()
    assert "too long to replay" in text, text
    assert "record_trimmed" not in text and "410" not in text, text
    expect(said.get_by_role("link", name="Back to the lobby")).to_be_visible()
    # Chromium itself logs the refused request; the page handled it.
    assert watched.errors == [
        "console: Failed to load resource: the server responded with a status of 410 "
        f"(Gone) ({served.url}/api/rooms/{room['id']}/record?views=1)"
    ]
    watched.errors.clear()


def says_there_is_no_replay(page: Page) -> None:
    """The result says why the game cannot be replayed, and offers no replay."""
    result = page.locator(".o-result")
    expect(result).to_contain_text("This game was too long to keep its replay.")
    expect(result.get_by_role("link", name="Replay the game")).to_have_count(0)
    expect(result.get_by_role("link", name="Back to the lobby")).to_be_visible()


def test_the_room_page_of_a_game_too_long_to_replay_offers_no_replay(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    """The result once offered "Replay the game", and the replay then said it could not.
    The page read the record when its player sat down, while the whole log was kept;
    by the end the first moves are gone: the result says so instead, also once reloaded."""
    reservation = served.room_with_bots("sintra", seats=2, bots=1)
    watched = open_page()
    page = watched.page
    watched.hold_seat(reservation)
    watched.open_room(reservation["room"])
    play_to_end(watched, random.Random(7))
    says_there_is_no_replay(page)
    watched.shoot(shots, "room-too-long-to-replay")
    with page.expect_response(lambda answer: answer.url.endswith("/record")):
        page.reload()
    says_there_is_no_replay(page)
    assert watched.errors and all(REFUSED.match(error) for error in watched.errors), watched.errors
    watched.errors.clear()
