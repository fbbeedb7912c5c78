"""Players' names as a page shows them, in real Chromium: the longest name the server
accepts (32 characters) with no place to break a line, on every game's room page and
its replay, at a phone's and a desktop's width: the page never scrolls sideways (the
name wraps inside its box) and the name is still there in full."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from browser import DESKTOP, PHONE, PLAY_TO_THE_END, Served, Watched

# As wide as a name gets: 32 of the widest letter, no space, no hyphen.
LONG = "W" * 32
ENGINES = ("sintra", "chartered", "crystal-palace")


def full_room(served: Served, engine: str) -> dict[str, str]:
    """A room of three people, two of them with 32-letter names, started (every seat is
    taken): seat 0's reservation. No move is needed: the names show from the start."""
    room = served.api("POST", "/api/rooms", {"engine": engine, "seats": 3})
    seats = [
        served.api("POST", f"/api/rooms/{room['id']}/seats", {"name": name})
        for name in (LONG, LONG[:31] + "V", "Bea")
    ]
    return dict(seats[0])


@pytest.mark.parametrize("engine", ENGINES)
def test_the_longest_name_wraps_and_nothing_scrolls_sideways(
    served: Served, open_page: Callable[..., Watched], shots: Path, engine: str
) -> None:
    reservation = full_room(served, engine)
    watched = open_page(PHONE)
    page = watched.page
    watched.sit(reservation)
    watched.wait_drawn()
    for size, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
        page.set_viewport_size(viewport)
        watched.shoot(shots, f"names-long-{engine}-{size}")
        assert watched.no_horizontal_scroll(), (engine, size)
        assert LONG in page.locator(".o-seats").inner_text()
    page.goto(f"{served.url}/rooms/{reservation['room']}/replay")
    page.wait_for_selector(".o-replay")
    watched.wait_drawn()
    for size, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
        page.set_viewport_size(viewport)
        watched.shoot(shots, f"names-long-{engine}-replay-{size}")
        assert watched.no_horizontal_scroll(), (engine, "replay", size)


def test_the_longest_name_in_the_result_of_a_finished_game(
    served: Served, open_page: Callable[..., Watched], shots: Path
) -> None:
    reservation = served.room_with_bots("sintra", seats=2, bots=1, name=LONG)
    watched = open_page(PHONE)
    watched.sit(reservation)
    watched.page.evaluate(PLAY_TO_THE_END)
    watched.page.wait_for_selector(".o-result .ranking")
    watched.wait_drawn()
    watched.shoot(shots, "names-long-result-phone")
    assert watched.no_horizontal_scroll()
    assert f"{LONG} (you)" in [who for who, _ in watched.ranking()]
