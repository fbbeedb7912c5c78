"""Chartered on a phone, in real Chromium: a level card of your hand with several
targets is a move of two taps, the card then the target; after the first tap the
targets come into view (the card sits near the bottom of the screen and its moves
appear under it), smoothly or, for a player who asks for reduced motion, at once. A
founding's steps (the company in the stock market, its warehouses on the map) come into
view one after the other, and with the keyboard each takes the focus as it begins."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

import pytest
from browser import PHONE, Served, Watched

# Plays this page's seat until a level card in its hand has several targets: found
# companies (their plots are height-1 targets), buy the market's level cards, else the
# first legal move. False if the game ended first.
UNTIL_A_LEVEL_CARD_CHOICE = """async () => {
  const room = globalThis.tablewireRoom;
  const card = (id) => (room.doc.game.hand || []).find((c) => c.id === id);
  for (;;) {
    if (room.doc.status === "finished") return false;
    if (!room.myTurn) {
      await new Promise((done) => { const off = room.on("doc", () => { off(); done(); }); });
      continue;
    }
    const moves = await room.legal();
    const level = moves.filter(({ action }) =>
      action.type === "build" && card(action.card) && card(action.card).kind === "level");
    if (level.length >= 2) return true;
    const market = room.doc.game.market;
    const held = (room.doc.game.hand || []).some((c) => c.kind === "level");
    const pick = (!held && moves.find(({ action }) => action.type === "buy"
        && action.from !== "deck" && market[action.from].kind === "level"))
      || moves.find(({ action }) => action.type === "build")
      || moves[0];
    await room.send(pick.action);
  }
}"""
# Whether the first move of the shown choices lies wholly inside the window.
FIRST_CHOICE_IN_VIEW = """() => {
  const first = document.querySelector(".ch-choices button[data-move]");
  if (!first) return false;
  const box = first.getBoundingClientRect();
  return box.top >= 0 && box.bottom <= innerHeight && box.left >= 0 && box.right <= innerWidth;
}"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_on_a_phone_a_level_cards_targets_come_into_view_after_the_tap(
    served: Served, open_page: Callable[..., Watched], motion: Literal["no-preference", "reduce"]
) -> None:
    watched = open_page(PHONE)
    page = watched.page
    page.emulate_media(reduced_motion=motion)
    watched.sit(served.room_with_bots("chartered", seats=2, bots=1))
    watched.wait_drawn()
    assert page.evaluate(UNTIL_A_LEVEL_CARD_CHOICE), "a level card with several targets"
    card = page.locator(".ch-hand .ch-choose").first
    card.wait_for()
    # A player scrolls down to their hand: the card at the bottom of the screen.
    card.evaluate("(el) => el.scrollIntoView({block: 'end', behavior: 'instant'})")
    before = watched.version()
    card.click()
    page.wait_for_function(FIRST_CHOICE_IN_VIEW, timeout=5_000)
    assert watched.version() == before, "the tap only selected the card"
    assert card.get_attribute("aria-pressed") == "true"


# Whether the first board part making a move of the step (or selecting a spot with
# several) lies wholly inside the window.
FIRST_PART_IN_VIEW = """() => {
  const first = document.querySelector(
    ".ch-board button[data-move]:not([disabled]), .ch-board button.ch-choose");
  if (!first) return false;
  const box = first.getBoundingClientRect();
  return box.top >= 0 && box.bottom <= innerHeight;
}"""


def test_on_a_phone_each_step_of_founding_a_company_comes_into_view(
    served: Served, open_page: Callable[..., Watched], shots: Path
) -> None:
    """A founding is three taps in three places: the plot on the map, the company in the
    stock market under it, its two warehouses on the map again. After each tap the
    next step's first control is in view."""
    watched = open_page(PHONE)
    page = watched.page
    page.emulate_media(reduced_motion="reduce")
    watched.sit(served.room_with_bots("chartered", seats=2, bots=1))
    found = page.locator(".ch-map .ch-can[aria-label*='found a company']").first
    found.wait_for(timeout=30_000)
    found.click()
    for step in ("company", "layout"):
        page.wait_for_function(
            f"() => (globalThis.tablewireRoom.doc.game.pending || {{}}).step === '{step}'"
        )
        page.wait_for_function(FIRST_PART_IN_VIEW, timeout=5_000)
        page.screenshot(path=str(shots / f"chartered-phone-founding-{step}.png"))
        page.locator(
            ".ch-board button[data-move]:not([disabled]), .ch-board button.ch-choose"
        ).first.click()


# The focused element: a board part making a move (or selecting a spot), shown focused.
FOUNDS = ".ch-map .ch-can[aria-label*='found a company']"
"""A plot of the map whose move founds a company."""

FOCUS_ON_A_PART = """() => {
  const el = document.activeElement;
  return !!el && !!el.closest(".ch-board")
    && el.matches("button[data-move]:not([disabled]), button.ch-choose")
    && el.matches(":focus-visible");
}"""


def test_with_the_keyboard_each_step_of_founding_takes_the_focus(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    """With Tab and Enter, a founding's next step (the company, then its warehouses, then
    their choices) has the focus as it begins: the player does not Tab again from the
    top of the page through the map."""
    watched = open_page()
    page = watched.page
    watched.sit(served.room_with_bots("chartered", seats=2, bots=1))
    page.locator(".ch-map .ch-can[aria-label*='found a company']").first.wait_for(timeout=30_000)
    watched.wait_loaded()
    # Tab to a plot that founds a company: the first plot reached may be one that
    # founds nothing (a random seed deals the hand), and its move is then whole.
    founds = f"() => document.activeElement.matches({FOUNDS!r})"
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate(FOCUS_ON_A_PART) and page.evaluate(founds):
            break
    assert page.evaluate(founds)
    page.keyboard.press("Enter")  # the plot: the company is asked next
    for step in ("company", "layout"):
        page.wait_for_function(
            f"() => (globalThis.tablewireRoom.doc.game.pending || {{}}).step === '{step}'"
        )
        page.wait_for_function(FOCUS_ON_A_PART, timeout=5_000)
        page.keyboard.press("Enter")
    # A plot in several pairs of warehouses asks which pair: its choices take the focus.
    page.wait_for_function(
        "() => (globalThis.tablewireRoom.doc.game.pending || {}).step !== 'layout'"
        " || document.activeElement.closest('.ch-choices')"
    )


def test_after_play_it_the_next_step_of_founding_takes_the_focus(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    """In a room that asks to confirm each move (the default), "Play it" closes with the
    move it played: the founding's next step (the company) has the focus then, not the
    board's frame nor the top of the page."""
    watched = open_page()
    page = watched.page
    watched.sit(served.room_with_bots("chartered", seats=2, bots=1, options={"confirm": True}))
    page.locator(FOUNDS).first.wait_for(timeout=30_000)
    watched.wait_loaded()
    founds = f"() => document.activeElement.matches({FOUNDS!r})"
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate(FOCUS_ON_A_PART) and page.evaluate(founds):
            break
    assert page.evaluate(founds)
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.matches('.o-confirm button.confirm')")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => (globalThis.tablewireRoom.doc.game.pending || {}).step === 'company'"
    )
    page.wait_for_function(FOCUS_ON_A_PART, timeout=5_000)
