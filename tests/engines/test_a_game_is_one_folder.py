"""A game is one folder: a copy of tests/tiny_game written elsewhere and named by
``TABLEWIRE_GAMES`` is found, with no other edit, by the engine registry, the
conformance suite, the bots, the terminal renderer, the lobby (a room created and
played to its end over a real server), the web page (its board and in-room help served
and listed) and its how-to-play page (its rules.md, with a picture drawn by its board)."""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from rich.console import Console

import engines
from clients import bots as bot_runner
from clients import render
from clients.spawn import TABLEWIRE, SpawnedServer
from engines.bots import RANDOM_STRENGTH, RandomBot, has_greedy, make_bot
from server import robots
from support import ROOT

TEMPLATE = ROOT / "tests" / "tiny_game"
ID = "tiny-nim"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The template game, copied to a folder outside the repository."""
    copied = tmp_path_factory.mktemp("elsewhere") / "tiny_game"
    shutil.copytree(TEMPLATE, copied)
    return copied


@pytest.fixture
def discovered(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The registry as a process started with ``TABLEWIRE_GAMES`` naming the copy sees it."""
    monkeypatch.setenv(engines.PATH_VARIABLE, str(folder))
    engines.discover()
    yield folder
    monkeypatch.delenv(engines.PATH_VARIABLE)
    engines.discover()


def test_the_registry_finds_the_folder_and_forgets_it_when_unnamed(discovered: Path) -> None:
    assert ID in engines.ENGINES and ID in engines.GAMES
    assert engines.folder(ID) == discovered
    engines.discover([])
    assert ID not in engines.ENGINES and ID not in engines.PACKAGES


def test_a_folder_that_is_no_game_is_refused_clearly_and_changes_nothing(tmp_path: Path) -> None:
    before = dict(engines.ENGINES)
    (tmp_path / "empty").mkdir()
    with pytest.raises(engines.GameFolderError, match=r"needs __init__\.py"):
        engines.discover([tmp_path / "empty"])
    assert before == engines.ENGINES


def test_a_folder_that_does_not_exist_is_said_so(tmp_path: Path) -> None:
    """TABLEWIRE_GAMES=/no/such/folder (a typo) was "a game folder is a package (it needs
    __init__.py)", which sent the user to write one."""
    before = dict(engines.ENGINES)
    with pytest.raises(engines.GameFolderError, match=r"/nowhere: no such folder$"):
        engines.discover([tmp_path / "nowhere"])
    assert before == engines.ENGINES


def test_a_package_under_engines_whose_code_fails_is_one_line_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "zz_broken").mkdir()
    (tmp_path / "zz_broken" / "__init__.py").write_text("def oops(:\n")
    monkeypatch.setattr(engines, "__path__", [*engines.__path__, str(tmp_path)])
    with pytest.raises(engines.GameFolderError, match=r"zz_broken: its __init__\.py fails: Syntax"):
        engines.discover([])


def test_a_folder_named_as_another_game_folder_is_refused_by_its_name(
    folder: Path, tmp_path: Path
) -> None:
    before = dict(engines.ENGINES)
    same_name = tmp_path / folder.name
    shutil.copytree(folder, same_name)
    engine = same_name / "engine.py"
    engine.write_text(engine.read_text().replace('id = "tiny-nim"', 'id = "other-nim"'))
    built_in = tmp_path / "sintra"
    shutil.copytree(folder, built_in)
    for second, first in ((same_name, folder), (built_in, engines.folder("sintra"))):
        why = f"^{second}: its folder name .* is taken by {first}: rename it"
        with pytest.raises(engines.GameFolderError, match=why):
            engines.discover([folder, second])
        assert before == engines.ENGINES


def test_a_wrong_engine_id_or_kind_or_a_taken_id_is_refused_naming_the_folder(
    folder: Path, tmp_path: Path
) -> None:
    before = dict(engines.ENGINES)
    sintra = engines.folder("sintra")
    for name, was, now, why in (
        ("spaced", 'id = "tiny-nim"', 'id = "Tiny Nim"', "engine id 'Tiny Nim' is not lowercase"),
        ("slashed", 'id = "tiny-nim"', 'id = "tiny/nim"', "engine id 'tiny/nim' is not lowercase"),
        ("kinded", 'kind = "game"', 'kind = "games"', "kind 'games' is neither 'game' nor"),
        ("taken", 'id = "tiny-nim"', 'id = "sintra"', f"engine id 'sintra' is taken by {sintra}"),
    ):
        broken = tmp_path / name
        shutil.copytree(folder, broken)
        engine = broken / "engine.py"
        engine.write_text(engine.read_text().replace(was, now))
        with pytest.raises(engines.GameFolderError, match=f"^{broken}.*: (its )?{why}"):
            engines.discover([broken])
        assert before == engines.ENGINES


def test_the_default_game_is_the_one_whose_folder_says_so(folder: Path, tmp_path: Path) -> None:
    assert engines.default_game() == next(
        id_ for id_, package in engines.PACKAGES.items() if getattr(package, "DEFAULT", False)
    )
    chosen = tmp_path / "chosen_game"
    shutil.copytree(folder, chosen)
    with (chosen / "__init__.py").open("a") as init:
        init.write("\nDEFAULT = True\n")
    engines.discover([chosen])
    try:
        with pytest.raises(engines.GameFolderError, match="only one game folder may say DEFAULT"):
            engines.default_game()
    finally:
        engines.discover()


