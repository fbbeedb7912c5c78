"""What the last move changed is marked on the room's board in Chromium, for a player
and for a spectator, and stays marked under prefers-reduced-motion (no animation)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from browser import PHONE, PLAY_FIRST, Served, Watched
from playwright.sync_api import expect


def test_the_last_move_is_marked_on_the_board(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    reservation = served.room_with_bots("sintra", seats=2, bots=1)
    player, spectator = open_page(), open_page(PHONE)
    for watched in (player, spectator):
        watched.page.emulate_media(reduced_motion="reduce")
    player.sit(reservation)
    spectator.open_room(reservation["room"])
    for watched in (player, spectator):
        # The board drawn (its module loaded), not just its frame: a board first drawn
        # after the move marks nothing, which failed this test under load.
        watched.wait_loaded()
        expect(watched.page.locator(".o-board .o-changed")).to_have_count(0)  # drawn, not moved
    before = player.version()
    player.page.evaluate(PLAY_FIRST)
    player.page.wait_for_function(f"() => tablewireRoom.version > {before}")
    for watched in (player, spectator):
        expect(watched.page.locator(".o-board .o-changed").first).to_be_attached()
    spectator.shoot(shots, "last-move-spectator-phone")


# A pick of Sintra's board (pieces of a colour from a factory or the centre) that goes on
# to several strips, so that clicking it chooses rather than plays: its button's label.
PICK_OF_SEVERAL = """() => tablewireRoom.legal().then((moves) => {
  const counted = new Map();
  for (const { action, label } of moves) {
    const what = label.split(" → ")[0];
    if (action.type === "take") counted.set(what, (counted.get(what) || 0) + 1);
  }
  const found = [...counted].find(([, n]) => n > 1);
  return found ? `Take ${found[0]}` : null;
})"""


def test_a_choice_of_ones_own_is_not_marked_as_a_move(
    open_page: Callable[..., Watched], served: Served
) -> None:
    """Picking pieces on Sintra's board (the first click of a move, nothing sent yet)
    changes the board on this page only: nothing is marked as the last move, and what
    the last move did stays marked."""
    watched = open_page()
    page = watched.page
    page.emulate_media(reduced_motion="reduce")
    watched.sit(served.room_with_bots("sintra", seats=2, bots=1))
    page.wait_for_selector(".o-board [data-move='take']")
    watched.wait_loaded()
    before = watched.version()
    page.get_by_role("button", name=page.evaluate(PICK_OF_SEVERAL), exact=True).first.click()
    expect(page.locator(".o-board [data-move='place']").first).to_be_visible()
    expect(page.locator(".o-board .o-changed")).to_have_count(0)
    assert watched.version() == before
    # Strip 1, where the glazier stands: every strip stays in reach for the next turn.
    page.locator(".o-board [data-move='place']").first.click()
    choose = page.locator(".o-board [data-move='choose']")
    if choose.count():  # a strip with several ways asks how
        choose.first.click()
    page.wait_for_function(f"() => tablewireRoom.version > {before}")
    page.wait_for_selector(".o-board [data-move='take']")  # the bot moved, back to me
    marked = page.locator(".o-board .o-changed").count()
    assert marked, "the bot's move is marked"
    page.get_by_role("button", name=page.evaluate(PICK_OF_SEVERAL), exact=True).first.click()
    expect(page.locator(".o-board [data-move='place']").first).to_be_visible()
    expect(page.locator(".o-board .o-changed")).to_have_count(marked)
