"""A player's name in a right-to-left script (Arabic, Hebrew) inside the log's English
sentences, in real Chromium: the numbers the sentence puts after the name are read after
it, to its right, as the sentence says them. Unisolated, the bidirectional algorithm
took them into the name's right-to-left run and drew them before it ("Dice revealed:
1 1 1 1 نور (£4)"). In the room's log and its "Just played" lines, and in the replay."""

from __future__ import annotations

from collections.abc import Callable

from browser import PHONE, Served, Watched
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
