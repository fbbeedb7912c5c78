"""Requests that take seats (a seat, quick play, bots, a rematch) with an
``Idempotency-Key``: a repeat is answered what the first one took (the same seat, the
same token), never a second seat, on the memory store and on Redis, from another
process and after a restart."""

from __future__ import annotations

import httpx
import pytest
from wire import played_out

from conftest import Running, running
from server.settings import Settings
from server.table import Table
from support import error_code

KEY = "a-key-drawn-at-random-0001"


def keyed(key: str = KEY) -> dict[str, str]:
    return {"Idempotency-Key": key}


async def _room(http: httpx.AsyncClient, seats: int = 2, **fields: object) -> dict[str, str]:
    created = await http.post("/api/rooms", json={"engine": "sintra", "seats": seats, **fields})
    assert created.status_code == 201, created.text
    room: dict[str, str] = created.json()
    return room


async def test_a_repeated_seat_request_gets_the_same_seat_and_token(
    http: httpx.AsyncClient,
) -> None:
    room = await _room(http, seats=3)
    path = f"/api/rooms/{room['id']}/seats"
    first = await http.post(path, json={"name": "ana"}, headers=keyed())
    again = await http.post(path, json={"name": "ana"}, headers=keyed())
    assert (first.status_code, again.status_code) == (201, 201), again.text
    assert again.json() == first.json(), "the same seat, the same token"
    other = await http.post(path, json={"name": "bo"}, headers=keyed("another-key-0000000002"))
    assert other.json()["seat"] == 1 and other.json()["token"] != first.json()["token"]
    details = (await http.get(f"/api/rooms/{room['id']}")).json()
    assert (details["taken"], details["names"]) == (2, ["ana", "bo", None])


async def test_a_repeat_after_the_last_seat_started_the_game_is_still_answered(
    http: httpx.AsyncClient,
) -> None:
    room = await _room(http)
    path = f"/api/rooms/{room['id']}/seats"
    await http.post(path, json={})
    last = await http.post(path, json={}, headers=keyed('"quoted-structured-field-key"'))
    again = await http.post(path, json={}, headers=keyed("quoted-structured-field-key"))
    assert again.status_code == 201 and again.json() == last.json(), again.text
    assert (await http.get(f"/api/rooms/{room['id']}")).json()["status"] == "playing"
    unkeyed = await http.post(path, json={})
    assert (unkeyed.status_code, error_code(unkeyed)) == (409, "room_full")


@pytest.mark.parametrize(
    "key",
    ["short", "has space in it 0000", "x" * 129, "ünïcödé-key-00000000", '"unclosed-quote-0000'],
)
async def test_a_malformed_key_is_refused_and_takes_nothing(
    http: httpx.AsyncClient, key: str
) -> None:
    room = await _room(http)
    for path, body in [
        (f"/api/rooms/{room['id']}/seats", {}),
        (f"/api/rooms/{room['id']}/bots", {"owner_token": room["owner_token"]}),
        ("/api/quickplay", {"engine": "sintra"}),
    ]:
        refused = await http.post(path, json=body, headers={"Idempotency-Key": key.encode()})
        assert (refused.status_code, error_code(refused)) == (400, "bad_idempotency_key"), path
    assert (await http.get(f"/api/rooms/{room['id']}")).json()["taken"] == 0
    assert len((await http.get("/api/rooms")).json()) == 1, "quick play opened no room"


async def test_two_keys_in_one_request_are_refused_and_take_nothing(
    http: httpx.AsyncClient,
) -> None:
    """Which of two keys names the request? Neither: a repeat sent with either one
    alone could take a second seat."""
    room = await _room(http)
    path = f"/api/rooms/{room['id']}/seats"
    for second in ("another-key-0000000002", "bad"):
        two = [("Idempotency-Key", KEY), ("Idempotency-Key", second)]
        refused = await http.post(path, json={}, headers=two)
        assert (refused.status_code, error_code(refused)) == (400, "bad_idempotency_key")
    assert (await http.get(f"/api/rooms/{room['id']}")).json()["taken"] == 0


async def test_a_repeated_bots_request_takes_no_more_seats(http: httpx.AsyncClient) -> None:
    room = await _room(http, seats=3)
    path = f"/api/rooms/{room['id']}/bots"
    body = {"owner_token": room["owner_token"], "seats": [1, 2]}
    first = await http.post(path, json=body, headers=keyed())
    again = await http.post(path, json=body, headers=keyed())
    assert (first.status_code, again.status_code) == (201, 201), again.text
    assert again.json()["taken"] == first.json()["taken"] == 2
    unkeyed = await http.post(path, json=body)
    assert (unkeyed.status_code, error_code(unkeyed)) == (409, "seat_taken")
    seat = await http.post(f"/api/rooms/{room['id']}/seats", json={}, headers=keyed())
    assert seat.json()["seat"] == 0, "a key's bots and its seat are told apart"


