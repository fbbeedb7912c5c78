"""The ``tablewire`` command: serve, games, rules, new, rooms, play, spectate, bots, loadtest.

Client commands never show a traceback: every failure is one line on stderr
saying what is wrong and what to do, and the exit status says which kind of
failure it was (:class:`~clients.exits.Status`, listed in ``tablewire --help``).

This module parses the command line and serves; the client commands are in
:mod:`clients.commands`, imported only when one runs, so that a server process
does not hold the clients' modules in memory.
"""

from __future__ import annotations

import argparse
import errno
import importlib.metadata
import io
import json
import math
import os
import socket
import sys
from collections.abc import Sequence
from typing import Any

from clients.addresses import server_url, shown
from clients.exits import EXIT_STATUSES, Status, interrupted
from clients.parsing import CommandParser, Formatter, Parser
from engines import GAMES, GameFolderError, benchmark, check, default_game
from engines.base import players_text
from server.ids import ROOM_ID

DEFAULT_SERVER = "http://127.0.0.1:8000"
SERVER_ENV = "TABLEWIRE_SERVER"
BOT_KINDS = ["random", "greedy"]


def _option(text: str) -> tuple[str, Any]:
    """``name=value``; the value is read as JSON when it is JSON (true, 3), else as a string."""
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"options look like name=value, not {text!r}")
    try:
        return name, json.loads(raw, parse_constant=_no_constant, parse_float=_finite_float)
    except json.JSONDecodeError:
        return name, raw
    except ValueError:  # NaN, Infinity, 1e999: no JSON carries them to the server
        raise argparse.ArgumentTypeError(
            f"{name}={raw}: an option's number must be finite (not NaN or infinite)"
        ) from None


def _no_constant(text: str) -> Any:
    raise ValueError(text)


def _finite_float(text: str) -> float:
    if not math.isfinite(value := float(text)):
        raise ValueError(text)
    return value


def _server(text: str) -> str:
    """One server address as :func:`server_url` reads it; several, comma-separated (as
    ``bots`` takes them), are said to be for the commands that take several."""
    try:
        return server_url(text)
    except ValueError as exc:
        if "," in text:
            raise argparse.ArgumentTypeError(SEVERAL) from None
        raise _bad_address(text, exc) from None


SEVERAL = (
    "this command talks to one server; several, comma-separated, are for bots and loadtest --game"
)


def _servers(text: str) -> str:
    """One server address or several, comma-separated."""
    try:
        return ",".join(server_url(part) for part in text.split(","))
    except ValueError as exc:  # the whole text shown: a part may be half a password
        raise _bad_address(text, exc) from None


def _bad_address(text: str, exc: ValueError) -> argparse.ArgumentTypeError:
    """The usage error of an address: shown without credentials (an ``@`` left in it,
    from a password with a ``/``, and it is not shown at all)."""
    echo = shown(text)
    return argparse.ArgumentTypeError(f"{echo!r}: {exc}" if "@" not in echo else str(exc))


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def _port(text: str) -> int:
    if not 1 <= (value := _whole(text)) <= 65535:
        raise argparse.ArgumentTypeError("the port must be a number from 1 to 65535")
    return value


