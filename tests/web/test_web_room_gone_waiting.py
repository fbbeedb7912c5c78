"""A room removed while it waits for players (``room_closed``: nobody took all its seats
within ``waiting_ttl``) under the page of its one player: the page offers nothing more
to do in it (bots, a seat, its link), only a new game or the lobby."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from browser import PHONE, Served, Watched
from playwright.sync_api import expect


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    """Waiting rooms are removed seconds after their last change (long enough for the page
    to load under a busy machine first)."""
    server = Served(env={"TABLEWIRE_WAITING_TTL": "8", "TABLEWIRE_SWEEP_INTERVAL": "0.1"})
    server.start()
    yield server
    server.stop()


def test_a_waiting_room_removed_under_its_player_offers_no_bots(
    open_page: Callable[..., Watched], served: Served
) -> None:
    reservation = served.api("POST", "/api/quickplay", {"engine": "sintra", "name": "Ana"})
    player = open_page(PHONE)
    player.hold_seat(reservation)
    player.open_room(reservation["room"])
    page = player.page
    page.wait_for_function("() => globalThis.tablewireRoom.state === 'closed'")
    assert page.evaluate("globalThis.tablewireRoom.lastError.code") == "room_closed"
    expect(page.locator(".room-head")).to_contain_text("room gone")
    for gone in (".o-offer-bots", ".o-join", "#room-link", ".o-chat form"):
        expect(page.locator(gone)).to_have_count(0)
    expect(page.locator(".o-gone")).to_be_visible()
    # One way out of it: the gone card's new game or lobby, not the banner's link too.
    expect(page.get_by_role("link", name="Back to the lobby")).to_have_count(1)
    expect(page.locator(".banner.bad a")).to_have_count(0)
