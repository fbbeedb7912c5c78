"""``tablewire play`` and ``tablewire spectate``: the terminal clients.

**The screen** (:class:`clients.screen.Screen`). Every redraw prints the board
(:func:`clients.render.board`), whose clock runs and who is away, the room's last
chat lines, the game's latest event
sentences, a notice if there is one, and — when the seat must choose — a
chooser (:class:`~clients.chooser.Chooser`) sized to the rows left, so that the
board is still on screen at the prompt (``console.height`` and ``console.width``:
a larger terminal shows more). When every move fits, the chooser numbers them
in columns; otherwise it groups them by their first choice step (labels split
steps with :data:`engines.base.STEP`) and the player narrows step by step,
with pages as a last resort. A move too long for one line wraps under its
number, so its effect and price are never cut. Words narrow the list to the
moves that contain them; ``?`` shows the keys, the game's legend
(:func:`clients.render.legend`) and the address of its rules on the server
(:func:`rules_line`), a screenful at a time.

**Chat.** ``/say TEXT`` sends a chat line, at the move prompt and, at a terminal,
while the others play (answers piped in are kept for the player's turns); a
line said or refused redraws the screen. The lines come back from the room like
everyone's (:attr:`~clients.client.RoomClient.chat`).

**The connection.** If the server goes away (a restart closes with 1012, then
refuses connections for a while) or ends the connection with a fatal error the
protocol says to retry (:data:`~clients.retry.RECONNECTABLE`), the client says so,
reconnects with backoff using its token and the last version held, and goes on; it gives up after
``reconnect_for`` seconds with :class:`~clients.client.Unreachable`. A room the
server closes (``room_closed``) is over: no reconnect, :class:`RoomClosed`; so is a
connection closed as a protocol error (:data:`~clients.retry.PROTOCOL_CLOSES`), a
reconnect's handshake too: a ``protocol_error``.

**Leaving.** Standard input is read without a thread
(:class:`~clients.keyboard.StdinKeyboard`), so Ctrl-C leaves at once, as does
Ctrl-D (end of input); both print the command that comes back to the seat.
Taking the seat is :mod:`clients.seating`.
"""

from __future__ import annotations

import asyncio
import math
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.text import Text
from websockets.exceptions import ConnectionClosed, WebSocketException

from clients.addresses import shown, ws_url
from clients.chooser import Chooser
from clients.client import LobbyClient, RoomClient, ServerError, Unreachable
from clients.keyboard import Keyboard, StdinKeyboard
from clients.render import as_printed, legend_of, title
from clients.retry import RECONNECTABLE, WaitNotices, protocol_close, reconnect_pause
from clients.screen import Screen, result_table
from clients.seating import SeatRequest, come_back, seat_bots, server_option, take_seat
from engines import ENGINES
from engines.render import clean

rest: Callable[[float], Awaitable[None]] = asyncio.sleep
"""How the client waits between two tries to reconnect (a test can watch the waits)."""
SAY = "/say"
"""What starts a chat line typed at a prompt."""


class Left(Exception):
    """The player left (end of input)."""


class NoInput(Exception):
    """``play`` started with its standard input closed: it takes no seat."""


class RoomClosed(Exception):
    """The server closed the room followed (``room_closed``): it is over, and the client
    does not reconnect. Its text names the room and, if the server said, why."""

    def __init__(self, room: str, closed: ServerError) -> None:
        why = clean(str(closed.frame.get("message") or "")).removeprefix("room closed")
        why = why.lstrip(": ")
        super().__init__(f"the server closed room {room}" + (f": {why}" if why else ""))


HELP = """\
Keys at the move prompt:
  a number      plays that move, or opens that group of moves
  words         keep only the moves containing all of them{example}
  b             back: undo the last group opened or the words typed
  n, p          next and previous page, when the list has pages
  ?             this help and the key to the board
  /say TEXT     a line to everyone in the room (also while the others play)
  Ctrl-C/Ctrl-D leave; the command to come back is printed"""
"""The keys; ``{example}`` is where :func:`keys_help` puts words that narrow the list."""


