"""Sintra's board (engines/sintra/web/board.js) in real Chromium against a real
``tablewire serve``: a person's seat plays a whole game by clicking the board's factories,
centre and strips against two server bots, reloads the page mid-game and comes back to
the same seat; a spectator on a phone sees the public view, with no moves to make; on a
phone the second click of a move (a strip of your palace) is in view after the first,
reached in one jump when the player asks for reduced motion."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import pytest
from browser import DESKTOP, PHONE, PLAY_FIRST, Served, Watched, play_to_end

# Counts clicks on the board's own moves across reloads (the page's sessionStorage).
COUNT_BOARD_CLICKS = """
document.addEventListener("click", (event) => {
  const part = event.target.closest && event.target.closest(".o-board [data-move]");
  if (part) {
    const seen = Number(sessionStorage.getItem("sintra-board-clicks") || 0);
    sessionStorage.setItem("sintra-board-clicks", String(seen + 1));
  }
}, true);
"""
# Notes, across reloads, whether the fallback's data view was ever drawn in the board
# (it must not flash while the game's own board module loads).
WATCH_FALLBACK = """
new MutationObserver(() => {
  if (document.querySelector(".o-board .data")) sessionStorage.setItem("fallback-drawn", "1");
}).observe(document, {subtree: true, childList: true});
"""
# A game's length varies (public rooms get a random seed): a 3-player game gives the
# person at least ~30 moves, so both come well before its end.
MID_GAME = 12
RELOAD_AT = 20
# Whether every legal target of a move's second click (a strip of your palace, or
# breaking every piece) lies wholly inside the window.
SECOND_CLICK_IN_VIEW = """() => {
  const targets = [...document.querySelectorAll(
    ".o-board [data-move='place'], .o-board [data-move='break']")];
  return targets.length > 0 && targets.every((target) => {
    const box = target.getBoundingClientRect();
    return box.top >= 0 && box.bottom <= innerHeight && box.left >= 0 && box.right <= innerWidth;
  });
}"""
# Notes every scroll position the page shows, frame by frame, in `globalThis.scrolled`.
WATCH_SCROLLING = """() => {
  globalThis.scrolled = [Math.round(scrollY)];
  const look = () => {
    const y = Math.round(scrollY);
    if (globalThis.scrolled.at(-1) !== y) globalThis.scrolled.push(y);
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
}"""


def board_clicks(watched: Watched) -> int:
    return int(watched.page.evaluate("() => sessionStorage.getItem('sintra-board-clicks') || 0"))


def shoot_both(watched: Watched, shots: Path, name: str) -> None:
    """Screenshots at desktop and phone width; the phone page must not scroll sideways,
    and no ornament's points are cut off."""
    watched.shoot(shots, f"{name}-desktop")
    watched.page.set_viewport_size(PHONE)
    watched.page.wait_for_function("() => document.documentElement.scrollWidth <= 390")
    assert watched.no_horizontal_scroll()
    cut = watched.page.evaluate(
        "() => [...document.querySelectorAll('.sn-orn')]"
        ".filter((pill) => pill.scrollWidth > pill.clientWidth).map((pill) => pill.innerText)"
    )
    assert cut == []
    watched.shoot(shots, f"{name}-phone")
    watched.page.set_viewport_size(DESKTOP)


def test_a_sintra_seat_plays_to_the_end_on_the_board_and_survives_a_reload(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    reservation = served.room_with_bots("sintra", seats=3, bots=2)
    room = reservation["room"]
    player = open_page()
    player.page.add_init_script(COUNT_BOARD_CLICKS)
    player.page.add_init_script(WATCH_FALLBACK)
    player.hold_seat(reservation)
    player.open_room(room)
    spectator = open_page(PHONE)
    spectator.open_room(room)
    page = player.page
    assert page.locator(".sn-palace").count() == 3
    assert page.locator(".sn-factory").count() == 7
    seen: dict[str, Any] = {}

    def on_click(clicks: int) -> None:
        if clicks >= MID_GAME and "mid" not in seen:
            seen["mid"] = clicks
            page.wait_for_selector(".sn-board")
            head = page.locator(".sn-head").inner_text()
            assert re.search(r"colour bonus:\s+[a-z ]+ \(\+1 for each piece", head), head
            shoot_both(player, shots, "sintra-mid")
            spectator.shoot(shots, "sintra-mid-spectator-phone")
        if clicks >= RELOAD_AT and "before" not in seen:
            seen["before"] = player.version()
            page.reload()
            page.wait_for_selector(".sn-board")
            badge = page.locator(".room-head").inner_text()
            assert "you are Ana, seat 1" in badge
            assert player.version() >= seen["before"]
            assert page.locator(".sn-mine").count() == 1

    clicks = play_to_end(player, random.Random(12), board_first=0.85, on_click=on_click)

    assert "before" in seen, "the page was reloaded mid-game"
    assert player.page.evaluate("() => sessionStorage.getItem('fallback-drawn')") is None
    assert player.version() > seen["before"], "the game went on after the reload"
    on_board = board_clicks(player)
    assert on_board >= 20 and on_board >= clicks // 2, (on_board, clicks)
    page.wait_for_selector(".sn-final")
    assert page.locator(".sn-final").count() == 3
    assert page.locator(".o-board [data-move]").count() == 0
    shoot_both(player, shots, "sintra-end")
    # The result says in words how each score was made, and what breaks a tie.
    ranking = player.ranking()
    assert "Ana (you)" in [who for who, _ in ranking]
    for _, how in ranking:
        assert "points before the final scoring" in how and "for broken glass" in how, how
        assert "to broken glass over the whole game, each −18 at the bottom included" in how, how

    print(f"clicks {clicks}, on the board {on_board}")
    # The spectator: the public view (bag and tower as counts only), nothing to click.
    spectator.page.wait_for_selector(".o-result")
    spectator.page.wait_for_selector(".sn-final")
    watched_game = spectator.mirror()["game"]
    assert isinstance(watched_game["bag"], int) and isinstance(watched_game["tower"], int)
    assert watched_game == player.mirror()["game"]
    text = spectator.page.locator(".o-board").inner_text()
    assert f"bag {watched_game['bag']} piece" in text and "(hidden)" in text
    assert spectator.page.locator(".o-board [data-move], .moves button").count() == 0
    assert spectator.no_horizontal_scroll()
    spectator.shoot(shots, "sintra-end-spectator-phone")
    fresh = open_page()
    fresh.open_room(room)
    assert spectator.mirror() == fresh.mirror()


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_on_a_phone_the_second_click_comes_into_view_after_the_first(
    open_page: Callable[..., Watched],
    served: Served,
    shots: Path,
    motion: Literal["no-preference", "reduce"],
) -> None:
    reservation = served.room_with_bots("sintra", seats=2, bots=1)
    player = open_page(PHONE)
    page = player.page
    page.emulate_media(reduced_motion=motion)
    player.sit(reservation)
    # Early in a game every colour fits several strips: a pick is only the first click.
    take = page.locator(".o-board [data-move='take']")
    take.first.wait_for()
    assert page.evaluate("() => scrollY") == 0
    before = player.version()
    page.evaluate(WATCH_SCROLLING)
    take.first.click()
    page.wait_for_function(SECOND_CLICK_IN_VIEW, timeout=5_000)
    assert player.version() == before, "the first click only picked the pieces"
    page.screenshot(path=str(shots / f"sintra-second-click-phone-{motion}.png"))
    if motion == "reduce":
        assert len(page.evaluate("() => globalThis.scrolled")) == 2, "one jump, no smooth scroll"


# The focused element is a board part of the given move kinds.
FOCUS_ON = """(kinds) => !!document.activeElement.closest(
  kinds.map((kind) => `.o-board [data-move='${kind}']`).join(", "))"""


def test_with_the_keyboard_the_second_step_takes_the_focus(
    open_page: Callable[..., Watched], served: Served
) -> None:
    """A player using the keyboard picks pieces with Enter; the focus then moves to the
    first strip they may go to (rather than stay among the factories, a dozen Tab
    stops away), and Enter there plays the move (or asks how, for a strip with several
    ways)."""
    reservation = served.room_with_bots("sintra", seats=2, bots=1)
    player = open_page()
    page = player.page
    player.sit(reservation)
    page.locator(".o-board [data-move='take']").first.wait_for()
    player.wait_loaded()
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate(FOCUS_ON, ["take"]):
            break
    assert page.evaluate(FOCUS_ON, ["take"]), "Tab reaches the factories"
    before = player.version()
    page.keyboard.press("Enter")
    page.wait_for_function(FOCUS_ON, arg=["place", "break"], timeout=5_000)
    assert player.version() == before, "the first Enter only picked the pieces"
    assert page.evaluate("() => document.activeElement.matches(':focus-visible')")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(v) => globalThis.tablewireRoom.version > v"
        " || !!document.querySelector(\".o-board [data-move='choose']\")",
        arg=before,
        timeout=5_000,
    )


# The height of the board's empty displays and of its full ones, in px (none: no such).
DISPLAY_HEIGHTS = """() => {
  const heights = (css) => [...document.querySelectorAll(css)]
    .map((el) => el.getBoundingClientRect().height);
  return { empty: heights(".sn-factory.sn-bare"), full: heights(".sn-factory:not(.sn-bare)") };
}"""
# This seat's turn with at least two displays emptied (their pieces taken this round).
EMPTIED = """() => tablewireRoom.myTurn
  && tablewireRoom.doc.game.factories.filter((f) => !f.some(Boolean)).length >= 2"""


def test_on_a_phone_empty_displays_take_little_room(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    """Late in a round most displays are empty: on a phone each shrinks to a small chip
    (its number and "empty"), so the centre and this seat's palace, where the choices
    are, move up instead of sitting under rows of empty 76 px squares."""
    watched = open_page(PHONE)
    page = watched.page
    watched.sit(served.room_with_bots("sintra", seats=3, bots=2))
    for _ in range(30):
        page.wait_for_function("() => tablewireRoom.myTurn")
        if page.evaluate(EMPTIED):
            break
        page.evaluate(PLAY_FIRST)
    page.wait_for_function(EMPTIED)
    watched.wait_drawn()
    heights = page.evaluate(DISPLAY_HEIGHTS)
    watched.shoot(shots, "sintra-empty-displays-phone")
    assert len(heights["empty"]) >= 2, heights
    assert max(heights["empty"]) <= 40, heights
    assert watched.no_horizontal_scroll()
