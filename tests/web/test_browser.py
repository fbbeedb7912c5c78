"""The web pages in real Chromium against a real ``tablewire serve``: the lobby creates
a room with bots and seats this browser; a spectator's mirror equals a fresh snapshot;
option choices are named in words in the lobby's form and the room's facts. Each game's
own board has its test file (``test_web_<game>.py``)."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from browser import PHONE, REFUSED, Served, Watched, play_to_end
from playwright.sync_api import expect

# Every select of a game option in the lobby: its choices as shown, and their values.
OPTION_SELECTS = """() => [...document.querySelectorAll("select[id*='-opt-']")].map((s) => ({
  id: s.id,
  shown: [...s.options].map((o) => o.text.trim()),
  values: [...s.options].map((o) => o.value),
}))"""


def test_the_lobby_creates_a_room_with_bots_and_seats_this_browser(
    open_page: Callable[..., Watched], served: Served
) -> None:
    watched = open_page()
    page = watched.page
    page.goto(served.url + "/")
    page.fill("#name", "Bea <b>&")
    page.select_option("#chartered-seats", "3")
    page.select_option("#chartered-bots", "2")
    page.locator("section", has=page.locator("#chartered-title")).get_by_role(
        "button", name="Create room"
    ).click()
    page.wait_for_url("**/rooms/*")
    page.wait_for_selector(".o-board")
    assert "Bea <b>&" in page.locator(".o-seats").inner_text()
    assert watched.mirror()["status"] == "playing"


def test_a_spectator_mirror_equals_a_fresh_snapshot_at_the_end(
    open_page: Callable[..., Watched], served: Served
) -> None:
    reservation = served.room_with_bots("sintra", seats=2, bots=1)
    player, spectator = open_page(), open_page(PHONE)
    player.hold_seat(reservation)
    player.open_room(reservation["room"])
    spectator.open_room(reservation["room"])
    play_to_end(player, random.Random(1))
    spectator.page.wait_for_selector(".o-result")
    fresh = open_page()
    fresh.open_room(reservation["room"])
    assert spectator.mirror() == fresh.mirror()
    assert spectator.no_horizontal_scroll()


def test_a_reload_and_a_late_spectator_see_the_whole_game_log(
    open_page: Callable[..., Watched], served: Served
) -> None:
    reservation = served.room_with_bots("sintra", seats=2, bots=1)
    room = reservation["room"]
    player = open_page()
    player.hold_seat(reservation)
    player.open_room(room)
    play_to_end(player, random.Random(2))
    told = [line["text"] for line in served.api("GET", f"/api/rooms/{room}/record")["log"]]
    assert told[1:3] == ["Ana takes seat 1.", "The game starts."] and len(told) > 10
    late = open_page(PHONE)
    late.open_room(room)
    player.page.reload()
    for page in (late.page, player.page):
        expect(page.locator(".o-log .log li")).to_have_text(told[-200:])


def test_the_lobby_fits_a_phone_and_names_its_choices(
    open_page: Callable[..., Watched], served: Served
) -> None:
    served.room_with_bots("chartered", seats=3, bots=2)
    watched = open_page(PHONE)
    page = watched.page
    page.goto(served.url + "/")
    page.wait_for_selector(".rooms a[aria-label^='Watch room']")
    assert watched.no_horizontal_scroll()
    # Every room's buttons are inside its card: no column is cut off at phone width.
    card = page.locator(".rooms").locator("xpath=..").bounding_box()
    assert card is not None
    for button in page.locator(".rooms a.button, .rooms button").all():
        box = button.bounding_box()
        assert box is not None and box["x"] + box["width"] <= card["x"] + card["width"], box
    # House rules wait in a closed group that says they are at their defaults; each is
    # named in words, and a publisher by its name, never by its tile id alone.
    rules = page.locator("section", has=page.locator("#crystal-palace-title")).locator(
        "details.rules"
    )
    assert "all 2 at their defaults" in rules.locator("summary").inner_text()
    assert not page.locator("#crystal-palace-opt-publisher").is_visible()
    rules.locator("summary").click()
    publisher = page.locator("#crystal-palace-opt-publisher")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#crystal-palace-opt-publisher option')]"
        ".some((o) => o.text.startsWith('The Times'))"
    )
    publisher.select_option("1B")
    assert "1 of 2 changed (Publisher)" in rules.locator("summary").inner_text()
    # Option names and lines are player text: no option ids, no notes about the spec.
    assert "[proposed" not in page.content()
    flag = page.locator("label[for='sintra-opt-negative_scores']")
    assert (flag.text_content() or "").strip() == "Scores below zero"


def test_option_choices_are_words_in_the_lobby_and_in_the_room(
    open_page: Callable[..., Watched], served: Served
) -> None:
    watched = open_page()
    page = watched.page
    page.goto(served.url + "/")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#crystal-palace-opt-publisher option')]"
        ".some((o) => o.text.startsWith('The Times'))"
    )
    selects = {select["id"]: select for select in page.evaluate(OPTION_SELECTS)}
    assert selects["chartered-opt-stack_cap"]["shown"] == ["no limit (default)", "at most 4 floors"]
    assert selects["chartered-opt-market_refresh"]["shown"] == [
        "shuffled back into the deck (default)",
        "discarded for good",
    ]
    assert len(selects) == 10  # Chartered 7, Sintra 2, Crystal Palace 1
    for select in selects.values():
        for shown, value in zip(select["shown"], select["values"], strict=True):
            assert shown.removesuffix(" (default)") != value, (select["id"], shown)
    # A room made with two of them changed says so in the same words to a visitor.
    page.fill("#name", "Ana")
    card = page.locator("section", has=page.locator("#chartered-title"))
    card.locator("details.rules summary").click()
    page.select_option("#chartered-opt-stack_cap", "4")
    page.select_option("#chartered-opt-market_refresh", "discard")
    page.select_option("#chartered-bots", "0")
    card.get_by_role("button", name="Create room").click()
    page.wait_for_url("**/rooms/*")
    room = page.url.rsplit("/", 1)[-1]
    options = served.api("GET", f"/api/rooms/{room}")["options"]
    assert (options["stack_cap"], options["market_refresh"]) == (4, "discard")
    visitor = open_page(PHONE)
    visitor.page.goto(page.url)
    expect(visitor.page.locator(".facts")).to_contain_text(
        "Rules changed: Replaced market cards: discarded for good; Floor limit: at most 4 floors."
    )


def test_a_second_player_keeps_a_seat_in_a_rematch_another_opened(
    open_page: Callable[..., Watched], served: Served
) -> None:
    room = served.bots_room("sintra", 3, [2], options={"grace": 0})
    ana = served.api("POST", f"/api/rooms/{room['id']}/seats", {"name": "Ana"})
    bea = served.api("POST", f"/api/rooms/{room['id']}/seats", {"name": "Bea"})
    # Bea comes, leaves at once: a bot plays her seat while she is away.
    second = open_page()
    second.hold_seat(bea, name="Bea")
    second.open_room(room["id"])
    second.page.close()
    first = open_page()
    first.hold_seat(ana)
    first.open_room(room["id"])
    play_to_end(first, random.Random(5))
    result = first.page.locator(".o-result").inner_text()
    assert "You won" in result or "You share the win" in result or "You finished" in result
    assert "Ana wins" not in result, "the seat's own win is said once, to 'you'"
    first.page.get_by_role("button", name="Rematch").click()
    first.page.wait_for_url(lambda url: room["id"] not in url)
    first.page.wait_for_selector(".o-board")
    assert "you are Ana, seat 1" in first.page.locator(".room-head").inner_text()
    # Bea comes back to the finished room: the rematch is open; she gets her seat in it.
    back = open_page()
    back.hold_seat(bea, name="Bea")
    back.open_room(room["id"])
    back.page.get_by_role("button", name="Go to the rematch").click()
    back.page.wait_for_url(lambda url: room["id"] not in url)
    back.page.wait_for_selector(".o-seats")
    assert "you are Bea, seat 2" in back.page.locator(".room-head").inner_text()
    # A spectator is offered the way to watch it.
    watcher = open_page(PHONE)
    watcher.open_room(room["id"])
    assert "You " not in watcher.page.locator(".o-result p").first.inner_text()
    watcher.page.get_by_role("link", name="Watch the rematch").click()
    watcher.page.wait_for_selector(".o-seats")
    assert "watching" in watcher.page.locator(".room-head").inner_text()


def test_a_running_clock_is_shown_and_counts_down(
    open_page: Callable[..., Watched], served: Served
) -> None:
    """Crystal Palace's first step is everyone's at once, so this seat's clock runs at
    once: drawn with a stopwatch mark (not a character fonts may lack), read out as
    running, counting down; the bots' clocks stand still."""
    reservation = served.room_with_bots(
        "crystal-palace", seats=3, bots=2, options={"clock": "move:30"}
    )
    player = open_page(PHONE)
    player.hold_seat(reservation)
    player.open_room(reservation["room"])
    player.page.wait_for_selector(".moves button", state="attached")
    mine = player.page.locator(".o-seats .seat").first.locator(".clock")
    assert mine.get_attribute("aria-label").startswith("Ana: 0:")  # type: ignore[union-attr]
    assert mine.get_attribute("aria-label").endswith("left, running")  # type: ignore[union-attr]
    mark = mine.locator("svg.stopwatch").bounding_box()
    assert mark is not None and mark["width"] > 5
    before = mine.inner_text()
    player.page.wait_for_function(
        "(text) => document.querySelector('.o-seats .clock').innerText !== text", arg=before
    )
    assert mine.inner_text() < before
    others = player.page.locator(".o-seats .seat").nth(1).locator(".clock")
    assert others.inner_text() == "0:30" and others.locator("svg").count() == 0


