"""The keyboard's focus on a board, in real Chromium: a player who moves with Tab sees
the page's focus ring (style.css's ``:focus-visible``, a 3 px solid outline) on every
board part that makes a move, in each game, on their first turn; no board style may
replace it (Chartered's dashed outline of the plots in your hand once did)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from browser import Served, Watched

# Tab stops to walk: the whole room page on a first turn has fewer.
STOPS = 250
# The focused element, when it is a board part that makes a move: what it is and the
# outline it is drawn with.
FOCUSED_PART = """() => {
  const el = document.activeElement;
  if (!el || !el.closest(".o-board") || !el.matches("button:not([disabled])")) return null;
  const style = getComputedStyle(el);
  return {
    label: el.getAttribute("aria-label") || el.textContent.trim(),
    classes: el.className,
    outline: `${style.outlineStyle} ${style.outlineWidth}`,
    visible: el.matches(":focus-visible"),
  };
}"""


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
    if engine == "chartered":
        assert any("ch-mine" in part["classes"] for part in seen), "a plot of your hand"
