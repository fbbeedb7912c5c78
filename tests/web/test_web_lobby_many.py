"""The lobby's list of rooms in Chromium on a busy server: more public rooms than one
page of `GET /api/rooms` holds (`list_limit`, 3 on this module's server)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from browser import PHONE, Served, Watched
from playwright.sync_api import expect


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    server = Served(env={"TABLEWIRE_LIST_LIMIT": "3"}).start()
    yield server
    server.stop()


def test_a_room_waiting_for_players_is_listed_behind_a_page_of_newer_rooms(
    served: Served, open_page: Callable[..., Watched], shots: Path
) -> None:
    """The lobby read the newest page of rooms only: once a page of newer games (bots'
    games, finished or played) came after it, a room waiting for players was in no list,
    and nobody could take its seat from the lobby."""
    waiting = served.api("POST", "/api/rooms", {"engine": "sintra", "seats": 2})
    played = [served.bots_room("sintra", 2, [0, 1], options={"bot_delay": 30}) for _ in range(3)]
    watched = open_page(PHONE)
    page = watched.page
    page.goto(served.url + "/")
    rows = page.locator("table.rooms tbody tr")
    expect(rows).to_have_count(4)
    first = rows.first
    expect(first).to_contain_text(f"room {waiting['id']}")
    expect(first.get_by_role("button", name="Take a seat")).to_be_visible()
    for room in played:
        expect(page.get_by_role("link", name=f"Watch room {room['id']}")).to_be_visible()
    watched.shoot(shots, "lobby-many-rooms-phone")
