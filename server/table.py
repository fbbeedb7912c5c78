"""Room options and the live side of a room's seats: presence, bots, turn clocks.

Engine options change the game; *room options* change how the room keeps the
game moving, and no engine sees them:

=================  =====================  ==========================================
option             default                allowed
=================  =====================  ==========================================
``clock``          ``"none"``             ``"none"``, ``"move:S"`` (S seconds per
                                          decision, 5-86400), ``"fischer:I+N"`` (a
                                          budget of I seconds, 10-86400, plus N per
                                          decision, 0-3600); or the same as a map
                                          ``{"kind", "seconds"}`` /
                                          ``{"kind", "initial", "increment"}``
``bot_delay``      1.0                    0-30 seconds before a bot or zombie acts
``grace``          60.0                   0-3600 seconds a player may be away while
                                          the seat must act before a zombie plays
``expel_after``    0                      0-100 timeouts after which the bot keeps
                                          the seat (0: never)
``abandon_after``  600.0                  10-86400 seconds every player's seat may
                                          be away before the room is abandoned
``idle``           300.0                  30-86400 seconds a connected player may
                                          leave a decision unmade, in a room with no
                                          clock, before a zombie plays it
``confirm``        ``true``               ``true``, ``false``: the web page asks its
                                          player to confirm each move before sending
                                          it (the server does not check it)
``spectator_chat`` ``false``              ``true``, ``false``: spectators may chat
                                          while the game is played (server/chat.py)
=================  =====================  ==========================================

:class:`Table` is the part of a room that is not the engine's state: who holds
each seat (a person or a bot), whether the person is connected, and each
seat's clock. It is folded from log entries and the times (``at``, epoch
seconds) the owner stamped on them, never from a process's own clock, so every
replica and every later owner computes the same deadlines: a clock neither
resets nor runs twice on failover. It does no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from server.errors import ApiError

MIN_DECISION: Final = 5.0
"""A seat whose budget is spent still gets this many seconds per decision."""

DEFAULTS: Final[dict[str, Any]] = {
    "clock": "none",
    "bot_delay": 1.0,
    "grace": 60.0,
    "expel_after": 0,
    "abandon_after": 600.0,
    "idle": 300.0,
    "confirm": True,
    "spectator_chat": False,
}
HELP: Final[dict[str, tuple[str, str]]] = {
    "clock": (
        "none|move:S|fischer:I+N",
        "The time control: none; S seconds for every decision (5-86400); or a budget of I "
        "seconds (10-86400) plus N seconds after each decision (0-3600). When a seat's time "
        "runs out, a bot plays that decision for it.",
    ),
    "bot_delay": ("SECONDS", "How long a bot waits before it moves, so people can follow (0-30)."),
    "grace": (
        "SECONDS",
        "How long a player may be away while they must move before a bot plays for them "
        "(0-3600); they take the seat back by coming back.",
    ),
    "expel_after": (
        "N",
        "After N decisions played by a bot for a player, the bot keeps the seat for the rest "
        "of the game (0-100; 0: never).",
    ),
    "abandon_after": (
        "SECONDS",
        "How long every player may be away before the game ends, abandoned (10-86400).",
    ),
    "idle": (
        "SECONDS",
        "With no clock: how long a connected player may leave a decision unmade before a "
        "bot plays it for them, as for a player who left (30-86400).",
    ),
    "confirm": (
        "true|false",
        "Whether the web page asks each player to confirm a move before it is played (a "
        "move a single click would otherwise play by mistake).",
    ),
    "spectator_chat": (
        "true|false",
        "Whether spectators may chat while the game is played (they always may before and "
        "after it; players always may).",
    ),
}
"""Each room option's values and what it does, for people (``tablewire games``)."""

_CLOCK_TEXT: Final = re.compile(
    r"^(none|move:([0-9]+(?:\.[0-9]+)?)|fischer:([0-9]+(?:\.[0-9]+)?)\+([0-9]+(?:\.[0-9]+)?))$"
)


