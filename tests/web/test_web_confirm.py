"""A move waits for its player's confirmation in Chromium (the room option ``confirm``,
on by default): nothing is sent until "Play it", "Cancel" and Escape send nothing, and
a room created with ``confirm`` off plays a move on its click. The bar is the page's
(clients/web/static/confirm.js), the same for the move list and for every game's board:
a move chosen on the board waits in it too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from browser import Served, Watched
from playwright.sync_api import expect

BOARD_PART = ".o-board [data-move]:not([disabled])"
# The board parts of one move's steps, last step first: a part either sends its move
# (the bar appears) or selects, pressing a button (Sintra: the pieces, then a strip
# offering several ways, then the way; the other boards send from one part), or, on Crystal
# Palace's board in phase 1, chooses a die's value (shown as chosen until the last die,
# which sends all of them as one move to confirm).
STEPS = (
    '[data-move="choose"]',
    '[data-move="break"]',
    '[data-move="place"]:not([aria-pressed="true"])',
    '[data-move]:not([aria-pressed="true"])',
)
SENT_OR_PRESSED = """([pressed, chosen]) => document.querySelector(".o-confirm")
  || document.querySelectorAll('.o-board [aria-pressed="true"]').length > pressed
  || document.querySelectorAll(".o-board .cp-draft").length > chosen"""


def first_move(watched: Watched) -> None:
    """Click through the move list until a move is chosen (a group narrows one step)."""
    page = watched.page
    while not page.locator(".o-confirm").count():
        page.locator(".moves button:not([disabled])").first.click()


def board_move(watched: Watched) -> None:
    """Click the board, never the move list, until a move is chosen (the bar shows)."""
    page = watched.page
    for _ in range(8):
        if page.locator(".o-confirm").count():
            return
        pressed = page.locator('.o-board [aria-pressed="true"]').count()
        chosen = page.locator(".o-board .cp-draft").count()
        parts = [page.locator(f".o-board {step}:not([disabled])") for step in STEPS]
        offered = [part for part in parts if part.count()]
        assert offered, "the board offers nothing to click"
        offered[0].first.click()
        page.wait_for_function(SENT_OR_PRESSED, arg=[pressed, chosen])
    raise AssertionError("eight board clicks chose no move")


def nothing_sent(watched: Watched, served: Served, room: str, version: int) -> None:
    """No intent left this page (none waits for its answer, the room did not move)."""
    assert watched.page.evaluate("() => tablewireRoom.pending.size") == 0
    assert served.api("GET", f"/api/rooms/{room}")["version"] == version
    assert watched.version() == version


def moves_of(served: Served, room: str, seat: int) -> list[dict[str, Any]]:
    """The moves ``seat`` played in ``room``, from its record."""
    record = served.api("GET", f"/api/rooms/{room}/record")
    return [move for move in record["moves"] if move["seat"] == seat]


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


def test_a_move_chosen_on_the_board_waits_for_its_confirmation(
    open_page: Callable[..., Watched], served: Served
) -> None:
    reservation = served.room_with_bots("sintra", seats=2, bots=1, options={"confirm": True})
    room = reservation["room"]
    player = open_page()
    page = player.page
    player.sit(reservation)
    page.wait_for_selector(BOARD_PART)
    before = served.api("GET", f"/api/rooms/{room}")["version"]
    bar = page.locator(".o-confirm")
    board_move(player)
    expect(bar).to_contain_text("Play: ")
    expect(page.locator(".o-board [data-move]")).to_have_count(0)
    expect(page.locator(".moves button:not([disabled])")).to_have_count(0)
    nothing_sent(player, served, room, before)
    bar.get_by_role("button", name="Cancel").click()
    expect(bar).to_have_count(0)
    expect(page.locator(BOARD_PART).first).to_be_enabled()
    nothing_sent(player, served, room, before)
    board_move(player)
    page.keyboard.press("Escape")
    expect(bar).to_have_count(0)
    expect(page.locator(BOARD_PART).first).to_be_enabled()
    nothing_sent(player, served, room, before)
    board_move(player)
    expect(page.get_by_role("button", name="Play it")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => tablewireRoom.version > {before}")
    assert len(moves_of(served, room, 0)) == 1


@pytest.mark.parametrize("engine", ["sintra", "chartered", "crystal-palace"])
def test_every_board_sends_its_moves_through_the_confirmation(
    open_page: Callable[..., Watched], served: Served, engine: str
) -> None:
    reservation = served.room_with_bots(engine, seats=2, bots=1, options={"confirm": True})
    room = reservation["room"]
    player = open_page()
    page = player.page
    player.sit(reservation)
    page.wait_for_selector(BOARD_PART)
    # The intents this page sent, by the session's next id (the record names the seat of
    # a move that told nothing only once the game is over: a die set in secret)
    sent = "() => tablewireRoom.session.nextId"
    first = page.evaluate(sent)
    board_move(player)
    expect(page.locator(".o-confirm")).to_contain_text("Play: ")
    assert page.evaluate("() => tablewireRoom.pending.size") == 0
    assert page.evaluate(sent) == first
    version = served.api("GET", f"/api/rooms/{room}")["version"]
    # Crystal Palace's phase 1: the four dice, confirmed once, one intent each.
    intents = 4 if engine == "crystal-palace" else 1
    page.get_by_role("button", name="Play it").click()
    page.wait_for_function("() => !document.querySelector('.o-confirm')")
    page.wait_for_function(
        f"() => tablewireRoom.session.nextId === {first + intents}"
        " && tablewireRoom.pending.size === 0"
    )
    assert page.evaluate(sent) == first + intents, "its intents, sent once confirmed"
    assert served.api("GET", f"/api/rooms/{room}")["version"] > version, "and played"
