"""A player's name in a right-to-left script (Arabic, Hebrew) inside the log's English
sentences, in real Chromium: the numbers the sentence puts after the name are read after
it, to its right, as the sentence says them. Unisolated, the bidirectional algorithm
took them into the name's right-to-left run and drew them before it ("Dice revealed:
1 1 1 1 نور (£4)"). In the room's log and its "Just played" lines, and in the replay;
in the sentences listing players ("Waiting for A, B and C"); and on every board, where
each name drawn is its own bidi run."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from browser import DESKTOP, PHONE, Served, Watched, play_to_end
from playwright.sync_api import Page

NAME = "نور"
REVEALED = f"Dice revealed: {NAME} 1 1 1 1 (£4)"
# `boxes(el)`: the box of the character at index i of el's text, as drawn.
BOXES = """const boxes = (el) => {
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const spots = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) spots.push([node, i]);
  }
  return (i) => {
    const range = document.createRange();
    range.setStart(spots[i][0], spots[i][1]);
    range.setEnd(spots[i][0], spots[i][1] + 1);
    return range.getBoundingClientRect();
  };
};
"""
# Where, in the first line of `selector` that says `said` (the name after its first
# two words), the name's letters and the character after the space that follows it are
# drawn.
PLACES = (
    "([selector, said, name]) => {\n"
    + BOXES
    + """  const line = [...document.querySelectorAll(selector)]
    .find((el) => el.textContent.includes(said));
  if (!line) return null;
  const box = boxes(line);
  const at = line.textContent.indexOf(said) + said.indexOf(name);
  const letters = [...name].map((_, k) => box(at + k));
  const after = box(at + name.length + 1);
  return {
    nameRight: Math.max(...letters.map((b) => b.right)),
    nameTop: letters[0].top,
    afterLeft: after.left,
    afterTop: after.top,
    text: line.textContent,
  };
}"""
)


def set_the_dice(page: Page) -> None:
    faces = page.locator(".cp-faces [data-move]")
    faces.first.wait_for()
    while faces.count():
        faces.first.click()


def assert_read_in_order(page: Page, selector: str) -> None:
    page.locator(selector, has_text=REVEALED).first.wait_for()
    places = page.evaluate(PLACES, [selector, REVEALED, NAME])
    assert places is not None
    assert abs(places["afterTop"] - places["nameTop"]) < 4, places  # on one line
    assert places["afterLeft"] >= places["nameRight"] - 1, (selector, places)


def test_numbers_after_a_right_to_left_name_stay_after_it(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    reservation = served.room_with_bots("crystal-palace", seats=2, bots=1, name=NAME)
    watched = open_page(PHONE)
    watched.sit(reservation)
    page = watched.page
    set_the_dice(page)
    assert_read_in_order(page, ".o-log li")
    assert_read_in_order(page, ".o-recent li")
    record = served.api("GET", f"/api/rooms/{reservation['room']}/record")
    step = next(
        n for n, move in enumerate(record["moves"], 1) if REVEALED in " ".join(move["text"])
    )
    page.goto(f"{served.url}/rooms/{reservation['room']}/replay#move={step}")
    page.wait_for_selector(".o-replay")
    assert_read_in_order(page, ".o-last-move")
    assert page.evaluate(UNISOLATED, [".room-head", [NAME]]) == []  # "نور (seat 1), …"


# The left edges of the names in Crystal Palace's player order, in the order it says them.
ORDER = """() => [...document.querySelectorAll(".cp-order .cp-name")]
  .map((el) => el.getBoundingClientRect().left)"""


def test_two_right_to_left_names_in_the_player_order_keep_their_order(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    """Crystal Palace's "Player order: A → B": with both names right to left, the arrow
    between them joined their run and B was drawn first, left of A."""
    room = served.api("POST", "/api/rooms", {"engine": "crystal-palace", "seats": 2})
    seats = [
        served.api("POST", f"/api/rooms/{room['id']}/seats", {"name": name})
        for name in (NAME, "مرحبا")
    ]
    watched = open_page(PHONE)
    watched.sit(seats[0])
    watched.page.locator(".cp-order .cp-name").nth(1).wait_for()
    lefts = watched.page.evaluate(ORDER)
    assert lefts == sorted(lefts), lefts


# The horizontal extent of each of `names` in the first element matching `selector`
# that holds them all: [left, right] of its letters as drawn.
EXTENTS = (
    "([selector, names]) => {\n"
    + BOXES
    + """  const el = [...document.querySelectorAll(selector)]
    .find((e) => names.every((name) => e.textContent.includes(name)));
  if (!el) return null;
  const box = boxes(el);
  return names.map((name) => {
    const at = el.textContent.indexOf(name);
    const drawn = [...name].map((_, k) => box(at + k));
    return [Math.min(...drawn.map((b) => b.left)), Math.max(...drawn.map((b) => b.right))];
  });
}"""
)


def test_two_right_to_left_names_in_the_lobbys_list_keep_their_order(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    """The lobby's list of rooms names a room's players, "A, B, free seat": with A and B
    right to left, the comma between them joined their run and B was drawn left of A."""
    room = served.api("POST", "/api/rooms", {"engine": "chartered", "seats": 3})
    for name in (NAME, "مرحبا"):  # each in the room (not "away"), waiting for a third
        seat = served.api("POST", f"/api/rooms/{room['id']}/seats", {"name": name})
        open_page(PHONE).sit(seat)
    page = open_page(PHONE).page
    page.goto(served.url + "/")
    page.locator(".rooms .names", has_text=f"{NAME}, مرحبا, free seat").wait_for()
    first, second = page.evaluate(EXTENTS, [".rooms .names", [NAME, "مرحبا"]])
    assert first[1] <= second[0] + 1, (first, second)


def seated(served: Served, engine: str, names: list[str]) -> list[dict[str, object]]:
    """A room of `engine` with a seat for each of `names`, all taken: the game started."""
    room = served.api("POST", "/api/rooms", {"engine": engine, "seats": len(names)})
    return [served.api("POST", f"/api/rooms/{room['id']}/seats", {"name": name}) for name in names]


def test_two_right_to_left_names_in_the_waiting_line_keep_their_order(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    """The line "Waiting for A, B and C." (room.js, common.js's `listedNames`): with A
    and B right to left, the comma between them joined their run and B was drawn left
    of A."""
    seats = seated(served, "crystal-palace", [NAME, "مرحبا", "Cy"])  # phase 1: all at once
    watched = open_page(PHONE)
    watched.open_room(str(seats[0]["room"]))
    said = f"Waiting for {NAME}, مرحبا and Cy."
    watched.page.locator(".o-asked", has_text=said).wait_for()
    first, second = watched.page.evaluate(EXTENTS, [".o-asked", [NAME, "مرحبا"]])
    assert first[1] <= second[0] + 1, (first, second)


def test_two_right_to_left_winners_keep_their_order(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    """The result's "A and B share the win." and "A, B and C share the win." (result.js's
    `headline`), drawn by the page's own module."""
    page = open_page(PHONE).page
    page.goto(served.url + "/")
    page.evaluate(
        """async () => {
      const { html, render } = await import("/static/common.js");
      const { headline } = await import("/static/result.js");
      const doc = { seats: ["نور", "مرحبا", "عمر 2", "Cy"] };
      const result = { winners: [0, 1, 2], ranks: [1, 1, 1, 4], scores: [5, 5, 5, 1] };
      const box = document.createElement("p");
      box.className = "headline-probe";
      document.body.prepend(box);
      render(html`${headline(doc, result, null)}`, box);
    }"""
    )
    first, second, third = page.evaluate(EXTENTS, [".headline-probe", [NAME, "مرحبا", "عمر 2"]])
    assert first[1] <= second[0] + 1 and second[1] <= third[0] + 1, (first, second, third)


