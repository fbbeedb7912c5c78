"""The ``tablewire`` command: serve, new, rooms, play, spectate, bots, loadtest."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

import uvloop

from clients import bots, loadtest, terminal
from clients.client import LobbyClient, LobbyError, ServerError

DEFAULT_SERVER = os.environ.get("TABLEWIRE_SERVER", "http://127.0.0.1:8000")


def _option(text: str) -> tuple[str, Any]:
    """``name=value``; the value is read as JSON when it is JSON (true, 3), else as a string."""
    name, sep, raw = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"options look like name=value, not {text!r}")
    try:
        return name, json.loads(raw)
    except json.JSONDecodeError:
        return name, raw


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tablewire", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the server (in-memory store)")
    serve.add_argument("--host", default=None, help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default 8000)")
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

    def client_command(name: str, help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text)
        sub.add_argument(
            "--server",
            default=DEFAULT_SERVER,
            help="server URL (http://host:port); bots take several, comma-separated",
        )
        return sub

    new = client_command("new", help_text="create a room and print it as JSON")
    new.add_argument("--game", default="sintra")
    new.add_argument("--seats", type=int, default=None)
    new.add_argument("--option", type=_option, action="append", default=[], metavar="NAME=VALUE")
    new.add_argument("--private", action="store_true")
    new.add_argument("--seed", type=int, default=None)

    rooms = client_command("rooms", help_text="list public rooms as JSON")
    rooms.add_argument("--game", default=None)
    rooms.add_argument("--status", default=None, choices=["waiting", "playing", "finished"])

    play = client_command("play", help_text="play a seat from the terminal")
    play.add_argument("--room", default=None, help="room id (default: quick play)")
    play.add_argument("--token", default=None, help="seat token, to come back to a seat")
    play.add_argument("--name", default=None)
    play.add_argument("--game", default="sintra", help="engine for quick play")

    spectate = client_command("spectate", help_text="watch a room")
    spectate.add_argument("--room", required=True)

    bot = client_command("bots", help_text="play rooms with random bots; one JSON line")
    bot.add_argument("--game", default="sintra")
    bot.add_argument("--rooms", type=int, default=1)
    bot.add_argument("--players", type=int, default=4)
    bot.add_argument("--spectators", type=int, default=0)
    bot.add_argument("--room", default=None, help="fill the free seats of this room instead")
    bot.add_argument("--option", type=_option, action="append", default=[], metavar="NAME=VALUE")
    bot.add_argument("--seed", type=int, default=0)
    bot.add_argument("--timeout", type=float, default=600.0, help="seconds before giving up")
    bot.add_argument("--bot", default="random", choices=["random", "greedy"], help="bot kind")
    bot.add_argument(
        "--check",
        action="store_true",
        help="record every version each client held; clients sharing a view must agree",
    )

    load = client_command(
        "loadtest", help_text="load a server with rooms of bots; live progress, one JSON line"
    )
    what = load.add_mutually_exclusive_group(required=True)
    what.add_argument("--workload", choices=["turn-relay"], help="the paced side-by-side workload")
    what.add_argument("--game", help="full games of this engine with bots")
    load.add_argument("--rooms", type=int, default=10)
    load.add_argument("--players", type=int, default=4, help="seats per room (--game)")
    load.add_argument("--spectators", type=int, default=0, help="spectators per room")
    load.add_argument("--interval-ms", type=float, default=100.0, help="turn-relay: T")
    load.add_argument("--duration-s", type=float, default=20.0, help="turn-relay: D")
    load.add_argument("--bot", default="random", choices=["random", "greedy"])
    load.add_argument("--option", type=_option, action="append", default=[], metavar="NAME=VALUE")
    load.add_argument("--seed", type=int, default=0)
    load.add_argument("--spawn", action="store_true", help="start a server on 127.0.0.1")
    load.add_argument("--store", choices=["memory", "redis"], default="memory", help="--spawn")
    load.add_argument("--no-pin", action="store_true", help="do not pin to CPUs with taskset")
    load.add_argument("--server-pid", type=int, default=None, help="read a local server's CPU")
    load.add_argument("--timeout", type=float, default=900.0, help="seconds for the whole run")
    return parser


async def _client_command(args: argparse.Namespace) -> int:
    if args.command == "new":
        async with LobbyClient(args.server) as lobby:
            room = await lobby.create_room(
                args.game, args.seats, dict(args.option), args.private, args.seed
            )
        print(json.dumps(room))
    elif args.command == "rooms":
        async with LobbyClient(args.server) as lobby:
            print(json.dumps(await lobby.rooms(args.game, args.status)))
    elif args.command == "play":
        if args.token and not args.room:
            raise SystemExit("--token needs --room")
        await terminal.play(args.server, args.room, args.token, args.name, args.game)
    elif args.command == "spectate":
        await terminal.spectate(args.server, args.room)
    elif args.command == "bots":
        summary = await bots.run(
            args.server,
            args.game,
            args.rooms,
            args.players,
            args.spectators,
            dict(args.option),
            args.seed,
            args.room,
            args.timeout,
            args.check,
            args.bot,
        )
        print(json.dumps(summary.as_dict()))
        return 0 if summary.ok else 1
    elif args.command == "loadtest":
        config = loadtest.Config(
            workload=args.workload,
            game=args.game,
            rooms=args.rooms,
            players=args.players,
            spectators=args.spectators,
            interval_ms=args.interval_ms,
            duration_s=args.duration_s,
            bot=args.bot,
            server=None if args.spawn else args.server,
            server_pid=args.server_pid,
            spawn=args.spawn,
            store=args.store,
            pin=not args.no_pin,
            seed=args.seed,
            timeout=args.timeout,
            options=dict(args.option),
        )
        result = await loadtest.loadtest(config)
        print(json.dumps(result), flush=True)
        return 0 if result["errors"] == 0 else 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "serve":
        from server.serve import run
        from server.settings import Settings

        run(
            Settings.from_env(
                host=args.host,
                port=args.port,
                log_level=args.log_level,
                redis_url=args.redis_url,
                allowed_origins=args.allowed_origins,
            )
        )
        return 0
    try:
        if args.command == "loadtest":
            return uvloop.run(_client_command(args))  # the load generator's own speed matters
        return asyncio.run(_client_command(args))
    except LobbyError as exc:
        print(f"tablewire: the lobby refused: {exc}", file=sys.stderr)
    except ServerError as exc:
        print(f"tablewire: the server closed the connection: {exc}", file=sys.stderr)
    except OSError as exc:
        print(f"tablewire: cannot reach {args.server}: {exc}", file=sys.stderr)
    except KeyboardInterrupt:
        return 130
    return 2
