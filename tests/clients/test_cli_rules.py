"""``tablewire rules GAME``: a game's how-to-play text (its folder's ``rules.md``) in the
terminal, with no server; a game it does not know is the one line other commands print."""

from __future__ import annotations

import asyncio
import os
import pty
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_runs import one_line, run, run_redirected

import engines
from clients.exits import Status
from clients.spawn import TABLEWIRE
from support import ROOT

MARK = "paged> "
"""What the test's pager writes before each line it pages."""


@pytest.mark.parametrize("game", sorted(engines.GAMES))
async def test_rules_prints_every_heading_of_the_games_rules_and_no_board_marker(
    game: str,
) -> None:
    text = (engines.folder(game) / "rules.md").read_text(encoding="utf-8")
    headings = re.findall(r"^#{1,3} (.+)$", text, flags=re.M)
    code, out, err = await run("rules", game)
    assert (code, err) == (Status.OK, "")
    assert headings and all(heading in out for heading in headings), out
    assert "[board" not in out and "##" not in out, "markdown rendered, pictures left out"


async def test_a_misspelt_game_is_the_line_other_commands_print(server_at: str) -> None:
    code, _, err = await run("rules", "sintr")
    line = one_line(err)
    assert (code, line) == (
        Status.REFUSED,
        "tablewire: no game 'sintr' (did you mean sintra?); the games are "
        "chartered, crystal-palace, sintra (unknown_engine). `tablewire games` lists the games.",
    )
    code, _, err = await run("new", "--server", server_at, "--game", "sintr")
    assert (code, one_line(err)) == (
        Status.REFUSED,
        line.replace("tablewire: ", "tablewire: the server refused: ", 1),
    ), "as the server says it, but no server was asked"


async def test_a_game_from_a_folder_elsewhere_has_its_rules_and_one_without_says_so(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "tiny_game"
    shutil.copytree(ROOT / "tests" / "tiny_game", folder)
    env = {"TABLEWIRE_GAMES": str(folder)}
    code, out, _ = await run("rules", "tiny-nim", env=env)
    assert code == Status.OK and "Tiny Nim" in out and "Take the last stone." in out
    (folder / "rules.md").unlink()
    code, out, err = await run("rules", "tiny-nim", env=env)
    assert (code, out, one_line(err)) == (
        Status.FAILED,
        "",
        "tablewire: Tiny Nim has no how-to-play text: its game folder has no rules.md.",
    )


def _in_a_terminal(*args: str, env: dict[str, str]) -> tuple[int, str]:
    """The command run with a pseudo-terminal as its input and output: its exit status
    and what it showed (escape sequences and all)."""
    master, slave = pty.openpty()
    with subprocess.Popen(
        [TABLEWIRE, *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env={**os.environ, "COLUMNS": "80", "LINES": "24", "TERM": "xterm", **env},
    ) as process:
        os.close(slave)
        shown = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the command and its pager have closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        os.close(master)
        return process.wait(timeout=60), shown.decode()


async def test_in_a_terminal_rules_taller_than_the_screen_go_through_the_pager(
    tmp_path: Path,
) -> None:
    """``$PAGER`` here marks each line it is given: the long rules are paged, in
    colour; rules that fit on the screen are printed as they are."""
    pager = f"sed 's/^/{MARK}/'"
    code, shown = await asyncio.to_thread(_in_a_terminal, "rules", "sintra", env={"PAGER": pager})
    lines = [line for line in shown.splitlines() if line.strip()]
    assert code == Status.OK and all(line.startswith(MARK) for line in lines), shown
    assert "\x1b[" in shown and "Goal" in shown
    games = {"TABLEWIRE_GAMES": str(ROOT / "tests" / "tiny_game"), "PAGER": pager}
    code, shown = await asyncio.to_thread(_in_a_terminal, "rules", "tiny-nim", env=games)
    assert code == Status.OK and "Take the last stone." in shown and MARK not in shown


@pytest.mark.parametrize(
    ("redirect", "said"),
    [("> /dev/full", "No space left on device"), (">&-", "it is closed")],
)
def test_rules_whose_output_cannot_be_written_say_so_in_one_line(redirect: str, said: str) -> None:
    """As every other command's (tests/clients/test_cli_checks.py): on a full disk `rules`
    was a traceback; with its output closed it was status 0, the text lost unseen."""
    out = run_redirected("rules sintra", redirect)
    line = one_line(out.stderr)
    assert out.returncode == Status.FAILED, line
    assert line == f"tablewire: cannot write the output: {said}.", line
