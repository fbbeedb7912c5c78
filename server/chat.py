"""A room's chat: who may say something, the line everyone gets, the recent lines kept.

Chat is beside the game, never in it: a line changes neither the game state nor the
room's log or version, and it is not stored. Each process that has the room loaded
keeps the last :data:`HISTORY` lines in memory and sends them to every connection
that joins there; on the Redis store the process that took a line publishes it to
the others (:meth:`~server.room_parts.Forwarder.forward_chat`), which keep it too. So
a process that loads the room later, or restarts, starts with no lines: chat is lost
when every process that had the room loaded is gone, by design (it is talk, not a
record of the game).

**Who may chat.** Every seated player, at any time. A spectator while the game waits
for players or is over; while it is being played, only in a room whose option
``spectator_chat`` is on (off by default): spectators, who may see what a player
cannot, do not talk to the players during their game unless the room allows it.

**How fast.** Each connection and each address has its own rate (``chat_rate``,
:mod:`server.limits`); the room has one for everyone in it together (:class:`Pace`), so
that many connections from many addresses cannot flood one room's chat.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Sequence
from typing import Any

import icu

from engines.bots import KINDS
from protocol import messages
from protocol.codec import encode
from protocol.errors import Code, ProtocolError
from protocol.session import refusal as refusal_frame
from protocol.text import BLANK
from server import metrics
from server.errors import ApiError, retry_delay
from server.settings import Settings
from server.store import RoomRecord

HISTORY = 50
"""Chat lines a room keeps for the connections that join it."""
SPECTATOR = "spectator"
"""The name a spectator's line carries (spectators are not named)."""

Line = dict[str, Any]
"""``{"seat": int | None, "name": str, "text": str, "at": epoch seconds}``."""

_SPOOF = icu.SpoofChecker()
"""ICU's implementation of Unicode TR39 (security mechanisms): its confusable skeleton."""


_UNSEEN = icu.UnicodeSet("[:Default_Ignorable_Code_Point:]")
"""Characters that draw nothing (variation selectors, the combining grapheme joiner, the
Hangul fillers, ...): a name may hold some (text.py), but they tell no name apart."""


def _shown(text: str) -> str:
    """``text`` as a page shows it: without the characters that draw nothing, a blank
    (:data:`~protocol.text.BLANK`) as a space, and each run of spaces as one (HTML draws
    ``ana  bo`` as ``ana bo``)."""
    kept = "".join(" " if c in BLANK else c for c in text if not _UNSEEN.contains(c))
    return " ".join(kept.split())


@functools.lru_cache(maxsize=4096)  # quick play checks a name against a hundred rooms
def look_alikes(name: str) -> frozenset[str]:
    """What names that read or look alike share: the TR39 confusable skeleton of the
    name in NFKC, as written and case folded, as shown (:func:`_shown`: what draws
    nothing left out, spaces run together). ``Ana``, ``ANA`` and ``Ａｎａ`` read alike;
    Latin ``ana`` and ``аna`` with a Cyrillic ``а``, ``Bill`` and ``BiII``, ``ANA`` and
    ``ана``, ``ana`` and ``ana`` with a variation selector, ``ana bo`` and ``ana  bo``
    look alike. Two names are alike when these sets meet; a name of one script alone
    (``José``, ``Анна``, ``李雷``) stays itself."""
    written = _shown(unicodedata.normalize("NFKC", name))
    return frozenset(_shown(_SPOOF.getSkeleton(0, form)) for form in (written, written.casefold()))


def seat_name(names: Sequence[str | None], seat: int) -> str:
    """What a seat's player is called: the name given, else "player N" (N from 1)."""
    return names[seat] or f"player {seat + 1}"


def bot_name(kind: str, seat: int) -> str:
    """What a bot of ``kind`` in ``seat`` is called ("greedy bot 2": N from 1)."""
    return f"{kind} bot {seat + 1}"


def name_in_use(names: Sequence[str | None], name: str, seat: int | None = None) -> bool:
    """Whether ``name`` reads or looks as the player of a seat of ``names`` other than
    ``seat`` (a seat taken with no name, or to be, is "player N": :func:`seat_name`), as
    a bot any seat of the room may be given (:func:`bot_name`, whatever its kind), or
    as :data:`SPECTATOR` (:func:`look_alikes`): chat and the log would show one
    person's lines as another's."""
    keys = look_alikes(name)
    seats = range(len(names))
    return (
        not keys.isdisjoint(look_alikes(SPECTATOR))
        or any(s != seat and not keys.isdisjoint(look_alikes(seat_name(names, s))) for s in seats)
        or any(not keys.isdisjoint(look_alikes(bot_name(kind, s))) for kind in KINDS for s in seats)
    )


