"""The ``tablewire`` command end to end: a real ``serve`` process and the client commands."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pty
import re
import shutil
import signal
import sys
from pathlib import Path

import httpx
import pytest
from cli_runs import one_line, run, started

from clients.cli import DEFAULT_SERVER, _parser
from clients.commands import _answers
from clients.exits import EXIT_STATUSES, Status
from clients.spawn import TABLEWIRE, SpawnedServer, free_port
from engines import GAMES, default_game
from server.lobby import Lobby
from support import ROOT


async def test_serve_new_rooms_and_bots(server_at: str) -> None:
    code, out, err = await run("new", "--server", server_at, "--seats", "2", "--option", "side=B")
    room = json.loads(out)
    assert code == 0 and room["options"]["side"] == "B"
    assert f"Join it with: tablewire play --server=http://{server_at} --room={room['id']}" in err
    code, out, _ = await run("rooms", "--server", server_at)
    assert [r["id"] for r in json.loads(out)] == [room["id"]]
    code, out, _ = await run(
        "bots", "--server", server_at, "--rooms", "3", "--players", "4", "--spectators", "2"
    )
    summary = json.loads(out)
    assert code == 0, summary
    assert (summary["rooms"], summary["games_finished"], summary["errors"]) == (3, 3, 0)
    assert summary["intents"] > 0
    code, out, err = await run("rooms", "--server", server_at, "--limit", "3")
    first = [r["id"] for r in json.loads(out)]
    assert code == 0 and len(first) == 3 and room["id"] not in first, "newest first"
    (more,) = re.findall(r"^More: tablewire (rooms .*)$", err, re.MULTILINE)
    assert f"--server=http://{server_at}" in more and "--limit=3" in more
    code, out, err = await run(*more.split())
    assert [r["id"] for r in json.loads(out)] == [room["id"]] and "More" not in err


async def test_play_a_seat_from_the_terminal_against_a_bot(server_at: str) -> None:
    _, out, _ = await run("new", "--server", server_at, "--seats", "2")
    room_id = json.loads(out)["id"]
    player = await asyncio.create_subprocess_exec(
        TABLEWIRE,
        *("play", "--server", server_at, f"--room={room_id}", "--name", "me"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert player.stdout is not None
    seated = await player.stdout.readline()
    assert b"Seat 1 in room" in seated
    rest_of_game = asyncio.create_task(player.communicate(b"1\n" * 3000))
    code, out, _ = await run("bots", "--server", server_at, f"--room={room_id}")
    assert code == 0, out
    rest, _ = await rest_of_game
    assert player.returncode == 0
    text = rest.decode()
    assert "Your move (1-" in text
    assert re.search(r"(wins|share the win)\.  You (won!|finished|share the win)", text)
    assert re.search(r"1st +(me \(you\)|bot 2) ", text)


SERVER_BOTS = hasattr(Lobby, "add_bots")
"""Whether this server runs bots itself (``"bots"`` in ``POST /api/rooms``)."""


@pytest.mark.skipif(not SERVER_BOTS, reason="this server has no bots API yet")
async def test_play_against_bots_with_one_command(server_at: str) -> None:
    moves = b"1\n" * 3000
    quick = ("--option", "bot_delay=0")  # a room option: bots move at once
    code, out, _ = await run("play", "--server", server_at, "--bots", "1", *quick, stdin=moves)
    assert code == 0 and out.startswith("Seat 1 in room")
    assert re.search(r"(wins|share the win)\.  You (won!|finished|share the win)", out)
    _, out, _ = await run(
        *(
            "new",
            "--server",
            server_at,
            "--game",
            "chartered",
            "--seats",
            "3",
            "--bots",
            "2",
            *quick,
        )
    )
    room = json.loads(out)
    code, out, _ = await run("play", "--server", server_at, f"--room={room['id']}", stdin=moves)
    assert code == 0 and "Seat 1 in room" in out and "1st" in out


@pytest.mark.skipif(not SERVER_BOTS, reason="this server has no bots API yet")
async def test_the_end_of_a_game_prints_the_command_for_a_rematch(server_at: str) -> None:
    moves = b"1\n" * 3000
    quick = ("--option", "bot_delay=0")
    code, out, _ = await run("play", "--server", server_at, "--bots", "1", *quick, stdin=moves)
    assert code == 0
    first = re.search(r"^Seat 1 in room (\S+)\.$", out, re.MULTILINE)
    again = re.search(
        r"^To play again with the same players: tablewire (play .* --rematch)$", out, re.MULTILINE
    )
    assert first is not None and again is not None, out
    assert f"--room={first.group(1)} --token=" in again.group(1)
    code, out, _ = await run(*again.group(1).split(), stdin=moves)
    assert code == 0, out
    second = re.search(r"^Seat 1 in room (\S+)\.$", out, re.MULTILINE)
    assert second is not None and second.group(1) != first.group(1)
    assert re.search(r"1st +(player 1|(random|greedy) bot 2)", out), (
        "played to its end with the bot"
    )
    back = re.search(r"^To come back: (tablewire play .*)$", out, re.MULTILINE)
    assert back is not None, out
    # The same line again (from the shell's history) is a way back to that seat: it was
    # refused, "seat 0 of the rematch is taken already ... send an Idempotency-Key".
    code, out, err = await run(*again.group(1).split(), stdin=b"")
    assert code == 0, err
    assert f"Seat 1 in room {second.group(1)}." in out and f"To come back: {back[1]}" in out
    code, _, err = await run("play", "--server", server_at, "--room=R", "--rematch")
    assert code == Status.USAGE and "--rematch needs" in one_line(err)


async def test_a_game_folder_that_cannot_be_taken_is_one_line_and_no_start(
    tmp_path: Path,
) -> None:
    second_default = tmp_path / "second_default"
    shutil.copytree(ROOT / "tests" / "tiny_game", second_default)
    with (second_default / "__init__.py").open("a") as init:
        init.write("\nDEFAULT = True\n")
    botless = tmp_path / "botless"
    shutil.copytree(ROOT / "tests" / "tiny_game", botless)
    (botless / "bot.py").unlink()
    for folder, why in (
        (tmp_path / "missing", "missing: no such folder"),
        (second_default, "only one game folder may say DEFAULT = True"),
        (botless, f"{botless} (tiny-nim): a game folder needs bot.py"),
    ):
        for command in (["games"], ["serve", "--port", str(free_port())]):
            code, out, err = await run(*command, env={"TABLEWIRE_GAMES": str(folder)})
            assert code == Status.USAGE, (command, err)
            assert why in one_line(err) and out == "", (command, out)


async def test_a_game_folder_whose_code_fails_is_one_line_and_the_help_still_shows(
    tmp_path: Path,
) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "__init__.py").write_text("raise RuntimeError('boom')\n")
    env = {"TABLEWIRE_GAMES": str(broken)}
    for command in (["games"], ["serve", "--port", str(free_port())]):
        code, out, err = await run(*command, env=env)
        assert code == Status.USAGE and out == "", (command, err)
        line = one_line(err)
        assert str(broken) in line and "RuntimeError: boom" in line, line
    code, out, err = await run("--help", env=env)
    assert code == 0 and "usage: tablewire" in out and err == ""


@pytest.mark.parametrize("command", [["new"], ["play"], ["bots"], ["loadtest", "--game", "sintra"]])
def test_every_command_that_makes_bots_takes_bot_kind(command: list[str]) -> None:
    """`play --bot-kind greedy` as the README shows it, then `bots --bot-kind greedy`: the
    same flag everywhere (bots and loadtest also take their short `--bot`)."""
    args = _parser().parse_args([*command, "--bot-kind", "random"])
    assert "random" in (getattr(args, "bot_kind", None), getattr(args, "bot", None))


async def test_a_usage_error_names_the_command_and_its_help() -> None:
    for command in (["serve", "extra"], ["new", "--private", "extra"]):
        code, _, err = await run(*command)
        assert code == Status.USAGE
        assert one_line(err) == (
            f"tablewire {command[0]}: unrecognized arguments: extra. "
            f"See `tablewire {command[0]} --help`."
        )


async def test_client_commands_report_refusals_in_one_line(server_at: str) -> None:
    code, _, err = await run("new", "--server", server_at, "--game", "chess")
    assert code == Status.REFUSED and "unknown_engine" in one_line(err)
    assert "tablewire games" in err
    code, _, err = await run("spectate", "--server", server_at, "--room", "nope")
    assert code == Status.REFUSED and "no_such_room" in one_line(err)
    code, out, err = await run("play", "--server", server_at, "--room", "nope", "--token", "t")
    assert code == Status.REFUSED and "no_such_room" in one_line(err)
    assert "come back" not in out, "no way back to a seat that is not there"
    _, made, _ = await run("new", "--server", server_at, "--seats", "2")
    room_id = json.loads(made)["id"]
    code, out, err = await run("play", "--server", server_at, f"--room={room_id}", "--token=t")
    assert code == Status.REFUSED and "bad_token" in one_line(err)
    assert "come back" not in out
    code, _, err = await run("new", "--server", server_at, "--seats", "9")
    assert code == Status.REFUSED and "bad_seats" in one_line(err)


COMMANDS = [
    ["new"],
    ["rooms"],
    ["play", "--name", "ana"],
    ["play", "--bots", "1"],
    ["play", "--room", "R", "--token", "T"],
    ["spectate", "--room", "R"],
    ["bots", "--rooms", "1"],
    ["loadtest", "--game", "sintra", "--rooms", "1"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c) for c in COMMANDS])
async def test_every_client_command_says_in_one_line_that_the_server_is_down(
    command: list[str],
) -> None:
    server = f"127.0.0.1:{free_port()}"
    code, _, err = await run(*command, "--server", server)
    line = one_line(err)
    assert code == Status.UNREACHABLE
    assert f"http://{server}" in line and "connection refused" in line
    assert "tablewire serve" in line


async def test_an_unknown_host_and_a_bad_address_are_one_line_each() -> None:
    code, _, err = await run("new", "--server", "no-such-host.invalid:8000")
    assert code == Status.UNREACHABLE and "unknown host" in one_line(err)
    code, _, err = await run("new", "--server", "ftp://example.org")
    assert code == Status.USAGE and "host:port" in one_line(err)
    code, _, err = await run("play", "--token", "T")
    assert code == Status.USAGE and "--token needs --room" in one_line(err)
    for command in ("play", "spectate", "bots"):
        code, _, err = await run(command, "--room=a/b")
        assert code == Status.USAGE and "'a/b' is not a room id" in one_line(err)
    code, _, err = await run("bots", "--spectators", "-3")
    assert code == Status.USAGE and "must be 0 or more" in one_line(err)


async def test_commands_without_server_find_the_one_tablewire_serve_runs_here(
    runtime_dir: Path,
) -> None:
    if _answers(DEFAULT_SERVER):
        pytest.skip(f"something answers at {DEFAULT_SERVER}: the commands rightly use it")
    servers = runtime_dir / "tablewire" / "servers"
    first = await SpawnedServer().start()
    assert [p.name for p in servers.iterdir()] == [f"{first.pid}.json"]
    code, out, err = await run("rooms")
    assert (code, json.loads(out)) == (0, [])
    assert one_line(err) == f"tablewire: using the server `tablewire serve` runs at {first.url}"
    second = await SpawnedServer().start()
    code, out, err = await run("rooms")
    assert code == Status.USAGE and out == ""
    assert f"--server {first.url} or --server {second.url}" in one_line(err)
    await second.stop(signal.SIGKILL)  # its file stays: the next command ignores and removes it
    code, _, err = await run("new", "--seats", "2")
    assert code == 0 and f"Join it with: tablewire play --server={first.url} --room=" in err
    assert [p.name for p in servers.iterdir()] == [f"{first.pid}.json"]
    await first.stop()
    assert list(servers.iterdir()) == [], "a server that stops takes its address away"
    code, _, err = await run("play")
    assert code == Status.UNREACHABLE
    assert f"cannot reach the server at {DEFAULT_SERVER}" in one_line(err)
    assert "Start one with `tablewire serve`" in err


async def test_serve_says_in_one_line_why_it_cannot_start(server_at: str) -> None:
    port = server_at.rsplit(":", 1)[1]
    code, _, err = await run("serve", "--port", port)
    assert code == Status.UNREACHABLE and "the port is in use" in one_line(err)
    code, _, err = await run("serve", "--host", "nosuchhost.invalid", "--port", port)
    assert code == Status.UNREACHABLE and "not a known address" in one_line(err)
    code, _, err = await run("serve", "--port", "70000")
    assert code == Status.USAGE and "1 to 65535" in one_line(err)
    code, _, err = await run("serve", "--port", str(free_port()), "--redis-url", "localhost")
    assert code == Status.USAGE and "is not redis://host:port/db" in one_line(err)
    for variable, value in (("TABLEWIRE_MAX_ROOMS", "lots"), ("TABLEWIRE_SEND_TIMEOUT", "-1")):
        code, _, err = await run("serve", "--port", str(free_port()), env={variable: value})
        assert code == Status.USAGE and f"{variable} must be" in one_line(err)
    for variable in ("TABLEWIRE_TRUSTED_PROXIES", "TABLEWIRE_LOAD_TEST_CLIENTS"):
        code, _, err = await run("serve", "--port", str(free_port()), env={variable: "nginx"})
        line = one_line(err)
        assert code == Status.USAGE and f"{variable} must be addresses or networks" in line


async def test_games_lists_players_options_and_defaults_even_without_a_server(
    server_at: str,
) -> None:
    for server in (server_at, f"127.0.0.1:{free_port()}"):
        code, out, err = await run("games", "--server", server)
        assert code == 0
        for game in GAMES.values():
            assert f"{game.id}  {game.title}, {game.min_players}-{game.max_players} players" in out
        assert "--option side=A|B  (default A)" in out
        assert "turn-relay" not in out
        assert "--option clock=none|move:S|fischer:I+N  (default none)" in out
        assert "--option grace=SECONDS  (default 60.0)" in out
        assert all(line == line.rstrip() and len(line) <= 80 for line in out.splitlines())
    assert "this copy of tablewire knows" in err


async def test_games_says_where_each_games_rules_are(server_at: str) -> None:
    """`tablewire games` is where a newcomer asks how a game is played: each game names
    its rules page on the server (none when the server cannot be reached)."""
    code, out, _ = await run("games", "--server", server_at)
    assert code == 0
    url = "http://" + server_at.removeprefix("http://")
    for game in GAMES.values():
        assert f"  how to play: {url}/rules/{game.id}\n" in out
    code, out, _ = await run("games", "--server", f"127.0.0.1:{free_port()}")
    assert code == 0 and "how to play" not in out


def test_every_option_of_every_command_says_what_it_does() -> None:
    parser = _parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for name, sub in commands.choices.items():
        for action in sub._actions:
            if not isinstance(action, argparse._HelpAction):
                assert action.help, f"tablewire {name} {action.option_strings}"
    new_help = " ".join(commands.choices["new"].format_help().split())
    default = GAMES[default_game()]
    assert f"a public {default.title} room for {default.max_players} players" in new_help
    assert f"default {default.id} (" in new_help
    assert all(game in new_help for game in GAMES) and "turn-relay" not in new_help
    assert "several comma-separated" not in commands.choices["play"].format_help()
    assert "{random,greedy}" in commands.choices["bots"].format_help()
    assert EXIT_STATUSES in parser.format_help()
    assert EXIT_STATUSES in commands.choices["serve"].format_help(), "serve's statuses too"
    top = " ".join(parser.format_help().split())
    assert "`tablewire COMMAND --help` shows a command's options" in top, "the way on"


async def test_spectating_a_finished_room_prints_the_result_and_exits(server_at: str) -> None:
    code, _, _ = await run("bots", "--server", server_at, "--rooms", "1", "--players", "2")
    assert code == 0
    _, out, _ = await run("rooms", "--server", server_at, "--status", "finished")
    (room,) = json.loads(out)
    code, out, _ = await run("spectate", "--server", server_at, f"--room={room['id']}")
    assert code == 0
    assert re.search(r"bot \d (wins|and bot \d share the win)\.", out)
    assert re.search(r"1st +bot \d", out) and "bot 1" in out and "bot 2" in out


async def test_spectating_a_finished_room_names_the_command_that_watches_its_rematch(
    server_at: str,
) -> None:
    _, out, _ = await run("new", "--server", server_at, "--seats", "2")
    room = json.loads(out)
    code, _, _ = await run("bots", "--server", server_at, f"--room={room['id']}")
    assert code == 0
    code, out, _ = await run("spectate", "--server", server_at, f"--room={room['id']}")
    assert code == 0 and "rematch" not in out, "no rematch opened yet: no line for it"
    async with httpx.AsyncClient(base_url=f"http://{server_at}") as http:
        opened = await http.post(
            f"/api/rooms/{room['id']}/rematch", json={"owner_token": room["owner_token"]}
        )
    assert opened.status_code == 201, opened.text
    code, out, _ = await run("spectate", "--server", server_at, f"--room={room['id']}")
    assert code == 0
    watch = f"tablewire spectate --server=http://{server_at} --room={opened.json()['id']}"
    assert f"To watch the rematch: {watch}" in out


# -- leaving at the prompt --------------------------------------------------------------


LEAVING = 30
"""Seconds a command told to leave (Ctrl-C, Ctrl-D, the game's end) may take to end."""


class Terminal:
    """``tablewire play`` with a pseudo-terminal as its standard input."""

    def __init__(self, process: asyncio.subprocess.Process, master: int) -> None:
        self.process, self.master = process, master
        self.out = b""

    @classmethod
    async def start(cls, *args: str) -> Terminal:
        master, slave = pty.openpty()
        process = await asyncio.create_subprocess_exec(
            TABLEWIRE,
            *args,
            stdin=slave,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "COLUMNS": "80", "LINES": "24"},
        )
        os.close(slave)
        return cls(process, master)

    async def until(self, marker: bytes) -> None:
        assert self.process.stdout is not None
        async with asyncio.timeout(60):
            while marker not in self.out:
                chunk = await self.process.stdout.read(4096)
                assert chunk, self.out.decode()
                self.out += chunk

    async def finish(self) -> int:
        """The exit status; nothing may have gone to stderr (no traceback, no warning)."""
        try:
            # Leaving never waits for Enter: a bound far above what leaving takes, so a
            # loaded CI machine does not fail it, and a command that waits does.
            async with asyncio.timeout(LEAVING):
                out, errors = await self.process.communicate()
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
            shown = self.out.decode()
            raise AssertionError(f"still running {LEAVING} s after; it printed:\n{shown}") from None
        finally:
            os.close(self.master)
        self.out += out
        assert not errors, errors.decode()
        assert self.process.returncode is not None
        return self.process.returncode


