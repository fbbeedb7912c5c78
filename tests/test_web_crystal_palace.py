"""Crystal Palace's board (clients/web/static/games/crystal-palace.js) in real Chromium:
a person's seat plays a whole 3-seat game against two server bots by clicking the board;
phase 1's secret dice show who is ready and never another seat's values, to a spectator
or to a player; a reload in the middle of the secret step returns to the same seat; a
spectator's mirror equals a fresh page's at the end; screenshots at 1280×800 and 390×844."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from browser import PHONE, Served, Watched, play_to_end

ROOT = Path(__file__).parent.parent
ENGINE = "crystal-palace"
SEATS = 3
# Dice faces shown with their value, on the board's players and locations.
SHOWN_DICE = ".cp-player[data-seat='{seat}'] .cp-die:not(.cp-back)"
COUNT_BOARD_CLICKS = """() => document.addEventListener("click", (event) => {
  if (event.target.closest(".o-board [data-move]")) {
    globalThis.boardClicks = (globalThis.boardClicks || 0) + 1;
  }
}, true)"""


def test_the_board_data_is_the_engines_component_data() -> None:
    served = ROOT / "clients" / "web" / "static" / "games" / "crystal-palace.json"
    engine = ROOT / "engines" / "crystal_palace" / "data" / "components.json"
    assert json.loads(served.read_text()) == json.loads(engine.read_text())


def others_dice_hidden(watched: Watched, me: int | None) -> None:
    """In phase 1, no seat but ``me`` shows a die value in the mirror or on the board."""
    game: dict[str, Any] = watched.mirror()["game"]
    if game["phase"] != 1 or game["finished"]:
        return
    for seat, player in enumerate(game["seats"]):
        if seat == me:
            continue
        assert "secret" not in player
        assert player["rolled"] == []
        assert watched.page.locator(SHOWN_DICE.format(seat=seat)).count() == 0
        ready = watched.page.locator(f".cp-ready li[data-seat='{seat}']").inner_text()
        assert ("ready" in ready) == player["ready"]


def test_a_whole_game_by_clicking_the_board(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    reservation = served.room_with_bots(ENGINE, seats=SEATS, bots=SEATS - 1)
    room = reservation["room"]
    player, spectator = open_page(), open_page(PHONE)
    player.hold_seat(reservation)
    player.open_room(room)
    spectator.open_room(room)
    page = player.page

    # Phase 1 of the first season: set one die of four, so this seat is not ready yet.
    page.locator(".cp-faces [data-move]", has_text="£6").click()
    page.wait_for_function("() => globalThis.tablewireRoom.doc.game.seats[0].secret.length === 1")
    spectator.page.wait_for_function(
        "() => globalThis.tablewireRoom.doc.game.seats.slice(1).every((p) => p.ready)"
    )
    spectator.page.wait_for_selector(".cp-ready li[data-seat='2'].cp-ready-yes")
    others_dice_hidden(spectator, None)
    seat_line = spectator.page.locator(".cp-ready li[data-seat='0']").inner_text()
    assert "setting dice" in seat_line and "6" not in seat_line
    assert page.locator(".cp-mydice .cp-die:not(.cp-back)").all_inner_texts() == ["6"]
    others_dice_hidden(player, 0)
    spectator.shoot(shots, "crystal-palace-secret-phone")

    # A reload in the middle of the secret step returns to the same seat and its die.
    page.reload()
    page.wait_for_selector(".cp-faces [data-move]")
    assert "you are Ana, seat 1" in page.locator(".room-head").inner_text()
    assert player.mirror()["game"]["seats"][0]["secret"] == [6]
    assert page.locator(".cp-mydice .cp-die:not(.cp-back)").all_inner_texts() == ["6"]
    page.evaluate(COUNT_BOARD_CLICKS)

    def watch(clicks: int) -> None:
        others_dice_hidden(player, 0)
        if clicks == 40:
            player.shoot(shots, "crystal-palace-mid-desktop")
            spectator.shoot(shots, "crystal-palace-mid-phone")
            assert spectator.no_horizontal_scroll()
            assert player.no_horizontal_scroll()

    clicks = play_to_end(player, random.Random(12), board_first=0.9, on_click=watch)
    board_clicks = page.evaluate("() => globalThis.boardClicks || 0")
    assert clicks > 40
    assert board_clicks >= clicks // 2, (board_clicks, clicks)

    spectator.page.wait_for_selector(".o-result")
    page.wait_for_selector("#cp-final")
    spectator.page.wait_for_selector("#cp-final")
    player.shoot(shots, "crystal-palace-end-desktop")
    spectator.shoot(shots, "crystal-palace-end-phone")
    assert spectator.no_horizontal_scroll()
    for seat, values in enumerate(player.mirror()["game"]["seats"]):
        if seat:
            assert "loan_values" not in values
    assert all("loan_values" not in p for p in spectator.mirror()["game"]["seats"])
    fresh = open_page()
    fresh.open_room(room)
    assert spectator.mirror() == fresh.mirror()