def _number(text: str, zero: bool = False) -> float:
    """A finite number above 0 (or from 0, with ``zero``): seconds, milliseconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value < 0 or (value == 0 and not zero):
        least = "0 or more" if zero else "more than 0"
        raise argparse.ArgumentTypeError(f"{text!r}: must be a finite number, {least}")
    return value


def _seconds_from_zero(text: str) -> float:
    return _number(text, zero=True)


def _count(text: str) -> int:
    if (value := _whole(text)) < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def _positive(text: str) -> int:
    if (value := _whole(text)) < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def _room(text: str) -> str:
    """A room id as the server makes them (protocol §9); anything else names no room."""
    if not ROOM_ID.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a room id (1-64 letters, digits, '-' and '_'; see `tablewire rooms`)"
        )
    return text


def _games_line() -> str:
    return ", ".join(
        f"{e.id} ({players_text(e.min_players, e.max_players)})" for e in GAMES.values()
    )


SPREAD = "several comma-separated spread the clients over processes sharing one Redis"
"""What the --server of bots and loadtest --game says of several servers."""


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="tablewire",
        description="tablewire: a real-time game server and its clients. Start a server with "
        "`tablewire serve`; play against the computer with `tablewire play --bots 1`. "
        "`tablewire COMMAND --help` shows a command's options.",
        epilog=EXIT_STATUSES,
        formatter_class=Formatter,
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"tablewire {importlib.metadata.version('tablewire')}",
    )
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=CommandParser
    )
    game = default_game()
    games_help = f"the game: {_games_line()}; default {game} (`tablewire games` for details)"

    serve = commands.add_parser(
        "serve",
        help="run the server (in-memory store, or Redis with --redis-url)",
        description="Run the server until Ctrl-C or SIGTERM. Every limit and setting is a "
        "TABLEWIRE_<NAME> variable (docs/operations.md); these flags win over theirs.",
        epilog=EXIT_STATUSES,
        formatter_class=Formatter,
    )
    serve.add_argument("--host", default=None, help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=None, help="port (default 8000)")
    serve.add_argument("--log-level", default=None, help="debug, info, warning, error")
    serve.add_argument(
        "--redis-url",
        default=None,
        help="share rooms through Redis (redis://host:port/db; or TABLEWIRE_REDIS_URL)",
    )
    serve.add_argument(
        "--allowed-origins",
        default=None,
        help="other sites that may use this server: https://host[:port],... or * "
        "(default: this server's own pages only; or TABLEWIRE_ALLOWED_ORIGINS)",
    )

    default_server = os.environ.get(SERVER_ENV) or DEFAULT_SERVER

    def client_command(
        name: str, help_text: str, description: str | None = None, several: str = ""
    ) -> argparse.ArgumentParser:
        """A client command's parser; ``several``: what its --server's help says of
        several servers, if it takes them."""
        sub = commands.add_parser(
            name,
            help=help_text,
            description=description or help_text,
            epilog=EXIT_STATUSES,
            formatter_class=Formatter,
        )
        sub.add_argument(
            "--server",
            type=_servers if several else _server,
            default=None,  # main() fills it in, knowing that none was given
            metavar="HOST:PORT",
            help=f"the server (http:// is assumed; default {shown(default_server)}, "
            f"or set {SERVER_ENV}, or the one `tablewire serve` runs here)"
            + (f"; {several}" if several else ""),
        )
        sub.set_defaults(several_servers=bool(several))
        return sub

    def options(sub: argparse.ArgumentParser, what: str = "a game or room option") -> None:
        sub.add_argument(
            "--option",
            type=_option,
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help=f"{what}, repeatable (side=B, clock=move:30); `tablewire games` lists them",
        )

    def bot_kind(sub: argparse.ArgumentParser, flag: str, on_server: bool, local: str) -> None:
        default = (
            "default: the game's strongest, greedy where it has one"
            if on_server
            else f"default {local}"
        )
        flags = [flag] if flag == "--bot-kind" else [flag, "--bot-kind"]  # one name everywhere
        sub.add_argument(
            *flags,
            default=None if on_server else local,
            choices=BOT_KINDS,
            help="random bots play any legal move; greedy bots pick the move that looks best "
            f"now (random where a game has no greedy bot); {default}",
        )

    games = client_command(
        "games",
        help_text="list the games: players, options, their values and defaults",
        description="List the games the server offers, with their player counts, the "
        "address of their rules (a page to open in a browser) and their options. If the "
        "server cannot be reached, the games this copy of tablewire knows are listed.",
    )
    games.add_argument("--json", action="store_true", help="print the server's JSON")

    rules = commands.add_parser(
        "rules",
        help="print a game's rules: how to play it",
        description="Print how to play a game, its rules as the server's rules page has "
        "them, a screenful at a time in a terminal. No server is needed: the text comes "
        "with the game.",
        epilog=EXIT_STATUSES,
        formatter_class=Formatter,
    )
    rules.add_argument("game", metavar="GAME", help=f"the game: {_games_line()}")

    new = client_command(
        "new",
        help_text="create a room and print it as JSON",
        description="Create a room and print it as JSON. With no options, `tablewire new` makes "
        f"a public {GAMES[game].title} room for {GAMES[game].max_players} players with the "
        "default options and a random seed.",
    )
    new.add_argument("--game", default=game, metavar="GAME", help=games_help)
    new.add_argument(
        "--seats",
        type=_positive,
        default=None,
        help=f"how many players (default: the game's most, {GAMES[game].max_players} for {game})",
    )
    options(new)
    new.add_argument("--private", action="store_true", help="leave the room out of the lists")
    new.add_argument(
        "--seed",
        type=int,
        default=None,
        help="fix the shuffle, for a replay; the room is then private (default: random)",
    )
    new.add_argument(
        "--bots",
        type=_positive,
        default=0,
        metavar="N",
        help="computer players in the last N seats",
    )
    bot_kind(new, "--bot-kind", on_server=True, local="greedy")

    rooms = client_command(
        "rooms",
        help_text="list public rooms as JSON",
        description="List public rooms as JSON, newest first, one page at a time; when more "
        "follow, the command for the next page is printed on stderr.",
    )
    rooms.add_argument(
        "--limit", type=_positive, default=None, help="rooms per page (default: the server's most)"
    )
    rooms.add_argument("--after", default=None, metavar="CURSOR", help="the page after this cursor")
    rooms.add_argument("--game", default=None, metavar="GAME", help="only rooms of this game")
    rooms.add_argument(
        "--status",
        default=None,
        choices=["waiting", "playing", "finished"],
        help="only rooms in this state",
    )

    play = client_command(
        "play",
        help_text="play a seat from the terminal",
        description="Take a seat and play from the terminal. With no --room, join the fullest "
        "open room of the game or open one (quick play); with --bots N, open a room for you and "
        "N computer players. At the prompt, ? shows the keys and /say TEXT talks to the room.",
    )
    play.add_argument(
        "--room", type=_room, default=None, help="the room to join (default: quick play)"
    )
    play.add_argument("--token", default=None, help="your seat token, to come back to your seat")
    play.add_argument(
        "--invite", default=None, help="a private --room's invitation (from its invite link)"
    )
    play.add_argument(
        "--rematch",
        action="store_true",
        help="with the --room and --token of a finished game: your seat in its rematch (the "
        "same game, options, players and bots), as printed at the end of the game",
    )
    play.add_argument("--name", default=None, help="your name at the table (default: player N)")
    play.add_argument("--game", default=game, metavar="GAME", help=games_help)
    play.add_argument(
        "--seats",
        type=_positive,
        default=None,
        help="room size: quick play joins only rooms of this size (default: any); "
        "with --bots, the new room's size (default: you and the bots)",
    )
    play.add_argument(
        "--bots",
        type=_positive,
        default=0,
        metavar="N",
        help="play against N computer players in a new room (or in --room's free seats)",
    )
    bot_kind(play, "--bot-kind", on_server=True, local="greedy")
    options(play, "with --bots: a game or room option of the new room")
    play.add_argument(
        "--reconnect-for",
        type=_seconds_from_zero,
        default=60.0,
        metavar="SECONDS",
        help="how long to keep trying when the server goes away (default 60; 0: do not)",
    )

    spectate = client_command(
        "spectate",
        help_text="watch a room",
        description="Watch a room until its game ends; a finished room shows its result. "
        "A rematch is not followed: if one is open by then, the command that watches it "
        "is printed.",
    )
    spectate.add_argument("--room", type=_room, required=True, help="the room to watch")
    spectate.add_argument(
        "--reconnect-for",
        type=_seconds_from_zero,
        default=60.0,
        metavar="SECONDS",
        help="how long to keep trying when the server goes away (default 60; 0: do not)",
    )

    bot = client_command(
        "bots",
        help_text="play rooms with bots; one JSON line",
        description="Play rooms to the end with bots (WebSocket clients run here), or fill the "
        "free seats of one room; print one JSON line of results.",
        several=SPREAD,
    )
    bot.add_argument("--game", default=game, metavar="GAME", help=games_help)
    bot.add_argument("--rooms", type=_positive, default=1, help="rooms to create (default 1)")
    bot.add_argument(
        "--players",
        type=_positive,
        default=None,
        help="bots per room (default 4, or the game's most if it takes fewer)",
    )
    bot.add_argument("--spectators", type=_count, default=0, help="spectators per room (default 0)")
    bot.add_argument(
        "--room", type=_room, default=None, help="fill the free seats of this room instead"
    )
    bot.add_argument("--invite", default=None, help="the --room's invitation, if it is private")
    options(bot)
    bot.add_argument(
        "--seed",
        type=int,
        default=None,
        help="first room's seed; the rooms are then private (default: public, random seeds)",
    )
    bot.add_argument("--timeout", type=_number, default=600.0, help="seconds before giving up")
    bot_kind(bot, "--bot", on_server=False, local="greedy")
    bot.add_argument(
        "--check",
        action="store_true",
        help="record every version each client held; clients sharing a view must agree",
    )

    load = client_command(
        "loadtest",
        help_text="load a server with rooms of bots; live progress, one JSON line",
        several=f"with --game, {SPREAD} (--workload loads one)",
    )
    what = load.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--workload", choices=[benchmark()[0].id], help="the paced side-by-side workload"
    )
    what.add_argument("--game", metavar="GAME", help="full games of this engine with bots")
    load.add_argument("--rooms", type=_positive, default=10, help="rooms at once (default 10)")
    load.add_argument(
        "--players",
        type=_positive,
        default=None,
        help="seats per room (--game; default 4, or the game's most if it takes fewer)",
    )
    load.add_argument("--spectators", type=_count, default=0, help="spectators per room")
    load.add_argument(
        "--interval-ms", type=_number, default=None, help="turn-relay: ms between moves (T, 100)"
    )
    load.add_argument(
        "--duration-s", type=_number, default=None, help="turn-relay: seconds of load (D, 20)"
    )
    bot_kind(load, "--bot", on_server=False, local="random")
    options(load)
    load.add_argument("--seed", type=int, default=0, help="first room's seed (default 0)")
    load.add_argument(
        "--spawn",
        action="store_true",
        help="start a server on 127.0.0.1 and load it (instead of a --server)",
    )
    load.add_argument(
        "--store",
        choices=["memory", "redis"],
        default=None,
        help="with --spawn: the spawned server's store (default memory)",
    )
    load.add_argument("--no-pin", action="store_true", help="do not pin to CPUs with taskset")
    load.add_argument(
        "--server-pid",
        type=_positive,
        default=None,
        help="without --spawn: the process id of the --server, to read its CPU and memory",
    )
    load.add_argument("--timeout", type=_number, default=900.0, help="seconds for the whole run")
    return parser


def _listens(host: str, port: int) -> None:
    """Raise the OSError of listening on ``host``:``port``, an IPv4 or IPv6 address or a
    name (the first address it stands for, as the server binds it)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, _, _, _, address = infos[0]
    socket.create_server(address[:2], family=family).close()


