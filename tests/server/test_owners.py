"""Nobody acts where they do not belong: a room's owner, private rooms' invitations,
the seats a rematch holds for its players, and a chosen seed told to everyone."""

from __future__ import annotations

import random
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from server.app import create_app
from server.errors import ApiError
from server.lobby import Lobby
from server.room import Room
from server.settings import Settings
from server.store import MemoryStore
from server.timers import ManualTimers
from support import Player, run


async def refused(call: object, status: int, code: str) -> ApiError:
    """Await ``call`` and expect it refused with ``status`` and ``code``."""
    with pytest.raises(ApiError) as caught:
        await call  # type: ignore[misc]
    assert (caught.value.status, caught.value.code) == (status, code), caught.value
    return caught.value


# -- ownership -------------------------------------------------------------------------


async def test_only_the_owner_fills_a_waiting_room_with_bots(lobby: Lobby) -> None:
    """A creator waiting for friends: a stranger's bots are refused and nothing changes."""
    created = await lobby.create({"engine": "chartered", "seats": 4})
    owner_token = created["owner_token"]
    assert "owner_token" not in await lobby.details(created["id"]), "given once"
    await lobby.reserve(created["id"], {"name": "ana"})
    for stranger in ({}, {"owner_token": "guess"}, {"owner_token": 7}):
        await refused(lobby.add_bots(created["id"], stranger), 403, "owner_required")
    details = await lobby.details(created["id"])
    assert (details["status"], details["taken"]) == ("waiting", 1), "nothing changed"
    friend = await lobby.reserve(created["id"], {"name": "bea"})
    assert friend["seat"] == 1
    filled = await lobby.add_bots(created["id"], {"owner_token": owner_token, "seats": [2, 3]})
    assert filled["bots"][:2] == [None, None] and None not in filled["bots"][2:]
    assert filled["status"] == "playing"


async def test_a_quick_play_room_has_no_owner_and_a_player_alone_may_fill_it(
    lobby: Lobby,
) -> None:
    seat = await lobby.quickplay({"engine": "sintra", "seats": 3, "name": "ana"})
    details = await lobby.details(seat["room"])
    assert "owner_token" not in seat and "owner" not in details
    await refused(lobby.add_bots(seat["room"], {}), 403, "owner_required")
    await refused(lobby.add_bots(seat["room"], {"token": "not-a-seat"}), 403, "owner_required")
    filled = await lobby.add_bots(seat["room"], {"token": seat["token"]})
    assert filled["bots"][0] is None and None not in filled["bots"][1:]


async def test_no_one_fills_a_quick_play_room_over_another_players_head(lobby: Lobby) -> None:
    first = await lobby.quickplay({"engine": "sintra", "seats": 4, "name": "ana"})
    second = await lobby.quickplay({"engine": "sintra", "seats": 4, "name": "bo"})
    assert second["room"] == first["room"]
    for seat in (first, second):
        await refused(lobby.add_bots(seat["room"], {"token": seat["token"]}), 403, "owner_required")
    details = await lobby.details(first["room"])
    assert (details["status"], details["bots"]) == ("waiting", [None] * 4), "nothing changed"


# -- private rooms -----------------------------------------------------------------------


async def test_a_private_room_seats_only_who_holds_its_invitation(lobby: Lobby) -> None:
    created = await lobby.create(
        {"engine": "sintra", "seats": 3, "private": True, "options": {"clock": "move:60"}}
    )
    invite = created["invite"]
    link = urlsplit(created["invite_url"])
    assert link.path == f"/rooms/{created['id']}"
    assert parse_qs(link.query) == {"invite": [invite]}
    assert invite not in (created["id"], created["owner_token"])
    for without in ({}, {"invite": "guess"}, {"invite": ["list"]}):
        await refused(lobby.reserve(created["id"], without), 403, "invite_required")
    assert (await lobby.details(created["id"]))["taken"] == 0, "nothing changed"
    seat = await lobby.reserve(created["id"], {"name": "bea", "invite": invite})
    assert seat["seat"] == 0
    mine = await lobby.reserve(created["id"], {"owner_token": created["owner_token"]})
    assert mine["seat"] == 1, "the owner sits with the owner credential"
    shown = await lobby.details(created["id"])
    assert "invite" not in shown and "owner" not in shown
    assert (shown["private"], shown["seed_chosen"]) == (True, False)
    assert shown["room_options"]["clock"] == "move:60"


