"""A move waits for its player's confirmation in Chromium (the room option ``confirm``,
on by default): nothing is sent until "Play it", "Cancel" and Escape send nothing, and
a room created with ``confirm`` off plays a move on its click."""

from __future__ import annotations

from collections.abc import Callable

from browser import Served, Watched
from playwright.sync_api import expect


def first_move(watched: Watched) -> None:
    """Click through the move list until a move is chosen (a group narrows one step)."""
    page = watched.page
    while not page.locator(".o-confirm").count():
        page.locator(".moves button:not([disabled])").first.click()


def test_a_move_is_played_only_once_confirmed(
    open_page: Callable[..., Watched], served: Served
) -> None:
    reservation = served.room_with_bots("sintra", seats=2, bots=1, options={"confirm": True})
    player = open_page()
    page = player.page
    player.sit(reservation)
    page.wait_for_selector(".moves button:not([disabled])")
    before = player.version()
    first_move(player)
    bar = page.locator(".o-confirm")
    expect(bar).to_contain_text("Play: ")
    expect(page.locator(".moves button:not([disabled])")).to_have_count(0)
    expect(page.locator(".o-board [data-move]")).to_have_count(0)
    bar.get_by_role("button", name="Cancel").click()
    expect(bar).to_have_count(0)
    first_move(player)
    page.keyboard.press("Escape")
    expect(bar).to_have_count(0)
    assert player.version() == before, "nothing was sent"
    first_move(player)
    expect(page.get_by_role("button", name="Play it")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => tablewireRoom.version > {before}")


def test_a_room_without_confirmation_plays_a_move_on_its_click(
    open_page: Callable[..., Watched], served: Served
) -> None:
    reservation = served.room_with_bots("sintra", seats=2, bots=1)
    player = open_page()
    page = player.page
    player.sit(reservation)
    page.wait_for_selector(".moves button:not([disabled])")
    before = player.version()
    while player.version() == before:
        page.locator(".moves button:not([disabled])").first.click()
    expect(page.locator(".o-confirm")).to_have_count(0)