def _source(flag: str, args: argparse.Namespace) -> str:
    """Where ``tablewire serve`` took a setting that is also a flag: the flag, unless only
    its ``TABLEWIRE_*`` variable gave it."""
    variable = "TABLEWIRE_" + flag.removeprefix("--").upper()
    given = getattr(args, flag.removeprefix("--")) is not None
    return variable if not given and variable in os.environ else flag


def _serve(args: argparse.Namespace) -> int:
    """``tablewire serve``: its settings and address checked first, each failure one line."""
    from server.serve import run
    from server.settings import Settings

    try:
        settings = Settings.from_env(
            host=args.host,
            port=args.port,
            log_level=args.log_level,
            redis_url=args.redis_url,
            allowed_origins=args.allowed_origins,
        )
    except ValueError as exc:
        print(f"tablewire serve: {exc}.", file=sys.stderr)
        return Status.USAGE
    listeners = [(settings.host, settings.port, _source("--host", args), _source("--port", args))]
    if settings.metrics_port:
        metrics = (settings.metrics_host, settings.metrics_port)
        listeners.append((*metrics, "TABLEWIRE_METRICS_HOST", "TABLEWIRE_METRICS_PORT"))
    for host, port, host_flag, port_flag in listeners:
        try:
            _listens(host, port)
        except OSError as exc:
            if isinstance(exc, socket.gaierror):
                why = f"{host!r} is not a known address. Check {host_flag}."
            elif exc.errno == errno.EADDRINUSE:
                why = "the port is in use. Is a server running there? "
                why += f"Choose another with {port_flag}."
            else:
                reason = os.strerror(exc.errno) if exc.errno else str(exc)
                why = f"{reason}. Check {host_flag} (an address of this machine, 0.0.0.0 or ::)."
            shown = "".join(c for c in host if c.isprintable())  # no escape sequence
            print(f"tablewire serve: cannot listen on {shown}:{port}: {why}", file=sys.stderr)
            return Status.UNREACHABLE
    return run(settings)


