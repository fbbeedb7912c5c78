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
