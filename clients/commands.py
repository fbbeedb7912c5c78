"""The client commands of ``tablewire``: games, new, rooms, play, spectate, bots, loadtest.

:func:`run` runs one command line that :mod:`clients.cli` has parsed. Its failures
never show a traceback: :func:`explain` gives each its exit status
(:class:`~clients.exits.Status`) and one line on stderr saying what is wrong and what
to do. :mod:`clients.cli` imports this module only for these commands, so
``tablewire serve`` does not load the HTTP client, the terminal interface or the bots.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import socket
import sys
import textwrap
import traceback
from collections.abc import Coroutine, Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx
import uvloop
from rich.console import Console, Group, RenderableType
from rich.text import Text
from websockets.exceptions import InvalidHandshake, InvalidStatus, InvalidURI

from clients import bots, loadtest, seating, terminal
from clients.addresses import shown
from clients.client import LobbyClient, LobbyError, ServerError, Unreachable
from clients.exits import CLOSED, OUTPUT_FULL, Status, interrupted, say
from clients.retry import WaitNotices
from engines import ENGINES, GAMES
from engines.base import players_text
from engines.render import clean
from server import local
from server.table import DEFAULTS as ROOM_OPTION_DEFAULTS
from server.table import HELP as ROOM_OPTION_HELP

BUSY = (
    "it is busy: every connection it takes is in use (its max_connections, or a proxy's "
    "limit), or it is starting or stopping; try again in a moment"
)
"""What a plain HTTP 503 says (no tablewire JSON): uvicorn's answer at max_connections."""

HINTS = {
    "no_such_room": "check the room id; `tablewire rooms` lists the public rooms",
    "unknown_engine": "`tablewire games` lists the games",
    "bad_seats": "`tablewire games` shows how many players each game takes",
    "bad_options": "`tablewire games` lists every game's options and their values",
    "room_full": "leave out --room to be seated in an open room, or watch it: `{watch}`",
    "seat_taken": "leave out the seat to take any free one",
    "game_over": "that game has ended; `{watch}` shows its result",
    "bad_token": "use the --room and --token printed when you took the seat",
    "room_closed": "the server removed the room (a room left waiting for players too long, "
    "or a game over for a while): `tablewire play` finds or opens another",
    "invite_required": "a private room: add the --invite of the link its creator shared",
    "owner_required": "only the room's creator adds bots to it: leave out --bots",
    "seat_held": "a rematch holds its seats for the last game's players for a while: "
    "retry later, or play another room",
    "bad_name": "a name has 1-32 letters, digits, spaces or signs",
    "not_tablewire": "check --server: it should be the address `tablewire serve` listens on",
    "server_failed": "the server failed: its log says why; try again, or report it",
    "server_busy": BUSY,
    "rate_limited": "the server's limit holds longer than tablewire waits (two minutes); "
    "try again later, or raise the limit if the server is yours (docs/operations.md)",
    "protocol_error": "the client and the server disagree on the protocol: "
    "update tablewire, or report it",
    "too_many_rooms": "the server holds all the rooms it may; try again later",
}


COMMAND_HINTS = {
    ("bots", "room_full"): "watch it: `{watch}`",
}
""":data:`HINTS` a command says otherwise: ``bots`` without ``--room`` plays new rooms of
bots to their end, so it is not told to leave out ``--room``."""


def _on_stderr(line: str) -> None:
    print(clean(line), file=sys.stderr, flush=True)


show_wait = WaitNotices(_on_stderr)
"""A line on stderr for the waits a limit of the server imposes that one would notice
(clients.retry)."""


def local_games() -> list[dict[str, Any]]:
    """The games this copy of tablewire knows, as ``GET /api/games`` lists them."""
    return [
        {
            "id": e.id,
            "title": e.title,
            "min_players": e.min_players,
            "max_players": e.max_players,
            "options": {name: dict(spec) for name, spec in e.options.items()},
        }
        for e in GAMES.values()
    ]