def main(argv: Sequence[str] | None = None) -> int:
    """``tablewire``: its exit status; Ctrl-C before a command handles it (while it
    loads) is status 130 too, not a traceback."""
    if sys.stderr is None:  # started with it closed (`2>&-`): print would fall back to stdout
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (open until the process ends)
    if isinstance(sys.stdout, io.TextIOWrapper):  # an encoding without "—" or "ƒ": "?" for it
        sys.stdout.reconfigure(errors="replace")
    try:
        return _main(argv)
    except KeyboardInterrupt:
        return interrupted()


def _main(argv: Sequence[str] | None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    try:
        check()
    except GameFolderError as exc:
        if not {"-h", "--help"} & set(arguments):
            sys.stderr.write(f"tablewire: a game folder cannot be taken: {exc}\n")
            return Status.USAGE
    try:  # the help, even so: with the games of engines/ alone
        parser = _parser()
    except GameFolderError as exc:
        sys.stderr.write(f"tablewire: a game folder cannot be taken: {exc}\n")
        return Status.USAGE
    args = parser.parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "rules":  # this copy's games: no server
        from clients.rules import show_rules

        return show_rules(args.game)
    from clients.commands import run  # not for serve: see clients.commands

    try:
        default_server = _servers(os.environ.get(SERVER_ENV) or DEFAULT_SERVER)  # empty: unset
    except argparse.ArgumentTypeError as exc:
        if args.server is None:
            parser.error(f"{SERVER_ENV}: {exc}")
        default_server = ""  # read only without --server; the printed commands name theirs
    if args.server is None and "," in default_server and not args.several_servers:
        parser.error(
            f"{SERVER_ENV}: {shown(default_server)!r}: tablewire {args.command} talks to one "
            "server; several, comma-separated, are for bots and loadtest --game"
        )
    args.server_typed = args.server is not None  # --server on the command line
    args.server_given = args.server_typed or bool(os.environ.get(SERVER_ENV))
    if args.server is None:
        args.server = default_server
    return run(args, default_server)