async def test_ctrl_c_cancels_the_command_lets_it_let_go_then_raises_keyboardinterrupt() -> None:
    from clients.commands import _interruptible

    started, let_go = asyncio.Event(), []

    async def command() -> int:
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            let_go.append("what it held")
        return Status.OK

    async def press_ctrl_c() -> None:
        await started.wait()
        os.kill(os.getpid(), signal.SIGINT)

    pressed = asyncio.ensure_future(press_ctrl_c())
    with pytest.raises(KeyboardInterrupt):
        await _interruptible(command())
    await pressed
    assert let_go == ["what it held"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


NEVER_LETS_GO = """
import asyncio
from clients.commands import _interruptible

async def command() -> int:
    print("running", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        print("letting go", flush=True)
        await asyncio.Event().wait()
    return 0

asyncio.run(_interruptible(command()))
"""


async def test_a_second_ctrl_c_ends_a_command_that_does_not_let_go() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", NEVER_LETS_GO, stdout=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None
    async with asyncio.timeout(30):
        assert await process.stdout.readline() == b"running\n"
        process.send_signal(signal.SIGINT)
        assert await process.stdout.readline() == b"letting go\n"
        process.send_signal(signal.SIGINT)
        assert await process.wait() == Status.INTERRUPTED


async def test_ctrl_c_while_spectating_leaves_at_once_and_says_how_to_come_back(
    server_at: str,
) -> None:
    _, out, _ = await run("new", "--server", server_at, "--seats", "2")
    room_id = json.loads(out)["id"]
    watcher = await Terminal.start("spectate", "--server", server_at, f"--room={room_id}")
    await watcher.until(b"Waiting for players")
    watcher.process.send_signal(signal.SIGINT)
    assert await watcher.finish() == Status.INTERRUPTED
    shown = watcher.out.decode()
    assert "Interrupted." in shown
    assert f"To come back: tablewire spectate --server=http://{server_at} --room={room_id}" in shown


async def test_ctrl_c_and_ctrl_d_at_the_prompt_leave_at_once_and_the_printed_command_comes_back(
    server_at: str,
) -> None:
    _, out, _ = await run("new", "--server", server_at, "--seats", "2")
    room_id = json.loads(out)["id"]
    ana = await Terminal.start("play", "--server", server_at, f"--room={room_id}", "--name", "ana")
    await ana.until(b"Others join with")
    bot = await started("bots", "--server", server_at, f"--room={room_id}")
    try:
        await ana.until(b"Your move")  # seat 1 opens
        ana.process.send_signal(signal.SIGINT)
        assert await ana.finish() == Status.INTERRUPTED
        shown = ana.out.decode()
        command = re.search(r"To come back: (tablewire play .*)\n", shown)
        assert command is not None, shown
        assert f"--room={room_id} --token=" in command.group(1)

        again = await Terminal.start(*command.group(1).split()[1:])
        await again.until(b"Your move")
        os.write(again.master, b"\x04")  # Ctrl-D on an empty line: end of input
        assert await again.finish() == Status.OK
        assert "You left the game" in again.out.decode()
        assert command.group(1) in again.out.decode()
    finally:
        bot.kill()
        await bot.wait()


def test_bots_default_to_the_strongest_kind() -> None:
    assert _parser().parse_args(["bots"]).bot == "greedy"
    assert _parser().parse_args(["loadtest", "--game", next(iter(GAMES))]).bot == "random"


@pytest.mark.parametrize("game", list(GAMES))
async def test_bots_play_every_game_greedy(server_at: str, game: str) -> None:
    code, out, err = await run(
        "bots",
        "--server",
        server_at,
        "--game",
        game,
        "--rooms",
        "1",
        "--players",
        "2",
        "--bot",
        "greedy",
    )
    summary = json.loads(out)
    assert code == 0, err
    assert (summary["games_finished"], summary["errors"]) == (1, 0)
