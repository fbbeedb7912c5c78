"""Chartered's board (``engines/chartered/web/board.js``) in real Chromium against a real
``tablewire serve`` on the Redis store: a seat plays a whole game by clicking the board
against two server bots, survives the server restarting mid-game, and a spectator sees
the public view only. The board's data file must be what its generator makes."""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import (
    DESKTOP,
    FINISHED,
    PHONE,
    READY,
    REFUSED,
    Served,
    Watched,
    play_to_end,
)
from playwright.sync_api import Error as PlaywrightError

from engines.chartered.web_data import rendered
from engines.chartered.words import card_effect, company_name
from support import ROOT

RESTART_AT = 40
SHOTS_AT = 25
# Records, in the page, every click on a board part that makes a move, and every
# connection state the page shows (its status badge).
WATCH_PAGE = """() => {
  globalThis.boardClicks = 0;
  document.addEventListener("click", (e) => {
    if (e.target.closest(".o-board [data-move]")) globalThis.boardClicks += 1;
  }, true);
  globalThis.shownStates = [];
  new MutationObserver(() => {
    const badge = document.querySelector("[role=status]");
    const text = badge ? badge.textContent : "";
    if (globalThis.shownStates.at(-1) !== text) globalThis.shownStates.push(text);
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


@pytest.fixture(scope="module")
def served(redis_url: str) -> Iterator[Served]:
    """This module's server keeps rooms in Redis, so they survive its restart."""
    prefix = f"test-web-chartered-{uuid.uuid4().hex[:8]}"
    server = Served(env={"TABLEWIRE_REDIS_URL": redis_url, "TABLEWIRE_REDIS_PREFIX": prefix})
    server.start()
    yield server
    server.stop()


def test_the_board_data_file_is_what_its_generator_makes() -> None:
    target = ROOT / "engines" / "chartered" / "web" / "board.json"
    assert target.read_text(encoding="utf-8") == rendered()


SNAPSHOT = """() => {
  const text = (selector) => [...document.querySelectorAll(selector)].map((el) => el.innerText);
  return {
    version: globalThis.tablewireRoom.version,
    game: globalThis.tablewireRoom.doc.game,
    cards: Object.fromEntries([...document.querySelectorAll(".o-board [data-card]")]
      .map((el) => [el.dataset.card, el.querySelector(".ch-card-effect").textContent])),
    hands: document.querySelectorAll(".o-board .ch-hand").length,
    backs: text(".o-board .ch-backs-count"),
    shares: text(".o-board .ch-player .ch-shares"),
    banks: Object.fromEntries([...document.querySelectorAll(".o-board .ch-company")].map((el) => [
      [...el.classList].find((c) => c.startsWith("ch-co-")).slice(6),
      el.querySelector(".ch-company-facts").textContent])),
  };
}"""


def snapshot(watched: Watched) -> dict[str, Any]:
    """What the page mirrors and what its board shows, read at one instant (a page
    renders a new document before it runs anything else, so the two agree)."""
    shot: dict[str, Any] = watched.page.evaluate(SNAPSHOT)
    shot["cards"] = {int(card): text.replace(" + ", "+") for card, text in shot["cards"].items()}
    return shot


def settled(player: Watched, spectator: Watched) -> tuple[dict[str, Any], dict[str, Any]]:
    """Snapshots of both pages at one version of the room."""
    for _ in range(100):
        mine = snapshot(player)
        spectator.page.wait_for_function(
            "(v) => globalThis.tablewireRoom.version >= v", arg=mine["version"]
        )
        watched = snapshot(spectator)
        if watched["version"] == mine["version"] == player.version():
            return mine, watched
    raise AssertionError("the room never stood still")


def engine_effects(game: dict[str, Any]) -> dict[int, str]:
    """The engine's words for what each card the viewer sees would do now: the part of
    ``card_effect`` in brackets, e.g. ``would expand Goud, +ƒ10``."""
    seen = [*game["market"], *(game["hand"] or [])]
    return {card["id"]: card_effect(game, card).split(" (", 1)[1][:-1] for card in seen}


def check_views(player: Watched, spectator: Watched) -> None:
    """The player's cards say what the engine says they would do; the spectator's board
    shows no hand, each hand as its count of backs, and no face-down share's company; the
    stock market says how many shares each bank has left ("up to": with hidden shares)
    and when it has none."""
    mine, watched = settled(player, spectator)
    assert mine["cards"] == engine_effects(mine["game"])
    assert mine["hands"] == 1
    game = watched["game"]
    assert game["hand"] is None and watched["hands"] == 0
    assert not {card["id"] for card in mine["game"]["hand"]} & set(watched["cards"])
    assert watched["cards"] == engine_effects(game)
    assert watched["backs"] == [f"{n} card{'' if n == 1 else 's'}" for n in game["hand_sizes"]]
    for seat, shown in enumerate(watched["shares"]):
        assert {company_name(c) for c in game["shares"][seat]} <= set(re.findall(r"\w+", shown))
    hidden_only = set(mine["game"]["shares"][0]) - set(game["shares"][0])
    mine_shown = set(re.findall(r"\w+", watched["shares"][0]))
    assert not {company_name(c) for c in hidden_only} & mine_shown
    if game["face_down"][0]:
        assert f"{game['face_down'][0]} share" in watched["shares"][0]
    for shot in (mine, watched):
        for company, count in shot["game"]["bank_shares"].items():
            said = f"up to {count} of 9" if count else "no shares left"
            assert f"{said} in the bank" in shot["banks"][company], (company, count)


