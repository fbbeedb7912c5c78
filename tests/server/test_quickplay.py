"""Quick play over HTTP: a seat beside a person waiting, else a small room of its own."""

from __future__ import annotations

import httpx

from support import error_code


async def test_quickplay_joins_the_fullest_open_room(http: httpx.AsyncClient) -> None:
    emptier = (await http.post("/api/rooms", json={"engine": "sintra", "seats": 4})).json()
    fuller = (await http.post("/api/rooms", json={"engine": "sintra", "seats": 4})).json()
    await http.post(f"/api/rooms/{fuller['id']}/seats", json={})
    private = (await http.post("/api/rooms", json={"engine": "sintra", "private": True})).json()
    for _ in range(3):
        await http.post(f"/api/rooms/{private['id']}/seats", json={})
    joined = (await http.post("/api/quickplay", json={"engine": "sintra", "name": "bo"})).json()
    assert joined["room"] == fuller["id"] and joined["seat"] == 1
    assert emptier["id"] != joined["room"]


async def test_quickplay_without_seats_creates_a_room_of_the_default_size(
    http: httpx.AsyncClient,
) -> None:
    joined = await http.post("/api/quickplay", json={"engine": "chartered", "name": "x"})
    assert joined.status_code == 201, joined.text
    room = (await http.get(f"/api/rooms/{joined.json()['room']}")).json()
    assert (room["seats"], room["taken"], room["names"][0]) == (2, 1, "x"), "a small room"
    again = await http.post("/api/quickplay", json={"engine": "chartered", "seats": None})
    assert again.json()["room"] == room["id"], "no seats asked: any open room of the engine"
    started = (await http.get(f"/api/rooms/{room['id']}")).json()
    assert started["status"] == "playing", "the second player starts the game"


async def test_quickplay_seats_a_newcomer_with_a_person_waiting_in_a_room_of_any_size(
    http: httpx.AsyncClient,
) -> None:
    created = (await http.post("/api/rooms", json={"engine": "sintra", "seats": 4})).json()
    await http.post(f"/api/rooms/{created['id']}/seats", json={"name": "ana"})
    empty = (await http.post("/api/rooms", json={"engine": "sintra", "seats": 2})).json()
    joined = (await http.post("/api/quickplay", json={"engine": "sintra", "name": "bo"})).json()
    assert joined["room"] == created["id"] != empty["id"], "the room where ana waits"


async def test_quickplay_with_a_bad_name_creates_no_room(http: httpx.AsyncClient) -> None:
    refused = await http.post("/api/quickplay", json={"engine": "sintra", "name": ""})
    assert (refused.status_code, error_code(refused)) == (400, "bad_name")
    assert (await http.get("/api/rooms")).json() == []


async def test_quickplay_creates_a_room_when_none_is_open(http: httpx.AsyncClient) -> None:
    joined = await http.post("/api/quickplay", json={"engine": "sintra", "seats": 3})
    assert joined.status_code == 201
    room = (await http.get(f"/api/rooms/{joined.json()['room']}")).json()
    assert (room["seats"], room["taken"]) == (3, 1)


async def test_quickplay_takes_a_name_the_seat_it_gets_would_take(http: httpx.AsyncClient) -> None:
    """Quick play checks a name as a seat request checks it for the seat it gets (the
    first free one), as ``POST /api/rooms`` checks its creator's: "player 1" is the
    name seat 0 has anyway, "player 2" that of seat 1 beside a person waiting."""
    alone = await http.post("/api/quickplay", json={"engine": "sintra", "name": "player 1"})
    assert (alone.status_code, alone.json()["seat"]) == (201, 0), alone.text
    beside = await http.post("/api/quickplay", json={"engine": "sintra", "name": "player 2"})
    assert beside.status_code == 201, beside.text
    assert (beside.json()["room"], beside.json()["seat"]) == (alone.json()["room"], 1)


async def test_quickplay_joins_a_room_whose_free_seat_takes_the_name(
    http: httpx.AsyncClient,
) -> None:
    """A room whose seat 1 is taken, seat 0 free: "player 1" is the name of the seat a
    newcomer gets there, so quick play seats them in it rather than passing it over."""
    room = (await http.post("/api/rooms", json={"engine": "sintra", "seats": 2})).json()
    await http.post(f"/api/rooms/{room['id']}/seats", json={"seat": 1, "name": "bo"})
    joined = await http.post("/api/quickplay", json={"engine": "sintra", "name": "player 1"})
    assert joined.status_code == 201, joined.text
    assert (joined.json()["room"], joined.json()["seat"]) == (room["id"], 0)