def held_for(names: Sequence[str | None], held_names: Sequence[str | None], name: str) -> bool:
    """Whether ``name`` reads or looks as (:func:`look_alikes`) the name of a former
    player of a rematch (``held_names``, per seat) whose seat is still free: they may
    take it back under that name at any time (their claim keeps it), so nobody else
    may take it."""
    keys = look_alikes(name)
    return any(
        former is not None and names[s] is None and not keys.isdisjoint(look_alikes(former))
        for s, former in enumerate(held_names)
    )


def name_refusal(
    names: Sequence[str | None], name: str, seat: int, held_names: Sequence[str | None] = ()
) -> ApiError | None:
    """Why a seat request for ``seat`` under ``name`` is refused (409 ``name_taken``), or
    None: the one rule for the seat request, quick play's choice of a room and the
    creator's name of ``POST /api/rooms``. Taken: :func:`name_in_use`; or held for a
    rematch's former player (:func:`held_for`)."""
    if name_in_use(names, name, seat):
        return ApiError(
            409,
            "name_taken",
            f"a player of this room goes by {name!r} already (or a name that reads or looks "
            "the same: a seat with no name is 'player N', a bot 'greedy bot N'), or it is what "
            "chat calls spectators: choose another name",
        )
    if held_for(names, held_names, name):
        return ApiError(
            409,
            "name_taken",
            f"a player of this room's last game goes by {name!r} (or a name that reads or "
            "looks the same) and may still take their seat back: choose another name",
        )
    return None


def refusal(record: RoomRecord, seat: int | None) -> ProtocolError | None:
    """Why ``seat`` (None: a spectator) may not chat in the room now, or None."""
    if seat is not None or record.status != "playing":
        return None
    if record.room_options.get("spectator_chat", False):
        return None
    return ProtocolError(
        Code.CHAT_NOT_ALLOWED,
        "spectators may chat before and after the game, not during it, in this room",
        of="say",
    )


def line(record: RoomRecord, seat: int | None, text: str, at: float) -> Line:
    """The line ``seat`` says, named by the seat's player."""
    name = SPECTATOR if seat is None else seat_name(record.names, seat)
    return {"seat": seat, "name": name, "text": text, "at": at}


class Pace:
    """The chat lines one room takes, from everyone in it together: ``room_chat_burst``
    at once, then ``room_chat_rate`` a second (0: no limit). Spectators' lines leave
    half the burst (rounded down) to the players: a crowd of spectators (many addresses) cannot
    silence them. Lines said in the room on other processes count too (:meth:`heard`),
    so the rate holds for the room, not for each process (a line each process took at
    the same moment aside)."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, settings: Settings, now: float) -> None:
        self.rate = settings.room_chat_rate
        self.burst = self.tokens = max(1.0, settings.room_chat_burst)
        self.stamp = now

    def _fill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def refusal(self, now: float, seat: int | None) -> bytes | None:
        """The ``rate_limited`` error for a line ``seat`` (None: a spectator) says here
        now, or None (the line taken)."""
        if self.rate <= 0:
            return None
        self._fill(now)
        need = 1.0 if seat is not None else 1.0 + self.burst // 2
        if self.tokens >= need:
            self.tokens -= 1.0
            return None
        wait = retry_delay((need - self.tokens) / self.rate)
        metrics.ERRORS.labels(Code.RATE_LIMITED).inc()
        metrics.RATE_LIMITED.labels("room_chat").inc()
        message = f"too many lines in this room's chat from everyone; retry in {wait:g} s"
        return encode(messages.error(Code.RATE_LIMITED, message, of="say", retry_after=wait))

    def heard(self, now: float) -> None:
        """A line said in the room on another process: it uses up the room's rate here too
        (the debt, at most a burst, delays the lines said here)."""
        if self.rate > 0:
            self._fill(now)
            self.tokens = max(self.tokens - 1.0, -self.burst)


def refused(record: RoomRecord, seat: int | None, pace: Pace, now: float) -> bytes | None:
    """The ``error`` frame refusing a line ``seat`` (None: a spectator) says now (who may
    not chat now: :func:`refusal`; the room's chat too busy: :class:`Pace`), counted; or
    None, the line taken."""
    why = refusal(record, seat)
    if why is not None:
        metrics.ERRORS.labels(why.code).inc()
        return refusal_frame(why)
    return pace.refusal(now, seat)