def _offered(game: dict[str, Any]) -> bool:
    """A game for players, not a benchmark workload (by the server's word, or ours)."""
    local = ENGINES.get(game["id"])
    kind = game.get("kind", local.kind if local else "game")
    return bool(kind == "game")


def _described(meaning: str, width: int) -> list[Text]:
    """``meaning`` wrapped under its option, six columns in, no trailing blanks."""
    wrapped = textwrap.wrap(clean(meaning), max(20, width - 6))
    return [Text("      " + line, style="dim") for line in wrapped]


RULES_PATH = re.compile(r"/[A-Za-z0-9._~/-]{1,200}")
"""A rules page's path as ``GET /api/games`` gives it (``web.rules``), to print after
the server's address; anything else is not printed."""


def games_text(games: list[dict[str, Any]], width: int = 80, server: str = "") -> Group:
    """Every game with its players, where its rules are on ``server`` (if given and
    the server says) and its options (choices, default, what each does), in the
    server's words without control and format characters (escape sequences)."""
    lines: list[RenderableType] = []
    for game in filter(_offered, games):
        head = Text(clean(str(game["id"])), style="bold")
        head.append(
            clean(
                f"  {game['title']}, {players_text(game['min_players'], game['max_players'])} "
                f"(new rooms: {game['max_players']} seats)"
            )
        )
        lines.append(head)
        web = game.get("web")
        rules = web.get("rules") if isinstance(web, dict) else None
        if server and isinstance(rules, str) and RULES_PATH.fullmatch(rules):
            lines.append(Text(f"  how to play: {shown(server)}{rules}"))
        for name, spec in game["options"].items():
            choices = "|".join(json.dumps(c).strip('"') for c in spec["choices"])
            default = json.dumps(spec["default"]).strip('"')
            lines.append(Text(clean(f"  --option {name}={choices}  (default {default})")))
            if spec.get("description"):
                lines.extend(_described(spec["description"], width))
        lines.append(Text())
    lines.append(Text("room options (every game; with tablewire new or play --bots)", style="bold"))
    for name, (values, meaning) in ROOM_OPTION_HELP.items():
        default = json.dumps(ROOM_OPTION_DEFAULTS[name]).strip('"')
        lines.append(Text(f"  --option {name}={values}  (default {default})"))
        lines.extend(_described(meaning, width))
    return Group(*lines)


async def _games(args: argparse.Namespace) -> int:
    server = args.server
    try:
        async with LobbyClient(args.server) as lobby:
            games = await lobby.games()
    except Unreachable as exc:
        games, server = local_games(), ""
        print(
            f"tablewire: {shown(exc.url)} cannot be reached ({exc.reason}): "
            "listing the games this copy of tablewire knows.",
            file=sys.stderr,
        )
    if args.json:
        print(json.dumps(games))
    else:
        console = Console()
        console.print(games_text(games, console.width, server))
    return Status.OK


async def _seats_of(lobby: LobbyClient, game: str) -> int:
    """The default room size of ``game`` (its most players), as the server says."""
    for info in await lobby.games():
        if info["id"] == game:
            seats: int = info["max_players"]
            return seats
    raise LobbyError(400, "unknown_engine", f"the server has no game {game!r}")


def bots_per_room(game: str | None, given: int | None) -> int:
    """``--players`` of ``bots`` and ``loadtest --game``: as given, else 4 (``loadtest.Config``), or
    fewer for a game this client knows that takes fewer (a game of 2 or 3 would refuse 4 seats)."""
    if given is not None:
        return given
    engine = ENGINES.get(game or "")
    most = loadtest.Config.players
    return min(most, engine.max_players) if engine is not None else most


