"""The terminal client without a server: the chooser, the screen at 80×24, the keyboard,
the result table and names that try to be markup or escape sequences."""

from __future__ import annotations

import asyncio
import io
import os
import pty
import random
import re
import select
import time
from typing import Any

import httpx
import pytest
from rich.console import Console, Group, RenderableType
from rich.text import Text

from clients import render
from clients.chooser import Chooser
from clients.cli import _parser
from clients.client import LobbyClient, LobbyError, RoomClient
from clients.commands import create_room, local_games
from clients.keyboard import StdinKeyboard
from clients.seating import SeatRequest, come_back, seat_bots, take_seat
from clients.terminal import Screen, result_table, table_line
from engines import ENGINES
from engines.base import STEP
from engines.render import safe_name
from server.room import ABANDONED, MOVE_LIMIT

HOSTILE = ["[/]", "[bold]x", "\x1b[31mred\x1b[0m", "\x1b]0;owned\x07tab"]
"""Names that crash rich markup, restyle text, or send escape sequences."""


def recorded(width: int = 80, height: int = 24) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=width, height=height, color_system=None), out


# -- the chooser ------------------------------------------------------------------


def stepped(factories: int = 9, colours: int = 5, strips: int = 8) -> list[str]:
    """Sintra-like labels in three choice steps: 9 × 5 × 8 = 360 moves."""
    return [
        f"factory {f}{STEP}{c} glass{STEP}strip {s}"
        for f in range(1, factories + 1)
        for c in ("red", "orange", "yellow", "light blue", "dark blue")[:colours]
        for s in range(1, strips + 1)
    ]


def test_moves_that_fit_are_numbered_in_columns_within_the_rows() -> None:
    labels = [f"build plot {n}" for n in range(1, 31)]
    chooser = Chooser(labels)
    lines = chooser.lines(80, 8)
    assert len(lines) <= 8
    shown = " ".join(line.plain for line in lines)
    assert all(f"{i} build plot {i}" in shown for i in range(1, 31))
    assert chooser.answer("30") == 29


def test_columns_take_the_width_of_their_own_entries() -> None:
    labels = [f"build plot {n}" for n in range(11, 22)]
    labels += [f"buy a card from market slot {k}" for k in range(1, 6)]
    labels.append("refresh the open market (ƒ50), then buy")
    lines = Chooser(labels).lines(80, 9)
    assert len(lines) == 9 and all(line.cell_len <= 80 for line in lines)
    assert "17 refresh the open market (ƒ50), then buy" in lines[7].plain


def test_too_many_moves_are_grouped_by_their_first_step_and_narrowed_step_by_step() -> None:
    labels = stepped()
    chooser = Chooser(labels)
    lines = chooser.lines(80, 10)
    assert len(lines) <= 10
    assert "factory 1 (40 moves)" in lines[0].plain + lines[1].plain
    assert chooser.answer("3") is None  # open factory 3
    lines = chooser.lines(80, 10)
    assert len(lines) <= 10 and "factory 3" in lines[0].plain
    assert chooser.answer("2") is None  # orange glass
    lines = chooser.lines(80, 10)
    assert "strip 8" in " ".join(line.plain for line in lines)
    picked = chooser.answer("8")
    assert isinstance(picked, int)
    assert labels[picked] == f"factory 3{STEP}orange glass{STEP}strip 8"


def test_back_undoes_the_last_group_opened() -> None:
    chooser = Chooser(stepped())
    chooser.lines(80, 10)
    chooser.answer("4")
    chooser.lines(80, 10)
    assert chooser.answer("b") is None
    assert chooser.prefix == []
    chooser.lines(80, 10)
    assert chooser.answer("b") == "This is the whole list already."


def test_words_narrow_the_list_and_unknown_words_say_so() -> None:
    labels = stepped()
    chooser = Chooser(labels)
    chooser.lines(80, 10)
    assert chooser.answer("Orange 8") is None
    lines = chooser.lines(80, 10)
    assert "moves with: orange 8" in lines[0].plain
    entries = [e for line in lines[1:] for e in line.plain.split("   ") if e.strip()]
    assert len(entries) == 9 + 7  # strip 8 of any factory, or any strip of factory 8
    assert all("orange" in e and "8" in e for e in entries)
    notice = chooser.answer("purple")
    assert isinstance(notice, str) and "purple" in notice


