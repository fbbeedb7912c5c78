"""The keyboard's focus on a board, in real Chromium: a player who moves with Tab sees
the page's focus ring (style.css's ``:focus-visible``, a 3 px solid outline) on every
board part that makes a move, in each game, on their first turn, in a colour that stands
out from what it is drawn on (3:1); no board style may replace it (Chartered's dashed
outline of the plots in your hand once did)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from browser import Served, Watched
from playwright.sync_api import Page, expect

# Tab stops to walk: the whole room page on a first turn has fewer.
STOPS = 250
# The focused element, when it is a board part that makes a move: what it is and the
# outline it is drawn with.
FOCUSED_PART = r"""() => {
  const el = document.activeElement;
  if (!el || !el.closest(".o-board") || !el.matches("button:not([disabled])")) return null;
  const style = getComputedStyle(el);
  // What the ring is drawn on: the first ancestor with a background of its own.
  let under = el.parentElement;
  while (under && getComputedStyle(under).backgroundColor.match(/rgba\(.*, 0\)$|transparent/)) {
    under = under.parentElement;
  }
  return {
    label: el.getAttribute("aria-label") || el.textContent.trim(),
    classes: el.className,
    outline: `${style.outlineStyle} ${style.outlineWidth}`,
    color: style.outlineColor,
    under: under ? getComputedStyle(under).backgroundColor : "rgb(255, 255, 255)",
    visible: el.matches(":focus-visible"),
  };
}"""


def tab_to(page: Page, focused: str) -> None:
    """Press Tab until the script ``focused`` holds of the focus (at most :data:`STOPS`
    times)."""
    for _ in range(STOPS):
        page.keyboard.press("Tab")
        if page.evaluate(focused):
            return


def luminance(css: str) -> float:
    """The relative luminance (WCAG 2) of a computed ``rgb(r, g, b)`` colour."""
    channels = [int(value) / 255 for value in re.findall(r"\d+", css)[:3]]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("engine", ["sintra", "chartered", "crystal-palace"])
def test_the_focus_ring_shows_on_every_move_of_the_board(
    served: Served, open_page: Callable[..., Watched], engine: str
) -> None:
    watched = open_page()
    page = watched.page
    watched.sit(served.room_with_bots(engine, seats=2, bots=1))
    page.wait_for_selector(".o-board [data-move]:not([disabled])")
    watched.wait_loaded()
    seen = []
    for _ in range(STOPS):
        page.keyboard.press("Tab")
        part = page.evaluate(FOCUSED_PART)
        if part:
            seen.append(part)
    assert seen, "no board part took the focus"
    hidden = [part for part in seen if not part["visible"] or part["outline"] != "solid 3px"]
    assert not hidden, hidden
    # WCAG's non-text contrast: the ring stands out at 3:1 from what it is drawn on.
    faint = [part for part in seen if contrast(part["color"], part["under"]) < 3]
    assert not faint, faint
    if engine == "chartered":
        assert any("ch-mine" in part["classes"] for part in seen), "a plot of your hand"


def test_a_part_the_last_move_changed_shows_the_focus_not_the_highlight(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    """Under prefers-reduced-motion what a move changed keeps a still yellow outline
    (highlight.js marks it `o-changed`); a changed part with the keyboard's focus shows
    the focus ring."""
    watched = open_page()
    page = watched.page
    page.emulate_media(reduced_motion="reduce")
    watched.sit(served.room_with_bots("sintra", seats=2, bots=1))
    page.wait_for_selector(".o-board [data-move='take']")
    watched.wait_loaded()
    tab_to(page, FOCUSED_PART)
    page.evaluate("() => document.activeElement.classList.add('o-changed')")
    assert page.evaluate("() => document.activeElement.matches('.o-changed:focus-visible')")
    part = page.evaluate(FOCUSED_PART)
    assert part["color"] == "rgb(29, 36, 48)", part


# Whether the focus is on a Sintra board part that makes a move (or the confirmation's
# "Play it"): Enter goes on with the move.
ON_A_STEP = """() => document.activeElement.matches(
  ".o-board [data-move]:not([disabled]), .o-confirm button.confirm")"""


@pytest.mark.parametrize("confirm", [False, True])
def test_after_a_move_made_with_the_keyboard_the_focus_stays_on_the_board(
    served: Served, open_page: Callable[..., Watched], confirm: bool
) -> None:
    """A keyboard player's move (pieces, a strip, maybe how, maybe "Play it") takes the
    buttons it was made with off the page; the focus goes to the board, where the next
    Tab goes on, not back to the top of the page."""
    watched = open_page()
    page = watched.page
    watched.sit(served.room_with_bots("sintra", seats=2, bots=1, options={"confirm": confirm}))
    page.wait_for_selector(".o-board [data-move='take']")
    watched.wait_loaded()
    tab_to(page, ON_A_STEP)
    before = watched.version()
    while watched.version() == before:
        assert page.evaluate(ON_A_STEP), "each Enter leads to the move's next step"
        page.evaluate("() => { globalThis.pressed = document.activeElement; }")
        page.keyboard.press("Enter")
        page.wait_for_function(
            f"() => tablewireRoom.version > {before}"
            f" || (document.activeElement !== pressed && ({ON_A_STEP})())",
            timeout=5_000,
        )
    page.wait_for_function("() => document.activeElement !== document.body")
    assert page.evaluate("() => document.activeElement.matches('.o-board')")


def test_after_a_move_chosen_in_the_move_list_the_focus_goes_to_the_board(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    """The move list beside the board goes when the turn does: a keyboard player who
    played from it goes on from the board, not from the top of the page."""
    watched = open_page()
    page = watched.page
    watched.sit(served.room_with_bots("sintra", seats=2, bots=1))
    page.wait_for_selector(".o-moves .moves button")
    watched.wait_loaded()
    listed = "() => document.activeElement.matches('.o-moves .moves button')"
    tab_to(page, listed)
    before = watched.version()
    # The move is sent once its last step is chosen: the list's buttons are put out of use
    # (busy) until the server answers, and the focus may go to the board before then.
    sent = (
        f"() => tablewireRoom.version > {before}"
        " || !!document.querySelector('.o-moves .moves button:disabled')"
    )
    while not page.evaluate(sent):
        assert page.evaluate(listed), "the list keeps the focus while it narrows"
        page.evaluate("() => { globalThis.shown = document.activeElement.textContent; }")
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => ({sent})() || document.activeElement.textContent !== shown")
    page.wait_for_function(f"() => tablewireRoom.version > {before}")
    page.wait_for_function("() => document.activeElement !== document.body")
    assert page.evaluate("() => document.activeElement.matches('.o-board')")


# Crystal Palace's controls of the decision a seat makes now, first to last on the board:
# a step to finish (after an assistant space…), a die to set or loans to repay in secret,
# the die picked to place (or passing).
CP_NEXT = (
    ".cp-pending [data-move], .cp-secret [data-move], .cp-tray .cp-picked, .cp-tray [data-move]"
)
CP_FOCUS_NEXT = f"() => document.activeElement.matches({CP_NEXT!r})"
CP_DICE_SET = """() => tablewireRoom.doc.game.seats[0].ready
  || tablewireRoom.doc.game.step.kind !== "dice\""""