SELECTED = """() => {
  const spot = document.querySelector(".o-board .ch-selected");
  return [spot && spot.getAttribute("aria-label"),
          document.querySelectorAll(".o-board .ch-choices [data-move]").length];
}"""


def select_a_spot(player: Watched) -> int:
    """Select a board spot that has several moves (a level card, a founding's plot), if
    there is one now: its moves show as buttons. Returns how many (0: none selected)."""
    page = player.page
    page.wait_for_selector(READY, timeout=60_000)
    spot = page.locator(".o-board .ch-choose:not(.ch-selected)")
    try:
        if not spot.count():
            return 0
        spot.first.click(timeout=2_000)
        page.wait_for_selector(".o-board .ch-choices", timeout=2_000)
    except PlaywrightError:  # the state moved on under the click
        return 0
    label, shown = page.evaluate(SELECTED)  # one render: the spot and its moves
    if label is None:
        return 0
    wanted = re.search(r": (\d+) moves, choose one$", label)
    assert wanted, label
    assert shown == int(wanted.group(1))
    return shown


def test_a_seat_plays_chartered_to_the_end_by_clicking_the_board_through_a_restart(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    reservation = served.room_with_bots(
        "chartered", seats=3, bots=2, options={"hidden_shares": True, "events": True}
    )
    player, spectator = open_page(), open_page(PHONE)
    player.hold_seat(reservation)
    player.open_room(reservation["room"])
    spectator.open_room(reservation["room"])
    player.page.wait_for_selector(".ch-board")
    player.wait_loaded()
    spectator.wait_loaded()
    player.page.evaluate(WATCH_PAGE)

    rnd = random.Random(12)
    selections = []

    def midgame(clicks: int) -> None:
        if clicks == SHOTS_AT:
            mid_game_checks(player, spectator, shots)
        if clicks == RESTART_AT:
            served.restart()
        if rnd.random() < 0.5 and (moves := select_a_spot(player)):
            selections.append(moves)

    clicks = play_to_end(player, rnd, board_first=0.8, on_click=midgame)
    assert clicks > RESTART_AT, "the game ended before the restart"
    board_clicks = player.page.evaluate("() => globalThis.boardClicks")
    assert board_clicks >= 20 and board_clicks >= clicks // 3, (board_clicks, clicks)
    assert selections, "no board spot with several moves was ever selected"

    # The restart was seen and survived: reconnecting, then connected, on the same seat.
    shown = player.page.evaluate("() => globalThis.shownStates")
    assert "connection lost: reconnecting…" in shown
    assert shown[-1] == "connected"
    assert player.page.evaluate("() => globalThis.tablewireRoom.seat") == 0
    assert "you are Ana, seat 1" in player.page.inner_text("header")
    player.errors[:] = [error for error in player.errors if not REFUSED.match(error)]

    spectator.page.wait_for_selector(FINISHED, timeout=30_000)
    spectator.errors[:] = [error for error in spectator.errors if not REFUSED.match(error)]
    check_views(player, spectator)
    assert player.mirror()["status"] == "finished"
    # The result says in words how each score was made, in ƒ as on the board.
    result = spectator.result()
    said = {
        f"{money(d['cash'])} cash, {money(d['hand_penalty'])} for cards left in hand, "
        f"{money(d['shares'])} for shares and {money(d['flags'])} for flags, sold at their "
        "companies' values."
        for d in result["details"]
    }
    assert {how for _, how in spectator.ranking()} == said
    player.page.wait_for_selector(".ch-final")
    player.shoot(shots, "chartered-end-desktop")
    player.page.set_viewport_size(PHONE)
    player.shoot(shots, "chartered-end-phone")
    assert player.no_horizontal_scroll()
    player.page.set_viewport_size(DESKTOP)
    fresh = open_page()
    fresh.open_room(reservation["room"])
    assert spectator.mirror() == fresh.mirror()
    assert spectator.no_horizontal_scroll()


def money(n: int) -> str:
    return f"−ƒ{-n}" if n < 0 else f"ƒ{n}"


def mid_game_checks(player: Watched, spectator: Watched, shots: Path) -> None:
    """The views agree with the engine and hide what they must; screenshots on desktop
    and phone; no horizontal scroll on a phone."""
    check_views(player, spectator)
    player.shoot(shots, "chartered-mid-desktop")
    player.page.set_viewport_size(PHONE)
    player.shoot(shots, "chartered-mid-phone")
    assert player.no_horizontal_scroll()
    player.page.set_viewport_size(DESKTOP)
    spectator.shoot(shots, "chartered-mid-spectator-phone")
    assert spectator.no_horizontal_scroll()