def test_labels_without_steps_are_paged_and_every_page_fits() -> None:
    labels = [
        f"take glass number {n} from somewhere far away onto strip {n % 8}" for n in range(97)
    ]
    chooser = Chooser(labels)
    seen: set[str] = set()
    for _ in range(20):
        lines = chooser.lines(80, 7)
        assert len(lines) <= 7 and all(line.cell_len <= 80 for line in lines)
        assert "page" in lines[0].plain
        seen |= {line.plain.split()[0] for line in lines[1:]}
        chooser.answer("n")
    assert seen == {str(n) for n in range(1, 98)}
    assert chooser.answer("97") == 96  # any number of the list, not only this page's


@pytest.mark.parametrize("typed", ["999", "0", ""])
def test_a_wrong_answer_names_the_valid_range(typed: str) -> None:
    chooser = Chooser([f"move {n}" for n in range(1, 13)])
    chooser.lines(80, 20)
    notice = chooser.answer(typed)
    assert isinstance(notice, str) and "1 to 12" in notice


def test_a_word_longer_than_the_width_is_cut() -> None:
    chooser = Chooser(["x" * 200, "y" * 200])
    lines = chooser.lines(80, 5)
    assert all(line.cell_len <= 80 for line in lines) and lines[0].plain.endswith("…")


FOUND = (
    "found a company: HQ here and 2 more warehouses, value ƒ30, you receive ƒ30 and 1 free share"
)
MERGE = (
    "merge Silver ƒ40 + Peper ƒ60: the higher absorbs the lower (its shares are sold at its "
    "value), together ƒ110; you receive ƒ110"
)


@pytest.mark.parametrize("rows", [20, 6])
def test_long_labels_wrap_so_that_their_effect_and_price_show(rows: int) -> None:
    labels = [f"build plot {n}{STEP}{FOUND if n % 2 else MERGE}" for n in range(1, 9)]
    labels.append("buy a card for ƒ50")
    chooser = Chooser(labels)
    shown = []
    while True:
        lines = chooser.lines(80, rows)
        assert len(lines) <= rows and all(line.cell_len <= 80 for line in lines)
        assert not any(line.plain.endswith("…") for line in lines)
        shown += [line.plain for line in lines]
        if chooser.answer("n") is not None or chooser.page == 0:
            break  # one screen, or back at the first page
    text = " ".join(" ".join(shown).split())
    for n, label in enumerate(labels, 1):
        assert f"{n} {label}" in text
    assert "  receive ƒ30 and 1 free share" in shown, "the rest is indented under the number"


def test_an_entry_longer_than_the_rows_is_cut_to_them() -> None:
    lines = Chooser(["word " * 100, "short"]).lines(40, 4)
    assert len(lines) == 4 and lines[-1].plain.endswith("…")


# -- the screen --------------------------------------------------------------------


def sintra_position(players: int = 2) -> tuple[dict[str, Any], list[str], int]:
    """A Sintra opening (many moves) as the first player, ana, sees it, with the moves' labels."""
    engine = ENGINES["sintra"]
    state = engine.setup(players, {}, 7)
    seat = min(engine.to_act(state))
    names = ["bo", "cy", "di", "ed"][: players - 1]
    names.insert(seat, "ana")
    doc = {
        "status": "playing",
        "seats": names,
        "to_act": sorted(engine.to_act(state)),
        "game": engine.view(state, seat),
    }
    labels = [engine.describe(state, seat, a) for a in engine.legal_actions(state, seat)]
    return doc, labels, seat


@pytest.mark.parametrize("labels", ["engine", "stepped"])
def test_at_80x24_the_board_and_the_prompt_share_the_screen(labels: str) -> None:
    doc, moves, seat = sintra_position()
    if labels == "stepped":
        moves = stepped()
    assert len(moves) > 40
    console, out = recorded()
    screen = Screen(console, "sintra", seat, "room1")
    screen.log = [f"event {n}" for n in range(9)] + ["event 9, told at length" * 5]
    chooser = Chooser(moves)
    notice = ""
    for answer in ["", "n", "n", "1", "b", "999"]:
        if answer:
            picked = chooser.answer(answer)
            notice = picked if isinstance(picked, str) else ""
        start = len(out.getvalue())
        screen.draw(doc, chooser, notice)
        drawn = out.getvalue()[start:].split("\n")
        assert drawn[-1].startswith("Your move"), drawn[-1]
        assert len(drawn) <= 24, "the board's first line scrolled away"
        assert "Azul: Stained Glass of Sintra" in drawn[0]
        assert "ana (you)" in "\n".join(drawn) and "event 8" in drawn
        assert any(line.startswith("event 9, told at length") for line in drawn)
    assert "999 is not on the list" in out.getvalue()


