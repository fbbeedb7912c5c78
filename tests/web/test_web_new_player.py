"""What a new player meets in Chromium, found by an audit in a real browser: a refused
move said in words where the player looks, in the engine's own words when it gives any;
a move waiting for "Play it" kept while it is still legal and dropped with a note once it
is not; the game log opened at its newest line; Crystal Palace's follow-up choices at the
top of the board on a phone; the step's help only for the player who acts; the room's
bots offered as the lobby offers them; a Chartered headquarters' number kept beside its
HQ mark on a phone."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
from browser import PHONE, PLAY_FIRST, Served, Watched
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, WebSocketRoute, expect

# Plays `n` moves of this page's seat through its connection, each once the seat is to
# act (awaiting the documents in between), and stops at the end of the game.
PLAY_MOVES = """async (n) => {
  const conn = globalThis.tablewireRoom;
  const next = () => new Promise((done) => {
    const off = conn.on("doc", () => { off(); done(); });
  });
  for (let i = 0; i < n; i += 1) {
    while (!conn.myTurn) {
      if (conn.doc.status === "finished") return;
      await next();
    }
    const moves = await conn.legal();
    await conn.send(moves[0].action);
  }
}"""
SET_SIXES = """async () => {
  const conn = globalThis.tablewireRoom;
  while (conn.doc.game.step.kind === "dice" && conn.myTurn) {
    await conn.send({ type: "die", value: 6 });
  }
}"""
FIRST_PLACEMENT = """() => {
  const doc = globalThis.tablewireRoom.doc;
  return doc.game.step.kind === "place" && doc.to_act.includes(0);
}"""
LOG_AT_END = """() => {
  const log = document.querySelector(".o-log .log");
  return !!log && log.scrollHeight > log.clientHeight + 20
    && log.scrollTop + log.clientHeight >= log.scrollHeight - 2;
}"""


class HeldBack:
    """A page's WebSocket, passed through to the server except what the page sends while
    ``holding``, kept until :meth:`release`."""

    def __init__(self) -> None:
        self.holding = False
        self.held: list[str | bytes] = []
        self.server: WebSocketRoute | None = None

    def route(self, ws: WebSocketRoute) -> None:
        self.server = ws.connect_to_server()
        ws.on_message(self.sent)

    def sent(self, frame: str | bytes) -> None:
        if self.holding:
            self.held.append(frame)
        elif self.server is not None:
            self.server.send(frame)

    def release(self) -> None:
        self.holding = False
        assert self.server is not None
        for frame in self.held:
            self.server.send(frame)
        self.held.clear()


class Refusing:
    """A page's WebSocket, passed through to the server except its intents: each is
    answered with a ``reject`` of ``code`` and ``message``, as an engine refuses one."""

    def __init__(self, code: str, message: str) -> None:
        self.refusal = {"code": code, "message": message}
        self.refused = 0
        self.server: WebSocketRoute | None = None

    def route(self, ws: WebSocketRoute) -> None:
        self.server = ws.connect_to_server()
        ws.on_message(lambda frame: self.sent(ws, frame))

    def sent(self, page: WebSocketRoute, frame: str | bytes) -> None:
        message = msgpack.unpackb(frame) if isinstance(frame, bytes) else None
        if isinstance(message, dict) and message.get("t") == "intent":
            page.send(msgpack.packb({"t": "reject", "id": message["id"], **self.refusal}))
            self.refused += 1
        elif self.server is not None:
            self.server.send(frame)


def two_humans(served: Served, engine: str, options: dict[str, Any]) -> list[dict[str, Any]]:
    """A 2-seat room of two people (no bots), and both reservations."""
    room = served.api(
        "POST", "/api/rooms", {"engine": engine, "seats": 2, "options": {"bot_delay": 0, **options}}
    )
    seats = f"/api/rooms/{room['id']}/seats"
    return [served.api("POST", seats, {"name": name}) for name in ("Ana", "Bo")]


def sit_first(watched: Watched, reservations: list[dict[str, Any]]) -> dict[str, Any]:
    """Seat ``watched`` in whichever of ``reservations`` acts first, and return it (its
    name: "Ana" or "Bo", in the order of the reservations)."""
    watched.open_room(reservations[0]["room"])
    acting = watched.mirror()["to_act"][0]
    reservation = next(r for r in reservations if r["seat"] == acting)
    watched.hold_seat(reservation, name=["Ana", "Bo"][reservations.index(reservation)])
    watched.open_room(reservation["room"])
    return reservation


def test_a_refused_move_is_said_in_words_where_the_player_looks(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    reservations = two_humans(served, "sintra", {"confirm": False})
    # The first player's phone holds back what it sends while their other tab plays
    # first: the phone's move reaches the server once it is the other player's turn.
    phone = open_page(PHONE)
    socket = HeldBack()
    phone.page.route_web_socket("**/ws/**", socket.route)
    ana = sit_first(phone, reservations)
    other_name = "Bo" if ana is reservations[0] else "Ana"
    page = phone.page
    page.locator(".moves-fold > summary").click()
    socket.holding = True
    while not page.evaluate("() => globalThis.tablewireRoom.pending.size"):
        page.locator(".moves button:not([disabled])").first.click()
    other = phone.page.context.new_page()
    other.goto(f"{served.url}/rooms/{ana['room']}")
    other.wait_for_selector(".o-board")
    other.evaluate(PLAY_FIRST)
    page.wait_for_function("() => !globalThis.tablewireRoom.myTurn")
    socket.release()
    refused = page.locator(".o-refused")
    expect(refused).to_have_text(
        "Your move was not played. It is not your turn now: "
        "the game moved on before your move arrived."
    )
    expect(refused).to_be_in_viewport()
    expect(page.locator(".o-asked")).to_contain_text(f"Waiting for {other_name}")
    phone.shoot(shots, "new-player-refused-m")
    other.close()


@pytest.mark.parametrize(
    ("code", "message", "said"),
    [
        # The engine's words, as text (never markup), made a sentence.
        (
            "illegal_action",
            "you do not have <b>enough</b> money for that",
            "You do not have <b>enough</b> money for that.",
        ),
        (
            "not_allowed_now",
            "the market is closed until the next round.",
            "The market is closed until the next round.",
        ),
        # No words from the server: the general sentence.
        ("illegal_action", "", "That move is not allowed now."),
    ],
)
def test_a_refused_move_says_the_engines_own_reason(
    open_page: Callable[..., Watched],
    served: Served,
    shots: Path,
    code: str,
    message: str,
    said: str,
) -> None:
    reservations = two_humans(served, "sintra", {"confirm": False})
    player = open_page(PHONE)
    socket = Refusing(code, message)
    player.page.route_web_socket("**/ws/**", socket.route)
    sit_first(player, reservations)
    page = player.page
    page.locator(".moves-fold > summary").click()
    # Long lists of moves narrow a step at a time: the first choice until a move is sent.
    while not socket.refused:
        page.locator(".moves button:not([disabled])").first.click()
    refused = page.locator(".o-refused")
    expect(refused).to_have_text(f"Your move was not played. {said} Choose a move again.")
    expect(refused.locator("b")).to_have_count(0)
    if code == "illegal_action" and message:
        player.shoot(shots, "refused-engine-reason")


def test_a_move_waiting_stays_while_legal_and_goes_with_a_note_when_not(
    open_page: Callable[..., Watched], served: Served
) -> None:
    # Crystal Palace's phase 1: Bo getting ready changes the room, not Ana's choices.
    room = served.bots_room("crystal-palace", 3, [2])
    seats = f"/api/rooms/{room['id']}/seats"
    ana, bo = (served.api("POST", seats, {"name": name}) for name in ("Ana", "Bo"))
    player, other = open_page(), open_page()
    player.sit(ana)
    other.sit(bo)
    page = player.page
    for _ in range(4):  # a value for each of her four dice: the last asks to play them
        page.locator(".cp-faces [data-move]", has_text="£6").click()
    bar = page.locator(".o-confirm")
    expect(bar).to_contain_text("Play: ")
    label = bar.locator("strong").inner_text()
    before = player.version()
    other.page.evaluate(PLAY_MOVES, 4)  # Bo's four dice: he is ready
    page.wait_for_function("(v) => globalThis.tablewireRoom.version > v", arg=before)
    page.wait_for_function("() => globalThis.tablewireRoom.doc.game.seats[1].ready")
    expect(page.locator(".moves-fold")).to_be_visible()  # Ana's moves, read again
    expect(bar.locator("strong")).to_have_text(label)
    bar.get_by_role("button", name="Play it").click()
    page.wait_for_function(
        "() => globalThis.tablewireRoom.doc.game.seats[0].rolled.join() === '6,6,6,6'"
    )

    # Sintra: Ana's other tab plays while this one waits on "Play it": her turn is over.
    player = open_page()
    ana = sit_first(player, two_humans(served, "sintra", {"confirm": True}))
    page = player.page
    while not page.locator(".o-confirm").count():
        page.locator(".moves button:not([disabled])").first.click()
    tab = page.context.new_page()
    tab.goto(f"{served.url}/rooms/{ana['room']}")
    tab.wait_for_selector(".o-board")
    tab.evaluate(PLAY_FIRST)
    expect(page.locator(".o-confirm")).to_have_count(0)
    expect(page.locator(".o-confirm-note")).to_contain_text("your turn ended, so it was not played")
    tab.close()


def test_the_game_log_opens_at_its_newest_line(
    open_page: Callable[..., Watched], served: Served
) -> None:
    reservation = served.room_with_bots("sintra", seats=2, bots=1)
    player = open_page()
    player.sit(reservation)
    player.page.evaluate(PLAY_MOVES, 12)
    player.page.wait_for_function(LOG_AT_END)
    for viewport in (PHONE, None):
        late = open_page(viewport) if viewport else open_page()
        late.open_room(reservation["room"])
        late.page.wait_for_function(LOG_AT_END)
    player.page.reload()
    player.page.wait_for_function(LOG_AT_END)


def test_crystal_palace_brings_the_step_after_an_assistant_space_to_a_phone(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    for _ in range(5):  # a room whose first placement offers this player an "A" space
        player = open_page(PHONE)
        page = _first_placement(player, served.room_with_bots("crystal-palace", 3, 2))
        spot = page.locator(".cp-spot:has(.cp-asst):not([disabled])").first
        if spot.count():
            break
    else:
        raise AssertionError("five rooms without an assistant space at the first placement")
    spot.click()
    pending = page.locator(".cp-pending")
    expect(pending).to_be_in_viewport()
    expect(pending).to_contain_text("assistant action")
    assert pending.locator("[data-move]").count() > 0
    player.shoot(shots, "new-player-cp-pending-m")


def _first_placement(player: Watched, reservation: dict[str, Any]) -> Page:
    """``player`` seated by ``reservation`` in a Crystal Palace room, its dice set to £6
    through the page's own connection, once the board offers it the spaces of its first
    placement. (The bots set theirs and place at once, each from the version it sees:
    which spaces are left when this player's turn comes varies from room to room.)"""
    player.sit(reservation)
    page = player.page
    page.wait_for_selector(".cp-faces [data-move]")
    page.evaluate(SET_SIXES)
    try:
        page.wait_for_function(FIRST_PLACEMENT)
    except PlaywrightError as exc:
        doc = player.mirror()
        where = {"step": doc["game"]["step"], "to_act": doc["to_act"], "v": player.version()}
        raise AssertionError(f"no first placement for seat 0: {where}") from exc
    page.locator(".cp-spot:not([disabled])").first.wait_for()
    return page


def test_the_step_help_speaks_only_to_the_player_who_acts(
    open_page: Callable[..., Watched], served: Served
) -> None:
    ana, bo = two_humans(served, "chartered", {"confirm": False})
    pages = {}
    for reservation in (ana, bo):
        pages[reservation["seat"]] = open_page()
        pages[reservation["seat"]].sit(reservation)
    spectator = open_page(PHONE)
    spectator.open_room(ana["room"])
    acting = spectator.mirror()["to_act"][0]
    expect(pages[acting].page.locator(".o-help")).to_be_visible()
    for waiting in (pages[1 - acting], spectator):
        expect(waiting.page.locator(".o-asked")).to_contain_text("Waiting for")
        expect(waiting.page.locator(".o-help")).to_have_count(0)


def test_the_room_offers_the_games_own_bots_as_the_lobby_does(
    open_page: Callable[..., Watched], served: Served
) -> None:
    room = served.api("POST", "/api/rooms", {"engine": "chartered", "seats": 3})
    owner = open_page()
    owner.page.goto(served.url + "/")
    owned = {"ownerToken": room["owner_token"], "invite": None}
    owner.page.evaluate(
        "([k, v]) => localStorage.setItem(k, v)",
        [f"tablewire:owner:{room['id']}", json.dumps(owned)],
    )
    owner.page.goto(f"{served.url}/rooms/{room['id']}")
    bots = next(g["bots"] for g in served.api("GET", "/api/games") if g["id"] == "chartered")
    shown = [f"{b['kind']} — {b['strength']}" for b in bots]
    shown[0] += " (default)"
    kinds = owner.page.locator("#bot-kind option")
    expect(kinds).to_have_text(shown)
    expect(owner.page.locator("#bot-kind")).to_have_value(bots[0]["kind"])
    owner.page.get_by_role("button", name="Fill the free seats with bots").click()
    owner.page.wait_for_function("() => globalThis.tablewireRoom.doc.status === 'playing'")
    presence = owner.mirror()["presence"]
    assert all(seat["bot"] == bots[0]["kind"] for seat in presence if seat), presence


# Each headquarters plot's number and HQ mark: their boxes, and the plot's.
HQ_BOXES = """() => [...document.querySelectorAll(".o-board .ch-hq")].map((plot) => {
  const box = (part) => {
    const r = part.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, w: r.width };
  };
  return {
    plot: box(plot),
    num: box(plot.querySelector(".ch-num")),
    hq: box(plot.querySelector(".ch-hq-mark")),
  };
})"""


def test_a_chartered_headquarters_shows_its_number_beside_hq_on_a_phone(
    open_page: Callable[..., Watched], served: Served
) -> None:
    room = served.bots_room("chartered", 4, [0, 1, 2, 3], "greedy")
    watcher = open_page(PHONE)
    watcher.open_room(room["id"])
    watcher.page.wait_for_selector(".o-result")
    watcher.wait_drawn()
    plots = watcher.page.evaluate(HQ_BOXES)
    assert plots
    for found in plots:
        plot, num, hq = found["plot"], found["num"], found["hq"]
        assert num["w"] > 0 and hq["w"] > 0, found
        apart = num["right"] <= hq["left"] or num["bottom"] <= hq["top"]
        assert apart, found
        for part in (num, hq):
            assert plot["left"] <= part["left"] and part["right"] <= plot["right"], found
