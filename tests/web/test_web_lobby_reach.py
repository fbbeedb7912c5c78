"""The lobby in Chromium when the server does not answer for a moment: what it could not
read is read again, and the page says what it waits for in a sentence."""

from __future__ import annotations

from collections.abc import Callable

from browser import Served, Watched
from playwright.sync_api import Route, expect


def test_the_games_are_read_again_after_a_first_load_that_failed(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    """A lobby opened while the server restarted once said "Loading the games…" for
    good, under "cannot reach the server" in lower case, even once the server was back:
    nothing could be created until the page was reloaded."""
    watched = open_page()
    page = watched.page
    refused: list[str] = []

    def once(route: Route) -> None:
        if refused:
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort("connectionrefused")

    page.route("**/api/games", once)
    page.goto(served.url + "/")
    status = page.get_by_role("status")
    expect(status).to_have_text(
        "Cannot reach the server: check your connection and try again"
        " (the server may be restarting)"
    )
    # Read again with the next look at the rooms (every 3 s): the cards come, the line goes.
    expect(page.get_by_role("button", name="Play now").first).to_be_visible(timeout=10_000)
    expect(status).to_have_text("")
    expect(page.locator(".loading")).to_have_count(0)
    assert len(refused) == 1
    # Chromium itself logs the refused request; the page handled it.
    assert watched.errors == [
        f"console: Failed to load resource: net::ERR_CONNECTION_REFUSED ({served.url}/api/games)"
    ]
    watched.errors.clear()
