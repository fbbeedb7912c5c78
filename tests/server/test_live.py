"""Live games that never stall: presence, bots, turn clocks, zombies, abandonment,
rematch and quick play, on a hand-driven clock (nothing waits for a real timeout)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from server.errors import ApiError
from server.lobby import Lobby
from server.room import Room
from server.settings import Settings
from server.store import MemoryStore, StoreUnavailable
from server.table import Table, parse_clock, split_options
from server.timers import ManualTimers
from support import Player, run


async def new_room(lobby: Lobby, engine: str, seats: int, **options: Any) -> Room:
    """A private room of seed 7 (with ``public=True``: a public room, its seed random)."""
    public = options.pop("public", False)
    body = {"engine": engine, "seats": seats, "options": options}
    created = await lobby.create(body if public else {**body, "seed": 7, "private": True})
    room = lobby.room(created["id"])
    assert room is not None
    return room


async def seated(lobby: Lobby, room: Room, names: list[str]) -> list[Player]:
    players = []
    for name in names:
        seat, _ = await room.reserve(name)
        players.append(await Player(room, seat).join())
    return players


async def log_of(lobby: Lobby, room: Room) -> list[dict[str, Any]]:
    return [entry for _, entry in await lobby.store.read_log(room.id)]


def test_room_options_are_split_from_engine_options_and_checked() -> None:
    engine, room = split_options({"side": "B", "clock": "fischer:300+5", "bot_delay": 0})
    assert engine == {"side": "B"}
    assert room["clock"] == "fischer:300+5" and room["bot_delay"] == 0.0
    assert room["grace"] == 60.0 and room["expel_after"] == 0
    assert parse_clock({"kind": "move", "seconds": 30}).text() == "move:30"
    assert parse_clock("none").kind == "none"
    for bad, code in [
        ({"clock": "move:2"}, "bad_clock"),
        ({"clock": "fischer:5+1"}, "bad_clock"),
        ({"clock": "blitz"}, "bad_clock"),
        ({"clock": "move:\uff11\uff10"}, "bad_clock"),  # fullwidth digits: not "move:10"
        ({"clock": "fischer:\u0663\u0660\u0660+5"}, "bad_clock"),  # Arabic-Indic 300
        ({"clock": {"kind": "move", "seconds": "30"}}, "bad_clock"),
        ({"bot_delay": 31}, "bad_bot_delay"),
        ({"grace": -1}, "bad_grace"),
        ({"expel_after": 1.5}, "bad_expel_after"),
        ({"abandon_after": 1}, "bad_abandon_after"),
    ]:
        with pytest.raises(ApiError) as refused:
            split_options(bad)
        assert (refused.value.status, refused.value.code) == (400, code), bad


def test_a_fischer_clock_banks_what_is_left_plus_the_increment() -> None:
    table = Table(2, {"clock": "fischer:60+5"})
    table.seat_taken(0, 0.0, None)
    table.seat_taken(1, 0.0, None)
    table.turn(frozenset(), frozenset({0}), None, 100.0)
    assert table.deadline == [160.0, None]
    table.turn(frozenset({0}), frozenset({1}), 0, 110.0)
    assert (table.remaining[0], table.deadline) == (55.0, [None, 170.0])
    table.turn(frozenset({1}), frozenset({0}), 1, 111.0)
    assert table.deadline[0] == 111.0 + 55.0


async def test_a_seat_that_never_acts_is_played_at_its_deadline_to_the_end(
    lobby: Lobby, timers: ManualTimers
) -> None:
    room = await new_room(lobby, "sintra", 2, clock="move:30")
    await seated(lobby, room, ["ana", "bo"])
    watcher = await Player(room, None).join()
    doc = watcher.frames[-1]["doc"]
    (asked,) = doc["to_act"]
    assert doc["clock"]["deadline"][asked] == timers.now() + 30
    assert doc["presence"][asked]["connected"] is True
    for _ in range(500):
        if room.record.status == "finished":
            break
        await run(timers, room, 29)
        assert room.table.timeouts == [0, 0] or room.version > 4, "nothing before the deadline"
        await run(timers, room, 1)
    assert room.record.status == "finished" and room.record.result is not None
    assert "abandoned" not in room.record.result
    moves = [e for e in await log_of(lobby, room) if e["k"] == "intent"]
    assert moves and all((e["by"], e["why"]) == ("zombie", "clock") for e in moves)
    zombies = [e for f in watcher.frames if f["t"] == "event" for e in f["events"] if e.get("by")]
    assert zombies and all(e["by"] == "zombie" for e in zombies)
    told = [e["text"] for e in zombies if "seat" in e]
    assert told and all("(a bot played for" in text for text in told)
    assert all(text.endswith(").") and ". (" not in text for text in told), "one sentence"


async def test_a_player_who_leaves_after_the_end_shows_away_in_the_document_and_the_lobby(
    lobby: Lobby, timers: ManualTimers
) -> None:
    room = await new_room(lobby, "sintra", 2, clock="move:30")
    ana, _ = await seated(lobby, room, ["ana", "bo"])
    watcher = await Player(room, None).join()
    while room.record.status != "finished":
        await run(timers, room, 30)
    ana.leave()
    await room.settled()
    assert room.table.connected == [False, True]
    assert watcher.frames[-1]["t"] == "patch", "everyone at the result sees ana go"
    listed = await lobby.details(room.id)
    assert listed["connected"] == [False, True]


async def test_a_player_reconnecting_in_a_loop_costs_the_log_a_few_entries(
    lobby: Lobby, timers: ManualTimers
) -> None:
    """A seat's presence is logged as it changes up to ``presence_burst`` changes (4,
    its first arrival one of them), then once every 1 / ``presence_rate`` seconds (10),
    the latest state winning: a hundred reconnects add 3 versions, the seat shows as it
    is once its budget allows, and a blip within the wait logs nothing."""
    room = await new_room(lobby, "sintra", 2)
    ana, _ = await seated(lobby, room, ["ana", "bo"])
    watcher = await Player(room, None).join()
    before = room.version
    for _ in range(100):
        ana.leave()
        await room.settled()
        ana = await Player(room, 0).join()
    assert room.version == before + 3, "the rest of the burst: away, back, away"
    assert room.table.connected == [False, True], "the change past the burst waits"
    await run(timers, room, 9)
    assert room.version == before + 3
    await run(timers, room, 1)
    assert (room.version, room.table.connected) == (before + 4, [True, True]), "logged once"
    assert watcher.frames[-1]["t"] == "patch", "everyone sees ana back"
    ana.leave()
    await room.settled()
    ana = await Player(room, 0).join()
    await run(timers, room, 10)
    assert room.version == before + 4, "back before its change could be logged: nothing"
    entries = (await log_of(lobby, room))[before:]
    assert [(e["k"], e["connected"]) for e in entries] == [
        ("presence", False),
        ("presence", True),
        ("presence", False),
        ("presence", True),
    ]
    ana.leave()  # (logged: the budget has refilled one change)
    await room.settled()
    await Player(room, 0).join()  # (not yet: looked at again later)
    (later,) = room.presence_later.values()
    await room.close()
    assert later.callback is None, "a closed room's look again is cancelled"  # type: ignore[attr-defined]


async def test_no_presence_is_logged_past_the_logs_last_version(timers: ManualTimers) -> None:
    """A game stopped at ``max_moves`` keeps its log at that version: a player leaving
    or coming back after it is not logged."""
    lobby = Lobby(MemoryStore(), Settings(max_moves=6), clock=timers, timers=timers)
    room = await new_room(lobby, "sintra", 2)
    ana, bo = await seated(lobby, room, ["ana", "bo"])
    rnd = random.Random(2)
    while room.record.status != "finished":
        assert room.state is not None
        for player in (ana, bo):
            if player.seat in room.engine.to_act(room.state):
                await player.play(rnd)
    assert room.record.result is not None and room.record.result.get("move_limit")
    assert room.version == 6
    bo.leave()
    await run(timers, room, 60)
    assert room.version == 6 and room.table.connected == [True, True]
    await lobby.close()


async def test_a_player_away_past_the_grace_period_is_played_and_gets_the_seat_back(
    lobby: Lobby, timers: ManualTimers
) -> None:
    room = await new_room(lobby, "sintra", 2, grace=60)
    ana, bo = await seated(lobby, room, ["ana", "bo"])
    rnd = random.Random(1)
    assert room.state is not None
    while 1 not in room.engine.to_act(room.state):
        await ana.play(rnd)
    bo.leave()
    await room.settled()
    assert room.table.connected == [True, False]
    await run(timers, room, 59)
    assert 1 in room.engine.to_act(room.state), "still bo's turn within the grace period"
    before = room.version
    await run(timers, room, 2)
    entries = (await log_of(lobby, room))[before:]
    assert [(e["seat"], e["by"], e["why"]) for e in entries] == [(1, "zombie", "away")]
    while 1 not in room.engine.to_act(room.state):  # ana plays; bo's next turn is a zombie's too
        await ana.play(rnd)
    await run(timers, room, 1.0)
    assert 1 not in room.engine.to_act(room.state), "bo is still away: played after bot_delay"
    while 1 not in room.engine.to_act(room.state):
        await ana.play(rnd)
    back = await Player(room, 1).join()
    assert back.frames[-1]["doc"]["presence"][1] == {
        "connected": True,
        "away_since": None,
        "bot": None,
        "timeouts": 2,
    }
    await run(timers, room, 299)
    assert 1 in room.engine.to_act(room.state), "a connected player has `idle` seconds"
    reply = await back.play(rnd)
    assert reply["t"] == "ack", "the seat is bo's again"


async def test_a_connected_player_silent_past_idle_is_played_for_like_one_who_left(
    lobby: Lobby, timers: ManualTimers
) -> None:
    """With no clock, a seat that is connected but never decides held the game forever;
    after `idle` seconds a zombie plays its decision, counts a timeout, and with
    `expel_after` expels it, as for a player who left."""
    room = await new_room(lobby, "sintra", 2, idle=30, expel_after=2)
    ana, bo = await seated(lobby, room, ["ana", "bo"])
    rnd = random.Random(5)
    assert room.state is not None and room.table.connected == [True, True]
    while 1 not in room.engine.to_act(room.state):
        await ana.play(rnd)
    await run(timers, room, 29)
    assert 1 in room.engine.to_act(room.state), "within idle: still bo's decision"
    before = room.version
    await run(timers, room, 2)
    entries = (await log_of(lobby, room))[before:]
    assert [(e["seat"], e["by"], e["why"]) for e in entries] == [(1, "zombie", "idle")]
    assert room.table.timeouts == [0, 1] and room.table.connected == [True, True]
    while 1 not in room.engine.to_act(room.state):
        await ana.play(rnd)
    await run(timers, room, 31)
    assert room.table.bots[1] == "zombie", "the second idle decision expels bo"
    told = [e for f in bo.frames if f["t"] == "event" for e in f["events"]]
    assert {"type": "expelled", "seat": 1} in [
        {k: e[k] for k in ("type", "seat") if k in e} for e in told
    ], "bo hears that the bot keeps the seat"


async def test_a_clock_not_idle_decides_for_a_silent_player(
    lobby: Lobby, timers: ManualTimers
) -> None:
    room = await new_room(lobby, "sintra", 2, clock="move:600", idle=30)
    ana, _ = await seated(lobby, room, ["ana", "bo"])
    rnd = random.Random(5)
    assert room.state is not None
    while 1 not in room.engine.to_act(room.state):
        await ana.play(rnd)
    await run(timers, room, 599)
    assert 1 in room.engine.to_act(room.state), "the clock's 600 s, not idle's 30"
    await run(timers, room, 2)
    assert room.table.timeouts[1] == 1, "the clock ran out once"
    assert [e.get("why") for e in await log_of(lobby, room) if e.get("by")] == ["clock"]


async def test_a_room_every_player_left_ends_abandoned(lobby: Lobby, timers: ManualTimers) -> None:
    room = await new_room(lobby, "chartered", 3, abandon_after=300, grace=3600)
    players = await seated(lobby, room, ["ana", "bo", "cy"])
    for player in players:
        player.leave()
        await room.settled()
        await run(timers, room, 10)
    await run(timers, room, 289)
    assert room.record.status == "playing", "the last one left 299 s ago"
    await run(timers, room, 2)
    assert room.record.status == "finished", "the last one left 301 s ago"
    assert room.record.result is not None and room.record.result["abandoned"] is True
    shown = await lobby.details(room.id)
    assert shown["result"]["abandoned"] is True and shown["connected"] == [False] * 3
    timers.advance(lobby.settings.finished_ttl)
    assert room.id in await lobby.sweep(), "swept like finished rooms"


async def test_nobody_plays_for_players_who_all_left_the_room_waits_for_them(
    lobby: Lobby, timers: ManualTimers
) -> None:
    """Zombies keep a game moving for the players still there; with every player gone
    (past the grace period, clocks running out) nothing is played until abandonment."""
    room = await new_room(lobby, "sintra", 2, clock="move:30", grace=10, abandon_after=600)
    players = await seated(lobby, room, ["ana", "bo"])
    for player in players:
        player.leave()
    await room.settled()
    version = room.version
    await run(timers, room, 599)
    assert (room.version, room.record.status) == (version, "playing"), "no zombie moves"
    await run(timers, room, 2)
    assert room.record.result is not None and room.record.result["abandoned"] is True


async def test_a_simultaneous_step_resolves_at_the_deadline_when_one_seat_never_acts(
    lobby: Lobby, timers: ManualTimers
) -> None:
    room = await new_room(lobby, "crystal-palace", 3, clock="move:30")
    players = await seated(lobby, room, ["ana", "bo", "cy"])
    assert room.state is not None
    step = room.engine.to_act(room.state)
    assert step == {0, 1, 2}, "phase 1: every seat sets its dice at once"
    doc = room.views.doc(room, 0)
    assert doc["clock"]["deadline"] == [timers.now() + 30] * 3, "every asked seat's clock runs"
    rnd = random.Random(3)
    while room.engine.to_act(room.state) & {0, 1}:
        for player in players[:2]:
            if player.seat in room.engine.to_act(room.state):
                await player.play(rnd)
                timers.advance(1)
    assert room.engine.to_act(room.state) == {2}
    deadline = room.table.deadline[2]
    assert deadline is not None
    version = room.version
    await run(timers, room, deadline - timers.now() - 0.5)
    assert room.version == version, "nothing before the deadline"
    await run(timers, room, 1)  # its dice are set in secret: all at once, not 30 s a die
    assert room.state["phase"] != 1, "the step resolved"
    entries = await log_of(lobby, room)
    zombie = [e for e in entries if e.get("by") == "zombie"]
    assert zombie and {e["seat"] for e in zombie} == {2}
    assert len(zombie) > 1 and [e["at"] - deadline for e in zombie] == [0.5] * len(zombie)


async def test_quickplay_never_seats_anyone_opposite_players_gone_past_the_grace_period(
    lobby: Lobby, timers: ManualTimers
) -> None:
    deserted = await new_room(lobby, "sintra", 2, public=True)
    (ghost,) = await seated(lobby, deserted, ["ghost"])
    ghost.leave()
    await deserted.settled()
    timers.advance(30)
    here = await lobby.quickplay({"engine": "sintra", "seats": 2, "name": "ana"})
    assert here["room"] == deserted.id, "within the grace period the room is still offered"
    fresh = await new_room(lobby, "sintra", 3, public=True)
    (ghost2,) = await seated(lobby, fresh, ["ghost2"])
    ghost2.leave()
    await fresh.settled()
    timers.advance(61)
    joined = await lobby.quickplay({"engine": "sintra", "seats": 3, "name": "bo"})
    assert joined["room"] != fresh.id, "its only player left 61 s ago: a new room"
    connected = await new_room(lobby, "sintra", 3, public=True)
    await seated(lobby, connected, ["cy"])
    chosen = await lobby.quickplay({"engine": "sintra", "seats": 3, "name": "dee"})
    assert chosen["room"] == connected.id, "a room whose player is here comes first"


async def test_bots_take_seats_and_play_through_the_room_queue(
    lobby: Lobby, timers: ManualTimers
) -> None:
    created = await lobby.create(
        {
            "engine": "chartered",
            "seats": 3,
            "seed": 5,
            "private": True,
            "options": {"bot_delay": 0.5},
            "bots": {"seats": [1, 2], "kind": "greedy"},
        }
    )
    assert created["bots"] == [None, "greedy", "greedy"]
    room = lobby.room(created["id"])
    assert room is not None
    with pytest.raises(ApiError) as taken:
        await lobby.add_bots(room.id, {"seats": [1], "owner_token": created["owner_token"]})
    assert (taken.value.status, taken.value.code) == (409, "seat_taken")
    with pytest.raises(ApiError) as kind:
        await lobby.add_bots(room.id, {"kind": "clever"})
    assert (kind.value.status, kind.value.code) == (400, "bad_bot_kind")
    (ana,) = await seated(lobby, room, ["ana"])
    rnd = random.Random(2)
    for _ in range(3000):
        if room.record.status == "finished":
            break
        assert room.state is not None
        if 0 in room.engine.to_act(room.state):
            assert (await ana.play(rnd))["t"] == "ack"
        else:
            await run(timers, room, 0.5)
    assert room.record.status == "finished"
    entries = await log_of(lobby, room)
    by_bots = [e for e in entries if e.get("by") == "bot"]
    assert by_bots and {e["seat"] for e in by_bots} == {1, 2}
    assert all(e["k"] != "intent" or e["seat"] == 0 or e.get("by") == "bot" for e in entries)


async def test_an_unknown_bot_kind_is_refused_and_a_started_room_takes_no_bots(
    lobby: Lobby,
) -> None:
    with pytest.raises(ApiError) as refused:
        await lobby.create({"engine": "sintra", "seats": 2, "bots": {"kind": "clever"}})
    assert (refused.value.status, refused.value.code) == (400, "bad_bot_kind")
    assert "greedy and random bots" in refused.value.message
    created = await lobby.create({"engine": "sintra", "seats": 2})
    owner = {"owner_token": created["owner_token"]}
    assert (await lobby.add_bots(created["id"], owner))["bots"] == ["greedy", "greedy"]
    with pytest.raises(ApiError) as full:
        await lobby.add_bots(created["id"], owner)
    assert (full.value.status, full.value.code) == (409, "room_full")


async def test_expel_after_n_timeouts_the_bot_keeps_the_seat(
    lobby: Lobby, timers: ManualTimers
) -> None:
    room = await new_room(lobby, "sintra", 2, clock="move:10", expel_after=2)
    ana, bo = await seated(lobby, room, ["ana", "bo"])
    rnd = random.Random(4)
    assert room.state is not None
    for _ in range(200):
        if room.table.bots[1] is not None:
            break
        if 0 in room.engine.to_act(room.state):
            await ana.play(rnd)
        else:
            await run(timers, room, 10)
    assert room.table.bots[1] == "zombie" and room.table.timeouts[1] == 2
    for _ in range(3):  # the zombie keeps the seat; the expulsion is told once
        while 1 not in room.engine.to_act(room.state):
            await ana.play(rnd)
        assert (await bo.play(rnd))["code"] == "expelled"
        await run(timers, room, 1)
    assert room.table.timeouts[1] == 2 and room.table.deadline[1] is None
    told = [e for f in ana.frames if f["t"] == "event" for e in f["events"]]
    expelled = [e for e in told if e["type"] == "expelled"]
    assert len(expelled) == 1 and expelled[0]["text"].startswith("bo timed out too often")


async def test_an_expelled_players_presence_still_shows(lobby: Lobby, timers: ManualTimers) -> None:
    """The zombie holds the seat, but whether its player is at the table is still
    the document's (protocol.md 5: a connection of the seat is open now)."""
    room = await new_room(lobby, "sintra", 2, clock="move:10", expel_after=1)
    ana, bo = await seated(lobby, room, ["ana", "bo"])
    rnd = random.Random(4)
    assert room.state is not None
    while room.table.bots[1] is None:
        if 0 in room.engine.to_act(room.state):
            await ana.play(rnd)
        else:
            await run(timers, room, 10)
    for here in (False, True, False):
        if here:
            await bo.join()
        else:
            bo.leave()
        await run(timers, room, 0)
        presence = room.table.presence_doc()[1]
        assert (presence["connected"], presence["away_since"]) == (here, None)
        assert presence["bot"] == "zombie"