async def test_a_chosen_seed_is_told_to_whoever_looks_before_sitting(lobby: Lobby) -> None:
    created = await lobby.create({"engine": "sintra", "seats": 2, "private": True, "seed": 42})
    assert (await lobby.details(created["id"]))["seed_chosen"] is True
    room = lobby.room(created["id"])
    assert room is not None
    watcher = await Player(room, None).join()
    assert watcher.frames[0]["t"] == "welcome" and watcher.frames[0]["seed_chosen"] is True
    drawn = await lobby.create({"engine": "sintra", "seats": 2, "private": True})
    assert (await lobby.details(drawn["id"]))["seed_chosen"] is False
    other = lobby.room(drawn["id"])
    assert other is not None
    assert "seed_chosen" not in (await Player(other, None).join()).frames[0]


# -- rematch -----------------------------------------------------------------------------


async def finished_game(
    lobby: Lobby, timers: ManualTimers, owned: bool = True, names: tuple[str, ...] = ("ana", "bea")
) -> tuple[Room, list[str], str | None]:
    """A Sintra game played to its end by ``names`` (a seat each); the room, their
    tokens and its owner's token (None unless ``owned``)."""
    options = {"side": "B", "bot_delay": 0}
    body = {"engine": "sintra", "seats": len(names), "options": options}
    created = await lobby.create(body, owned=owned)
    room = lobby.room(created["id"])
    assert room is not None
    tokens = [(await room.reserve(name))[1] for name in names]
    players = [await Player(room, seat).join() for seat in range(len(names))]
    rnd = random.Random(3)
    for _ in range(2000):
        if room.record.status == "finished":
            break
        assert room.state is not None
        for player in players:
            if player.seat in room.engine.to_act(room.state):
                await player.play(rnd)
        await run(timers, room, 0)
    assert room.record.status == "finished"
    return room, tokens, created.get("owner_token")


async def test_a_rematch_holds_its_players_seats_from_strangers(
    lobby: Lobby, timers: ManualTimers
) -> None:
    room, (ana, bea), _ = await finished_game(lobby, timers)
    await refused(lobby.rematch(room.id, {}), 403, "player_required")
    again = await lobby.rematch(room.id, {"token": ana})
    assert (again["seat"], again["names"]) == (0, ["ana", None])
    assert again["held"] == [True, True] and again["held_until"] == timers() + 120
    new_id = again["id"]
    for body in ({"name": "bea"}, {"name": "bea", "seat": 1}, {"seat": 1}):
        held = await refused(lobby.reserve(new_id, body), 409, "seat_held")
        assert held.retry_after is not None and 0 < held.retry_after <= 120
    assert (await lobby.details(new_id))["names"] == ["ana", None], "nothing changed"
    back = await lobby.rematch(room.id, {"token": bea})
    assert (back["id"], back["seat"], back["names"]) == (new_id, 1, ["ana", "bea"])
    await refused(lobby.rematch(room.id, {"token": bea}), 409, "seat_taken")


@pytest.mark.parametrize("owned", [True, False])
async def test_no_bot_takes_a_seat_a_rematch_holds(
    lobby: Lobby, timers: ManualTimers, owned: bool
) -> None:
    """Neither the owner nor the first player back (alone, in quick play's room without
    an owner) may give a seat held for the other player to a bot: it stays theirs."""
    room, (ana, bea), owner_token = await finished_game(lobby, timers, owned)
    again = await lobby.rematch(room.id, {"token": ana})
    new_id = again["id"]
    asker = {"owner_token": owner_token} if owned else {"token": again["token"]}
    for body in (asker, {**asker, "seats": [1]}, {**asker, "kind": "random", "seats": [1]}):
        held = await refused(lobby.add_bots(new_id, body), 409, "seat_held")
        assert held.retry_after is not None and 0 < held.retry_after <= 120
    shown = await lobby.details(new_id)
    assert (shown["names"], shown["bots"]) == (["ana", None], [None, None]), "nothing changed"
    back = await lobby.rematch(room.id, {"token": bea})
    assert (back["seat"], back["names"]) == (1, ["ana", "bea"])


async def test_after_the_hold_a_rematch_seat_is_open_and_its_player_told_so(
    lobby: Lobby, timers: ManualTimers
) -> None:
    room, (ana, bea), _ = await finished_game(lobby, timers)
    again = await lobby.rematch(room.id, {"token": ana})
    timers.advance(121)
    stranger = await lobby.reserve(again["id"], {"name": "cy"})
    assert stranger["seat"] == 1
    await refused(lobby.rematch(room.id, {"token": bea}), 409, "seat_taken")


