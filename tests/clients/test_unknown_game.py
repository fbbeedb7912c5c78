"""A room whose game this copy of tablewire does not know (a newer server's): the
terminal names it by the server's title for it (the ``welcome``'s ``title``), not its
bare id, and says in one line why it shows the game's data rather than a board and
how to get the board drawn; its rules are pointed to on the server only (``tablewire
rules`` here would not know the game)."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from rich.console import Console

import engines
from clients import render
from clients.client import LobbyClient
from clients.spawn import SpawnedServer
from clients.terminal import rules_line, spectate
from support import ROOT

TEMPLATE = ROOT / "tests" / "tiny_game"
ID = "tiny-nim"


def test_a_game_it_does_not_know_is_named_by_the_servers_title_and_says_why_no_board() -> None:
    doc = {"status": "playing", "seats": ["ann", "bob"], "to_act": [0], "game": {"pile": 3}}
    out = io.StringIO()
    console = Console(file=out, width=100)
    console.print(render.board("far-future", doc, 0, told="Far Future\x1b\u202e"))
    shown = out.getvalue()
    assert "Far Future · playing" in shown and "\x1b" not in shown, shown
    assert "does not know Far Future (far-future), so it cannot draw its board" in shown
    assert "install the server's version of tablewire" in shown and "'pile': 3" in shown
    assert render.title("far-future") == "far-future"  # an older server told no title
    assert render.title("sintra", "Something else") == "Azul: Stained Glass of Sintra"
    line = rules_line("http://127.0.0.1:1", "far-future", "Far Future").plain
    assert line == "How to play Far Future: http://127.0.0.1:1/rules/far-future (in a browser)"
    assert "tablewire rules sintra" in rules_line("http://127.0.0.1:1", "sintra").plain


async def test_spectating_a_newer_servers_game_names_it_and_says_why_there_is_no_board(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server with a game folder this process does not have (Tiny Nim): the board was
    headed "tiny-nim · finished" over bare data, with no word of why."""
    folder = tmp_path / "tiny_game"
    shutil.copytree(TEMPLATE, folder)
    monkeypatch.setenv(engines.PATH_VARIABLE, str(folder))
    server = await SpawnedServer().start()
    monkeypatch.delenv(engines.PATH_VARIABLE)
    assert ID not in engines.ENGINES
    try:
        async with LobbyClient(server.url) as lobby:
            bots = {"seats": [0, 1], "kind": "random"}
            room = await lobby.create_room(ID, seats=2, bots=bots, options={"bot_delay": 0})
        out = io.StringIO()
        result = await spectate(server.url, room["id"], Console(file=out, width=200))
        assert result is not None
        shown = out.getvalue()
        assert "Tiny Nim · " in shown and "tiny-nim · " not in shown, shown
        assert "does not know Tiny Nim (tiny-nim), so it cannot draw its board" in shown, shown
    finally:
        await server.stop()
