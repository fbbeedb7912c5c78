"""Crystal Palace's board (engines/crystal_palace/web/board.js) in real Chromium:
a person's seat plays a whole 3-seat game against two server bots by clicking the board;
phase 1's secret dice show who is ready and never another seat's values, to a spectator
or to a player; a reload in the middle of the secret step returns to the same seat; a
spectator's mirror equals a fresh page's at the end; screenshots at 1280×800 and 390×844."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browser import DESKTOP, PHONE, Served, Watched, play_to_end
from playwright.sync_api import expect

from support import ROOT

ENGINE = "crystal-palace"
SEATS = 3
# The die values the board shows for seats other than `me` while it shows phase 1.
SHOWN_IN_PHASE_1 = """(me) => {
  const now = document.querySelector(".cp-phases .cp-now");
  const over = document.querySelector("[id^='cp-final-']");
  if (!now || !now.textContent.startsWith("1:") || over) return [];
  return [...document.querySelectorAll(".cp-player .cp-die:not(.cp-back)")]
    .filter((die) => die.closest(".cp-player").dataset.seat !== String(me))
    .map((die) => die.textContent);
}"""
COUNT_BOARD_CLICKS = """() => document.addEventListener("click", (event) => {
  if (event.target.closest(".o-board [data-move]")) {
    globalThis.boardClicks = (globalThis.boardClicks || 0) + 1;
  }
}, true)"""


def test_the_board_data_is_the_engines_component_data() -> None:
    served = ROOT / "engines" / "crystal_palace" / "web" / "board.json"
    engine = ROOT / "engines" / "crystal_palace" / "data" / "components.json"
    assert json.loads(served.read_text()) == json.loads(engine.read_text())


def others_choices_hidden(watched: Watched, me: int | None) -> None:
    """No seat but ``me`` shows what it chose in a secret step: in the mirror, no other
    seat's ``secret`` dice, and in the final repayment every other seat's loans repaid as
    they were before it (0); on the board (one render, read at once), no other seat's
    die value while the board shows phase 1."""
    game: dict[str, Any] = watched.mirror()["game"]
    for seat, player in enumerate(game["seats"]):
        if seat == me:
            continue
        assert "secret" not in player and "loan_values" not in player
        if game["step"]["kind"] == "repay" and not game["finished"]:
            assert player["repaid"] == 0
    shown = watched.page.evaluate(SHOWN_IN_PHASE_1, -1 if me is None else me)
    assert shown == [], shown


def ranked(final: dict[str, Any]) -> tuple[int, int, int]:
    """The engine's ranking order: VP, then money, then the Westminster step."""
    return (-final["total"], -final["money"], -final["westminster"])


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

    # Phase 1 of the first season: set one die of four (from the move list: the board
    # sends the four at once), so this seat is not ready yet.
    page.locator(".o-moves .moves button", has_text="set it to 6").click()
    page.wait_for_function("() => globalThis.tablewireRoom.doc.game.seats[0].secret.length === 1")
    spectator.page.wait_for_function(
        "() => globalThis.tablewireRoom.doc.game.seats.slice(1).every((p) => p.ready)"
    )
    spectator.page.wait_for_selector(".cp-ready li[data-seat='2'].cp-ready-yes")
    others_choices_hidden(spectator, None)
    states = spectator.page.locator(".cp-ready li span:last-child").all_inner_texts()
    assert states == ["… setting dice", "✓ ready", "✓ ready"]
    assert page.locator(".cp-mydice .cp-die:not(.cp-back)").all_inner_texts() == ["6"]
    others_choices_hidden(player, 0)
    spectator.shoot(shots, "crystal-palace-secret-phone")

    # A reload in the middle of the secret step returns to the same seat and its die.
    page.reload()
    page.wait_for_selector(".cp-faces [data-move]")
    assert "you are Ana, seat 1" in page.locator(".room-head").inner_text()
    assert player.mirror()["game"]["seats"][0]["secret"] == [6]
    assert page.locator(".cp-mydice .cp-die:not(.cp-back)").all_inner_texts() == ["6"]
    page.evaluate(COUNT_BOARD_CLICKS)
    board_clicks = 0

    def watch(clicks: int) -> None:
        nonlocal board_clicks
        others_choices_hidden(player, 0)
        if clicks == 30:  # a reload later in the game: the same seat, and the game goes on
            board_clicks += page.evaluate("() => globalThis.boardClicks || 0")
            page.reload()
            page.wait_for_selector(".o-board")
            assert "you are Ana, seat 1" in page.locator(".room-head").inner_text()
            page.evaluate(COUNT_BOARD_CLICKS)
        if clicks == 40:
            # Turn order in words; a placed die keeps its value readable (no fading).
            players = page.locator(".o-board .cp-player")
            assert re.search(r"\b\d(st|nd|rd|th) in turn order", players.first.inner_text())
            faded = page.evaluate(
                "() => [...document.querySelectorAll('.cp-die.cp-placed')]"
                ".filter((die) => getComputedStyle(die).opacity !== '1').length"
            )
            assert faded == 0
            player.shoot(shots, "crystal-palace-mid-desktop")
            spectator.shoot(shots, "crystal-palace-mid-phone")
            assert spectator.no_horizontal_scroll()
            assert player.no_horizontal_scroll()

    clicks = play_to_end(player, random.Random(12), board_first=0.9, on_click=watch)
    board_clicks += page.evaluate("() => globalThis.boardClicks || 0")
    assert clicks > 40
    assert board_clicks >= clicks // 2, (board_clicks, clicks)

    spectator.page.wait_for_selector(".o-result")
    page.wait_for_selector("[id^='cp-final-']")
    spectator.page.wait_for_selector("[id^='cp-final-']")
    player.shoot(shots, "crystal-palace-end-desktop")
    spectator.shoot(shots, "crystal-palace-end-phone")
    assert spectator.no_horizontal_scroll()
    assert all("loan_values" not in p for p in player.mirror()["game"]["seats"][1:])
    assert all("loan_values" not in p for p in spectator.mirror()["game"]["seats"])
    # At the end each panel's loans say how many were repaid (they score -2, not their tile).
    for seat, panel in enumerate(spectator.mirror()["game"]["seats"]):
        loans = spectator.page.locator(
            f".cp-player[data-seat='{seat}'] .cp-stats div[title^='loans'] dd"
        )
        shown = (
            f"{panel['loans']} ({panel['repaid']} repaid)"
            if panel["repaid"]
            else str(panel["loans"])
        )
        assert loans.inner_text() == shown
    # The result says in words how each score was made, and what breaks a tie.
    details = spectator.result()["details"]
    for (_, how), final in zip(player.ranking(), sorted(details, key=ranked), strict=True):
        play = str(final["play"]).replace("-", "−")  # the page's minus sign
        assert how.startswith(f"{play} VP during play") or not final["play"], how
        assert how.endswith(
            f"tie-break: £{final['money']} left, then Westminster step {final['westminster']}."
        ), how
    placing = r"You (won|share the win|finished \d\w\w( \(tied\))? of 3)"
    assert re.search(placing, page.inner_text(".o-result"))
    fresh = open_page()
    fresh.open_room(room)
    assert spectator.mirror() == fresh.mirror()


