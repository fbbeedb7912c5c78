"""``POST /api/rooms`` with the ``name`` its creator will sit under: refused, before
anything is created or counted against ``room_rate``, as a seat request in that room
would refuse it."""

from __future__ import annotations

import httpx
import pytest

from server.errors import ApiError
from server.lobby import Lobby
from server.settings import Settings
from server.store import MemoryStore
from server.store.base import ALL
from support import error_code

PLAY_NOW = {"engine": "sintra", "seats": 3, "bots": {"seats": [1, 2]}}
"""The web lobby's "Play now" (and ``tablewire play --bots 2``): the creator in seat 0."""
CREATE = {"engine": "sintra", "seats": 3, "bots": {"seats": [2], "kind": "random"}}
"""The web lobby's form: a bot in the last seat, seat 1 for a friend."""

REFUSED = [
    ("", 400, "bad_name"),
    ("   ", 400, "bad_name"),
    ("x" * 33, 400, "bad_name"),
    ("ana\x1b[31m", 400, "bad_name"),
    ("ana (YOU)", 400, "bad_name"),
    ("spectator", 409, "name_taken"),
    ("Ѕрeсtаtоr", 409, "name_taken"),  # Cyrillic look-alike letters
    ("player 2", 409, "name_taken"),  # the free seat 1's
    ("random bot 3", 409, "name_taken"),  # its bot's
    ("greedy bot 2", 409, "name_taken"),  # a kind none of its bots is, of a seat it has
    ("GREEDY BOT 1", 409, "name_taken"),  # a bot's name for the creator's own seat
]


@pytest.mark.parametrize(("name", "status", "code"), REFUSED)
async def test_a_name_the_new_room_would_refuse_creates_nothing(
    name: str, status: int, code: str
) -> None:
    """A "Play now" whose name the seat request then refused left a public room of bots
    and no player in the list (for ``waiting_ttl``, an hour), and used up one of the
    address's rooms: the name, given with the room, is refused before either."""
    store = MemoryStore()
    lobby = Lobby(store, Settings(room_rate=1 / 3600, room_burst=1), lambda: 1000.0)
    with pytest.raises(ApiError) as refused:
        await lobby.create({**CREATE, "name": name}, client="10.0.0.1")
    assert (refused.value.status, refused.value.code) == (status, code)
    assert lobby.rooms == {} and (await store.page(ALL, 10, None))[0] == []
    await lobby.create(CREATE, client="10.0.0.1")  # the address's one room: not used up
    await lobby.close()


async def test_a_name_a_seat_would_take_creates_the_room_and_takes_no_seat() -> None:
    """``player 1`` is seat 0's own name, the seat its creator takes, and ``player 2``
    nobody's where a bot holds seat 1 (as a seat request would allow them); the name is
    not kept: the creator asks for the seat afterwards."""
    lobby = Lobby(MemoryStore(), Settings())
    for name in ("ana", " José ", "player 1", "player 2"):
        room = await lobby.create({**PLAY_NOW, "name": name})
        assert room["names"] == [None, "greedy bot 2", "greedy bot 3"]
        seat = await lobby.reserve(room["id"], {"name": name})
        assert seat["seat"] == 0
        assert (await lobby.details(room["id"]))["names"][0] == name.strip()
    await lobby.close()


async def test_a_name_beside_bots_on_every_seat_is_refused_as_a_full_room() -> None:
    lobby = Lobby(MemoryStore(), Settings())
    with pytest.raises(ApiError) as refused:
        await lobby.create({"engine": "sintra", "seats": 2, "bots": {}, "name": "ana"})
    assert (refused.value.status, refused.value.code) == (409, "room_full")
    assert lobby.rooms == {}
    with pytest.raises(ApiError) as bad:
        await lobby.create({"engine": "sintra", "name": 7})
    assert (bad.value.status, bad.value.code) == (400, "bad_name")
    await lobby.close()


async def test_over_http_a_refused_name_lists_no_room(http: httpx.AsyncClient) -> None:
    refused = await http.post("/api/rooms", json={**PLAY_NOW, "name": "spectator"})
    assert (refused.status_code, error_code(refused)) == (409, "name_taken")
    assert (await http.get("/api/rooms")).json() == []
