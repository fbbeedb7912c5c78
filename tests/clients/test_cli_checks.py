"""Command lines that cannot work are refused before anything is asked of a server:
exit status 2 and one line on stderr, never a traceback."""

from __future__ import annotations

import asyncio
import importlib.metadata
import os
import socket
import subprocess
import sys

import pytest
from cli_runs import one_line, run, run_redirected

from clients.cli import main
from clients.commands import debugging
from clients.exits import CLOSED, Status
from clients.spawn import TABLEWIRE, free_port

WRONG = [
    # numbers: finite and above 0 (one type for all; --reconnect-for may be 0)
    ["loadtest", "--workload", "turn-relay", "--duration-s", "0"],
    ["loadtest", "--workload", "turn-relay", "--duration-s", "-1"],
    ["loadtest", "--workload", "turn-relay", "--duration-s", "nan"],
    ["loadtest", "--workload", "turn-relay", "--interval-ms", "0"],
    ["loadtest", "--workload", "turn-relay", "--interval-ms", "-5"],
    ["loadtest", "--workload", "turn-relay", "--interval-ms", "nan"],
    ["loadtest", "--workload", "turn-relay", "--timeout", "0"],
    ["loadtest", "--workload", "turn-relay", "--timeout", "-5"],
    ["loadtest", "--workload", "turn-relay", "--timeout", "nan"],
    ["loadtest", "--workload", "turn-relay", "--timeout", "inf"],
    ["bots", "--timeout", "0"],
    ["bots", "--timeout", "-1"],
    ["bots", "--timeout", "nan"],
    ["play", "--reconnect-for", "nan"],
    ["play", "--reconnect-for", "-5"],
    ["spectate", "--room", "r", "--reconnect-for", "nan"],
    ["spectate", "--room", "r", "--reconnect-for", "-5"],
    # option values JSON cannot carry
    ["new", "--option", "side=NaN"],
    ["new", "--option", "side=1e999"],
    ["new", "--option", "side=Infinity"],
    ["bots", "--option", "side=-Infinity"],
    # the paced workload is no game to play to its end (100,000 moves)
    ["loadtest", "--game", "turn-relay", "--rooms", "1"],
    ["bots", "--game", "turn-relay"],
    # options that would be ignored
    ["bots", "--invite", "abc"],
    ["loadtest", "--workload", "turn-relay", "--players", "3"],
    ["loadtest", "--workload", "turn-relay", "--option", "side=B"],
    ["loadtest", "--game", "sintra", "--interval-ms", "50"],
    ["loadtest", "--game", "sintra", "--duration-s", "5"],
    ["loadtest", "--workload", "turn-relay", "--store", "redis"],
    ["loadtest", "--spawn", "--workload", "turn-relay", "--server-pid", "1"],
    ["loadtest", "--spawn", "--game", "sintra", "--rooms", "1", "--players", "2"],  # --server
    ["loadtest", "--workload", "turn-relay", "--server-pid", "-1"],
    ["loadtest", "--workload", "turn-relay", "--server-pid", "0"],
    ["loadtest", "--workload", "turn-relay", "--server-pid", "999999999"],
]


