"""A room link whose room does not exist (``no_such_room`` at the first connect: swept,
or lost in a restart of a memory store): the page says so without an error in the
console, and offers a new game of the same kind by quick play when it knows the game
(the link's ``?game=``, or this browser's seat in the room), else the lobby."""

from __future__ import annotations

from collections.abc import Callable

from browser import PHONE, REFUSED, Served, Watched
from playwright.sync_api import expect

SINTRA = "Azul: Stained Glass of Sintra"


def test_a_link_to_a_missing_room_naming_its_game_offers_a_new_game_of_it(
    open_page: Callable[..., Watched], served: Served
) -> None:
    player = open_page(PHONE)
    player.page.goto(served.url + "/")
    player.page.evaluate("() => localStorage.setItem('tablewire:name', 'Ana')")
    player.page.goto(f"{served.url}/rooms/Gone1234?game=sintra")
    card = player.page.locator(".o-no-room")
    expect(card).to_contain_text("Room Gone1234 does not exist")
    expect(card).to_contain_text(SINTRA)
    expect(player.page.get_by_role("link", name="Back to the lobby")).to_have_count(1)
    assert player.no_horizontal_scroll()
    card.get_by_role("button", name=f"Play {SINTRA}").click()
    player.page.wait_for_url(lambda url: "Gone1234" not in url)
    expect(player.page.locator(".room-head")).to_contain_text("you are Ana")
    expect(player.page.locator(".room-head h1")).to_have_text(SINTRA)


def test_a_link_to_a_missing_room_of_no_known_game_offers_the_lobby(
    open_page: Callable[..., Watched], served: Served
) -> None:
    player = open_page()
    for link in ("/rooms/Gone1234", "/rooms/Gone1234?game=nonsense"):
        player.page.goto(served.url + link)
        card = player.page.locator(".o-no-room")
        expect(card).to_contain_text("Room Gone1234 does not exist")
        expect(card.get_by_role("link", name="Back to the lobby")).to_have_attribute("href", "/")
        expect(card.get_by_role("button")).to_have_count(0)


def test_a_room_lost_in_a_restart_offers_its_game_to_its_player_and_to_its_link(
    open_page: Callable[..., Watched], served: Served
) -> None:
    """The room's link to share names its game; the page of a seat this browser held
    remembers it. (Last in this module: the restart forgets every room.)"""
    reservation = served.room_with_bots("chartered", seats=2, bots=1)
    player = open_page()
    player.sit(reservation)
    head = player.page.locator(".room-head h1")
    expect(head).not_to_have_text("")
    title = head.inner_text()
    link = player.page.locator("#room-link")
    expect(link).to_have_value(f"{served.url}/rooms/{reservation['room']}?game=chartered")
    shared = link.input_value()
    player.wait_loaded()
    served.restart()
    player.page.goto(f"{served.url}/rooms/{reservation['room']}")
    expect(player.page.locator(".o-no-room").get_by_role("button")).to_have_text(f"Play {title}")
    # While the server restarted, the page reconnected with backoff (Chromium logs each try).
    player.errors[:] = [error for error in player.errors if not REFUSED.match(error)]
    stranger = open_page(PHONE)
    stranger.page.goto(shared)
    expect(stranger.page.locator(".o-no-room").get_by_role("button")).to_have_text(f"Play {title}")