@dataclass(frozen=True)
class Clock:
    """A time control: ``none``, ``move`` (``initial`` s per decision) or ``fischer``."""

    kind: str = "none"
    initial: float = 0.0
    increment: float = 0.0

    def text(self) -> str:
        if self.kind == "move":
            return f"move:{_num(self.initial)}"
        if self.kind == "fischer":
            return f"fischer:{_num(self.initial)}+{_num(self.increment)}"
        return "none"


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _bad_clock(message: str) -> ApiError:
    return ApiError(400, "bad_clock", message)


def _seconds(value: Any, low: float, high: float, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _bad_clock(f"{what} must be a number of seconds")
    if not low <= value <= high:
        raise _bad_clock(f"{what} must be {_num(low)}-{_num(high)} seconds")
    return float(value)


def parse_clock(value: Any) -> Clock:
    """A clock from its text (``"fischer:300+5"``) or map form; ``bad_clock`` otherwise."""
    if isinstance(value, str):
        match = _CLOCK_TEXT.match(value.strip())
        if match is None:
            raise _bad_clock('clock must be "none", "move:SECONDS" or "fischer:INITIAL+INCREMENT"')
        if match.group(2) is not None:
            value = {"kind": "move", "seconds": float(match.group(2))}
        elif match.group(3) is not None:
            value = {
                "kind": "fischer",
                "initial": float(match.group(3)),
                "increment": float(match.group(4)),
            }
        else:
            value = {"kind": "none"}
    if not isinstance(value, dict) or value.get("kind") not in ("none", "move", "fischer"):
        raise _bad_clock('clock must be a string or a map with "kind": none, move or fischer')
    kind = value["kind"]
    if kind == "move":
        return Clock("move", _seconds(value.get("seconds"), 5, 86400, "the time for a move"))
    if kind == "fischer":
        initial = _seconds(value.get("initial"), 10, 86400, "the initial budget")
        return Clock("fischer", initial, _seconds(value.get("increment"), 0, 3600, "the increment"))
    return Clock()


Parse = Callable[[Any], Any]


def _duration(name: str, low: float, high: float) -> Parse:
    def parse(value: Any) -> float:
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or not low <= value <= high:
            raise ApiError(400, f"bad_{name}", f"{name} must be a number of seconds, {low}-{high}")
        return float(value)

    return parse


def _count(name: str, low: int, high: int) -> Parse:
    def parse(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ApiError(400, f"bad_{name}", f"{name} must be an integer, {low}-{high}")
        return value

    return parse


def _flag(name: str) -> Parse:
    def parse(value: Any) -> bool:
        if not isinstance(value, bool):
            raise ApiError(400, f"bad_{name}", f"{name} must be true or false")
        return value

    return parse


_PARSERS: Final[dict[str, Parse]] = {
    "clock": lambda value: parse_clock(value).text(),
    "bot_delay": _duration("bot_delay", 0.0, 30.0),
    "grace": _duration("grace", 0.0, 3600.0),
    "expel_after": _count("expel_after", 0, 100),
    "abandon_after": _duration("abandon_after", 10.0, 86400.0),
    "idle": _duration("idle", 30.0, 86400.0),
    "confirm": _flag("confirm"),
    "spectator_chat": _flag("spectator_chat"),
}
"""Each room option's check: its value as the room keeps it, or ``bad_<name>``."""


def split_options(given: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``options`` of a create request → (engine options as given, complete room options).

    Room options are checked here (``bad_clock``, ``bad_bot_delay``, ``bad_grace``,
    ``bad_expel_after``, ``bad_abandon_after``, ``bad_idle``, ``bad_confirm``,
    ``bad_spectator_chat``); engine options are left to the engine.
    """
    engine = {k: v for k, v in given.items() if k not in DEFAULTS}
    room = dict(DEFAULTS)
    for name, parse in _PARSERS.items():
        if name in given:
            room[name] = parse(given[name])
    return engine, room


def _sooner(
    best: tuple[float, str, int | None] | None, when: float, why: str, seat: int | None
) -> tuple[float, str, int | None]:
    """``(when, why, seat)`` if it is sooner than ``best`` (or there is none), else ``best``."""
    if best is None or when < best[0]:
        return (when, why, seat)
    return best


def in_secret(
    before: frozenset[int], after: frozenset[int], actor: int | None, told: bool = True
) -> bool:
    """Whether ``actor``'s decision, from the seats asked ``before`` to those asked
    ``after``, was made in secret: leaving the seat asked, beside others in a simultaneous
    step (Crystal Palace's dice one at a time, its final repayment) or alone when it told
    no one anything (``told`` False: no event and nothing a spectator sees changed, in a
    game whose seats see different things; the last seat still setting its dice). The
    room document must not tell who made it, nor how many: no clock moves, no timeout
    is counted."""
    if actor not in before or actor not in after:
        return False
    return not told or (len(before) > 1 and len(after) > 1)


class Table:
    """Seats beyond the engine: presence, bots, timeouts and clocks (see the module).

    Per seat: ``bots`` (None for a person, else ``"random"``/``"greedy"``, or
    ``"zombie"`` once a person was expelled), ``connected``, ``away_since``
    (epoch seconds, None while connected or for a free or bot seat),
    ``timeouts`` (decisions a zombie played for the seat), ``remaining``
    (seconds banked on the seat's clock while it is stopped), ``deadline``
    (epoch seconds, while it runs) and ``since`` (when the seat's current
    decision started, while it must act), ``asked`` (the digest of the
    ``Idempotency-Key`` of the request that took the seat, if it had one: a repeat of
    that request is answered the same seat).
    """

    FIELDS = (
        "bots",
        "connected",
        "away_since",
        "timeouts",
        "remaining",
        "deadline",
        "since",
        "asked",
    )

    def __init__(
        self, seats: int, options: Mapping[str, Any], data: dict[str, Any] | None = None
    ) -> None:
        self.options = {**DEFAULTS, **options}
        self.clock = parse_clock(self.options["clock"])
        if data is None:
            data = {
                "bots": [None] * seats,
                "connected": [False] * seats,
                "away_since": [None] * seats,
                "timeouts": [0] * seats,
                "remaining": [self.clock.initial] * seats,
                "deadline": [None] * seats,
                "since": [None] * seats,
            }
        self.bots: list[str | None] = list(data["bots"])
        self.connected: list[bool] = list(data["connected"])
        self.away_since: list[float | None] = list(data["away_since"])
        self.timeouts: list[int] = list(data["timeouts"])
        self.remaining: list[float] = list(data["remaining"])
        self.deadline: list[float | None] = list(data["deadline"])
        self.since: list[float | None] = list(data["since"])
        self.asked: list[str | None] = list(data.get("asked", [None] * seats))
        """(Absent from the snapshots of earlier versions.)"""
        self._presence: list[dict[str, Any]] | None = None
        """:meth:`presence_doc` until a seat's presence, bot or timeouts change."""

    def dump(self) -> dict[str, Any]:
        """Plain data for a snapshot (see :meth:`__init__`'s ``data``)."""
        return {name: list(getattr(self, name)) for name in self.FIELDS}

    # -- folding log entries ----------------------------------------------------

    def seat_taken(self, seat: int, at: float, bot: str | None, asked: str | None = None) -> None:
        """A person (away until their first connection) or a bot sits down, asked for by
        the request whose key's digest is ``asked`` (None: a request without one)."""
        self.bots[seat] = bot
        self.asked[seat] = asked
        self.away_since[seat] = None if bot else at
        self._presence = None

    def seats_asked(self, asked: str) -> list[int]:
        """The seats the request whose key's digest is ``asked`` took."""
        return [seat for seat, digest in enumerate(self.asked) if digest == asked]

    def presence(self, seat: int, connected: bool, at: float) -> None:
        self.connected[seat] = connected
        self.away_since[seat] = None if connected or self.bots[seat] else at
        self._presence = None

    def zombie_played(self, seat: int) -> bool:
        """A decision a zombie played for a person: a timeout, and maybe the
        expulsion (True when this one expelled the player). A decision made in secret
        (:func:`in_secret`) is none: the fold counts the one that ends the seat's part."""
        if self.bots[seat] is not None:
            return False  # expelled already: the zombie holds the seat
        self._presence = None
        self.timeouts[seat] += 1
        limit = self.options["expel_after"]
        if limit and self.timeouts[seat] >= limit:
            self.bots[seat] = "zombie"
            self.away_since[seat] = None
            return True
        return False

    def turn(
        self,
        before: frozenset[int],
        after: frozenset[int],
        actor: int | None,
        at: float,
        told: bool = True,
    ) -> None:
        """Stop the clocks of the seats that acted or are no longer asked, start the
        clocks of the seats newly asked (or asked again after acting).

        A decision made in secret (:func:`in_secret`: Crystal Palace's dice, its final
        repayment; ``told`` False when it told nothing) touches no clock, which every
        viewer sees, so the seat's clock runs on from the step's start."""
        clock = self.clock
        secret = in_secret(before, after, actor, told)
        for seat in range(len(self.bots)):
            was, asked, acted = seat in before, seat in after, seat == actor and not secret
            if was and (acted or not asked):
                deadline = self.deadline[seat]
                if clock.kind == "fischer" and deadline is not None:
                    self.remaining[seat] = max(0.0, deadline - at) + (
                        clock.increment if acted else 0.0
                    )
                self.deadline[seat] = None
                self.since[seat] = None
            if asked and (acted or not was):
                self.since[seat] = at
                if clock.kind != "none" and self.bots[seat] is None:
                    self.deadline[seat] = at + max(self.remaining[seat], MIN_DECISION)

    def ended(self, at: float) -> None:
        """The game is over: every clock stops where it is."""
        running = frozenset(seat for seat, since in enumerate(self.since) if since is not None)
        self.turn(running, frozenset(), None, at)

    # -- what is due next -----------------------------------------------------------

    def due(self, to_act: frozenset[int]) -> tuple[float, str, int | None] | None:
        """The next thing the owner must do by itself, as (when, why, seat):
        ``bot`` (a bot seat acts), ``clock`` (a deadline passed), ``away`` (the
        player has been away past the grace period), ``idle`` (with no clock, the
        player is here but has not decided for ``idle`` seconds), or ``abandon``
        (seat None). A zombie plays (``clock``, ``away``, ``idle``) only while a
        player is at the table: for players who all left, nothing is played until
        they come back or the room is abandoned."""
        # Plain loops, no generator, lambda or list: the owner asks this after every move.
        # Of equal times the first found wins, in this order: by seat, a bot, a clock,
        # then away or idle; abandonment last.
        options = self.options
        bots, connected, away_since = self.bots, self.connected, self.away_since
        here = False  # a person is at the table
        unknown = False  # a person left with no time of leaving
        last_away: float | None = None  # when the last person to leave left
        for s in range(len(bots)):
            if bots[s] is not None:
                continue
            if connected[s]:
                here = True
                continue
            away = away_since[s]
            if away is None:
                unknown = True
            elif last_away is None or away > last_away:
                last_away = away
        best: tuple[float, str, int | None] | None = None
        for seat in sorted(to_act):
            since = self.since[seat]
            if since is None:
                continue
            if bots[seat] is not None:
                best = _sooner(best, since + options["bot_delay"], "bot", seat)
                continue
            if not here:
                continue  # nobody plays for players who all left: the room waits for them
            deadline = self.deadline[seat]
            if deadline is not None:
                best = _sooner(best, deadline, "clock", seat)
            away = away_since[seat]
            if not connected[seat] and away is not None:
                when = max(away + options["grace"], since + options["bot_delay"])
                best = _sooner(best, when, "away", seat)
            elif connected[seat] and self.clock.kind == "none":
                best = _sooner(best, since + options["idle"], "idle", seat)
        if not here and not unknown and last_away is not None:  # every person left
            best = _sooner(best, last_away + options["abandon_after"], "abandon", None)
        return best

    # -- the room document ----------------------------------------------------------

    def presence_doc(self) -> list[dict[str, Any]]:
        """The document's ``presence``: the same object until it changes (read-only)."""
        if self._presence is None:
            self._presence = [
                {
                    "connected": self.connected[s],
                    "away_since": self.away_since[s],
                    "bot": self.bots[s],
                    "timeouts": self.timeouts[s],
                }
                for s in range(len(self.bots))
            ]
        return self._presence

    def clock_doc(self) -> dict[str, Any] | None:
        if self.clock.kind == "none":
            return None
        return {
            "control": self.clock.text(),
            "remaining": list(self.remaining),
            "deadline": list(self.deadline),
        }
