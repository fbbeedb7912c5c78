"""A room the server closes under the room page (``room_closed``: here a finished room,
removed at the first sweep after its game ended): the page does not reconnect, keeps the
result, shows the room as gone and says why, in the server's words."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import PHONE, Served, Watched, play_to_end
from playwright.sync_api import expect

# Every state the page's connection goes through, from the page's first script on.
STATES = """() => {
  globalThis.seenStates = [];
  const follow = () => {
    const conn = globalThis.tablewireRoom;
    if (!conn) return setTimeout(follow, 0);
    globalThis.seenStates.push(conn.state);
    conn.on("state", (state) => globalThis.seenStates.push(state));
  };
  follow();
}"""

# The page reads the room's record again once its game is over (a long game's replay
# may be gone by then): here the room may be gone before that read, which Chromium
# itself logs; the page handles it.
RECORD_GONE = re.compile(
    r"^console: Failed to load resource: the server responded with a status of 404 "
    r"\(Not Found\) \(http://127\.0\.0\.1:\d+/api/rooms/[^/]+/record\?kept=1\)$"
)


@pytest.fixture
def open_page(open_page: Callable[..., Watched]) -> Iterator[Callable[..., Watched]]:
    """The browser tests' ``open_page``, forgiving its pages the record gone (above)."""
    opened: list[Watched] = []

    def open_one(*args: Any, **kwargs: Any) -> Watched:
        watched = open_page(*args, **kwargs)
        opened.append(watched)
        return watched

    yield open_one
    for watched in opened:
        watched.errors[:] = [error for error in watched.errors if not RECORD_GONE.match(error)]


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    """Finished rooms are removed at the first sweep after their game ends."""
    server = Served(env={"TABLEWIRE_FINISHED_TTL": "0", "TABLEWIRE_SWEEP_INTERVAL": "0.05"})
    server.start()
    yield server
    server.stop()


def test_a_room_the_server_closes_is_gone_at_once_and_the_page_says_why(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    reservation = served.room_with_bots("sintra", seats=2, bots=1)
    player = open_page()
    player.hold_seat(reservation)
    player.page.add_init_script(f"({STATES})()")
    player.open_room(reservation["room"])
    play_to_end(player, random.Random(3))
    player.page.wait_for_function("() => globalThis.tablewireRoom.state === 'closed'")
    assert player.page.evaluate("globalThis.tablewireRoom.lastError.code") == "room_closed"
    seen = player.page.evaluate("globalThis.seenStates")
    assert "reconnecting" not in seen, seen
    alert = player.page.locator(".banner.bad").inner_text()
    assert "The server closed this room: its game ended over 0 s ago." in alert, alert
    assert "cannot be joined again" in alert
    assert "in memory only" not in alert
    # One way out, the gone card's: the banner says why and offers nothing more.
    expect(player.page.locator(".banner.bad a")).to_have_count(0)
    expect(player.page.get_by_role("link", name="Back to the lobby")).to_have_count(1)
    expect(player.page.locator(".o-gone")).to_contain_text("Back to the lobby")
    expect(player.page.locator(".room-head")).to_contain_text("room gone")
    expect(player.page.locator(".o-result")).to_be_visible()
    player.shoot(shots, "room-closed")


def test_a_gone_room_offers_no_action_on_it_but_a_new_game(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    """Once the room is gone, nothing on the page acts on it (a rematch, its replay, its
    link to share): the page offers a new game of the same kind by quick play, under the
    name this browser plays under, and the lobby."""
    reservation = served.room_with_bots("sintra", seats=2, bots=1)
    player = open_page(PHONE)
    player.hold_seat(reservation)
    player.open_room(reservation["room"])
    play_to_end(player, random.Random(3))
    player.page.wait_for_function("() => globalThis.tablewireRoom.state === 'closed'")
    page = player.page
    expect(page.locator(".room-head")).to_contain_text("room gone")
    expect(page.locator(".o-result")).to_be_visible()
    for gone in ("Rematch", "Go to the rematch", "Replay the game"):
        expect(page.get_by_role("button", name=gone, exact=True)).to_have_count(0)
        expect(page.get_by_role("link", name=gone, exact=True)).to_have_count(0)
    expect(page.locator("#room-link")).to_have_count(0)
    expect(page.locator(".o-chat form")).to_have_count(0)
    card = page.locator(".o-gone")
    expect(card.get_by_role("link", name="Back to the lobby")).to_have_attribute("href", "/")
    player.shoot(shots, "room-gone-phone")
    card.get_by_role("button", name="Play again").click()
    page.wait_for_url(lambda url: reservation["room"] not in url)
    expect(page.locator(".room-head")).to_contain_text("you are Ana")


def test_a_spectator_of_a_gone_room_is_offered_the_game_not_to_play_again(
    open_page: Callable[..., Watched], served: Served
) -> None:
    """Someone who only watched did not play: the gone card offers them the game by its
    name ("Play Azul: ..."), not "Play again"."""
    reservation = served.room_with_bots("sintra", seats=2, bots=1)
    player, watcher = open_page(), open_page(PHONE)
    player.sit(reservation)
    watcher.open_room(reservation["room"])
    play_to_end(player, random.Random(3))
    watcher.page.wait_for_function("() => globalThis.tablewireRoom.state === 'closed'")
    card = watcher.page.locator(".o-gone")
    expect(card.get_by_role("button")).to_have_text("Play Azul: Stained Glass of Sintra")
    expect(card).not_to_contain_text("again")
    expect(player.page.locator(".o-gone").get_by_role("button")).to_have_text("Play again")
