"""A refusal of the lobby (a name the server will not take) as the pages say it: the
server's words as a sentence, never its status and code ("400 bad_name: ...")."""

from __future__ import annotations

import re
from collections.abc import Callable

from browser import PHONE, Served, Watched
from playwright.sync_api import expect

# What a refusal must not show: an HTTP status or a code of the protocol (word_word).
CODE = re.compile(r"\b\d{3}\b|\b[a-z]+_[a-z_]+\b")


def test_the_lobby_says_why_a_name_is_refused_in_words(
    open_page: Callable[..., Watched], served: Served
) -> None:
    player = open_page(PHONE)
    player.page.goto(served.url + "/")
    player.page.locator("#name").fill("a\u200bb")
    card = player.page.locator(".card", has_text="Azul: Stained Glass of Sintra").first
    card.get_by_role("button", name="Play now").click()
    error = card.locator(".error")
    expect(error).to_contain_text("Name may not hold control or invisible characters")
    assert not CODE.search(error.inner_text()), error.inner_text()
    player.errors[:] = [e for e in player.errors if "400 (Bad Request)" not in e]


def test_taking_a_seat_under_a_name_taken_says_so_in_words(
    open_page: Callable[..., Watched], served: Served
) -> None:
    room = served.api("POST", "/api/rooms", {"engine": "sintra", "seats": 3})
    served.api("POST", f"/api/rooms/{room['id']}/seats", {"name": "Ana"})
    visitor = open_page(PHONE)
    visitor.page.goto(f"{served.url}/rooms/{room['id']}")
    join = visitor.page.locator(".o-join")
    join.locator("#seat-name").fill("Ana")
    join.get_by_role("button", name="Take a seat").click()
    error = join.locator(".error")
    expect(error).to_contain_text("A player of this room goes by 'Ana' already")
    assert not CODE.search(error.inner_text()), error.inner_text()
    visitor.errors[:] = [e for e in visitor.errors if "409 (Conflict)" not in e]
