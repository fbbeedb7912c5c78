"""The lobby's choice of what spectators may do, in Chromium: the room option
`spectator_chat` (docs/protocol.md section 9), which the server has always taken."""

from __future__ import annotations

from collections.abc import Callable

from browser import PHONE, Served, Watched
from playwright.sync_api import expect


def test_a_room_whose_spectators_may_chat_during_the_game_is_made_from_the_lobby(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    """The server took `spectator_chat`, but the lobby offered no way to ask for it: a
    creator who wanted friends watching to talk during the game could not. The card now
    offers it (off by default, as the server's), and a spectator of that room may chat
    while the game is played."""
    watched = open_page(PHONE)
    page = watched.page
    page.goto(served.url + "/")
    page.fill("#name", "Ana")
    card = page.locator("section", has=page.locator("#sintra-title"))
    allow = card.get_by_role("checkbox", name="Spectators may chat during the game")
    expect(allow).not_to_be_checked()
    allow.check()
    card.get_by_role("button", name="Create room").click()
    page.wait_for_url("**/rooms/*")
    room_id = page.url.rsplit("/", 1)[1]
    room = served.api("GET", f"/api/rooms/{room_id}")
    assert room["room_options"]["spectator_chat"] is True
    assert room["status"] == "playing"  # Ana and the default bot

    spectator = open_page(PHONE)
    spectator.page.goto(f"{served.url}/rooms/{room_id}")
    spectator.page.wait_for_selector(".o-board")
    spectator.page.fill("#chat-text", "nice move")
    spectator.page.get_by_role("button", name="Send").click()
    expect(page.locator(".chat-lines")).to_contain_text("nice move")