def keys_help(chooser: Chooser | None) -> str:
    """The keys at the move prompt, with an example of words taken from ``chooser``'s
    moves (:meth:`~clients.chooser.Chooser.example`), so typing it narrows the list."""
    example = chooser.example() if chooser is not None else None
    return HELP.format(example=f"\n{'':16}(for example: {example})" if example else "")


# -- following a room -----------------------------------------------------------------


@dataclass
class Session:
    """One terminal client of one room: its connection, screen and keyboard."""

    server: str
    client: RoomClient
    screen: Screen
    keyboard: Keyboard | None
    """None for a spectator."""
    reconnect_for: float

    @property
    def console(self) -> Console:
        return self.screen.console


CHANGED = object()
"""What :func:`_line_or_change` returns when the room changed before a line came."""
HEARD = object()
"""What :func:`_line_or_change` returns when a chat line (or the refusal of ours) came
first."""


async def _line_or_change(
    session: Session, version: int, typing: bool = True
) -> str | object | None:
    """The next line typed, or :data:`CHANGED` if the room moves on first, or
    :data:`HEARD` if a chat line comes first. Without ``typing``, no line is read."""
    keyboard = session.keyboard
    client = session.client
    if keyboard is None:
        typed: asyncio.Future[str | None] = asyncio.Future()
    else:  # not typing: answers piped in are kept, only their end is seen
        typed = asyncio.ensure_future(keyboard.line() if typing else _end(keyboard))
    change = asyncio.ensure_future(client.wait_version(version + 1))
    heard = asyncio.ensure_future(client.wait_heard(client.heard))
    waited = (typed, change, heard)
    try:
        await asyncio.wait(waited, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in waited:
            task.cancel()
        await asyncio.gather(*waited, return_exceptions=True)
    if typed.done() and not typed.cancelled():
        line: str | None = typed.result()
        if keyboard is not None and not keyboard.echoes:
            session.console.print(Text(clean(line or "")), soft_wrap=True)  # no escape
        return line
    for task in (change, heard):
        if not task.cancelled() and task.exception() is not None:
            session.console.print()  # the connection was lost: end the prompt, raise it
            task.result()
    return CHANGED if not change.cancelled() else HEARD


async def _end(keyboard: Keyboard) -> None:
    await keyboard.ended()


def _is_say(typed: str) -> bool:
    return typed.strip() == SAY or typed.lstrip().startswith(SAY + " ")


async def _say(session: Session, typed: str) -> str:
    """Send the chat line of a ``/say`` typed; a notice to show (the line itself comes
    back as a ``chat`` frame, or a refusal)."""
    text = typed.strip()[len(SAY) :].strip()
    if not text:
        return "Type your words after /say, for example: /say good game"
    await session.client.say(text)
    return ""


def rules_line(server: str, engine: str, told: str | None = None) -> Text:
    """Where a player at the terminal reads how to play: the server's rules page
    (``GET /rules/<engine>``, docs/web.md), its address without a login's credentials,
    or ``tablewire rules`` (clients/rules.py) in another terminal, for a game this copy
    knows (``told``: the server's title of one it does not)."""
    page = f"{shown(server)}/rules/{engine}"
    here = f", or here: tablewire rules {engine}" if engine in ENGINES else ""
    return Text(clean(f"How to play {title(engine, told)}: {page} (in a browser){here}"))


async def _help(session: Session, version: int, chooser: Chooser | None = None) -> None:
    """Print the keys (an example of words from ``chooser``'s moves) and the game's
    legend, a screenful at a time; return once the player has read the last page, or
    typed ``b``."""
    console = session.console
    parts: list[RenderableType] = [Text(keys_help(chooser))]
    legend = legend_of(session.screen.engine)
    if legend is not None:
        parts.append(legend())
    parts.append(rules_line(session.server, session.screen.engine, session.screen.told))
    lines = console.render_lines(Group(*parts), pad=False)
    per_page = max(1, console.height - 1)
    pages = math.ceil(len(lines) / per_page)
    for page in range(pages):
        console.print(as_printed(lines[page * per_page : (page + 1) * per_page]), end="")
        last = page == pages - 1
        session.screen.ask(
            "Press Enter to see the board again. "
            if last
            else f"Press Enter for more ({page + 1} of {pages}), b for the board. "
        )
        typed = await _line_or_change(session, version)
        while typed is HEARD:  # the help stays; the chat line shows with the board
            typed = await _line_or_change(session, version)
        if typed is None:
            raise Left
        if typed is CHANGED or (isinstance(typed, str) and typed.strip().lower() == "b"):
            return


async def _ask(session: Session, chooser: Chooser, version: int, notice: str) -> int | None:
    """Redraw and read answers until one picks a move (its index); None if the room
    changed first."""
    client, screen = session.client, session.screen
    while True:
        screen.events(client)
        notice = screen.refused(client) or notice
        screen.draw(client.doc, chooser, notice)
        typed = await _line_or_change(session, version)
        if typed is CHANGED:
            session.console.print()
            return None
        if typed is HEARD:  # a chat line, or our line refused: shown by the redraw
            session.console.print()
            continue
        if typed is None:
            raise Left
        assert isinstance(typed, str)
        if _is_say(typed):
            notice = await _say(session, typed)
            continue
        if typed.strip() == "?":
            await _help(session, version, chooser)
            notice = ""
            continue
        picked = chooser.answer(typed)
        if isinstance(picked, int):
            return picked
        notice = picked or ""


async def _take_turn(session: Session) -> None:
    """Ask for a move until one is accepted and held, or the turn passes without us.
    A change that leaves our moves as they were (someone's presence, another seat's
    secret choice) keeps the list as the player has narrowed it."""
    client = session.client
    assert session.keyboard is not None
    session.keyboard.discard()
    chooser: Chooser | None = None
    notice = ""
    while True:
        version = client.version or 0
        doc = client.doc
        if doc["status"] != "playing" or client.seat not in doc["to_act"]:
            return
        moves = await client.moves()
        if not moves:  # the position moved on since the document said it was our turn
            await client.wait_version(version + 1)
            continue
        labels = [label for _, label in moves]
        if chooser is None or chooser.labels != labels:
            if chooser is not None and not notice:
                notice = "The position changed: these are your moves now."
            chooser = Chooser(labels)
        picked = await _ask(session, chooser, version, notice)
        notice = ""
        if picked is None:
            continue
        reply = await client.intent(moves[picked][0])
        if reply["t"] == "ack":
            await client.wait_version(reply["v"])
            return
        notice = f"The server refused that move: {reply['message']} ({reply['code']})."


async def _result(session: Session, joined_finished: bool) -> dict[str, Any]:
    """The result: its frame, or — for a room already finished when we joined, whose
    server may not send one — the lobby's record of the room."""
    client = session.client
    if client.result is None and joined_finished:
        async with LobbyClient(session.server) as lobby:
            record = await lobby.room(client.welcome["room"])
        if record.get("result") is not None:
            result: dict[str, Any] = record["result"]
            return result
    return await client.wait_result()


async def _follow(session: Session) -> dict[str, Any]:
    """Redraw on every version; at the seat's turn, ask for a move. Returns the result."""
    client, screen = session.client, session.screen
    shown = -1
    first = True
    while True:
        doc = await client.wait_version(shown + 1)
        shown = client.version or 0
        screen.events(client)
        if doc["status"] == "finished":
            screen.draw(doc)
            result = await _result(session, first)
            session.console.print(result_table(result, doc["seats"], client.seat))
            return result
        first = False
        if session.keyboard is not None and client.seat in doc["to_act"]:
            await _take_turn(session)
        else:
            await _watch(session, shown)


async def _watch(session: Session, version: int) -> None:
    """Show the room until it moves past ``version``, again for each chat line. A
    player at a terminal may type ``/say`` lines meanwhile (other lines get a reminder);
    answers piped in are kept for the player's turns. The end of input (Ctrl-D, or a
    pipe closed with no answer left) leaves at once."""
    client, screen = session.client, session.screen
    typing = session.keyboard is not None and session.keyboard.echoes
    notice = ""
    while True:
        screen.events(client)
        notice = screen.refused(client) or notice
        screen.draw(client.doc, notice=notice)
        if typing:
            screen.ask("Waiting for the others; /say TEXT talks to the room: ")
        woke = await _line_or_change(session, version, typing)
        if woke is CHANGED:
            if typing:
                session.console.print()
            return
        if woke is None:
            raise Left
        if woke is HEARD:  # a chat line, or our line refused: shown by the redraw
            if typing:
                session.console.print()
            notice = ""
        else:
            assert isinstance(woke, str)
            notice = (
                await _say(session, woke)
                if _is_say(woke)
                else "It is not your turn yet; /say TEXT talks to the room."
            )


def _why(lost: BaseException) -> str:
    if isinstance(lost, ServerError):
        return clean(str(lost.frame.get("message") or lost.code))
    if isinstance(lost, ConnectionClosed) and lost.rcvd is not None and lost.rcvd.code == 1012:
        return "it is restarting"
    return "the connection dropped"


async def _reconnect(session: Session, lost: BaseException) -> None:
    """Join again with the token and the last version held, backing off, for up to
    ``reconnect_for`` seconds; after a fatal ``rate_limited``, first wait its pause."""
    client, console = session.client, session.console
    wait = reconnect_pause(lost.frame) if isinstance(lost, ServerError) else 0.0
    console.print(
        Text(
            f"Lost the server ({_why(lost)}); reconnecting"
            + (f" in {wait:g} s" if wait else "")
            + f" for up to {session.reconnect_for:g} s. Ctrl-C leaves.",
            style="yellow",
        )
    )
    loop = asyncio.get_running_loop()
    deadline = loop.time() + session.reconnect_for
    pause = 0.25
    await client.close()
    if wait:
        await rest(wait)
    while True:
        try:
            await client.connect()
        except ServerError as exc:
            if exc.code == "room_closed":
                raise RoomClosed(client.welcome["room"], exc) from None
            if exc.code == "no_such_room":
                raise ServerError(
                    {
                        "code": "room_gone",
                        "message": "the room is gone: the server restarted without keeping it "
                        "(rooms outlive a restart only when the server runs with --redis-url)",
                    }
                ) from None
            if exc.code not in RECONNECTABLE:
                raise
        except (OSError, TimeoutError, WebSocketException):
            pass
        else:
            console.print(Text("Reconnected.", style="green"))
            return
        left = deadline - loop.time()
        if left <= 0:
            raise Unreachable(
                session.server, f"it has not come back for {session.reconnect_for:g} s"
            )
        await rest(min(pause, left))
        pause = min(pause * 2, 5.0)


def _final_close(lost: BaseException) -> None:
    """Raise a ``protocol_error`` for a connection the server closed with one of
    :data:`~clients.retry.PROTOCOL_CLOSES`: retrying the same frames would end the same way."""
    said = protocol_close(lost)
    if said is not None:
        message = f"the server ended the connection with the {said}"
        raise ServerError({"code": "protocol_error", "message": message}) from None


async def _run(session: Session) -> dict[str, Any]:
    """:func:`_follow` through lost connections."""
    while True:
        try:
            return await _follow(session)
        except (ConnectionClosed, ServerError) as lost:
            _final_close(lost)
            if isinstance(lost, ServerError) and lost.code == "room_closed":
                raise RoomClosed(session.client.welcome["room"], lost) from None
            if isinstance(lost, ServerError) and lost.code not in RECONNECTABLE:
                raise
            await _reconnect(session, lost)


# -- the commands ---------------------------------------------------------------------


def _print_come_back(console: Console, command: str) -> None:
    line = Text("To come back: ")
    line.append(clean(command), style="bold")
    console.print(line, soft_wrap=True)


class _Interrupted(asyncio.CancelledError):
    """Ctrl-C, already said on the screen with the way back."""


async def _guarded(
    console: Console, command: str, run: Awaitable[dict[str, Any]]
) -> dict[str, Any] | None:
    """Run the client; when the player leaves or the server is gone, say how to come back."""
    try:
        return await run
    except Left:
        console.print()
        console.print("You left the game (end of input).")
        _print_come_back(console, command)
        return None
    except asyncio.CancelledError:
        console.print()
        console.print("Interrupted.")
        _print_come_back(console, command)
        raise _Interrupted from None
    except Unreachable:
        _print_come_back(console, command)
        raise


async def _saying_interrupted(
    console: Console, command: Awaitable[dict[str, Any] | None]
) -> dict[str, Any] | None:
    """``command`` (play or spectate); Ctrl-C before its screen said so (while its seat
    request or its connection waits on the server) is said here."""
    try:
        return await command
    except _Interrupted:
        raise
    except asyncio.CancelledError:
        console.print("Interrupted.")
        raise


async def play(
    server: str,
    request: SeatRequest,
    console: Console | None = None,
    keyboard: Keyboard | None = None,
    reconnect_for: float = 60.0,
    default_server: str = "",
) -> dict[str, Any] | None:
    """Play one seat from the terminal until the game ends (the result) or the player
    leaves (None)."""
    console = console or Console()
    seated = _play(server, request, console, keyboard, reconnect_for, default_server)
    return await _saying_interrupted(console, seated)


async def _play(
    server: str,
    request: SeatRequest,
    console: Console,
    keyboard: Keyboard | None,
    reconnect_for: float,
    default_server: str,
) -> dict[str, Any] | None:
    keyboard = keyboard or StdinKeyboard.of_stdin()
    if keyboard is None:  # standard input closed (`<&-`): no move could ever be read
        raise NoInput("cannot read the input: it is closed; no seat taken")
    room_id, token = request.room, request.token
    # Back to a seat with its token: the command is printed again once the seat is there.
    returning = token is not None and not request.rematch
    if not returning:
        waiting = WaitNotices(lambda line: print(f"{clean(line)}.", file=sys.stderr, flush=True))
        async with LobbyClient(server, on_wait=waiting) as lobby:
            seat = await take_seat(lobby, request)
            room_id, token = seat["room"], seat["token"]
            command = come_back(server, room_id, token, default_server)
            console.print(Text(clean(f"Seat {seat['seat'] + 1} in room {room_id}.")))
            _print_come_back(console, command)
            await seat_bots(lobby, request)
    else:
        assert room_id is not None
        command = come_back(server, room_id, token, default_server)
    async with RoomClient(ws_url(server), room_id, token) as client:
        if returning:
            _print_come_back(console, command)
        session = Session(
            server,
            client,
            Screen(
                console,
                client.welcome["engine"],
                client.seat,
                room_id,
                server_option(server, default_server),
                client.welcome.get("title"),
            ),
            keyboard,
            reconnect_for,
        )
        result = await _guarded(console, command, _run(session))
    if result is not None:
        line = Text("To play again with the same players: ")
        line.append(f"{command} --rematch", style="bold")
        console.print(line, soft_wrap=True)
    return result


async def spectate(
    server: str,
    room_id: str,
    console: Console | None = None,
    reconnect_for: float = 60.0,
    default_server: str = "",
) -> dict[str, Any] | None:
    """Watch a room until its game ends; a finished room shows its result at once. It
    does not wait for a rematch: if one is open by then (the room's ``rematch``), the
    command that watches it is printed."""
    console = console or Console()
    watching = _spectate(server, room_id, console, reconnect_for, default_server)
    return await _saying_interrupted(console, watching)


async def _spectate(
    server: str, room_id: str, console: Console, reconnect_for: float, default_server: str
) -> dict[str, Any] | None:
    command = come_back(server, room_id, None, default_server)
    async with RoomClient(ws_url(server), room_id) as client:
        welcome = client.welcome
        screen = Screen(console, welcome["engine"], None, room_id, told=welcome.get("title"))
        session = Session(server, client, screen, None, reconnect_for)
        result = await _guarded(console, command, _run(session))
        rematch = client.doc.get("rematch") if result is not None else None
    if isinstance(rematch, str):
        line = Text("To watch the rematch: ")
        line.append(clean(come_back(server, rematch, None, default_server)), style="bold")
        console.print(line, soft_wrap=True)
    return result
