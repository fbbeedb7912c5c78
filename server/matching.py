"""Quick play's choice of a room, without I/O: among the rooms of an engine waiting
for players, the one a newcomer should join, or the size of the room to open."""

from __future__ import annotations

from collections.abc import Sequence

from engines import Engine
from server.chat import name_refusal
from server.store import RoomRecord
from server.table import DEFAULTS

QUICK_SEATS = 2
"""Seats of a room quick play opens unasked: a newcomer waits for one player, not five."""


def _people(record: RoomRecord) -> list[int]:
    """The seats held by people (not bots)."""
    bots = record.bots or [None] * record.seats
    return [s for s, name in enumerate(record.names) if name is not None and bots[s] is None]


def _here(record: RoomRecord) -> int:
    """How many seated people have a connection open."""
    connected = record.connected or [False] * record.seats
    return sum(connected[s] for s in _people(record))


def _deserted(record: RoomRecord, now: float) -> bool:
    """Every seated person has been away longer than the room's grace period."""
    people = _people(record)
    if not people:
        return False
    grace = record.room_options.get("grace", DEFAULTS["grace"])
    connected = record.connected or [False] * record.seats
    away = record.away_since or [None] * record.seats
    return all(
        not connected[s] and (away[s] is None or now - away[s] > grace)  # type: ignore[operator]
        for s in people
    )


def held_seats(record: RoomRecord, now: float) -> set[int]:
    """The seats a rematch still holds for the finished game's players."""
    if record.held_until is None or now >= record.held_until:
        return set()
    return {seat for seat, held in enumerate(record.held) if held}


def free_seat(record: RoomRecord, now: float) -> int | None:
    """The seat a request without a seat number takes (the room's actor asks this too:
    :func:`server.room_commands.reserve`): the first free one a rematch does not still
    hold for its last player; None when there is none (a newcomer would be refused
    ``seat_held``)."""
    held = held_seats(record, now)
    return next((s for s, name in enumerate(record.names) if name is None and s not in held), None)


def _takes(record: RoomRecord, name: str | None, now: float) -> bool:
    """Whether a newcomer asking for no seat in particular gets one here under ``name``:
    a free seat it may take, and a name the seat request takes for that seat
    (:func:`server.chat.name_refusal`)."""
    seat = free_seat(record, now)
    if seat is None:
        return False
    return name is None or name_refusal(record.names, name, seat, record.held_names) is None


def best_room(
    waiting: Sequence[RoomRecord], seats: int | None, now: float, name: str | None = None
) -> str | None:
    """The id of the open public room of ``seats`` seats (None: any size) with the most
    people connected, then the fullest, never one whose seated people have all been
    away past its grace period, nor a rematch whose free seats are all held, nor one
    whose seat it would get refuses ``name`` (:func:`_takes`); None when there is
    none."""
    fits = [r for r in waiting if r.status == "waiting" and seats in (None, r.seats)]
    candidates = [
        r for r in fits if not r.private and not _deserted(r, now) and _takes(r, name, now)
    ]
    if not candidates:
        return None
    return max(candidates, key=lambda r: (_here(r), sum(n is not None for n in r.names))).id


def new_room_size(engine: Engine, seats: int | None) -> int:
    """The seats of the room quick play opens: those asked for, else
    :data:`QUICK_SEATS` within the engine's range."""
    return seats or min(max(QUICK_SEATS, engine.min_players), engine.max_players)