def test_a_room_lost_in_a_restart_of_the_memory_store_says_so(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    """The in-memory store forgets its rooms when the server restarts: the page says
    that the game cannot go on and why, and offers no move, nor help for the step it
    was at, nor says the game is being played or who is to play. (Last in this module:
    the restart forgets every room of the module's server.)"""
    reservation = served.room_with_bots("sintra", seats=2, bots=1)
    player = open_page()
    player.hold_seat(reservation)
    player.open_room(reservation["room"])
    player.page.wait_for_selector(".moves button")
    player.wait_loaded()
    assert player.page.locator(".o-asked .o-help").count() == 1, "help for the step to play"
    expect(player.page.locator(".o-board .sn-whose")).to_have_text("Your turn.")
    expect(player.page.locator(".o-seats")).to_contain_text("your turn")
    served.restart()
    player.page.wait_for_function("() => globalThis.tablewireRoom.state === 'closed'")
    alert = player.page.locator(".banner.bad").inner_text()
    assert "This game cannot go on: the server no longer has this room" in alert
    assert "in memory only" in alert
    # One way out: the gone card's (Play again, the lobby), not the banner's link too.
    expect(player.page.get_by_role("link", name="Back to the lobby")).to_have_count(1)
    expect(player.page.locator(".o-gone")).to_contain_text("Play again")
    asked = player.page.locator(".o-asked").inner_text()
    assert "cannot go on here" in asked and "Your turn" not in asked
    assert "On your turn" not in asked, "no help for a turn that cannot be played"
    assert player.page.locator(".moves button").count() == 0
    seats = player.page.locator(".o-seats").inner_text()
    assert "online" not in seats and "not known while disconnected" in seats
    head = player.page.locator(".room-head")
    expect(head).to_contain_text("room gone")
    expect(head).not_to_contain_text("playing")
    for whose in ("your turn", "to play"):
        expect(player.page.locator(".o-seats")).not_to_contain_text(whose, ignore_case=True)
        expect(player.page.locator(".o-board")).not_to_contain_text(whose, ignore_case=True)
    player.shoot(shots, "room-gone")
    player.errors[:] = [error for error in player.errors if not REFUSED.match(error)]


LATE_EFFECTS = """
window.requestAnimationFrame = undefined;
const later = window.setTimeout.bind(window);
window.setTimeout = (f, ms, ...rest) => later(f, ms === 100 ? 1500 : ms, ...rest);
"""
"""Preact runs effects after a paint (requestAnimationFrame, or a 100 ms timer without
it): this makes them run 1.5 s late, after the connection's welcome and snapshot."""


def test_a_room_page_whose_effects_run_late_still_shows_the_room(
    open_page: Callable[..., Watched], served: Served
) -> None:
    reservation = served.room_with_bots("sintra", seats=2, bots=1)  # seat 1 moves first
    player = open_page()
    player.hold_seat(reservation)
    player.page.context.add_init_script(LATE_EFFECTS)
    player.open_room(reservation["room"])  # nothing changes in the room until this seat moves
    assert "connected" in player.page.locator(".room-head .badge").all_inner_texts()
    player.page.wait_for_selector("[aria-label='Legal moves'] button", timeout=10_000)
