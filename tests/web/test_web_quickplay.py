"""Quick play in Chromium against a real ``tablewire serve``: the lobby's Quick play
seats a newcomer in a small room, and once they have waited alone the page offers to
fill the empty seats with bots (the wait set by the page address's ``bots_after``, so
the test waits for nothing); a player who is not alone is never offered bots."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from browser import PHONE, Served, Watched
from playwright.sync_api import expect

OFFER = "Fill the empty seats with bots"


def test_a_player_waiting_alone_is_offered_bots_and_plays_at_once(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    watched = open_page(PHONE)
    page = watched.page
    page.goto(served.url + "/")
    page.fill("#name", "Ana")
    page.locator("section", has=page.locator("#sintra-title")).get_by_role(
        "button", name="Quick play"
    ).click()
    page.wait_for_url("**/rooms/*")
    room_id = page.url.rsplit("/", 1)[1]
    room = served.api("GET", f"/api/rooms/{room_id}")
    assert (room["seats"], room["names"], room["owned"]) == (2, ["Ana", None], False)

    page.goto(served.url + "/")
    fill = page.get_by_role("button", name=f"Fill the free seats of room {room_id} with bots")
    expect(fill).to_be_visible()  # the lobby offers it too, to the one seated player

    page.goto(f"{served.url}/rooms/{room_id}?bots_after=0")
    offer = page.get_by_role("button", name=OFFER)
    expect(offer).to_be_visible()
    assert offer.bounding_box()["y"] < PHONE["height"], "on the first screen"  # type: ignore[index]
    watched.shoot(shots, "quickplay-offer-phone")
    offer.click()
    expect(page.locator(".o-asked")).not_to_contain_text("Waiting for players")
    room = served.api("GET", f"/api/rooms/{room_id}")
    assert room["status"] == "playing" and room["bots"] == [None, "greedy"]
    expect(offer).to_have_count(0)


def test_a_player_who_is_not_alone_is_not_offered_bots(
    open_page: Callable[..., Watched], served: Served
) -> None:
    first = served.api("POST", "/api/quickplay", {"engine": "chartered", "seats": 3, "name": "Ana"})
    second = served.api("POST", "/api/quickplay", {"engine": "chartered", "seats": 3, "name": "Bo"})
    assert first["room"] == second["room"], "quick play seats Bo with Ana, who waits"
    watched = open_page()
    watched.hold_seat(first)
    watched.page.goto(f"{served.url}/rooms/{first['room']}?bots_after=0")
    expect(watched.page.locator(".o-seats")).to_contain_text("Bo")
    expect(watched.page.locator(".o-asked")).to_contain_text("2 of 3 seats taken")
    assert watched.page.get_by_role("button", name=OFFER).count() == 0
    assert watched.page.get_by_role("heading", name="Play against bots").count() == 0
    watched.page.goto(served.url + "/")
    expect(watched.page.get_by_text(f"room {first['room']}")).to_be_visible()
    expect(watched.page.get_by_role("link", name="Back to your seat")).to_have_count(1)
    fill = f"Fill the free seats of room {first['room']} with bots"
    assert watched.page.get_by_role("button", name=fill).count() == 0, "the lobby neither"
