"""Whose turn it is, in each game's board and in the room's list of players: the page
of the player whose turn it is says "Your turn" (a board once wrote the player's own
name, "Ana to play."); a spectator's page names the player. On a phone, where the page
is several screens long, a player reading the log on their turn still sees that it is
their turn, and a tap brings back what is asked and the board's moves."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from browser import PHONE, Served, Watched
from playwright.sync_api import Page, expect

# Each game's line that says whose turn it is: where it is, then what the player's page
# and a spectator's page say while it is Ana's (seat 1's) turn.
WHOSE = {
    "sintra": (".o-board .sn-whose", "Your turn.", "Ana to play."),
    "chartered": (
        ".o-board .ch-status p >> nth=0",
        "Your turn: build, or buy a card.",
        "Ana is to play: build, or buy a card.",
    ),
    "crystal-palace": (
        ".o-board .cp-player[data-seat='0'] .badge.waiting",
        "your turn",
        "to play",
    ),
}


def set_the_dice(page: Page) -> None:
    """Crystal Palace begins with the dice set in secret: the first value for each die."""
    faces = page.locator(".cp-faces [data-move]")
    faces.first.wait_for()
    while faces.count():
        faces.first.click()


@pytest.mark.parametrize("engine", sorted(WHOSE))
def test_the_players_page_says_your_turn_and_a_spectators_names_the_player(
    open_page: Callable[..., Watched], served: Served, shots: Path, engine: str
) -> None:
    reservation = served.room_with_bots(engine, seats=3, bots=2)
    player, spectator = open_page(), open_page(PHONE)
    player.sit(reservation)
    spectator.open_room(reservation["room"])
    if engine == "crystal-palace":
        set_the_dice(player.page)
    where, yours, named = WHOSE[engine]
    expect(player.page.locator(where)).to_have_text(yours)
    expect(spectator.page.locator(where)).to_have_text(named)
    mine = player.page.locator(".o-seats .seat").first.locator(".badge.waiting")
    expect(mine).to_have_text("your turn")
    expect(spectator.page.locator(".o-seats .seat").first.locator(".badge.waiting")).to_have_text(
        "to play"
    )
    player.wait_loaded()
    player.shoot(shots, f"your-turn-{engine}")
    spectator.shoot(shots, f"your-turn-{engine}-spectator")


# The board's parts that make a move; the first of them should be on the screen.
MOVE_PART = ".o-board [data-move]:not([disabled])"
# Scrolls the board's end to the screen's bottom.
BOARDS_END = """() => window.scrollTo(0, window.scrollY - window.innerHeight
  + document.querySelector(".o-board").getBoundingClientRect().bottom)"""
# Resolves once two frames are drawn: the cue looks at the page in the frame after a
# scroll, so "no cue" is only known after it (checked at once, it passed either way).
FRAMES_DRAWN = """() => new Promise((done) =>
  requestAnimationFrame(() => requestAnimationFrame(done)))"""
# Whether the game log's card ends above the cue's top.
CLEAR_OF_THE_CUE = """() => document.querySelector(".o-log").getBoundingClientRect().bottom
  <= document.querySelector(".o-turn-cue").getBoundingClientRect().top"""


@pytest.mark.parametrize("engine", sorted(WHOSE))
def test_on_a_phone_your_turn_shows_wherever_you_read_and_leads_back_to_the_board(
    open_page: Callable[..., Watched], served: Served, shots: Path, engine: str
) -> None:
    reservation = served.room_with_bots(engine, seats=3, bots=2)
    player = open_page(PHONE)
    player.sit(reservation)
    page = player.page
    if engine == "crystal-palace":
        set_the_dice(page)
    where, yours, _ = WHOSE[engine]
    expect(page.locator(where)).to_have_text(yours)
    player.wait_loaded()
    asked = page.locator(".o-asked .banner")
    expect(asked).to_have_text("Your turn: choose a move.")
    expect(asked).to_be_in_viewport()
    expect(page.locator(MOVE_PART).first).to_be_in_viewport()
    cue = page.get_by_role("link", name="Your turn: back to the board")
    page.evaluate(FRAMES_DRAWN)
    expect(cue).to_have_count(0)
    # Down the board, what is asked off the screen: the board is in sight, no cue on it.
    page.evaluate(BOARDS_END)
    expect(asked).not_to_be_in_viewport()
    expect(page.locator(".o-board")).to_be_in_viewport()
    page.evaluate(FRAMES_DRAWN)
    expect(cue).to_have_count(0)
    # The whole log is screens below the board: reading it, the turn is still in sight.
    page.get_by_role("link", name=re.compile(r"^Whole game log")).click()
    expect(page.locator("#log-title")).to_be_in_viewport()
    expect(asked).not_to_be_in_viewport()
    expect(cue).to_be_in_viewport()
    page.screenshot(path=str(shots / f"your-turn-{engine}-phone-reading-the-log.png"))
    # At the page's end, the log's newest lines are clear of it.
    page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    expect(cue).to_be_in_viewport()
    assert page.evaluate(CLEAR_OF_THE_CUE), "the cue covers the game log"
    cue.click()
    expect(asked).to_be_in_viewport()
    expect(page.locator(MOVE_PART).first).to_be_in_viewport()
    expect(cue).to_have_count(0)
    page.screenshot(path=str(shots / f"your-turn-{engine}-phone-back.png"))
