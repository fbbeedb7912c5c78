"""The web pages in real Chromium against a real ``tablewire serve``: the lobby creates
a room with bots and seats this browser; a spectator's mirror equals a fresh snapshot.
Each game's own board has its test file (``test_web_<game>.py``)."""

from __future__ import annotations

import random
from collections.abc import Callable

from browser import PHONE, Served, Watched, play_to_end


def test_the_lobby_creates_a_room_with_bots_and_seats_this_browser(
    open_page: Callable[..., Watched], served: Served
) -> None:
    watched = open_page()
    page = watched.page
    page.goto(served.url + "/")
    page.fill("#name", "Bea <b>&")
    page.select_option("#chartered-seats", "3")
    page.select_option("#chartered-bots", "2")
    page.locator("section", has=page.locator("#chartered-title")).get_by_role(
        "button", name="Create room"
    ).click()
    page.wait_for_url("**/rooms/*")
    page.wait_for_selector(".o-board")
    assert "Bea <b>&" in page.locator(".o-seats").inner_text()
    assert watched.mirror()["status"] == "playing"


def test_a_spectator_mirror_equals_a_fresh_snapshot_at_the_end(
    open_page: Callable[..., Watched], served: Served
) -> None:
    reservation = served.room_with_bots("sintra", seats=2, bots=1)
    player, spectator = open_page(), open_page(PHONE)
    player.hold_seat(reservation)
    player.open_room(reservation["room"])
    spectator.open_room(reservation["room"])
    play_to_end(player, random.Random(1))
    spectator.page.wait_for_selector(".o-result")
    fresh = open_page()
    fresh.open_room(reservation["room"])
    assert spectator.mirror() == fresh.mirror()
    assert spectator.no_horizontal_scroll()
