"""What a first-time visitor reads on the lobby's game cards, in Chromium."""

from __future__ import annotations

from collections.abc import Callable

from browser import PHONE, Served, Watched
from playwright.sync_api import expect


def test_quick_play_says_what_it_does_and_which_choices_it_takes(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    """Quick play sat beside "Create room" under the card's choices with no word of its
    own: a visitor who ticked "Private room" or chose bots pressed it and was seated in a
    public room with none of them. It now says what it does and what it takes."""
    watched = open_page(PHONE)
    page = watched.page
    page.goto(served.url + "/")
    card = page.locator("section", has=page.locator("#sintra-title"))
    quick = card.get_by_role("button", name="Quick play")
    expect(quick).to_have_accessible_description(
        "Quick play: a seat beside players waiting for this game, else a new public room;"
        " of the choices above, only the number of players counts"
    )
    expect(card.locator("#sintra-quick-hint")).to_be_visible()
