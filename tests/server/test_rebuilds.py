"""A room rebuilt from the store (a replica that loads it, the owner after a failover,
a process that loads a finished room again) holds what its owner holds: the same
versions in every view and the same documents, byte for byte. The stored record is
the room's latest, not the record as it was at the snapshot (or at the log's start)
the rebuild folds from: the fold must not take the game as started, or over, before
the log says so."""

from __future__ import annotations

import random

import pytest

from server.lobby import Lobby
from server.room import Room
from server.settings import Settings
from server.store import MemoryStore
from server.timers import ManualTimers
from support import Player, run
from tests.server.test_secret_steps import _die


async def rebuilt(room: Room, store: MemoryStore, timers: ManualTimers) -> Room:
    """``room`` as another process loads it: its stored record, its snapshot and log."""
    record = await store.load_room(room.id)
    assert record is not None
    other = Room(record, room.engine, store, Settings(), timers, timers=timers)
    await other.restore()
    return other


def assert_alike(other: Room, room: Room) -> None:
    """Every view of ``other`` is numbered as ``room``'s and is the same document."""
    assert other.version == room.version
    assert other.views.counts == room.views.counts
    for group in (None, *range(room.record.seats)):
        assert other.views.snapshot(other, group) == room.views.snapshot(room, group), group
    assert other.table.dump() == room.table.dump()


@pytest.mark.parametrize(("engine", "seats"), [("crystal-palace", 3), ("sintra", 2)])
async def test_a_room_rebuilt_before_its_first_snapshot_starts_its_game_with_the_last_seat(
    timers: ManualTimers, engine: str, seats: int
) -> None:
    """Players sit down 10 s apart; a few decisions later (no snapshot yet) another
    process loads the room, whose stored record has every seat taken already. Its clocks
    start when the last seat was taken, as the owner's did, not at the first seat: after
    a failover the new owner would play for a seat at a deadline its players never saw."""
    store = MemoryStore()
    lobby = Lobby(store, Settings(), clock=timers, timers=timers)
    body = {"engine": engine, "seats": seats, "options": {"clock": "fischer:600+5"}}
    room = lobby.room((await lobby.create({**body, "seed": 1, "private": True}))["id"])
    assert room is not None
    players = []
    for n in range(seats):
        await run(timers, room, 10)
        seat, _ = await room.reserve(f"p{n}")
        players.append(await Player(room, seat).join())
    assert room.state is not None
    for _ in range(2):
        player = players[min(room._to_act(room.state))]
        answer = await player.play(random.Random(3))
        assert answer["t"] == "ack", answer
        await run(timers, room, 3)
    assert await store.load_snapshot(room.id) is None, "the log from its start"
    assert_alike(await rebuilt(room, store, timers), room)
    await lobby.close()


async def test_a_finished_room_rebuilt_from_a_snapshot_and_its_tail_is_the_owners(
    timers: ManualTimers,
) -> None:
    """A snapshot at the start of the dice step; ana sets a die in secret; every player
    leaves and the game is abandoned. A process that loads the finished room folds the
    tail from a record that says the game is over: the clocks must run as they did
    until the end, and ana's die must stay uncounted in the other views (the spectators'
    version is the record's and the lobby's)."""
    store = MemoryStore()
    lobby = Lobby(store, Settings(snapshot_every=6), clock=timers, timers=timers)
    body = {"engine": "crystal-palace", "seats": 3, "options": {"clock": "move:300"}}
    room = lobby.room((await lobby.create({**body, "seed": 7, "private": True}))["id"])
    assert room is not None
    players = []
    for name in ("ana", "bo", "cy"):
        seat, _ = await room.reserve(name)
        players.append(await Player(room, seat).join())
    assert room.version == 6 and await store.load_snapshot(room.id) is not None
    ana = players[0]
    await run(timers, room, 20)
    ana.room.submit(ana, _die(ana))
    await room.settled()
    assert room.views.counts is not None and room.views.counts[0] == 6, "a secret die"
    for player in players:
        player.leave()
    for _ in range(10):
        await run(timers, room, 100)
    assert room.record.status == "finished"
    other = await rebuilt(room, store, timers)
    assert_alike(other, room)
    assert (await lobby.history(room.id))["version"] == other.views.version(other, None)
    await lobby.close()
