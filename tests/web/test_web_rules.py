"""The how-to-play pages in real Chromium, for each game at a desktop (1280x800) and a
phone (390x844) size: the page loads with no console error, its example positions are
drawn by the game's own board (``[data-board]`` boxes of non-zero size), nothing scrolls
sideways; the lobby's card and the room page link there, and the room shows a line of
help for the step the game is at, linked to its section. Screenshots of each page go
to the screenshots folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from browser import DESKTOP, PHONE, Served, Watched
from playwright.sync_api import expect

import engines

GAMES = list(engines.GAMES)
SIZES = {"desktop": DESKTOP, "phone": PHONE}
DRAWN = """() => [...document.querySelectorAll("[data-example]")]
  .every((el) => el.children.length)"""
BOXES = """() => [...document.querySelectorAll("[data-board]")].map((el) => {
  const box = el.getBoundingClientRect();
  return { width: box.width, height: box.height };
})"""


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("engine", GAMES)
def test_the_rules_page_draws_its_examples_with_the_games_board(
    served: Served, open_page: Callable[..., Watched], shots: Path, engine: str, size: str
) -> None:
    watched = open_page(SIZES[size])
    page = watched.page
    page.goto(f"{served.url}/rules/{engine}")
    page.wait_for_function(DRAWN, timeout=15_000)
    boxes = page.evaluate(BOXES)
    assert boxes and all(box["width"] > 0 and box["height"] > 40 for box in boxes), boxes
    assert page.locator("h2#house-rules").is_visible()
    assert watched.no_horizontal_scroll()
    watched.shoot(shots, f"rules-{engine}-{size}")


@pytest.mark.parametrize("engine", GAMES)
def test_the_lobby_card_links_the_rules(
    served: Served, open_page: Callable[..., Watched], engine: str
) -> None:
    page = open_page(PHONE).page
    page.goto(served.url + "/")
    title = served.api("GET", "/api/games")
    named = next(game["title"] for game in title if game["id"] == engine)
    page.get_by_role("link", name=f"How to play {named}").click()
    page.wait_for_url(f"{served.url}/rules/{engine}")
    page.wait_for_function(DRAWN, timeout=15_000)


@pytest.mark.parametrize("engine", GAMES)
def test_the_room_links_the_rules_and_helps_with_the_step(
    served: Served, open_page: Callable[..., Watched], shots: Path, engine: str
) -> None:
    reservation = served.room_with_bots(engine, seats=3, bots=2)
    watched = open_page(DESKTOP)
    watched.sit(reservation)
    page = watched.page
    help_line = page.locator(".o-help")
    help_line.wait_for(timeout=30_000)
    assert len(help_line.inner_text()) > 40
    more = help_line.get_by_role("link", name="More in the rules")
    assert (more.get_attribute("href") or "").startswith(f"/rules/{engine}#")
    watched.shoot(shots, f"rules-help-{engine}")
    with page.context.expect_page() as opened:
        page.locator(".o-rules-link").click()
    rules = opened.value
    rules.wait_for_load_state()
    assert rules.url == f"{served.url}/rules/{engine}"
    rules.wait_for_function(DRAWN, timeout=15_000)


def test_the_replay_links_the_rules(served: Served, open_page: Callable[..., Watched]) -> None:
    """Someone replaying a game can read how it is played, from the replay itself."""
    reservation = served.room_with_bots("chartered", seats=2, bots=1)
    page = open_page(PHONE).page
    page.goto(f"{served.url}/rooms/{reservation['room']}/replay")
    rules = page.locator(".room-head").get_by_role("link", name="How to play")
    expect(rules).to_have_attribute("href", "/rules/chartered")
    with page.context.expect_page() as opened:
        rules.click()
    opened.value.wait_for_load_state()
    assert opened.value.url == f"{served.url}/rules/chartered"


# The ids the page holds more than once, and the labels (aria-labelledby) naming no id.
DUPLICATE_IDS = """() => {
  const ids = [...document.querySelectorAll("[id]")].map((el) => el.id);
  const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
  const unnamed = [...document.querySelectorAll("[aria-labelledby]")]
    .flatMap((el) => el.getAttribute("aria-labelledby").split(/\\s+/))
    .filter((id) => !document.getElementById(id));
  return { twice: [...new Set(twice)], unnamed };
}"""


@pytest.mark.parametrize("engine", GAMES)
def test_the_examples_of_a_rules_page_have_ids_of_their_own(
    served: Served, open_page: Callable[..., Watched], engine: str
) -> None:
    """Several example boards on one page: each heading's id (named by its section's
    aria-labelledby) is the page's only one, so every section is named by its own."""
    page = open_page().page
    page.goto(f"{served.url}/rules/{engine}")
    page.wait_for_function(DRAWN, timeout=15_000)
    assert page.evaluate(DUPLICATE_IDS) == {"twice": [], "unnamed": []}
