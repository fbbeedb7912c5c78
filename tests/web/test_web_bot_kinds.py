"""The lobby in real Chromium offers exactly each game's bot kinds with their strength,
and its default form seats a newcomer at a small table with the strongest bots."""

from __future__ import annotations

from collections.abc import Callable

from browser import PHONE, Served, Watched
from playwright.sync_api import expect


def test_the_lobby_offers_each_games_kinds_and_a_small_table_of_strong_bots(
    open_page: Callable[..., Watched], served: Served
) -> None:
    watched = open_page()
    page = watched.page
    page.goto(served.url + "/")
    games = served.api("GET", "/api/games")
    for game in games:
        page.wait_for_selector(f"#{game['id']}-botkind")
        shown = page.locator(f"#{game['id']}-botkind option").all_inner_texts()
        assert [t.split(" — ")[0].strip() for t in shown] == [b["kind"] for b in game["bots"]]
        assert all(b["strength"] in t for b, t in zip(game["bots"], shown, strict=True))
    first = games[0]
    page.fill("#name", "Bea")
    page.locator("section", has=page.locator(f"#{first['id']}-title")).get_by_role(
        "button", name="Create room"
    ).click()
    page.wait_for_url("**/rooms/*")
    room = served.api("GET", "/api/rooms/" + page.url.rsplit("/", 1)[-1])
    seats = len(room["bots"])
    assert 2 <= seats <= 4
    assert room["bots"] == [None] + [first["bots"][0]["kind"]] * (seats - 1)


def test_a_phone_shows_the_chosen_bots_strength_in_full(
    open_page: Callable[..., Watched], served: Served
) -> None:
    """On a phone a closed select shows the start of its choice only ("greedy — builds for
    the biggest payo"): the strength of the bots chosen is also said in full under it."""
    page = open_page(PHONE).page
    page.goto(served.url + "/")
    for game in served.api("GET", "/api/games"):
        hint = page.locator(f"#{game['id']}-botkind-hint")
        expect(hint).to_have_text(game["bots"][0]["strength"])
        expect(hint).to_be_visible()
        box = hint.bounding_box()
        assert box is not None and box["x"] + box["width"] <= PHONE["width"], box
        assert page.locator(f"#{game['id']}-botkind").get_attribute("aria-describedby") == (
            f"{game['id']}-botkind-hint"
        )
        page.select_option(f"#{game['id']}-botkind", game["bots"][-1]["kind"])
        expect(hint).to_have_text(game["bots"][-1]["strength"])
