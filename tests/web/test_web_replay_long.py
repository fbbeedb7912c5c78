"""The game viewer for a game longer than the memory store keeps: its first moves are
gone from the log (`memory_log`), so it cannot be replayed, and the page says so in
words; the room page of such a game offers no replay and says why. This module's
server keeps 10 entries before a snapshot taken every 10."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from browser import PHONE, Served, Watched, play_to_end
from playwright.sync_api import Page, expect

KEPT = "/record?kept=1"
"""The room page's read of the record: what is kept of it (no 410 for a long game)."""
NOT_KEPT = "Earlier moves of this game are not kept"


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
    # The room page reads the record too (its game log): what is kept of it.
    with page.expect_response(lambda answer: answer.url.endswith(KEPT)):
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
    # The player saw every line live: the record read at the end keeps them all.
    kept = served.api("GET", f"/api/rooms/{reservation['room']}{KEPT}")
    game_log = page.locator(".o-log")
    expect(game_log.locator("ul.log li").first).to_contain_text("takes seat")
    assert game_log.locator("ul.log li").count() > len(kept["log"])
    expect(game_log).not_to_contain_text(NOT_KEPT)
    watched.shoot(shots, "room-too-long-to-replay")
    with page.expect_response(lambda answer: answer.url.endswith(KEPT)):
        page.reload()
    says_there_is_no_replay(page)
    expect(game_log).to_contain_text(NOT_KEPT)
    assert watched.errors == [], watched.errors


class _Far(Exception):
    """The game has gone far enough past the log this server keeps."""


def test_a_reloaded_long_game_shows_the_moves_still_kept_and_says_earlier_ones_are_not(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    """A player who reloaded a long game once saw "Moves appear here as they are played."
    and nothing else: the record was refused (its first moves are gone), and with it
    every line. The page now shows the lines the server still has, and says plainly
    that the earlier moves are not kept."""
    reservation = served.room_with_bots("sintra", seats=2, bots=1)
    watched = open_page()
    page = watched.page
    watched.hold_seat(reservation)
    watched.open_room(reservation["room"])

    def far_enough(_: int) -> None:
        if watched.version() > 40:
            raise _Far

    with pytest.raises(_Far):
        play_to_end(watched, random.Random(7), on_click=far_enough)
    page.reload()
    watched.wait_drawn()
    game_log = page.locator(".o-log")
    expect(game_log).to_contain_text(NOT_KEPT)
    lines = game_log.locator("ul.log li")
    expect(lines.first).to_be_visible()
    assert lines.count() >= 1
    watched.shoot(shots, "room-long-game-reloaded")
    assert watched.errors == [], watched.errors