async def create_room(lobby: LobbyClient, args: argparse.Namespace) -> dict[str, Any]:
    """``tablewire new``: the room, with bots in its last ``--bots`` seats."""
    bots_wanted = None
    seats = args.seats
    if args.bots:
        seats = seats or await _seats_of(lobby, args.game)
        if args.bots > seats:
            raise Usage(f"--bots {args.bots} does not fit in a room of {seats} seats")
        bots_wanted = seating.bots_body(
            seating.bot_seats(seats, args.bots, seats - args.bots), args.bot_kind
        )
    return await lobby.create_room(
        args.game, seats, dict(args.option), args.private, args.seed, bots=bots_wanted
    )


def seat_request(args: argparse.Namespace) -> seating.SeatRequest:
    """What ``tablewire play`` asks the lobby for; raises :class:`Usage` on a bad mix."""
    if args.room == "":
        raise Usage("--room needs a room id")
    if args.token and not args.room:
        raise Usage("--token needs --room: give both, as printed when you took the seat")
    if args.option and not args.bots:
        raise Usage("--option sets up a new room: use it with --bots (or with tablewire new)")
    if args.bots and args.token:
        raise Usage("--bots takes new seats: leave out --token")
    if args.invite and not args.room:
        raise Usage("--invite needs the --room it invites to")
    if args.rematch and not args.token:
        raise Usage("--rematch needs the --room and --token of the finished game")
    engine = ENGINES.get(args.game)
    if args.bots and not args.room and engine is not None:
        players = f"{engine.id} takes {players_text(engine.min_players, engine.max_players)}"
        you = f"you and {args.bots} bot{'s' if args.bots > 1 else ''} make {args.bots + 1}"
        if args.seats and not engine.min_players <= args.seats <= engine.max_players:
            raise Usage(f"{players}, not --seats {args.seats}")
        if args.seats and args.bots + 1 > args.seats:
            raise Usage(f"{you} players: more than --seats {args.seats}")
        if not engine.min_players <= args.bots + 1 <= engine.max_players:
            raise Usage(f"{players}: {you}")
    return seating.SeatRequest(
        room=args.room,
        token=args.token,
        name=args.name,
        game=args.game,
        seats=args.seats,
        bots=args.bots,
        bot_kind=args.bot_kind,
        options=dict(args.option),
        rematch=args.rematch,
        invite=args.invite,
    )


class Usage(Exception):
    """A command line that cannot work; exits with :attr:`Status.USAGE`."""


ROOMS_LIMIT_SENT = 999_999_999
"""The largest ``rooms --limit`` sent: the server cuts any limit to its page size, and
refuses one of ten digits or more as if it were not a number."""


def check_args(args: argparse.Namespace) -> None:
    """Refuse, before anything is asked of a server, a command line whose options
    cannot work together or would be ignored (:class:`Usage`)."""
    if args.command == "bots" and args.invite is not None and args.room is None:
        raise Usage("--invite needs the --room it invites to")
    engine = ENGINES.get(getattr(args, "game", None) or "")
    if args.command in ("bots", "loadtest") and engine is not None and engine.kind != "game":
        # its games last 100,000 moves (hours, under a server's intent limit)
        raise Usage(
            f"{engine.id} is the paced workload, not a game to play to its end: "
            f"use tablewire loadtest --workload {engine.id}"
        )
    if args.command == "loadtest":
        _check_loadtest(args)


def _check_loadtest(args: argparse.Namespace) -> None:
    if args.workload:
        mode, unused = f"--workload {args.workload}", {"--players": args.players}
        unused["--option"] = args.option
    else:
        mode = "--game"
        unused = {"--interval-ms": args.interval_ms, "--duration-s": args.duration_s}
    ignored = [flag for flag, given in unused.items() if given not in (None, [])]
    if ignored:
        verb = "does" if len(ignored) == 1 else "do"
        raise Usage(f"{' and '.join(ignored)} {verb} not apply to {mode}")
    if args.workload and not args.spawn and "," in args.server:  # its rooms on one server
        raise Usage(f"{mode} loads one server; several, comma-separated, are for --game")
    if args.store is not None and not args.spawn:
        raise Usage("--store is the store of a spawned server: it applies only with --spawn")
    if args.spawn and getattr(args, "server_typed", False):
        raise Usage("--spawn loads the server it starts: leave out --server, or --spawn")
    if args.spawn and args.server_pid is not None:
        raise Usage("--server-pid is for a --server of your own: --spawn reads its own server")
    if args.server_pid is not None:
        _check_server_pid(args.server_pid)


