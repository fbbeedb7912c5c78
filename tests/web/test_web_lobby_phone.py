"""The lobby on a phone (390 px wide) in Chromium: a player looking for a room to join
finds the open rooms on the first screen, not under the game cards, each a screen of
options tall; with no room to join, the games come first as before, and on a desktop
the games stay on the first screen under the open rooms."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from browser import DESKTOP, PHONE, Served, Watched
from playwright.sync_api import Page, expect


@pytest.fixture
def served() -> Iterator[Served]:
    """A server of this test's own: each test counts the rooms it lists."""
    server = Served().start()
    yield server
    server.stop()


def waiting_room(served: Served, engine: str = "chartered") -> str:
    """A public room of 3 seats with one taken: it waits for 2 more players."""
    room = served.api("POST", "/api/rooms", {"engine": engine, "seats": 3})
    served.api("POST", f"/api/rooms/{room['id']}/seats", {"name": "Ana"})
    return str(room["id"])


def on_first_screen(page: Page, selector: str) -> bool:
    """Whether the element is wholly inside the first screen of the page (not scrolled)."""
    box = page.locator(selector).first.evaluate(
        "(el) => { const b = el.getBoundingClientRect();"
        " return {top: b.top + scrollY, bottom: b.bottom + scrollY}; }"
    )
    height = page.viewport_size["height"] if page.viewport_size else 0
    return bool(box["top"] >= 0 and box["bottom"] <= height)


def test_a_room_to_join_is_on_a_phones_first_screen(
    served: Served, open_page: Callable[..., Watched], shots: Path
) -> None:
    """The list of rooms came after three game cards, each with its room's options: a
    phone's player scrolled some 2,400 px to reach "Take a seat"."""
    room = waiting_room(served)
    page = open_page(PHONE).page
    page.goto(served.url + "/")
    row = page.locator("table.rooms tr", has_text=f"room {room}")
    expect(row.get_by_role("button", name="Take a seat")).to_be_visible()
    page.screenshot(path=str(shots / "lobby-phone-open-room.png"))
    assert on_first_screen(page, f"table.rooms tr:has-text('room {room}') button")
    assert page.locator("h2").first.inner_text() == "Join a game"


def test_the_games_come_first_when_no_room_can_be_joined(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    page = open_page(PHONE).page
    page.goto(served.url + "/")
    expect(page.get_by_role("button", name="Play now").first).to_be_visible()
    assert page.locator("h2").first.inner_text() == "Start a game"
    assert on_first_screen(page, "button.play-now")
    expect(page.get_by_text("No rooms yet: create one above.")).to_be_visible()


def test_at_most_three_open_rooms_come_before_the_games(
    served: Served, open_page: Callable[..., Watched], shots: Path
) -> None:
    """Many open rooms never push the games screens down: three come first, the others
    are in the list under the games, which the line under the three links to."""
    rooms = [waiting_room(served) for _ in range(5)]
    for viewport, size in ((PHONE, "phone"), (DESKTOP, "desktop")):
        page = open_page(viewport).page
        page.goto(served.url + "/")
        first = page.locator("section:has(#open-title) table.rooms tbody tr")
        expect(first).to_have_count(3)
        expect(page.locator("table.rooms tbody tr")).to_have_count(len(rooms))
        link = page.get_by_role("link", name="2 more open rooms")
        expect(link).to_have_attribute("href", "#rooms-title")
        page.screenshot(path=str(shots / f"lobby-five-open-rooms-{size}.png"))
        if size == "desktop":
            # The games are still on a desktop's first screen, under the open rooms.
            assert on_first_screen(page, "button.play-now")


def test_a_room_that_fills_while_shown_keeps_its_place_and_says_why(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    """A room of "Join a game" that filled before its page was told: "Take a seat" was
    refused on its row, and the next look at the rooms moved the row under the games,
    its refusal gone. It stays where it was asked, saying why, now playing."""
    room = served.api("POST", "/api/rooms", {"engine": "sintra", "seats": 2})
    seats = f"/api/rooms/{room['id']}/seats"
    served.api("POST", seats, {"name": "Ana"})
    watched = open_page(DESKTOP)
    page = watched.page
    page.clock.install()  # the next look at the rooms only when the test says
    page.goto(served.url + "/")
    top = page.locator("section:has(#open-title)")
    take = top.get_by_role("button", name="Take a seat")
    expect(take).to_be_visible()
    served.api("POST", seats, {"name": "Bo"})  # the last seat: the game starts
    take.click()
    refusal = "Every seat of this room is taken."
    expect(top.get_by_role("alert")).to_have_text(refusal)
    page.clock.run_for(3000)
    row = top.locator("table.rooms tr", has_text=f"room {room['id']}")
    expect(row.locator(".badge")).to_have_text("playing")
    expect(row.get_by_role("alert")).to_have_text(refusal)
    assert watched.errors == [  # Chromium itself logs the refused request; the page said it
        f"console: Failed to load resource: the server responded with a status of 409 "
        f"(Conflict) ({served.url}{seats})"
    ]
    watched.errors.clear()
