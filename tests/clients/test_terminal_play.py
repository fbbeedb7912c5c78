"""The terminal client's play: the keyboard, bots seated for you, answers typed ahead, a
list of moves narrowed across a change, a lost connection and the help, a screenful at
a time."""

from __future__ import annotations

import asyncio
import os
import pty
import re
import select
from typing import Any

import httpx
import pytest
from rich.console import Console
from rich.text import Text

from clients import render
from clients.cli import _parser
from clients.client import LobbyClient, LobbyError
from clients.commands import create_room, local_games
from clients.keyboard import StdinKeyboard
from clients.screen import Screen, result_table
from clients.seating import SeatRequest, seat_bots, take_seat
from engines import ENGINES, GAMES
from engines.base import STEP
from server.fold import ABANDONED, MOVE_LIMIT
from support import recorded, stepped

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
            return httpx.Response(
                200,
                json={
                    "id": "R1",
                    "status": "waiting",
                    "names": ["b", None, None, None],
                    "bots": ["greedy", None, None, None],
                },
            )
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
        self.chat: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.heard = 0
        self._changed = asyncio.Condition()

    async def touch(self) -> None:
        async with self._changed:
            self.version += 1
            self._changed.notify_all()

    async def wait_version(self, version: int) -> dict[str, Any]:
        async with self._changed:
            await self._changed.wait_for(lambda: self.version >= version)
        return self.doc

    async def wait_heard(self, heard: int) -> None:
        async with self._changed:
            await self._changed.wait_for(lambda: self.heard > heard)

    async def say(self, text: str) -> None:
        """The room answers a line at once: refused if it is long, else said back."""
        async with self._changed:
            if len(text) > 300:
                self.errors.append(
                    {"t": "error", "code": "chat_too_long", "message": "too long", "of": "say"}
                )
            else:
                self.chat.append({"seat": 0, "name": "ana", "text": text, "at": 0.0})
            self.heard += 1
            self._changed.notify_all()

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

    async def ended(self) -> None:
        await asyncio.Future()  # answers never run out

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


async def test_say_at_the_prompt_talks_to_the_room_and_a_refusal_is_told() -> None:
    from clients.terminal import Session, _take_turn

    room = ChangingRoom(["a move", "another move"])
    console, out = recorded()
    screen = Screen(console, "none", 0, "r")
    typed = ["/say [b]hello[/b]", "/say", "/say " + "x" * 301, "2"]
    session = Session("http://x", room, screen, Script(room, typed), 60.0)  # type: ignore[arg-type]
    await _take_turn(session)
    shown = out.getvalue()
    assert room.chat == [{"seat": 0, "name": "ana", "text": "[b]hello[/b]", "at": 0.0}]
    assert "ana: [b]hello[/b]" in shown
    assert "Type your words after /say" in shown
    assert "The room did not take that line: too long (chat_too_long)." in shown
    assert room.sent == [{"n": 1}]  # the lines said changed nothing of the turn


async def test_between_turns_a_player_at_a_terminal_may_say_a_line() -> None:
    from clients.terminal import Session, _watch

    room = ChangingRoom(["a move"])
    room.doc = {**room.doc, "to_act": [1]}
    console, out = recorded()
    screen = Screen(console, "none", 0, "r")
    session = Session("http://x", room, screen, Script(room, ["3", "/say gg", None]), 60.0)  # type: ignore[arg-type]
    await _watch(session, room.version)
    shown = out.getvalue()
    assert [line["text"] for line in room.chat] == ["gg"] and "ana: gg" in shown
    assert "It is not your turn yet; /say TEXT talks to the room." in shown


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
    from clients.terminal import Session, _help, keys_help, rules_line

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
    whole.print(Text(keys_help(None)), legend(), rules_line("http://x", engine))
    expected = whole_out.getvalue().splitlines()
    printed = [line for page in screens for line in page.splitlines()]
    assert [line.rstrip() for line in printed if line] == [
        line.rstrip() for line in expected if line
    ]


@pytest.mark.parametrize("engine", sorted(GAMES))
async def test_the_helps_example_of_words_narrows_the_moves_of_the_game(engine: str) -> None:
    """``?`` shows words to type as an example taken from the moves on the list, so
    that typing them narrows it, in every game (a fixed ``red 3`` matched none)."""
    from clients.chooser import Chooser
    from clients.terminal import Session, _help, keys_help

    game = ENGINES[engine]
    state = game.setup(game.min_players, {}, 1)
    seat = min(game.to_act(state))
    labels = [game.describe(state, seat, a) for a in game.legal_actions(state, seat)]
    chooser = Chooser(labels)
    chooser.view(80, 12)
    room = ChangingRoom(labels)
    console, out = recorded(200, 1000)
    session = Session(
        "http://x", room, Screen(console, engine, 0, "r"), Script(room, [""] * 9), 60.0
    )  # type: ignore[arg-type]
    await _help(session, room.version, chooser)
    example = re.search(r"\(for example: ([^)]+)\)", out.getvalue())
    assert example is not None, out.getvalue()
    assert chooser.answer(example.group(1)) is None, f"{example.group(1)!r} narrows nothing"
    assert chooser.words == example.group(1).split()
    assert all(len(line) <= 80 for line in keys_help(chooser).splitlines()), "no wrap at 80"


@pytest.mark.parametrize("engine", sorted(GAMES))
async def test_the_help_says_where_the_rules_of_the_game_are(engine: str) -> None:
    """A player at the terminal finds how to play from ``?``: the server's rules page,
    named without the credentials of a proxy's login, and the command that prints them."""
    from clients.terminal import Session, _help

    room = ChangingRoom(["a move"])
    console, out = recorded(200, 1000)
    session = Session(
        "http://ana:secret@play.example:8000",
        room,  # type: ignore[arg-type]
        Screen(console, engine, 0, "r"),
        Script(room, [""] * 9),  # type: ignore[arg-type]
        60.0,
    )
    await _help(session, room.version)
    shown = " ".join(out.getvalue().split())
    title = ENGINES[engine].title
    assert f"How to play {title}: http://play.example:8000/rules/{engine}" in shown
    assert f"or here: tablewire rules {engine}" in shown, "the rules without a browser"
    assert "secret" not in shown


def test_a_game_that_ended_without_a_ranking_says_why() -> None:
    for result, why in ((ABANDONED, "everyone left"), (MOVE_LIMIT, "move limit")):
        console = Console(width=80, record=True)
        console.print(result_table(result, ["ana", "bea"], seat=0))
        assert why in console.export_text()