async def test_rematch_opens_one_linked_room_and_gives_tokens_only_to_seat_holders(
    lobby: Lobby, timers: ManualTimers
) -> None:
    created = await lobby.create(
        {"engine": "sintra", "seats": 2, "options": {"side": "B", "bot_delay": 0}}
    )
    room = lobby.room(created["id"])
    assert room is not None
    _, token = await room.reserve("ana")
    with pytest.raises(ApiError) as early:
        await lobby.rematch(room.id, {"token": token})
    assert (early.value.status, early.value.code) == (409, "not_finished")
    await room.seat_bots("random", None)
    ana = await Player(room, 0).join()
    rnd = random.Random(6)
    for _ in range(1000):
        if room.record.status == "finished":
            break
        assert room.state is not None
        if 0 in room.engine.to_act(room.state):
            await ana.play(rnd)
        else:
            await run(timers, room, 0)
    assert room.record.status == "finished"
    with pytest.raises(ApiError) as stranger:
        await lobby.rematch(room.id, {"token": "not-a-seat"})
    assert (stranger.value.status, stranger.value.code) == (403, "bad_token")
    again = await lobby.rematch(room.id, {"token": token})
    assert (again["seat"], again["names"], again["bots"]) == (
        0,
        ["ana", "random bot 2"],
        [None, "random"],
    )
    assert again["options"]["side"] == "B" and again["room_options"]["bot_delay"] == 0.0
    assert again["status"] == "playing" and "token" in again
    with pytest.raises(ApiError) as watcher:
        await lobby.rematch(room.id, {})
    assert (watcher.value.status, watcher.value.code) == (403, "player_required")
    assert (await lobby.details(room.id))["rematch"] == again["id"], "one rematch room"
    assert ana.frames[-1]["t"] == "event" and "rematch" in ana.frames[-1]["events"][0]["text"]
    patch = [f for f in ana.frames if f["t"] == "patch"][-1]
    assert [0, ["rematch"], again["id"]] in patch["ops"]


