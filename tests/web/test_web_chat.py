"""The room's chat in Chromium against a real ``tablewire serve``: two players' pages
and a spectator's; a line with markup shows as text; a spectator cannot write during
the game (the room's default); "Mute chat" hides the lines and counts the new ones; a
right-to-left name is drawn before its right-to-left line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from browser import PHONE, Served, Watched
from playwright.sync_api import Page, expect

LINE = "good luck <b>both</b> & <i>bye</i>"


def say(page: Page, text: str) -> None:
    page.get_by_label("Your message").fill(text)
    page.locator(".o-chat").get_by_role("button", name="Send").click()


def test_a_line_reaches_the_other_player_and_a_spectator_as_text(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    room = served.api("POST", "/api/rooms", {"engine": "sintra", "seats": 2})
    seats = [
        served.api("POST", f"/api/rooms/{room['id']}/seats", {"name": name})
        for name in ("Ana", "Bo")
    ]
    ana, bo, watcher = open_page(), open_page(PHONE), open_page()
    ana.sit(seats[0])
    bo.sit(seats[1])
    watcher.open_room(room["id"])

    say(ana.page, LINE)
    for page in (ana.page, bo.page, watcher.page):
        line = page.locator(".o-chat .chat-lines li").last
        expect(line).to_contain_text(f"{LINE}")
        assert line.locator("b, i").count() == 0, "markup shows as text"
    expect(ana.page.locator(".o-chat li").last).to_contain_text("Ana (you):")
    expect(bo.page.locator(".o-chat li").last).to_contain_text("Ana:")
    assert bo.no_horizontal_scroll()
    bo.shoot(shots, "chat-phone")

    # The game is on: the spectator reads, but may not write (spectator_chat is off).
    expect(watcher.page.locator(".o-chat")).to_contain_text("Spectators can chat before and after")
    assert watcher.page.get_by_label("Your message").count() == 0

    # A reload gets the room's recent lines again.
    bo.page.reload()
    expect(bo.page.locator(".o-chat .chat-lines li").last).to_contain_text(LINE)

    # Muted: the lines are hidden, and a new one is counted.
    bo.page.get_by_label("Mute chat").check()
    expect(bo.page.locator(".o-chat .chat-lines")).to_have_count(0)
    say(ana.page, "still there?")
    expect(bo.page.locator(".o-chat h2")).to_contain_text("1 new")
    bo.page.get_by_label("Mute chat").uncheck()
    expect(bo.page.locator(".o-chat .chat-lines li").last).to_contain_text("still there?")


def test_a_refused_line_says_why(open_page: Callable[..., Watched], served: Served) -> None:
    room = served.api("POST", "/api/rooms", {"engine": "sintra", "seats": 2})
    seat = served.api("POST", f"/api/rooms/{room['id']}/seats", {"name": "Ana"})
    ana = open_page()
    ana.sit(seat)
    for n in range(5):
        say(ana.page, f"line {n}")
        expect(ana.page.locator(".o-chat .chat-lines li")).to_have_count(n + 1)
    say(ana.page, "one too many")
    expect(ana.page.locator(".o-chat .error")).to_contain_text("sending lines too fast")
    expect(ana.page.locator(".o-chat .chat-lines li")).to_have_count(5)


def test_a_line_sent_with_the_send_button_leaves_the_focus_in_the_chat(
    open_page: Callable[..., Watched], served: Served
) -> None:
    """Send is disabled once its line is gone from the field: a keyboard player who
    pressed it goes on typing in the field, rather than from the board or the page's top."""
    room = served.api("POST", "/api/rooms", {"engine": "sintra", "seats": 2})
    seat = served.api("POST", f"/api/rooms/{room['id']}/seats", {"name": "Ana"})
    ana = open_page()
    ana.sit(seat)
    page = ana.page
    page.get_by_label("Your message").fill("hello")
    page.get_by_label("Your message").press("Tab")
    expect(page.locator(".o-chat").get_by_role("button", name="Send")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".o-chat .chat-lines li").last).to_contain_text("hello")
    expect(page.get_by_label("Your message")).to_be_focused()


RTL_NAME = "أحمد"
RTL_TEXT = "مرحبا بكم"

LEFT_OF = """([name, text]) => {
  const line = [...document.querySelectorAll(".o-chat .chat-lines li")].at(-1);
  const where = (words) => {
    const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at = node.data.indexOf(words);
      if (at >= 0) {
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + words.length);
        return range.getBoundingClientRect().left;
      }
    }
    return null;
  };
  return [where(name), where(text)];
}"""


def test_a_right_to_left_name_stays_before_its_line(
    open_page: Callable[..., Watched], served: Served
) -> None:
    """A name and a line both in a right-to-left script: on a left-to-right page the name
    is still first (on the left), then the line; without isolation the browser's bidi
    ordering ran them together and drew the line left of its speaker's name."""
    room = served.api("POST", "/api/rooms", {"engine": "sintra", "seats": 2})
    seats = [
        served.api("POST", f"/api/rooms/{room['id']}/seats", {"name": name})
        for name in (RTL_NAME, "Bo")
    ]
    speaker, reader = open_page(), open_page()
    speaker.sit(seats[0])
    reader.sit(seats[1])
    say(speaker.page, RTL_TEXT)
    expect(reader.page.locator(".o-chat .chat-lines li").last).to_contain_text(RTL_TEXT)
    name_at, text_at = reader.page.evaluate(LEFT_OF, [RTL_NAME, RTL_TEXT])
    assert name_at is not None and text_at is not None
    assert name_at < text_at, "the speaker's name comes first, on the left"