CP_MY_NEXT = f"() => tablewireRoom.myTurn && !!document.querySelector({CP_NEXT!r})"


def test_crystal_palace_after_a_keyboard_move_the_focus_goes_to_the_next_choice(
    served: Served, open_page: Callable[..., Watched], shots: Path
) -> None:
    """As on Sintra's and Chartered's boards, a keyboard player goes on from the next
    decision (the next die to set, the die to place), not from the board's frame several
    Tabs away from it."""
    watched = open_page()
    page = watched.page
    watched.sit(served.room_with_bots("crystal-palace", seats=2, bots=1))
    page.wait_for_selector(".cp-faces [data-move]")
    watched.wait_loaded()
    tab_to(page, CP_FOCUS_NEXT)
    # Phase 1: a value chosen for each die with Enter, the focus staying on the next die's
    # choices; the last one plays them all.
    dice = page.evaluate("() => tablewireRoom.doc.game.seats[0].dice")
    faces = page.locator(".cp-faces")
    for which in range(2, dice + 1):
        assert page.evaluate("() => document.activeElement.matches('.cp-faces [data-move]')")
        page.keyboard.press("Enter")
        expect(faces).to_have_attribute("aria-label", f"Choose die {which} of {dice}")
        if which == 2:
            watched.shoot(shots, "crystal-palace-focus-next-die")
    assert page.evaluate("() => document.activeElement.matches('.cp-faces [data-move]')")
    page.keyboard.press("Enter")
    page.wait_for_function(CP_DICE_SET)
    # Phase 2: on this seat's turn the focus is on its die to place; a space for it is
    # a few Tabs on, and after that move the focus is on the next decision again.
    page.wait_for_function(CP_MY_NEXT)
    page.wait_for_function(CP_FOCUS_NEXT)
    before = watched.version()
    tab_to(page, "() => document.activeElement.matches('.cp-spot')")
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => tablewireRoom.version > {before}")
    page.wait_for_function(CP_MY_NEXT)
    page.wait_for_function(CP_FOCUS_NEXT)