# The text of each place on the board (`root`) that draws one of `names` and is not its
# own bidi run: the name's nearest isolating ancestor (a <bdi>, unicode-bidi: isolate)
# holds more than the name, or there is none.
UNISOLATED = """([root, names]) => {
  const board = document.querySelector(root);
  const walker = document.createTreeWalker(board, NodeFilter.SHOW_TEXT);
  const wrong = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const name = names.find((n) => node.data.includes(n));
    if (!name) continue;
    let el = node.parentElement;
    while (el !== board && !getComputedStyle(el).unicodeBidi.startsWith("isolate")) {
      el = el.parentElement;
    }
    if (el === board || el.textContent.trim() !== name) {
      wrong.push(node.parentElement.closest("p, h3, h4, li, div").textContent.trim());
    }
  }
  return wrong;
}"""
RTL_NAMES = ["محمد 2", "עמית"]
SHOTS = Path("/tmp/shots-webrtl")


@pytest.mark.parametrize("engine", ["chartered", "sintra", "crystal-palace"])
def test_every_name_on_a_board_is_its_own_bidi_run(
    engine: str, served: Served, open_page: Callable[..., Watched]
) -> None:
    """Chartered, Sintra and Crystal Palace draw the players' names in sentences ("A is
    to play", "A's flag", "A (you) seat 1"): each name isolated, so a right-to-left one
    never takes the words, numbers and punctuation around it into its run. The board is
    shot into /tmp/shots-webrtl/ to be looked at."""
    seats = seated(served, engine, RTL_NAMES)
    watched = open_page(DESKTOP)
    watched.sit(seats[0])
    watched.wait_drawn()
    board = watched.page.locator(".o-board")
    board.get_by_text(RTL_NAMES[1]).first.wait_for()
    SHOTS.mkdir(exist_ok=True)
    board.screenshot(path=str(SHOTS / f"{engine}.png"))
    wrong = watched.page.evaluate(UNISOLATED, [".o-board", RTL_NAMES])
    assert wrong == [], wrong


NAME_TEXT = """async (names) => {
  const { nameText } = await import("/static/common.js");
  return names.map((name) => nameText(name));
}"""


def test_a_right_to_left_name_in_a_tooltip_is_isolated(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    """A tooltip or an accessible name is text, where no <bdi> can go ("NAME's flag" on
    a Chartered plot, "NAME's 5" on a Crystal Palace die): a right-to-left name goes
    between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE; any other name as it is."""
    page = open_page(DESKTOP).page
    page.goto(served.url)
    shown = page.evaluate(NAME_TEXT, [NAME, "Ana", "<b>Bo</b>"])
    assert shown == [f"\u2068{NAME}\u2069", "Ana", "<b>Bo</b>"]


class _Placed(Exception):
    """A die of the player's is on the board."""


def test_a_right_to_left_name_in_a_die_tooltip_is_isolated(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    """Crystal Palace's die on a location, as its tooltip says it: "NAME's 5", the
    name isolated (the words after a right-to-left name were drawn before it)."""
    reservation = served.room_with_bots("crystal-palace", seats=2, bots=1, name=NAME)
    watched = open_page(DESKTOP)
    watched.sit(reservation)
    placed = watched.page.locator(f'.cp-space .cp-die[title*="{NAME}"]')

    def stop_once_placed(_: int) -> None:
        if placed.count():
            raise _Placed

    with pytest.raises(_Placed):
        play_to_end(watched, random.Random(7), on_click=stop_once_placed)
    title = placed.first.get_attribute("title")
    assert title is not None and re.fullmatch(f"\u2068{NAME}\u2069's [1-6]", title), title
