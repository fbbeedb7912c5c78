"""Whose turn it is, in each game's board and in the room's list of players: the page
of the player whose turn it is says "Your turn" (a board once wrote the player's own
name, "Ana to play."); a spectator's page names the player."""

from __future__ import annotations

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
