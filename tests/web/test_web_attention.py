"""A player is called back in Chromium: the tab's title and icon say when it is their
turn, and the sound and the notification they turned on go off when a turn starts
while the tab is hidden (the browser's audio and notifications are stand-ins that
count what the page asked for)."""

from __future__ import annotations

import re
from collections.abc import Callable

from browser import DESKTOP, PHONE, PLAY_FIRST, Served, Watched
from playwright.sync_api import expect

STAND_INS = """
globalThis.__beeps = 0;
globalThis.__notes = [];
globalThis.__hidden = false;
class StandInAudio {
  get currentTime() { return 0; }
  get destination() { return {}; }
  createOscillator() {
    const start = () => { globalThis.__beeps += 1; };
    return { frequency: {}, connect: (to) => to, start, stop() {} };
  }
  createGain() {
    const gain = { setValueAtTime() {}, exponentialRampToValueAtTime() {} };
    return { gain, connect: (to) => to };
  }
  close() {}
}
globalThis.AudioContext = StandInAudio;
class StandInNotification {
  static permission = "default";
  static requestPermission() {
    StandInNotification.permission = "granted";
    return Promise.resolve("granted");
  }
  constructor(title, options) { globalThis.__notes.push([title, options.body]); }
}
globalThis.Notification = StandInNotification;
Object.defineProperty(document, "hidden", { get: () => globalThis.__hidden });
"""


def test_the_title_icon_sound_and_notification_say_it_is_your_turn(
    open_page: Callable[..., Watched], served: Served
) -> None:
    reservation = served.room_with_bots("sintra", seats=2, bots=1)
    player = open_page()
    page = player.page
    page.add_init_script(STAND_INS)
    player.sit(reservation)
    expect(page).to_have_title(re.compile(r"^Your turn · Azul"))
    page.set_viewport_size(PHONE)  # on a phone the options come after the board
    options = page.locator(".o-attention").bounding_box()
    board = page.locator(".o-board").bounding_box()
    assert options is not None and board is not None and options["y"] > board["y"]
    page.set_viewport_size(DESKTOP)
    icon = page.locator('link[rel="icon"]')
    expect(icon).to_have_attribute("data-turn", "yes")
    page.get_by_label("play a sound").check()
    page.get_by_label("notify me while this tab is hidden").check()
    expect(page.get_by_label("notify me while this tab is hidden")).to_be_checked()
    page.evaluate("globalThis.__hidden = true")
    page.evaluate(PLAY_FIRST)  # the bot answers at once: a turn starts again
    page.wait_for_function("() => globalThis.__beeps > 0 && globalThis.__notes.length > 0")
    title, body = page.evaluate("globalThis.__notes[0]")
    assert title == "Your turn" and body.startswith("Azul: Stained Glass of Sintra")
    # The icons were read while the page loaded: a swap asks the server for nothing, so
    # a turn that ends while the server is down logs no refused request.
    expect(icon).to_have_attribute("data-turn", "yes")
    expect(icon).to_have_attribute("href", re.compile(r"^data:image/svg\+xml,"))
    page.reload()  # the options are kept in this browser
    expect(page.get_by_label("play a sound")).to_be_checked()


def test_a_spectator_gets_no_call_and_an_ordinary_title(
    open_page: Callable[..., Watched], served: Served
) -> None:
    reservation = served.room_with_bots("sintra", seats=2, bots=1)
    watcher = open_page()
    watcher.open_room(reservation["room"])
    expect(watcher.page).to_have_title(re.compile(r"^Azul: Stained Glass of Sintra · room"))
    expect(watcher.page.get_by_label("play a sound")).to_have_count(0)
    expect(watcher.page.locator('link[rel="icon"]')).to_have_attribute("data-turn", "no")
