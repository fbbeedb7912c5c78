"""Exit statuses of the ``tablewire`` client commands, and their help text.

Shared by :mod:`clients.cli` (which parses the command line and serves) and
:mod:`clients.commands` (which runs the client commands), so that neither imports
the other for them.
"""

from __future__ import annotations

import errno
import os
import sys
from enum import IntEnum


class Status(IntEnum):
    """Exit statuses of the ``tablewire`` client commands."""

    OK = 0
    FAILED = 1
    USAGE = 2
    UNREACHABLE = 3
    REFUSED = 4
    SATURATED = 5
    INTERRUPTED = 130


EXIT_STATUSES = """\
exit status:
  0    done (a game played to its end, or you left with Ctrl-D)
  1    a bot or load run had errors or unfinished games; or the output could not
       be written (a reader that left, as `| head`; a full disk); play: its
       input is closed (<&-), no seat taken; rules: the game has no rules
       text; or an unexpected error
  2    the command line (or TABLEWIRE_SERVER, TABLEWIRE_GAMES, or for serve a
       TABLEWIRE_* setting) is wrong; serve: also a Redis that refuses
       --redis-url's database or password
  3    the server cannot be reached (not running, unknown host, no answer,
       a proxy's 502 or 504, or gone too long during a game); serve: its
       address cannot be listened on, or its Redis cannot be reached (or is
       not Redis)
  4    the server refused (no such room, room full, bad token, unknown game, ...),
       or stayed over its limits (rate_limited) while tablewire waited and retried;
       or it closed the room during play or spectate (room_closed), or ended
       their connection as a protocol error (close code 1002, 1007, 1009);
       rules: a game this copy of tablewire does not know (unknown_engine)
  5    a paced load run (loadtest --workload) completed fewer than 99 % of the
       moves it offered, with no errors: saturated; its JSON line's "limit"
       says which side
  130  interrupted with Ctrl-C (serve: stopped by Ctrl-C, after its clean stop;
       SIGTERM stops it as cleanly, then ends it by that signal: 143 in a shell)"""


OUTPUT_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
"""What writing the output to a file that cannot take it fails with (no network call
does): the user's disk, not a fault of tablewire."""

CLOSED = "tablewire: cannot write the output: it is closed."
"""The line of a command started with its output closed (``>&-``): nothing would show."""


def unwritten(exc: OSError) -> Status:
    """The status of output that cannot be written (``exc``, raised again if it is no
    such error): a full disk said in one line (a reader that left, as ``| head``, needs
    no word), and standard output sent to /dev/null, so that what its buffer still holds
    fails no more on the way out."""
    if not isinstance(exc, BrokenPipeError) and exc.errno not in OUTPUT_FULL:
        raise exc
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if exc.errno in OUTPUT_FULL:
        print(f"tablewire: cannot write the output: {os.strerror(exc.errno)}.", file=sys.stderr)
    return Status.FAILED


def say(line: str) -> None:
    """Print ``line`` (a failure's) on stderr if it can be written: on a full one
    (``2>/dev/full``) the exit status alone says what happened, and stderr is sent to
    /dev/null, so that what its buffer still holds fails no more on the way out."""
    try:
        print(line, file=sys.stderr, flush=True)
    except OSError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stderr.fileno())


def interrupted() -> int:
    """The status of a command the user stopped with Ctrl-C, and from now on no word of
    what the interrupt left half made: an object the interrupt cut short in its
    making (an event loop, a socket) may fail as it is collected on the way out, and
    Python would print that ("Exception ignored in ..."), a traceback the user did
    not ask for."""
    sys.unraisablehook = lambda unraisable: None
    return Status.INTERRUPTED