async def test_a_repeated_quickplay_gets_the_same_room_seat_and_token(
    http: httpx.AsyncClient,
) -> None:
    body = {"engine": "chartered", "name": "ana"}
    first = await http.post("/api/quickplay", json=body, headers=keyed())
    again = await http.post("/api/quickplay", json=body, headers=keyed())
    assert (first.status_code, again.status_code) == (201, 201), again.text
    assert again.json() == first.json()
    room = (await http.get(f"/api/rooms/{first.json()['room']}")).json()
    assert (room["taken"], room["status"]) == (1, "waiting"), "one seat, not the room filled"
    bea = {**body, "name": "bea"}  # (a second "ana" would be seated elsewhere: name_taken)
    other = await http.post("/api/quickplay", json=bea, headers=keyed("another-key-0000000002"))
    assert (other.json()["room"], other.json()["seat"]) == (room["id"], 1)
    # Its room is full now: a quick play under a key that chose it, but took nothing
    # there, is seated in another room rather than refused.
    await http.post(f"/api/rooms/{room['id']}/seats", json={})
    later = await http.post("/api/quickplay", json=body, headers=keyed())
    assert later.json() == first.json(), "still the seat it took"


async def test_a_repeated_rematch_gets_the_same_seat_and_token(
    server: Running, http: httpx.AsyncClient
) -> None:
    room_id, tokens = await played_out(server, seed=3)
    path = f"/api/rooms/{room_id}/rematch"
    first = await http.post(path, json={"token": tokens[0]}, headers=keyed())
    again = await http.post(path, json={"token": tokens[0]}, headers=keyed())
    assert (first.status_code, again.status_code) == (201, 201), again.text
    assert (again.json()["seat"], again.json()["token"]) == (0, first.json()["token"])
    unkeyed = await http.post(path, json={"token": tokens[0]})
    assert (unkeyed.status_code, error_code(unkeyed)) == (409, "seat_taken")
    other = await http.post(path, json={"token": tokens[0]}, headers=keyed("a-new-request-000001"))
    assert (other.status_code, error_code(other)) == (409, "seat_taken"), other.text
    assert "taken already" in other.json()["error"]["message"], "a new key is a new request"


async def test_a_repeat_asked_of_another_process_or_after_a_restart_gets_the_same_seat(
    redis_url: str, prefix: str
) -> None:
    settings = Settings(redis_url=redis_url, redis_prefix=prefix)
    async with running(settings) as owner:
        async with httpx.AsyncClient(base_url=owner.url) as http:
            room = await _room(http, seats=3)
            room_id = room["id"]
            path = f"/api/rooms/{room_id}/seats"
            asked = await http.post(path, json={"name": "ana"}, headers=keyed())
            assert asked.status_code == 201, asked.text
            first = asked.json()
        bots = f"/api/rooms/{room_id}/bots"
        body = {"owner_token": room["owner_token"], "seats": [2]}
        async with running(settings) as replica, httpx.AsyncClient(base_url=replica.url) as http:
            forwarded = await http.post(path, json={"name": "ana"}, headers=keyed())
            assert forwarded.status_code == 201 and forwarded.json() == first, forwarded.text
            loaded = replica.lobby.room(room_id)
            assert loaded is not None and loaded.lease is None, "forwarded to the owner"
            for _ in range(2):  # a call forwarded with its key, then its repeat
                seated = await http.post(bots, json=body, headers=keyed("a-bots-request-00001"))
                assert seated.status_code == 201 and seated.json()["taken"] == 2, seated.text
    async with running(settings) as restarted, httpx.AsyncClient(base_url=restarted.url) as http:
        again = await http.post(path, json={"name": "ana"}, headers=keyed())
        assert again.status_code == 201 and again.json() == first, again.text
        assert (await http.get(f"/api/rooms/{room_id}")).json()["taken"] == 2


def test_a_snapshot_keeps_which_request_took_each_seat() -> None:
    table = Table(3, {})
    table.seat_taken(0, 1.0, None, "digest-of-a-key")
    table.seat_taken(1, 1.0, "random", None)
    restored = Table(3, {}, table.dump())
    assert restored.seats_asked("digest-of-a-key") == [0]
    older = {k: v for k, v in table.dump().items() if k != "asked"}
    assert Table(3, {}, older).seats_asked("digest-of-a-key") == [], "an earlier snapshot"