def test_the_screen_says_whose_clock_runs_and_who_is_away() -> None:
    doc, moves, seat = sintra_position(3)
    others = [i for i in range(3) if i != seat]
    now = 1_000_000.0
    doc["presence"] = [{"connected": True, "away_since": None, "bot": None, "timeouts": 0}] * 3
    doc["clock"] = {"control": "move:30", "remaining": [30.0] * 3, "deadline": [None] * 3}
    assert table_line(doc, seat, now) == "", "nothing to say: a clock that is stopped, all here"
    doc["clock"]["deadline"][seat] = now + 24.2
    doc["presence"][others[0]] = {"connected": False, "away_since": now - 130, "bot": None}
    doc["presence"][others[1]] = {"connected": False, "away_since": None, "bot": "zombie"}
    doc["seats"][others[1]] = "\x1b[31mred"
    line = table_line(doc, seat, now)
    assert line.startswith("Your clock: 25 s left, then a bot plays this decision for you")
    assert f"{doc['seats'][others[0]]} is away (2 min 10 s)" in line
    assert "a bot plays for [31mred for the rest of the game" in line and "\x1b" not in line
    assert table_line(doc, None, now).startswith("ana's clock: 25 s"), "a spectator's view"

    console, out = recorded()
    doc["clock"]["deadline"][seat] = time.time() + 30
    Screen(console, "sintra", seat, "r").draw(doc, Chooser(moves))
    drawn = out.getvalue().split("\n")
    assert len(drawn) <= 24 and "Azul" in drawn[0] and drawn[-1].startswith("Your move")
    assert any(line.startswith("Your clock: 30 s left") for line in drawn)


def test_a_larger_terminal_shows_more_moves() -> None:
    doc, moves, seat = sintra_position()
    small, small_out = recorded(80, 24)
    large, large_out = recorded(240, 80)
    Screen(small, "sintra", seat, "r").draw(doc, Chooser(moves))
    Screen(large, "sintra", seat, "r").draw(doc, Chooser(moves))
    assert not all(label in small_out.getvalue() for label in moves)  # grouped or paged
    assert all(label in large_out.getvalue() for label in moves)


def test_question_mark_legend_comes_from_the_game_folder() -> None:
    from engines.sintra.render import legend as sintra_legend

    assert render.legend_of("sintra") is sintra_legend
    assert render.legend_of("no-such-game") is None


# -- names are data ---------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["sintra", "chartered", "crystal-palace", "turn-relay"])
def test_hostile_names_never_crash_a_board_or_reach_the_terminal(engine: str) -> None:
    game = ENGINES[engine]
    players = max(game.min_players, min(game.max_players, len(HOSTILE)))
    state = game.setup(players, {"moves": 12} if engine == "turn-relay" else {}, 3)
    rnd = random.Random(3)
    for _ in range(6):
        seat = min(game.to_act(state))
        state, _ = game.apply(state, seat, rnd.choice(game.legal_actions(state, seat)))
    doc = {
        "status": "playing",
        "seats": (HOSTILE * 2)[:players],
        "to_act": sorted(game.to_act(state)),
        "game": game.view(state, 0),
    }
    console, out = recorded(width=200, height=60)
    render.render(console, engine, doc, 0)
    assert "\x1b" not in out.getvalue() and "\x07" not in out.getvalue()


def test_names_reach_a_renderer_printable_and_print_as_typed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def plain(doc: dict[str, Any], seat: int | None) -> RenderableType:
        return Group(*(Text(name) for name in doc["seats"]))

    monkeypatch.setattr(render, "renderer", {"plain": plain}.get)
    doc = {"status": "playing", "seats": HOSTILE, "to_act": [], "game": {}}
    console, out = recorded()
    render.render(console, "plain", doc, 0)
    assert out.getvalue().splitlines()[1:] == ["[/]", "[bold]x", "[31mred[0m", "]0;ownedtab"]


