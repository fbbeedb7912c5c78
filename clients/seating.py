"""Taking a seat for ``tablewire play``: a token, a room, a new room with bots, or
quick play (:func:`take_seat`, :func:`seat_bots`), and the printed command that comes
back to the seat (:func:`come_back`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clients.addresses import shown
from clients.client import LobbyClient, LobbyError
from engines import default_game


@dataclass
class SeatRequest:
    """How ``play`` finds its seat: a token, a room, a new room with bots, or quick play."""

    room: str | None = None
    token: str | None = None
    name: str | None = None
    game: str = field(default_factory=default_game)
    seats: int | None = None
    """Quick play: the room size wanted; with ``bots``: the new room's size (default 1+bots)."""
    bots: int = 0
    bot_kind: str | None = None
    """None: the server's choice (the game's strongest bot)."""
    options: dict[str, Any] = field(default_factory=dict)
    rematch: bool = False
    """A seat in the rematch of ``room``, a finished room where ``token`` holds a seat."""
    invite: str | None = None
    """A private ``room``'s invitation (the ``invite`` of the link its creator shared)."""


def bots_body(seats: list[int], kind: str | None) -> dict[str, Any]:
    """The ``bots`` of a room request: those seats, and the kind unless the server chooses."""
    return {"seats": seats} if kind is None else {"seats": seats, "kind": kind}


def bot_seats(seats: int, bots: int, first: int) -> list[int]:
    """The 0-based seats of ``bots`` bots from seat ``first`` of a ``seats``-seat room."""
    if bots < 1 or first + bots > seats:
        raise ValueError(f"{bots} bots do not fit in seats {first + 1}-{seats}")
    return list(range(first, first + bots))


async def take_seat(lobby: LobbyClient, request: SeatRequest) -> dict[str, Any]:
    """Reserve the seat ``request`` asks for; returns ``{room, seat, token, ...}``.
    A room of one's own with bots comes with them; bots for the free seats of a given
    room are asked for afterwards (:func:`seat_bots`), once the seat's token is shown."""
    if request.rematch:
        assert request.room is not None and request.token is not None
        again = await lobby.rematch(request.room, request.token)
        return {"room": again["id"], "seat": again["seat"], "token": again["token"]}
    if request.bots and request.room is None:
        seats = request.seats or 1 + request.bots
        room = await lobby.create_room(
            request.game,
            seats,
            request.options,
            bots=bots_body(bot_seats(seats, request.bots, 1), request.bot_kind),
            name=request.name,  # refused before the room is made, as the seat would refuse it
        )
        return await lobby.reserve(room["id"], name=request.name, seat=0)
    if request.room is None:
        return await lobby.quickplay(request.game, name=request.name, seats=request.seats)
    if request.bots:
        record = await lobby.room(request.room)
        if record["status"] == "finished":  # as the server says to a seat asked there
            raise LobbyError(409, "game_over", "the game in this room is over")
        free = record["names"].count(None)
        if free < request.bots + 1:
            raise LobbyError(
                409,
                "room_full",
                f"room {request.room} has {free} free seats, not one for you "
                f"and {request.bots} for bots",
            )
        _may_add_bots(record)
    return await lobby.reserve(request.room, name=request.name, invite=request.invite)


def _may_add_bots(record: dict[str, Any]) -> None:
    """Refuse, before a seat is taken, the bots the server would refuse once it is
    (server/credentials.py): ``play`` never holds the owner's token of a room it did not
    create, and a room without an owner takes bots only from a player alone in it."""
    if record.get("owned"):
        raise LobbyError(403, "owner_required", "only the room's creator may add bots to it")
    bots = record.get("bots") or [None] * len(record["names"])
    if any(name and bots[seat] is None for seat, name in enumerate(record["names"])):
        raise LobbyError(
            403, "owner_required", "only a player alone in the room may add bots to it"
        )


async def seat_bots(lobby: LobbyClient, request: SeatRequest) -> None:
    """``--bots`` in a given room: bots in its first free seats."""
    if request.room is None or not request.bots:
        return
    names = (await lobby.room(request.room))["names"]
    free = [i for i, name in enumerate(names) if name is None]
    await lobby.add_bots(request.room, request.bot_kind, free[: request.bots])


def server_option(server: str, default_server: str) -> str:
    """The ``--server`` of a printed command: none for the default server (the one
    ``TABLEWIRE_SERVER`` names, credentials and all); another without its credentials
    (:func:`~clients.addresses.shown`)."""
    return "" if server == default_server else f" --server={shown(server)}"


def come_back(server: str, room: str, token: str | None, default_server: str) -> str:
    """The one-line command that comes back to a seat (or watches the room again)."""
    where = server_option(server, default_server)
    if token is None:
        return f"tablewire spectate{where} --room={room}"
    return f"tablewire play{where} --room={room} --token={token}"