@pytest.mark.parametrize("argv", WRONG, ids=[" ".join(a) for a in WRONG])
def test_a_command_line_that_cannot_work_is_refused_in_one_line(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    server = ["--server", f"127.0.0.1:{free_port()}"]  # nothing there: never asked
    try:
        code = main([*argv, *server])
    except SystemExit as exit:
        code = exit.code
    out, err = capsys.readouterr()
    assert code == Status.USAGE, err
    assert "Traceback" not in err and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("tablewire"), err


def test_which_options_do_not_apply_is_said(capsys: pytest.CaptureFixture[str]) -> None:
    server = ["--server", f"127.0.0.1:{free_port()}"]
    relay = ["loadtest", "--workload", "turn-relay", *server]
    assert main([*relay, "--players", "3", "--option", "side=B"]) == Status.USAGE
    assert "--players and --option do not apply to --workload turn-relay" in capsys.readouterr().err
    assert main([*relay, "--store", "redis"]) == Status.USAGE
    assert "--store" in capsys.readouterr().err
    games = ["loadtest", "--game", "sintra", *server]
    assert main([*games, "--interval-ms", "50"]) == Status.USAGE
    assert "--interval-ms does not apply to --game" in capsys.readouterr().err, "one: does"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--bots", "1", "--seats", "9"], "sintra takes 2-4 players, not --seats 9."),
        (["--bots", "5"], "sintra takes 2-4 players: you and 5 bots make 6."),
        (["--bots", "3", "--seats", "2"], "you and 3 bots make 4 players: more than --seats 2."),
    ],
)
def test_play_with_bots_that_do_not_fit_says_what_does_not(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """It once said "you and 1 bots make 2 in 9 seats" for a room too large."""
    server = ["--server", f"127.0.0.1:{free_port()}"]
    assert main(["play", "--game", "sintra", *argv, *server]) == Status.USAGE
    assert capsys.readouterr().err == f"tablewire: {said}\n"


def test_a_room_id_too_long_is_said_so(capsys: pytest.CaptureFixture[str]) -> None:
    """65 letters were refused as "not a room id (letters, digits, '-' and '_')"."""
    with pytest.raises(SystemExit):
        main(["spectate", "--room", "a" * 65])
    assert "1-64 letters, digits, '-' and '_'" in capsys.readouterr().err


def test_large_numbers_that_can_work_are_taken() -> None:
    from clients.cli import _parser

    assert _parser().parse_args(["play", "--reconnect-for", "0"]).reconnect_for == 0
    assert _parser().parse_args(["rooms", "--limit", "1000000000"]).limit == 10**9
    assert _parser().parse_args(["new", "--option", "clock=move:30"]).option == [
        ("clock", "move:30")
    ]


async def test_a_large_rooms_limit_is_a_full_page_and_a_room_of_bots_is_watched(
    server_at: str,
) -> None:
    from cli_runs import run

    code, out, err = await run("rooms", "--server", server_at, "--limit", "1000000000")
    assert code == 0 and out.strip() == "[]", err
    code, out, err = await run("new", "--server", server_at, "--seats", "2", "--bots", "2")
    assert code == 0, err
    assert "Join it with" not in err and "tablewire spectate" in err


async def test_an_address_serve_cannot_listen_on_names_the_variable_it_came_from() -> None:
    """Set in the environment (a compose file's TABLEWIRE_HOST), not by a flag: the line
    names the variable, and shows the value without its control characters (a name
    with one is no host name: a wrong setting)."""
    env = {"TABLEWIRE_HOST": "nosuchhost.invalid", "TABLEWIRE_PORT": str(free_port())}
    code, _, err = await run("serve", env=env)
    line = one_line(err)
    assert code == Status.UNREACHABLE and line.endswith("Check TABLEWIRE_HOST."), line
    env["TABLEWIRE_HOST"] = "nosuch\x1b[31mhost.invalid"
    code, _, err = await run("serve", env=env)
    line = one_line(err)
    assert code == Status.USAGE and line.startswith("tablewire serve: TABLEWIRE_HOST must"), line
    assert "\x1b" not in line, repr(line)
    with socket.create_server(("127.0.0.1", 0)) as taken:
        env = {"TABLEWIRE_PORT": str(taken.getsockname()[1])}
        code, _, err = await run("serve", env=env)
    line = one_line(err)
    assert code == Status.UNREACHABLE and "the port is in use" in line, line
    assert line.endswith("Choose another with TABLEWIRE_PORT."), line


@pytest.mark.parametrize("command", [["games"], ["rooms"], ["new"]])
async def test_output_that_cannot_be_written_is_said_not_reported_as_a_fault(
    server_at: str, command: list[str]
) -> None:
    """A full disk (/dev/full) under the output: one line saying so, status 1, and no
    "unexpected error ... please report it", which points at tablewire."""
    full = os.open("/dev/full", os.O_WRONLY)
    try:
        process = await asyncio.create_subprocess_exec(
            TABLEWIRE,
            *command,
            "--server",
            server_at,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=full,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await process.communicate()
    finally:
        os.close(full)
    line = one_line(err.decode())
    assert process.returncode == Status.FAILED, line
    assert line == "tablewire: cannot write the output: No space left on device.", line


async def test_a_command_started_with_its_output_closed_says_so(server_at: str) -> None:
    """`tablewire rooms >&-`: not status 0 with the rooms silently lost."""
    out = run_redirected(f"rooms --server {server_at}", ">&-")
    line = one_line(out.stderr)
    assert out.returncode == Status.FAILED, line
    assert line == "tablewire: cannot write the output: it is closed.", line


@pytest.mark.parametrize("command", [["rooms"], ["play", "--bots", "1"], ["spectate", "--room=r"]])
async def test_several_servers_in_the_environment_for_a_command_of_one_is_a_usage_error(
    command: list[str],
) -> None:
    """TABLEWIRE_SERVER=a,b, as `bots --server a,b` takes it: a command that talks to one
    server says so (it was status 1, "unexpected error: InvalidURL")."""
    several = f"http://127.0.0.1:{free_port()},http://127.0.0.1:{free_port()}"
    code, _, err = await run(*command, env={"TABLEWIRE_SERVER": several})
    line = one_line(err)
    assert code == Status.USAGE and "TABLEWIRE_SERVER" in line and "one server" in line, line


@pytest.mark.parametrize("command", [["games"], ["rooms"], ["play"], ["spectate", "--room=r"]])
def test_several_servers_on_the_command_line_for_a_command_of_one_say_so(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``--server a,b``, as `bots` takes it, was "the port must be a number from 1 to
    65535" (the rest of the list read as the first one's port): a command of one server
    says that several are for bots and loadtest, as for TABLEWIRE_SERVER."""
    several = f"127.0.0.1:{free_port()},127.0.0.1:{free_port()}"
    with pytest.raises(SystemExit) as exit:
        main([*command, "--server", several])
    line = one_line(capsys.readouterr().err)
    assert exit.value.code == Status.USAGE and "one server" in line, line
    assert "bots and loadtest" in line and "port" not in line, line


async def test_a_server_given_on_the_command_line_wins_over_several_in_the_environment(
    server_at: str,
) -> None:
    several = f"http://127.0.0.1:{free_port()},http://127.0.0.1:{free_port()}"
    code, out, err = await run("rooms", "--server", server_at, env={"TABLEWIRE_SERVER": several})
    assert code == Status.OK and out.startswith("["), err


EARLY_CTRL_C = """
import os, signal, sys
from clients.cli import main
from clients.commands import debugging
signal.signal(signal.SIGALRM, lambda *_: os.kill(os.getpid(), signal.SIGINT))
signal.setitimer(signal.ITIMER_REAL, 0.01)
sys.exit(main(["rooms", "--server", sys.argv[1]]))
"""
"""The command, and a Ctrl-C 10 ms into it: while it still loads what it runs."""


async def test_ctrl_c_while_a_command_starts_is_status_130_without_a_traceback(
    server_at: str,
) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        EARLY_CTRL_C,
        server_at,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await process.communicate()
    assert process.returncode == Status.INTERRUPTED and b"Traceback" not in err, err.decode()


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, False),
        ("", False),
        ("0", False),
        ("false", False),
        ("No", False),
        (" off ", False),
        ("1", True),
        ("yes", True),
        ("TRUE", True),
    ],
)
def test_tablewire_debug_0_or_false_shows_no_traceback(value: str | None, shown: bool) -> None:
    """``TABLEWIRE_DEBUG=0`` turned tracebacks on (any value did): off, as unset."""
    environ = {} if value is None else {"TABLEWIRE_DEBUG": value}
    assert debugging(environ) is shown


async def test_the_server_address_is_echoed_without_its_credentials(server_at: str) -> None:
    """A --server with user:password@ (a proxy's basic auth) reaches the server with
    them, but the commands printed on stderr ("Join it with:", "More:") and every
    one-line error name the server without them: stderr ends up in logs and chats."""
    secret = f"http://ana:s3cret@{server_at}"
    code, _, err = await run("new", "--game", "sintra", "--server", secret)
    assert code == Status.OK and "s3cret" not in err, err
    assert f"Join it with: tablewire play --server=http://{server_at} --room=" in err
    for _ in range(2):
        await run("new", "--game", "sintra", "--server", secret)
    code, _, err = await run("rooms", "--limit", "1", "--server", secret)
    assert code == Status.OK and f"More: tablewire rooms --server=http://{server_at} " in err
    assert "s3cret" not in err, err
    down = f"http://ana:s3cret@127.0.0.1:{free_port()}"
    for command in (["rooms"], ["spectate", "--room", "R"]):
        code, _, err = await run(*command, "--server", down)
        assert code == Status.UNREACHABLE and "s3cret" not in err, err
    refused = [
        ["rooms", "--server", f"http://ana:s3cret@{server_at}/path?token=t0ken"],
        ["rooms", "--server", "ana:s3cret@host:x"],
        ["rooms", "--server", "http://ana:s3c/ret@host"],
        ["bots", "--server", f"{secret},http://ana:s3c,ret@host:x"],
    ]
    for command in refused:
        code, _, err = await run(*command)
        assert code == Status.USAGE and "s3cret" not in err and "t0ken" not in err, err
    code, _, err = await run("rooms", env={"TABLEWIRE_SERVER": f"{secret},{secret}"})
    assert code == Status.USAGE and "s3cret" not in err, err


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    """``tablewire --version`` is what a user types first; it once said that a COMMAND
    was required."""
    with pytest.raises(SystemExit) as ended:
        main(["--version"])
    out, err = capsys.readouterr()
    assert ended.value.code == 0 and err == ""
    assert out == f"tablewire {importlib.metadata.version('tablewire')}\n"


def test_an_empty_tablewire_server_counts_as_unset(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``TABLEWIRE_SERVER=`` (an env file's empty line) was refused as "the address has
    no host name", even beside --server."""
    monkeypatch.setenv("TABLEWIRE_SERVER", "")
    assert main(["rooms", "--server", f"127.0.0.1:{free_port()}"]) == Status.UNREACHABLE
    assert "TABLEWIRE_SERVER" not in capsys.readouterr().err


@pytest.mark.parametrize("value", ["host:x", "ftp://host", "http://host/path", "http://a b"])
async def test_a_malformed_tablewire_server_does_not_stop_a_command_given_server(
    value: str, server_at: str
) -> None:
    """TABLEWIRE_SERVER is read only when no --server is given: a malformed one stopped
    every client command with a usage error, even one that named its server. The
    printed way back names --server then (without it, the variable would stop it)."""
    code, out, err = await run(
        "new", "--game", "sintra", "--server", server_at, env={"TABLEWIRE_SERVER": value}
    )
    assert code == Status.OK and out.startswith("{"), err
    assert f"Join it with: tablewire play --server=http://{server_at} --room=" in err, err
    code, _, err = await run("rooms", env={"TABLEWIRE_SERVER": value})
    line = one_line(err)
    assert code == Status.USAGE and "TABLEWIRE_SERVER" in line, line


@pytest.mark.parametrize("address", ["http://a b", "a\tb:8000", "host\x1b[31m"])
async def test_a_host_name_with_a_space_or_a_control_character_is_a_usage_error(
    address: str,
) -> None:
    """``--server "http://a b"`` was looked up as a host name, and said "cannot reach
    the server ... unknown host" (status 3), and a tab was dropped (``a<TAB>b`` read as
    ``ab``): no address holds a space."""
    code, _, err = await run("rooms", "--server", address)
    line = one_line(err)
    assert code == Status.USAGE and "may not hold spaces" in line, line
    assert "\x1b" not in err, "echoed without its escape sequence"


async def test_a_game_of_one_size_is_said_in_words_not_as_a_range() -> None:
    """A game for exactly 2 (Tiny Nim, from a game folder) was "2-2 players"."""
    from support import ROOT

    env = {"TABLEWIRE_GAMES": str(ROOT / "tests" / "tiny_game")}
    code, out, _ = await run("games", "--server", f"127.0.0.1:{free_port()}", env=env)
    assert code == 0 and "tiny-nim  Tiny Nim, 2 players (new rooms: 2 seats)" in out
    code, out, _ = await run("new", "--help", env=env)
    assert "tiny-nim (2 players)" in " ".join(out.split())
    code, _, err = await run("play", "--game", "tiny-nim", "--bots", "2", env=env)
    assert code == Status.USAGE
    assert one_line(err) == "tablewire: tiny-nim takes 2 players: you and 2 bots make 3."
    assert "2-2" not in out + err


FULL = "tablewire: cannot write the output: No space left on device."


@pytest.mark.parametrize(
    ("command", "redirect", "status", "said"),
    [
        ("--help", "> /dev/full", Status.FAILED, FULL),
        ("bots -h", "> /dev/full", Status.FAILED, FULL),
        ("--version", "> /dev/full", Status.FAILED, FULL),
        ("--help", ">&-", Status.FAILED, CLOSED),
        ("rules --help", ">&-", Status.FAILED, CLOSED),
        ("--version", ">&-", Status.FAILED, CLOSED),
        ("bots --bogus", "> /dev/full", Status.USAGE, "tablewire bots: unrecognized arguments"),
        ("bots --bogus", "2> /dev/full", Status.USAGE, None),
        ("bots --bogus", "2>&-", Status.USAGE, None),
    ],
)
def test_help_version_and_usage_that_cannot_be_written_end_as_any_output(
    command: str, redirect: str, status: Status, said: str | None
) -> None:
    """argparse passes over a print that fails: `tablewire --help > /dev/full` was status
    0, the help lost unseen. Help and version end as any command's output that cannot be
    written does (one line, status 1); a usage error is status 2 whatever its stderr."""
    out = run_redirected(command, redirect)
    assert out.returncode == status, out.stderr
    if said is None:
        assert out.stderr == ""
    else:
        assert one_line(out.stderr).startswith(said), out.stderr


@pytest.mark.parametrize(
    "argv",
    [["bots", "\x1b[31mred\x1b[0m\x07"], ["rules", "sintra", "two\nlines"], ["new", "--\x1b[2J"]],
)
def test_arguments_not_taken_are_shown_without_their_control_characters(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`unrecognized arguments` echoed them as typed: an escape sequence reached the
    terminal (a colour, a cleared screen) and a line break made the one line two."""
    with pytest.raises(SystemExit) as exit:
        main(argv)
    err = capsys.readouterr().err
    line = one_line(err)
    assert exit.value.code == Status.USAGE and "unrecognized arguments" in line, err
    assert line.isprintable(), repr(line)
    assert "\\x1b[" in line or "two\\nlines" in line, line


def test_the_paced_workload_given_several_servers_says_it_loads_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`loadtest --workload turn-relay --server A,B` was status 1, "unexpected error:
    InvalidURL ... please report it": the workload's lobby took the list for one address."""
    several = f"127.0.0.1:{free_port()},127.0.0.1:{free_port()}"
    code = main(["loadtest", "--workload", "turn-relay", "--server", several])
    line = one_line(capsys.readouterr().err)
    assert code == Status.USAGE, line
    assert line == (
        "tablewire: --workload turn-relay loads one server; several, comma-separated, "
        "are for --game."
    ), line


@pytest.mark.parametrize("command", ["bots", "loadtest"])
def test_the_help_of_server_says_which_take_several(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """loadtest's --server said several servers spread its clients, but --workload loads
    one (a usage error): its help says only --game takes several."""
    monkeypatch.setenv("COLUMNS", "1000")  # one line an option
    with pytest.raises(SystemExit):
        main([command, "--help"])
    line = next(x for x in capsys.readouterr().out.splitlines() if "--server HOST:PORT " in x)
    several = "several comma-separated spread the clients over processes sharing one Redis"
    only = " (--workload loads one)" if command == "loadtest" else ""
    with_game = "with --game, " if command == "loadtest" else ""
    assert line.endswith(f"; {with_game}{several}{only}"), line


@pytest.mark.parametrize("redirect", ["2> /dev/full", "2>&-"])
def test_a_failure_whose_line_cannot_be_written_keeps_its_status(redirect: str) -> None:
    """With stderr full the failure's line failed in its turn: status 1, not the 3 of a
    server that cannot be reached; with stderr closed the line went to stdout, into
    whatever reads the command's output."""
    down = f"127.0.0.1:{free_port()}"
    out = run_redirected(f"rooms --server {down}", redirect)
    assert (out.returncode, out.stdout) == (Status.UNREACHABLE, ""), out


async def test_a_command_with_stderr_closed_prints_only_its_output(server_at: str) -> None:
    """`tablewire new 2>&-`: its "Join it with" line went to stdout, after the JSON."""
    out = run_redirected(f"new --server {server_at}", "2>&-")
    assert out.returncode == Status.OK
    assert "Join it with" not in out.stdout and out.stdout.startswith("{"), out.stdout


@pytest.mark.parametrize(
    "command", [["rules", "sintra"], ["games", "--server", f"127.0.0.1:{free_port()}"]]
)
def test_output_in_an_encoding_without_some_of_its_characters_is_written(
    command: list[str],
) -> None:
    """Standard output in ASCII (a terminal of another encoding): rules was a traceback,
    games 'unexpected error: UnicodeEncodeError ... please report it'; a character the
    encoding lacks is now a "?"."""
    out = subprocess.run(
        [TABLEWIRE, *command],
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
    )
    assert out.returncode == Status.OK, out.stderr
    assert b"Traceback" not in out.stderr and b"?" in out.stdout, out