def _check_server_pid(pid: int) -> None:
    """A process that exists; a warning when it does not look like a tablewire server."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            command = cmdline.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        raise Usage(f"--server-pid {pid}: no such process on this machine") from None
    if "tablewire" not in command and "python" not in command:
        shown = command[:60] + ("…" if len(command) > 60 else "") or "no command line"
        print(
            f"tablewire loadtest: warning: process {pid} ({shown}) "
            "does not look like a tablewire server; its CPU and memory are reported anyway",
            file=sys.stderr,
        )


async def _command(args: argparse.Namespace, default_server: str) -> int:
    if args.command == "games":
        return await _games(args)
    if args.command == "new":
        async with LobbyClient(args.server) as lobby:
            room = await create_room(lobby, args)
        print(json.dumps(room))
        where = seating.server_option(args.server, default_server)
        invite = f" --invite={room['invite']}" if "invite" in room else ""
        if None in room.get("names", [None]):
            join = f"Join it with: tablewire play{where} --room={room['id']}{invite}"
        else:
            watch = f"tablewire spectate{where} --room={room['id']}"
            join = f"Bots hold every seat; watch it with: {watch}"
        print(clean(join), file=sys.stderr)
    elif args.command == "rooms":
        async with LobbyClient(args.server) as lobby:
            limit = None if args.limit is None else min(args.limit, ROOMS_LIMIT_SENT)
            page, cursor = await lobby.rooms_page(args.game, args.status, limit, args.after)
        print(json.dumps(page))
        if cursor is not None:
            given = {"game": args.game, "status": args.status, "limit": args.limit}
            again = "".join(f" --{k}={v}" for k, v in given.items() if v is not None)
            where = seating.server_option(args.server, default_server)
            print(clean(f"More: tablewire rooms{where}{again} --after={cursor}"), file=sys.stderr)
    elif args.command == "play":
        await terminal.play(
            args.server,
            seat_request(args),
            reconnect_for=args.reconnect_for,
            default_server=default_server,
        )
    elif args.command == "spectate":
        await terminal.spectate(
            args.server, args.room, reconnect_for=args.reconnect_for, default_server=default_server
        )
    elif args.command == "bots":
        summary = await bots.run(
            args.server,
            args.game,
            args.rooms,
            bots_per_room(args.game, args.players),
            args.spectators,
            dict(args.option),
            args.seed,
            args.room,
            args.timeout,
            args.check,
            args.bot,
            on_wait=show_wait,
            invite=args.invite,
        )
        print(json.dumps(summary.as_dict()))
        return Status.OK if summary.ok else Status.FAILED
    elif args.command == "loadtest":
        config = loadtest.Config(
            workload=args.workload,
            game=args.game,
            rooms=args.rooms,
            players=bots_per_room(args.game, args.players),
            spectators=args.spectators,
            interval_ms=args.interval_ms or loadtest.Config.interval_ms,
            duration_s=args.duration_s or loadtest.Config.duration_s,
            bot=args.bot,
            server=None if args.spawn else args.server,
            server_pid=args.server_pid,
            spawn=args.spawn,
            store=args.store or loadtest.Config.store,
            pin=not args.no_pin,
            seed=args.seed,
            timeout=args.timeout,
            options=dict(args.option),
        )
        result = await loadtest.loadtest(config)
        print(json.dumps(result), flush=True)
        if result["errors"]:
            return Status.FAILED
        return Status.SATURATED if result.get("saturated") else Status.OK
    return Status.OK


# -- failures -----------------------------------------------------------------------


def explain(
    exc: BaseException, server: str, watch: str | None = None, command: str = ""
) -> tuple[Status, str]:
    """The exit status and the one line for a failure of a client command; the server
    named without its credentials (:func:`~clients.addresses.shown`). ``watch``: the
    command that watches the room it named, for the hints that point at it; ``command``:
    the one that failed (:data:`COMMAND_HINTS`)."""
    server = shown(server)
    if isinstance(exc, Usage):
        return Status.USAGE, f"{exc}."
    if isinstance(exc, Unreachable):
        several = "," in exc.url  # bots --server A,B: each tried
        advice = (
            "Check the host name in --server."
            if exc.reason == "unknown host"
            else f"{'Are they' if several else 'Is it'} running? "
            "Start one with `tablewire serve`, or pass --server HOST:PORT."
        )
        reason = exc.reason.rstrip(".")  # one full stop: httpx's own reasons end with one
        where = ("any of the servers at " if several else "the server at ") + shown(exc.url)
        return Status.UNREACHABLE, f"cannot reach {where}: {reason}. {advice}"
    if isinstance(exc, terminal.NoInput):  # as an output that is closed
        return Status.FAILED, f"{exc}."
    if isinstance(exc, terminal.RoomClosed):
        return Status.REFUSED, (
            f"{exc} (room_closed). The room is over and cannot be joined again; "
            "`tablewire rooms` lists the open rooms."
        )
    if isinstance(exc, LobbyError | ServerError):
        code = exc.code
        message = exc.message if isinstance(exc, LobbyError) else exc.frame.get("message", "")
        hint = COMMAND_HINTS.get((command, code), HINTS.get(code, ""))
        hint = hint.format(watch=watch or "tablewire spectate --room=ID")
        line = f"the server refused: {message} ({code})" if code else f"the server refused: {exc}"
        return Status.REFUSED, f"{line}." + (f" {hint[0].upper()}{hint[1:]}." if hint else "")
    if isinstance(exc, InvalidStatus) and exc.response.status_code == 503:
        return Status.REFUSED, (
            f"{server} answered the game connection with HTTP 503 (server_busy). "
            f"{BUSY[0].upper()}{BUSY[1:]}."
        )
    if isinstance(exc, InvalidStatus):
        status = exc.response.status_code
        return Status.REFUSED, (
            f"{server} refused the game connection with HTTP {status}; is it a tablewire server?"
        )
    if isinstance(exc, InvalidURI):  # (its text holds the address, credentials and all)
        return Status.UNREACHABLE, f"no game connection to {server}: {exc.msg}."
    if isinstance(exc, InvalidHandshake):  # an answer, but no WebSocket's (its words unshown)
        hint = HINTS["not_tablewire"]
        return Status.REFUSED, (
            f"the server refused: {server} answered the game connection with no WebSocket "
            f"handshake (not_tablewire). {hint[0].upper()}{hint[1:]}."
        )
    if isinstance(exc, TimeoutError):
        return Status.UNREACHABLE, f"{server} did not answer in time. Is it overloaded?"
    if isinstance(exc, httpx.HTTPError):
        return Status.UNREACHABLE, (
            f"cannot reach the server at {server}: {str(exc).rstrip('.') or type(exc).__name__}. "
            "Is it running? Start one with `tablewire serve`, or pass --server HOST:PORT."
        )
    if isinstance(exc, OSError) and exc.errno in OUTPUT_FULL:  # `> file` on a full disk
        return Status.FAILED, f"cannot write the output: {os.strerror(exc.errno)}."
    return Status.FAILED, (
        f"unexpected error: {type(exc).__name__}: {exc}. "
        "Set TABLEWIRE_DEBUG=1 to see where, and please report it."
    )


OFF = frozenset({"", "0", "false", "no", "off"})
"""``TABLEWIRE_DEBUG`` values that leave it off (in any case), as unset does."""


def debugging(environ: Mapping[str, str]) -> bool:
    """Whether ``TABLEWIRE_DEBUG`` asks for an unexpected error's traceback: ``1``,
    ``yes`` and the like do; ``0``, ``false``, ``no``, ``off`` and nothing do not."""
    return environ.get("TABLEWIRE_DEBUG", "").strip().lower() not in OFF


def _local_server(default: str) -> str:
    """The server for a command that names none: the default address, unless nothing
    answers there and ``tablewire serve`` runs on this machine elsewhere
    (server/local.py), then that one; with several, the user must choose."""
    here = local.running()
    if not here or default in here or _answers(default):
        return default
    if len(here) > 1:
        choices = " or ".join(f"--server {url}" for url in here)
        raise Usage(
            f"nothing answers at {default}, and `tablewire serve` runs here at "
            f"{', '.join(here)}: pass {choices}"
        )
    print(f"tablewire: using the server `tablewire serve` runs at {here[0]}", file=sys.stderr)
    return here[0]


def _answers(url: str) -> bool:
    """Something accepts connections at ``url`` (a quick TCP connect)."""
    parsed = urlsplit(url)
    try:
        with socket.create_connection((parsed.hostname, parsed.port or 80), timeout=0.5):
            return True
    except OSError:
        return False


async def _interruptible(command: Coroutine[Any, Any, int]) -> int:
    """Run ``command``; Ctrl-C (SIGINT) cancels it, so that what it holds is let go
    (a seat says how to come back, a connection closes), and then raises
    KeyboardInterrupt.

    The cancel comes from a callback of the event loop, between two of its steps.
    asyncio.run's own handler cancels from inside whatever Python code the signal
    interrupts, a future's callback included, where Python 3.11 can fail with
    ``InvalidStateError`` (a traceback on the terminal) as a task completes at that
    instant. A second Ctrl-C, while the first is still letting go, ends at once.
    """
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(command)
    interrupted = False

    def interrupt() -> None:
        nonlocal interrupted
        if interrupted:
            os._exit(Status.INTERRUPTED)
        interrupted = True
        task.cancel()

    loop.add_signal_handler(signal.SIGINT, interrupt)
    try:
        return await task
    except asyncio.CancelledError:
        if interrupted:
            raise KeyboardInterrupt from None
        raise
    finally:
        loop.remove_signal_handler(signal.SIGINT)


SCREENS = frozenset({"play", "spectate"})
"""The commands whose screen says "Interrupted." itself, with the way back."""


def run(args: argparse.Namespace, default_server: str) -> int:
    """Run a client command; its exit status (a failure printed as one line)."""
    if sys.stdout is None:  # started with its output closed (`>&-`): nothing would show
        print(CLOSED, file=sys.stderr)
        return Status.FAILED
    try:
        check_args(args)
        if not getattr(args, "server_given", True) and not getattr(args, "spawn", False):
            args.server = _local_server(args.server)  # (--spawn loads the one it starts)
        if args.command == "loadtest":  # uvloop: the generator's speed
            return uvloop.run(_interruptible(_command(args, default_server)))
        return asyncio.run(_interruptible(_command(args, default_server)))
    except KeyboardInterrupt:
        if args.command not in SCREENS:  # on stderr: stdout is for the JSON
            say("Interrupted.")
        return interrupted()
    except BrokenPipeError:  # the reader of our output left (`tablewire games | head`)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return Status.FAILED
    except Exception as exc:
        room = getattr(args, "room", None)
        first = args.server.split(",")[0]  # bots and loadtest may name several
        watch = seating.come_back(first, room, None, default_server) if room else None
        status, line = explain(exc, args.server, watch, args.command)
        if debugging(os.environ):
            traceback.print_exc()
        say(f"tablewire: {clean(line)}")
        return status