def test_a_renderer_that_reads_names_as_markup_cannot_crash_the_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def careless(doc: dict[str, Any], seat: int | None) -> RenderableType:
        return Group(*(f"[bold]{name}[/bold]" for name in doc["seats"]))

    monkeypatch.setattr(render, "renderer", {"careless": careless}.get)
    doc = {"status": "playing", "seats": HOSTILE, "to_act": [], "game": {}}
    console, out = recorded()
    Screen(console, "careless", 0, "r").draw(doc)
    assert out.getvalue().splitlines()[1:3] == ["[/]", "[bold]x"]


def test_hostile_names_in_the_waiting_room_the_log_and_the_result() -> None:
    doc = {"status": "waiting", "seats": [*HOSTILE[:3], None], "to_act": [], "game": None}
    console, out = recorded()
    screen = Screen(console, "sintra", 3, "r")
    client = RoomClient("ws://127.0.0.1:1", "r")
    client.events.put_nowait({"type": "seat", "text": "[/] takes seat 1"})
    client.events.put_nowait({"type": "seat", "text": "\x1b[31mred\x1b[0m takes seat 3"})
    screen.events(client)
    screen.draw(doc)
    result = {"scores": [3, 2, 1, 0], "ranks": [1, 2, 3, 4], "winners": [0], "details": []}
    console.print(result_table(result, doc["seats"], 3))
    text = out.getvalue()
    assert "\x1b" not in text
    assert "[/] takes seat 1" in text and "[bold]x" in text and "[/] wins." in text
    assert safe_name("\x1b[31mred").plain == "[31mred"


# -- the result -------------------------------------------------------------------------


def test_the_result_ranks_names_counts_from_one_and_says_the_details_in_words() -> None:
    result = {
        "scores": [7070, 10040, 7070],
        "ranks": [2, 1, 2],
        "winners": [1],
        "details": [
            {"cash": 6130, "hand_penalty": -60, "total": 7070, "loan_values": []},
            {"cash": 6560, "flags": 2000, "total": 10040},
            {"cash": 7070, "total": 7070},
        ],
    }
    console, out = recorded()
    console.print(result_table(result, ["ana", "bo", None], 0))
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("bo wins.") and "You finished 2nd (tied) of 3." in lines[0]
    rows = [line.split() for line in lines[2:5]]
    assert [row[:2] for row in rows] == [["1st", "bo"], ["2nd", "ana"], ["2nd", "seat"]]
    assert "hand penalty -60" in out.getvalue()
    assert "total" not in out.getvalue() and "loan" not in out.getvalue()


def test_the_come_back_command_is_one_line_even_in_a_narrow_terminal() -> None:
    from clients.terminal import _print_come_back

    console, out = recorded(width=40)
    command = come_back("http://127.0.0.1:8000", "-Ab3", "-x" * 22, "http://127.0.0.1:8000")
    assert command == f"tablewire play --room=-Ab3 --token={'-x' * 22}"
    _print_come_back(console, command)
    assert command in out.getvalue().splitlines()[0]


# -- the keyboard ---------------------------------------------------------------------


async def test_the_keyboard_reads_lines_and_end_of_input_from_a_pipe() -> None:
    read, write = os.pipe()
    keyboard = StdinKeyboard(read)
    os.write(write, b"1\nred gl")
    assert await keyboard.line() == "1"
    waiting = asyncio.ensure_future(keyboard.line())
    os.write(write, "ass ✓\n".encode())
    assert await waiting == "red glass ✓"
    os.close(write)
    assert await keyboard.line() is None
    os.close(read)


async def test_a_pending_read_is_cancelled_at_once() -> None:
    read, write = os.pipe()
    keyboard = StdinKeyboard(read)
    waiting = asyncio.ensure_future(keyboard.line())
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    os.write(write, b"2\n")  # nothing was lost: the next read gets the line
    assert await keyboard.line() == "2"
    os.close(read)
    os.close(write)


# -- the requests play and new build ----------------------------------------------------


