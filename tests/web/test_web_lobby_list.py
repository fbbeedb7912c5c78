"""The lobby's list of rooms in Chromium, as a visitor reads it: every name in full at a
phone's width and a desktop's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from browser import DESKTOP, PHONE, PLAY_TO_THE_END, Served, Watched
from playwright.sync_api import expect

# As wide as a name gets: 32 of the widest letter, no space, no hyphen.
LONG = "W" * 32
# The list's headings (shown on a desktop only) and status badges whose text takes more
# than one line.
BROKEN_WORDS = """() => [...document.querySelectorAll(".rooms th, .rooms .badge")]
  .filter((part) => part.closest("thead") === null
    || part.closest("thead").getBoundingClientRect().width > 1)
  .filter((part) => {
    const range = document.createRange();
    range.selectNodeContents(part);
    return part.textContent.trim() && range.getClientRects().length > 1;
  })
  .map((part) => part.textContent)"""


def test_the_longest_name_wraps_in_the_list_of_rooms(
    served: Served, open_page: Callable[..., Watched], shots: Path
) -> None:
    """The list's card once scrolled sideways on a phone, the name cut at its edge: a
    visitor read "WWWW…" without the rest of the name or the seats after it."""
    room = served.api("POST", "/api/rooms", {"engine": "chartered", "seats": 3})
    served.api("POST", f"/api/rooms/{room['id']}/seats", {"name": LONG})
    served.api("POST", f"/api/rooms/{room['id']}/seats", {"name": "<b>Bea</b>"})
    watched = open_page(PHONE)
    page = watched.page
    page.goto(served.url + "/")
    row = page.locator("table.rooms tr", has_text=f"room {room['id']}")
    row.wait_for()
    for size, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
        page.set_viewport_size(viewport)
        watched.shoot(shots, f"lobby-long-name-{size}")
        assert f"{LONG} (away), <b>Bea</b> (away), free seat" in row.inner_text()
        card = page.locator(".card:has(table.rooms)")
        fits = card.evaluate("(card) => card.scrollWidth <= card.clientWidth")
        assert fits, f"the list of rooms scrolls sideways on a {size}"
        assert watched.no_horizontal_scroll(), size
        # Only a name breaks where it must: a status and the headings stay whole words.
        broken = page.evaluate(BROKEN_WORDS)
        assert not broken, (size, broken)


def test_a_seat_kept_for_a_former_player_is_not_offered_in_the_list(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    """A rematch keeps the seats of the last game's players for a while: the list said
    "free seat" and offered "Take a seat", which a visitor pressed to be refused
    (seat_held). It now says whom the seat is kept for, and offers no seat."""
    room = served.api(
        "POST",
        "/api/rooms",
        {"engine": "sintra", "seats": 2, "options": {"bot_delay": 0, "grace": 0}},
    )
    ana = served.api("POST", f"/api/rooms/{room['id']}/seats", {"name": "Ana"})
    served.api("POST", f"/api/rooms/{room['id']}/seats", {"name": "Bea"})
    player = open_page()
    player.hold_seat(ana)
    player.open_room(room["id"])  # Bea never comes: a bot plays her seat
    player.page.evaluate(PLAY_TO_THE_END)
    player.page.get_by_role("button", name="Rematch").click()
    player.page.wait_for_url(lambda url: room["id"] not in url)
    rematch = player.page.url.rsplit("/", 1)[1]

    visitor = open_page(PHONE)
    page = visitor.page
    page.goto(served.url + "/")
    row = page.locator("table.rooms tr", has_text=f"room {rematch}")
    expect(row).to_contain_text("Ana, kept for Bea")
    expect(row.get_by_role("button", name="Take a seat")).to_have_count(0)
    expect(row.get_by_role("link", name=f"Watch room {rematch}")).to_be_visible()


def test_a_player_who_left_a_waiting_room_is_said_away_in_the_list(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    """The list named a waiting room's players the same whether they were there or had
    left: a visitor took a seat beside someone long gone and waited for nobody. A player
    with no page open on the room now reads "(away)", until they come back."""
    room = served.api("POST", "/api/rooms", {"engine": "sintra", "seats": 3})
    ana = served.api("POST", f"/api/rooms/{room['id']}/seats", {"name": "Ana"})
    visitor = open_page(PHONE)
    page = visitor.page
    page.goto(served.url + "/")
    names = page.locator("table.rooms tr", has_text=f"room {room['id']}").locator(".names")
    expect(names).to_have_text("Ana (away), free seat, free seat")
    player = open_page()
    player.sit(ana)
    expect(names).to_have_text("Ana, free seat, free seat", timeout=10_000)  # the next look