def test_with_no_folder_saying_default_the_first_game_found_is_played(
    discovered: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for package in engines.PACKAGES.values():
        monkeypatch.delattr(package, "DEFAULT", raising=False)
    assert engines.default_game() == next(iter(engines.GAMES))


def test_its_bots_are_random_and_it_says_it_has_no_greedy_one(discovered: Path) -> None:
    assert not has_greedy(ID)
    assert robots.default_kind(engines.ENGINES[ID]) == "random"
    assert robots.check_kind(engines.ENGINES[ID], "greedy") == (
        f"{ID} has random bots, not 'greedy'"
    )
    assert robots.kinds(engines.ENGINES[ID]) == {"random": RANDOM_STRENGTH}
    assert isinstance(make_bot("greedy", ID, 0, 1), RandomBot)
    with pytest.raises(ValueError, match=r"^bot kind must be 'random' or 'greedy', not 'clever'$"):
        make_bot("clever", ID, 0, 1)


def test_a_game_folder_without_a_bot_declaration_is_refused_at_discovery(
    folder: Path, tmp_path: Path
) -> None:
    before = dict(engines.ENGINES)
    for name, bot, why in (
        ("silent_game", '"""No declaration."""\n', "its bot.py must declare GREEDY"),
        ("botless_game", None, "a game folder needs bot.py declaring GREEDY"),
        ("failing_bot_game", "GREEDY = None\nraise RuntimeError('boom')\n", "RuntimeError: boom"),
    ):
        broken = tmp_path / name
        shutil.copytree(folder, broken)
        if bot is None:
            (broken / "bot.py").unlink()
        else:
            (broken / "bot.py").write_text(bot)
        with pytest.raises(engines.GameFolderError, match=f"^{broken} .{ID}.: .*{why}"):
            engines.discover([broken])
        assert before == engines.ENGINES


def test_the_terminal_draws_its_board_and_legend(discovered: Path) -> None:
    game = engines.ENGINES[ID]
    state = game.setup(2, {"stones": 7}, 1)
    doc = {"status": "playing", "seats": ["ann", "bob"], "to_act": [0], "game": game.view(state, 0)}
    out = io.StringIO()
    render.render(Console(file=out, width=80), ID, doc, 0)
    assert "Tiny Nim · playing" in out.getvalue() and "ooooooo (7)" in out.getvalue()
    assert render.legend_of(ID) is not None


def _conformance(folder: Path) -> subprocess.CompletedProcess[str]:
    """The conformance suite run on the game of ``folder``."""
    env = {**os.environ, engines.PATH_VARIABLE: str(folder), "TABLEWIRE_PLAYOUTS": "30"}
    suite = ROOT / "tests" / "engines" / "test_engine_conformance.py"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(suite), "-k", ID],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_conformance_suite_runs_it(folder: Path) -> None:
    done = _conformance(folder)
    assert done.returncode == 0, done.stdout[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout


def test_the_conformance_suite_fails_a_move_without_a_label(folder: Path, tmp_path: Path) -> None:
    unlabelled = tmp_path / "unlabelled_game"
    shutil.copytree(folder, unlabelled)
    words = unlabelled / "words.py"
    words.write_text(words.read_text().replace('return f"take {stones(n)}', 'return ""  # f"'))
    done = _conformance(unlabelled)
    assert done.returncode == 1 and "no label for {'type': 'take', 'stones': 1}" in done.stdout


async def test_the_lobby_and_the_web_page_serve_it_and_a_room_plays_to_its_end(
    discovered: Path,
) -> None:
    server = await SpawnedServer().start()
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            listed = {g["id"]: g for g in (await http.get("/api/games")).json()}
            web = listed[ID]["web"]
            assert web == {
                "board": f"/games/{ID}/board.js",
                "style": f"/games/{ID}/board.css",
                "words": None,
                "help": f"/games/{ID}/help.json",
                "rules": f"/rules/{ID}",
            }
            board = await http.get(web["board"])
            assert board.status_code == 200 and "export function Board" in board.text
            assert board.headers["content-type"].startswith("text/javascript")
            assert (await http.get(web["style"])).status_code == 200
            assert (await http.get(web["help"])).json()["steps"]
            how = await http.get(web["rules"])
            assert how.status_code == 200 and "<h1>Tiny Nim</h1>" in how.text
            assert 'data-board="tiny-nim"' in how.text and "<strong>Pile size.</strong>" in how.text
            assert (await http.get(f"/games/{ID}/rules.md")).status_code == 404
            assert (await http.get(f"/games/{ID}/../engine.py")).status_code == 404
        summary = await asyncio.wait_for(bot_runner.run(server.url, ID, rooms=1, players=2), 60)
        assert summary.ok and summary.games_finished == 1, summary.failures
        command = await asyncio.create_subprocess_exec(
            TABLEWIRE, "bots", "--server", server.url, "--game", ID,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )  # fmt: skip
        out, err = await asyncio.wait_for(command.communicate(), 60)
        assert command.returncode == 0, err.decode()  # as many bots as Tiny Nim takes: 2
        assert '"players": 2' in out.decode() and '"games_finished": 1' in out.decode()
    finally:
        await server.stop()