class Recorder:
    """A lobby that records what it is asked and answers like the real one."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        import json

        body = json.loads(request.content) if request.content else None
        self.requests.append((request.method, request.url.path, body))
        path = request.url.path
        if path == "/api/games":
            return httpx.Response(200, json=local_games())
        if path == "/api/rooms":
            return httpx.Response(201, json={"id": "R1", "names": [None] * body["seats"]})
        if path.endswith("/seats"):
            return httpx.Response(201, json={"room": "R1", "seat": 0, "token": "T"})
        if path == "/api/rooms/R1":
            return httpx.Response(200, json={"id": "R1", "names": ["me", None, None, None]})
        if path.endswith("/bots"):
            return httpx.Response(201, json={"id": "R1"})
        return httpx.Response(404, json={"error": {"code": "not_found", "message": path}})


async def test_play_with_bots_creates_a_room_for_you_and_n_bots_and_seats_you_first() -> None:
    lobby_api = Recorder()
    async with LobbyClient("http://x", transport=httpx.MockTransport(lobby_api)) as lobby:
        seat = await take_seat(lobby, SeatRequest(name="ana", game="sintra", bots=3))
    assert seat["token"] == "T"
    (m1, p1, created), (_, p2, reserved) = lobby_api.requests
    assert (m1, p1) == ("POST", "/api/rooms")
    assert created["engine"] == "sintra" and created["seats"] == 4
    assert created["bots"] == {"seats": [1, 2, 3]}  # the kind: the server's choice
    assert (p2, reserved) == ("/api/rooms/R1/seats", {"name": "ana", "seat": 0})


async def test_play_in_a_room_with_bots_asks_for_bots_in_the_free_seats() -> None:
    lobby_api = Recorder()
    async with LobbyClient("http://x", transport=httpx.MockTransport(lobby_api)) as lobby:
        request = SeatRequest(room="R1", name="ana", bots=2)
        await take_seat(lobby, request)
        assert lobby_api.requests[-1][1] == "/api/rooms/R1/seats"
        await seat_bots(lobby, request)
    assert lobby_api.requests[-1] == ("POST", "/api/rooms/R1/bots", {"seats": [1, 2]})


async def test_play_in_a_room_too_small_for_the_bots_takes_no_seat() -> None:
    lobby_api = Recorder()
    async with LobbyClient("http://x", transport=httpx.MockTransport(lobby_api)) as lobby:
        with pytest.raises(LobbyError) as refused:
            await take_seat(lobby, SeatRequest(room="R1", name="ana", bots=3))
    assert refused.value.code == "room_full" and "3 free seats" in refused.value.message
    assert [path for _, path, _ in lobby_api.requests] == ["/api/rooms/R1"]


async def test_new_with_bots_puts_them_in_the_last_seats_of_a_default_size_room() -> None:
    lobby_api = Recorder()
    args = _parser().parse_args(
        ["new", "--game", "chartered", "--bots", "2", "--bot-kind", "random"]
    )
    async with LobbyClient("http://x", transport=httpx.MockTransport(lobby_api)) as lobby:
        await create_room(lobby, args)
    method, path, body = lobby_api.requests[-1]
    assert (method, path, body["engine"], body["seats"]) == ("POST", "/api/rooms", "chartered", 6)
    assert body["bots"] == {"seats": [4, 5], "kind": "random"}


async def test_an_answer_that_is_not_tablewire_json_is_a_clear_refusal() -> None:
    def html(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, text="<html>Internal Server Error</html>")

    async with LobbyClient("http://x", transport=httpx.MockTransport(html)) as lobby:
        with pytest.raises(LobbyError) as refused:
            await lobby.rooms()
    assert refused.value.code == "server_failed" and "HTTP 500" in refused.value.message


async def test_answers_typed_ahead_on_a_terminal_are_discarded_before_a_turn() -> None:
    master, slave = pty.openpty()
    keyboard = StdinKeyboard(slave)
    assert keyboard.echoes
    os.write(master, b"3\n")  # typed while others were playing
    assert select.select([slave], [], [], 10)[0], "the line reached the terminal"
    keyboard.discard()
    os.write(master, b"1\n")
    assert await keyboard.line() == "1"
    os.close(master)
    os.close(slave)


# -- a turn while the room changes -------------------------------------------------------


class ChangingRoom:
    """Enough of a RoomClient for one turn: seat 0 to act on ``labels``; ``touch``
    makes a new version that changes nothing of the seat's moves."""

    def __init__(self, labels: list[str]) -> None:
        self.labels = labels
        self.version = 1
        self.seat = 0
        self.doc = {"status": "playing", "seats": ["ana", "bo"], "to_act": [0], "game": None}
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.sent: list[dict[str, Any]] = []
        self._changed = asyncio.Condition()

    async def touch(self) -> None:
        async with self._changed:
            self.version += 1
            self._changed.notify_all()

    async def wait_version(self, version: int) -> dict[str, Any]:
        async with self._changed:
            await self._changed.wait_for(lambda: self.version >= version)
        return self.doc

    async def moves(self) -> list[tuple[dict[str, Any], str]]:
        return [({"n": i}, label) for i, label in enumerate(self.labels)]

    async def intent(self, action: dict[str, Any]) -> dict[str, Any]:
        self.sent.append(action)
        self.doc = {**self.doc, "to_act": [1]}
        await self.touch()
        return {"t": "ack", "v": self.version}