async def test_a_former_players_name_is_theirs_while_their_seat_is_free(
    lobby: Lobby, timers: ManualTimers
) -> None:
    """After the hold a newcomer may take a free seat, but not under the name (or one
    that reads or looks the same) of a former player who can still take their seat
    back: bo's claim keeps the name "bo", and two seats would go by it in chat and the
    log. Quick play does not choose the room for a newcomer of that name."""
    room, (ana, bo, cy), _ = await finished_game(lobby, timers, names=("ana", "bo", "cy"))
    again = await lobby.rematch(room.id, {"token": ana})
    assert again["held_names"] == ["ana", "bo", "cy"]
    new_id = again["id"]
    timers.advance(121)
    for body in ({"name": "bo", "seat": 2}, {"name": "BO"}, {"name": "b\u043e", "seat": 1}):
        await refused(lobby.reserve(new_id, body), 409, "name_taken")
    assert (await lobby.details(new_id))["names"] == ["ana", None, None], "nothing changed"
    rematch = lobby.room(new_id)
    assert rematch is not None
    await Player(rematch, 0).join()  # ana waits there: quick play would choose the room
    await run(timers, rematch, 0)
    elsewhere = await lobby.quickplay({"engine": "sintra", "name": "Bo", "seats": 3})
    assert elsewhere["room"] != new_id, "quick play seats a newcomer named so elsewhere"
    await lobby.reserve(new_id, {"name": "dee", "seat": 2})
    back = await lobby.rematch(room.id, {"token": bo})
    assert (back["seat"], back["names"]) == (1, ["ana", "bo", "dee"])
    await refused(lobby.rematch(room.id, {"token": cy}), 409, "seat_taken")


async def test_a_former_players_name_is_free_once_their_seat_is_taken(
    lobby: Lobby, timers: ManualTimers
) -> None:
    """bo's seat taken by a newcomer after the hold, bo may not take it back (409
    ``seat_taken``): "bo" is no former player's name to keep any more."""
    room, (ana, bo, _), _ = await finished_game(lobby, timers, names=("ana", "bo", "cy"))
    new_id = (await lobby.rematch(room.id, {"token": ana}))["id"]
    timers.advance(121)
    await lobby.reserve(new_id, {"name": "dee", "seat": 1})
    await refused(lobby.rematch(room.id, {"token": bo}), 409, "seat_taken")
    newcomer = await lobby.reserve(new_id, {"name": "Bo"})
    assert newcomer["seat"] == 2
    assert (await lobby.details(new_id))["names"] == ["ana", "dee", "Bo"]


# -- over HTTP ---------------------------------------------------------------------------


async def test_credentials_over_http_are_given_once_and_checked() -> None:
    transport = httpx.ASGITransport(app=create_app(Settings()))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
        created = (await http.post("/api/rooms", json={"engine": "sintra", "private": True})).json()
        room = f"/api/rooms/{created['id']}"
        answer = await http.post(f"{room}/bots", json={})
        assert (answer.status_code, answer.json()["error"]["code"]) == (403, "owner_required")
        answer = await http.post(f"{room}/seats", json={"name": "<b>x</b>"})
        assert (answer.status_code, answer.json()["error"]["code"]) == (403, "invite_required")
        answer = await http.post(f"{room}/seats", json={"invite": created["invite"]})
        assert answer.status_code == 201
        shown = (await http.get(room)).json()
        assert not {"owner_token", "owner", "invite", "invite_url"} & set(shown)


async def test_a_load_generator_seats_itself_in_private_benchmark_rooms_only() -> None:
    """The shared harness creates private seeded turn-relay rooms and takes their seats
    by id: allowed to the addresses the operator named (load_test_clients), for a
    benchmark engine's rooms alone."""
    lobby = Lobby(MemoryStore(), Settings(load_test_clients="127.0.0.1"))
    try:
        relay = await lobby.create({"engine": "turn-relay", "private": True, "seed": 3})
        seat = await lobby.reserve(relay["id"], {"seat": 0}, "127.0.0.1")
        assert seat["seat"] == 0
        await refused(lobby.reserve(relay["id"], {}, "192.0.2.7"), 403, "invite_required")
        game = await lobby.create({"engine": "sintra", "private": True})
        await refused(lobby.reserve(game["id"], {}, "127.0.0.1"), 403, "invite_required")
    finally:
        await lobby.close()