def test_cards_and_resources_are_pictures_with_their_words_kept(
    open_page: Callable[..., Watched], served: Served
) -> None:
    """The displays' cards are tiles (a coloured header, icon chips, the rule text folded
    under a tap); resources are drawn icons, each group named in words for a screen
    reader; on a phone three cards and two locations share a row."""
    reservation = served.room_with_bots(ENGINE, seats=SEATS, bots=SEATS - 1)
    watched = open_page(PHONE)
    watched.sit(reservation)
    page = watched.page
    patent = page.locator(".cp-patent:not(.cp-stack)").first
    expect(patent.locator(".cp-card-head")).to_be_visible()
    cost = patent.locator(".cp-ics[role='img']").first
    assert (cost.get_attribute("aria-label") or "").startswith("costs ")
    assert cost.locator("svg.cp-icon").count() >= 1
    rules = patent.locator("details.cp-more")
    expect(rules.locator("span").first).to_be_hidden()
    rules.locator("summary").click()
    expect(rules).to_contain_text("Effect on a player:")
    # Opening it is the player's own doing, not a move: nothing is marked as changed.
    assert patent.evaluate("(card) => card.querySelectorAll('.o-changed').length") == 0
    expect(rules).not_to_have_class(re.compile("o-changed"))
    money = page.locator(".cp-player .cp-stats div[title='money'] svg[role='img']").first
    assert money.get_attribute("aria-label") == "money"
    rows = page.evaluate(
        """() => ['.cp-cards', '.cp-locs'].map((list) => getComputedStyle(
             document.querySelector(list)).gridTemplateColumns.split(' ').length)"""
    )
    assert rows == [3, 2]


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_dice_are_chosen_one_by_one_and_played_with_one_confirmation(
    open_page: Callable[..., Watched], served: Served, shots: Path, size: str
) -> None:
    """Phase 1 in a room that asks for a confirmation (the default): a value chosen for
    each of the four dice on the board, with a click or Enter, the focus staying on the
    die choices, each value shown as chosen and not played (one taken back and chosen
    again); nothing is sent until the last one, which asks once ("Play it") for all four,
    and they go as four intents, one a die."""
    reservation = served.room_with_bots(
        ENGINE, seats=SEATS, bots=SEATS - 1, options={"confirm": True}
    )
    watched = open_page(PHONE if size == "phone" else DESKTOP)
    watched.sit(reservation)
    page = watched.page
    faces = page.locator(".cp-faces")
    bar = page.locator(".o-confirm")
    page.wait_for_selector(".cp-faces [data-move]")
    watched.wait_loaded()
    sent = "() => tablewireRoom.session.nextId"
    first = page.evaluate(sent)
    faces.locator("[data-move]", has_text="£6").click()
    expect(faces).to_have_attribute("aria-label", "Choose die 2 of 4")
    expect(bar).to_have_count(0)
    mine = page.locator(".cp-mydice .cp-die")
    expect(mine.first).to_have_attribute("aria-label", "your die 1: 6, chosen, not played yet")
    # With the keyboard: Enter chooses, and the focus stays on the next die's choices.
    faces.get_by_role("button", name="die 2 of 4: 1", exact=True).focus()
    page.keyboard.press("Enter")
    expect(faces).to_have_attribute("aria-label", "Choose die 3 of 4")
    expect(faces.get_by_role("button", name="die 3 of 4: 1", exact=True)).to_be_focused()
    page.get_by_role("button", name="Take back die 2").click()
    expect(faces).to_have_attribute("aria-label", "Choose die 2 of 4")
    expect(faces.locator("[data-move]").first).to_be_focused()
    for which, value in ((2, 5), (3, 3)):
        faces.get_by_role("button", name=f"die {which} of 4: {value}", exact=True).click()
    expect(mine.nth(2)).to_have_attribute("aria-label", "your die 3: 3, chosen, not played yet")
    expect(mine.nth(3)).to_have_attribute("aria-label", "your die 4: not set")
    assert page.evaluate(sent) == first, "nothing sent before the last die"
    watched.shoot(shots, f"crystal-palace-dice-chosen-{size}")
    faces.get_by_role("button", name="die 4 of 4: 2, and play your dice", exact=True).click()
    expect(bar).to_contain_text("Play: set your dice to 6, 5, 3 and 2 (16 pips in all, £1 each)?")
    watched.shoot(shots, f"crystal-palace-dice-confirm-{size}")
    expect(page.get_by_role("button", name="Play it")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_function("() => tablewireRoom.doc.game.seats[0].rolled.length === 4")
    assert player_rolled(watched) == [6, 5, 3, 2]
    assert page.evaluate(sent) == first + 4, "one intent a die"


def player_rolled(watched: Watched) -> list[int]:
    """Seat 0's dice as revealed (highest first)."""
    rolled: list[int] = watched.mirror()["game"]["seats"][0]["rolled"]
    return rolled


# How far right the board's status lines reach, beyond the board's own box (0: within).
STATUS_PAST_BOARD = """() => {
  const board = document.querySelector(".o-board").getBoundingClientRect();
  const lines = document.querySelectorAll(".cp-status, .cp-phases, .cp-order");
  return Math.max(0, ...[...lines].map((line) => line.getBoundingClientRect().right - board.right));
}"""


def test_a_five_player_game_fits_a_phone_to_its_end(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    """Five seats: the status lines (phases, the player order) ran 90 px past the board's
    edge on a phone by the end of the game, on the room page and on its replay."""
    room = served.bots_room(ENGINE, 5, [0, 1, 2, 3, 4])
    watched = open_page(PHONE)
    watched.open_room(room["id"])
    watched.page.wait_for_selector(".o-result", timeout=120_000)
    watched.page.wait_for_selector(".cp-status")
    watched.page.locator(".cp-status").scroll_into_view_if_needed()
    watched.shoot(shots, "crystal-palace-five-end-phone")
    assert watched.page.evaluate(STATUS_PAST_BOARD) < 1, "the status lines fit the board"
    assert watched.no_horizontal_scroll()
    watched.page.goto(f"{served.url}/rooms/{room['id']}/replay")
    watched.page.wait_for_selector(".cp-status")
    assert watched.page.evaluate(STATUS_PAST_BOARD) < 1, "and on the replay"