class Script:
    """Answers from a list; ``None`` in it makes the room change while the player thinks."""

    echoes = True

    def __init__(self, room: ChangingRoom, answers: list[str | None]) -> None:
        self.room, self.answers = room, answers

    def discard(self) -> None:
        pass

    async def line(self) -> str | None:
        answer = self.answers.pop(0)
        if answer is None:
            await self.room.touch()
            await asyncio.Future()  # the change wins the race
        return answer


async def test_a_change_that_keeps_the_moves_keeps_the_list_as_narrowed() -> None:
    from clients.terminal import Session, _take_turn

    labels = stepped()
    room = ChangingRoom(labels)
    console, _ = recorded()
    screen = Screen(console, "none", 0, "r")
    keyboard = Script(room, ["1", None, "2", "3"])  # factory 1, (a change), orange, strip 3
    session = Session("http://x", room, screen, keyboard, 60.0)  # type: ignore[arg-type]
    await _take_turn(session)
    assert room.sent == [{"n": labels.index(f"factory 1{STEP}orange glass{STEP}strip 3")}]


async def test_a_connection_lost_at_the_prompt_is_told_on_a_line_of_its_own() -> None:
    from clients.terminal import Session, _line_or_change

    class Lost(ChangingRoom):
        async def wait_version(self, version: int) -> dict[str, Any]:
            raise ConnectionError("lost")

    class Silent:
        echoes = True

        async def line(self) -> str | None:
            await asyncio.Future()
            return None

    room = Lost(["a move"])
    console, out = recorded()
    screen = Screen(console, "sintra", 0, "r")
    session = Session("http://x", room, screen, Silent(), 60.0)  # type: ignore[arg-type]
    screen.ask("Your move (1, words narrow, ? help): ")
    with pytest.raises(ConnectionError):
        await _line_or_change(session, room.version)
    console.print("Lost the server")
    assert out.getvalue().endswith("? help): \nLost the server\n")


@pytest.mark.parametrize("engine", [e for e in sorted(ENGINES) if render.legend_of(e)])
async def test_the_help_is_shown_a_screenful_at_a_time_at_80x24(engine: str) -> None:
    from clients.terminal import HELP, Session, _help

    room = ChangingRoom(["a move"])
    console, out = recorded()
    keyboard = Script(room, [""] * 9)
    screen = Screen(console, engine, 0, "r")
    session = Session("http://x", room, screen, keyboard, 60.0)  # type: ignore[arg-type]
    await _help(session, room.version)
    shown = out.getvalue()
    screens = re.split(r"Press Enter[^\n]*?\. ", shown)
    assert len(screens) > 2 and screens[-1] == "", "the help takes pages at 80x24"
    assert all(len(page.split("\n")) <= 24 for page in screens), "a page scrolled away"
    assert shown.endswith("Press Enter to see the board again. ")
    whole, whole_out = recorded(80, 1000)
    legend = render.legend_of(engine)
    assert legend is not None
    whole.print(Text(HELP), legend())
    expected = whole_out.getvalue().splitlines()
    printed = [line for page in screens for line in page.splitlines()]
    assert [line.rstrip() for line in printed if line] == [
        line.rstrip() for line in expected if line
    ]


def test_a_game_that_ended_without_a_ranking_says_why() -> None:
    for result, why in ((ABANDONED, "everyone left"), (MOVE_LIMIT, "move limit")):
        console = Console(width=80, record=True)
        console.print(result_table(result, ["ana", "bea"], seat=0))
        assert why in console.export_text()
