""" "Play now" in Chromium: one click on a game's card seats this browser at a table of
three with the game's default (strongest) bots, and the game is on."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from browser import PHONE, Served, Watched
from playwright.sync_api import expect

from engines import GAMES
from engines.bots import has_greedy


@pytest.mark.parametrize("engine", sorted(GAMES))
def test_play_now_seats_you_with_the_best_bots_in_one_click(
    open_page: Callable[..., Watched], served: Served, engine: str, shots: Path
) -> None:
    watched = open_page(PHONE)
    page = watched.page
    page.goto(served.url + "/")
    page.fill("#name", "Bea")
    card = page.locator("section", has=page.locator(f"#{engine}-title"))
    expect(card.get_by_text("you and 2 bots")).to_be_visible()
    card.screenshot(path=str(shots / f"play-now-{engine}.png"))
    card.get_by_role("button", name="Play now").click()
    page.wait_for_url("**/rooms/*")
    page.wait_for_selector(".o-board")
    room = served.api("GET", f"/api/rooms/{page.url.rsplit('/', 1)[1]}")
    kind = "greedy" if has_greedy(engine) else "random"
    assert (room["engine"], room["status"], room["seats"]) == (engine, "playing", 3)
    assert room["names"][0] == "Bea" and room["bots"] == [None, kind, kind]
    assert watched.mirror()["status"] == "playing"


def test_a_server_out_of_reach_is_said_on_the_card_in_words(
    open_page: Callable[..., Watched], served: Served
) -> None:
    """On a phone the last game's card is screens below the top of the lobby: when the
    server cannot be reached, its "Play now" says so on the card, in view, in words
    (not the browser's "Failed to fetch")."""
    watched = open_page(PHONE)
    page = watched.page
    page.goto(served.url + "/")
    page.fill("#name", "Bea")
    page.route("**/api/rooms", lambda route: route.abort("connectionrefused"))
    card = page.locator("section", has=page.locator("#sintra-title"))
    card.get_by_role("button", name="Play now").click()
    said = card.get_by_role("alert")
    expect(said).to_contain_text("Cannot reach the server")
    expect(said).to_be_in_viewport()
    assert "Failed to fetch" not in page.locator("body").inner_text()
    expect(card.get_by_role("button", name="Play now")).to_be_enabled()
    # Chromium itself logs the refused request; the page handled it.
    assert all("net::ERR_CONNECTION_REFUSED" in error for error in watched.errors), watched.errors
    watched.errors.clear()


def test_a_seat_refused_in_the_rooms_list_is_said_on_its_row(
    open_page: Callable[..., Watched], served: Served
) -> None:
    """The rooms list is the bottom of the lobby: "Take a seat" there that fails says
    why on the room's row, in view, not in the line at the top of the page."""
    room = served.api("POST", "/api/rooms", {"engine": "sintra", "seats": 2})
    watched = open_page(PHONE)
    page = watched.page
    page.goto(served.url + "/")
    page.fill("#name", "Bea")
    page.route(f"**/api/rooms/{room['id']}/seats", lambda route: route.abort("connectionrefused"))
    row = page.locator(".rooms tr", has_text=f"room {room['id']}")
    row.get_by_role("button", name="Take a seat").click()
    said = row.get_by_role("alert")
    expect(said).to_contain_text("Cannot reach the server")
    expect(said).to_be_in_viewport()
    assert all("net::ERR_CONNECTION_REFUSED" in error for error in watched.errors), watched.errors
    watched.errors.clear()


@pytest.mark.parametrize("button", ["Play now", "Create room"])
def test_a_refused_name_is_said_on_the_card_and_leaves_no_room(
    open_page: Callable[..., Watched], served: Served, button: str
) -> None:
    """A name the server refuses for the seat ("spectator", what chat calls spectators)
    was refused only once the room was made: a public room of bots and no player then
    waited in the list for an hour. The room's request carries the name now, and is
    refused before anything is created."""
    before = {room["id"] for room in served.api("GET", "/api/rooms")}
    watched = open_page(PHONE)
    page = watched.page
    page.goto(served.url + "/")
    page.fill("#name", "spectator")
    card = page.locator("section", has=page.locator("#sintra-title"))
    card.get_by_role("button", name=button).click()
    said = card.get_by_role("alert")
    expect(said).to_contain_text("'spectator'")
    expect(said).to_contain_text("choose another name")
    expect(card.get_by_role("button", name=button)).to_be_enabled()
    assert {room["id"] for room in served.api("GET", "/api/rooms")} == before
    refused = f"the server responded with a status of 409 (Conflict) ({served.url}/api/rooms)"
    assert watched.errors == [f"console: Failed to load resource: {refused}"], watched.errors
    watched.errors.clear()