async def test_a_room_rebuilt_from_snapshot_and_log_keeps_every_clock_and_seat(
    timers: ManualTimers,
) -> None:
    store = MemoryStore()
    lobby = Lobby(store, Settings(snapshot_every=5), clock=timers, timers=timers)
    room = await new_room(lobby, "chartered", 3, clock="fischer:60+5", expel_after=3)
    await room.seat_bots("random", [2])
    players = await seated(lobby, room, ["ana", "bo"])
    players[1].leave()
    for _ in range(12):
        await run(timers, room, 20)
    assert await store.load_snapshot(room.id) is not None
    record = await store.load_room(room.id)
    assert record is not None
    rebuilt = Room(record, room.engine, store, Settings(), timers, timers=timers)
    await rebuilt.restore()
    assert rebuilt.version == room.version
    assert rebuilt.table.dump() == room.table.dump()
    assert rebuilt.views.doc(rebuilt, 0) == room.views.doc(room, 0)
    assert rebuilt._seen == room._seen, "the zombie moves' ids are no player's intents"
    await lobby.close()


async def test_a_wake_up_the_store_refuses_is_retried_a_second_later_not_at_once(
    lobby: Lobby, timers: ManualTimers
) -> None:
    room = await new_room(lobby, "sintra", 2, clock="move:30")
    await seated(lobby, room, ["ana", "bo"])
    store = lobby.store
    assert isinstance(store, MemoryStore)
    appends = 0
    original = store.append

    async def refuse(*args: Any) -> None:
        nonlocal appends
        appends += 1
        raise StoreUnavailable("down")

    store.append = refuse  # type: ignore[method-assign]
    await run(timers, room, 30)
    await run(timers, room, 0.5)
    assert appends == 1, "no retry before a second has passed"
    await run(timers, room, 0.5)
    assert appends == 2
    store.append = original  # type: ignore[method-assign]
    version = room.version
    await run(timers, room, 1)
    assert room.version == version + 1, "the zombie move is made once the store is back"
