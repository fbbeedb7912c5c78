"""Channels through which a seat or a spectator could count the decisions another seat
makes in secret in Crystal Palace (its dice, its final repayment), beyond those of
tests/server/test_secret_steps.py: each asserts that the others are sent nothing and
that their versions stay, in a case that test does not cover."""

from __future__ import annotations

import random

import pytest

from protocol.messages import Intent
from protocol.mirror import Mirror
from server.lobby import Lobby
from server.room import Room
from server.settings import Settings
from server.store import MemoryStore
from server.timers import ManualTimers
from support import Player, canonical, run
from tests.server.test_secret_steps import _die, dice_step, mirrored


async def ana_alone(lobby: Lobby, clock: str) -> tuple[Room, list[Player], Player]:
    """A 3-seat dice step watched by a spectator, in which bo and cy have set every die:
    ana is the only seat still asked."""
    room, players = await dice_step(lobby, clock)
    spectator = await Player(room, None).join()
    for player in players[1:]:
        while room.state is not None and player.seat in room._to_act(room.state):
            player.room.submit(player, _die(player))
            await room.settled()
    return room, players, spectator


@pytest.mark.parametrize("clock", ["none", "move:30", "fischer:120+5"])
async def test_the_last_seat_setting_its_dice_alone_sends_the_others_nothing(
    lobby: Lobby, timers: ManualTimers, clock: str
) -> None:
    """Bo and cy are ready: ana, the only seat still asked, sets a die (not her last).
    How many she has set is hidden until she is ready, so her clock must not move (the
    others would count her dice by its deadline) and no one else is sent a frame."""
    room, (ana, bo, cy), spectator = await ana_alone(lobby, clock)
    assert room.state is not None and room._to_act(room.state) == {0}
    assert room.state["seats"][0]["dice"] > 1
    sent = {id(p): len(p.frames) for p in (bo, cy, spectator)}
    versions = {v: room.views.version(room, v) for v in (None, 1, 2)}
    listed, record = await lobby.details(room.id), await lobby.history(room.id, views=True)
    await run(timers, room, 5)
    ana.room.submit(ana, _die(ana))
    await room.settled()
    assert room._to_act(room.state) == {0}, "ana has dice left to set"
    for other in (bo, cy, spectator):
        assert other.frames[sent[id(other)] :] == [], f"seat {other.seat} was sent a frame"
    assert {v: room.views.version(room, v) for v in (None, 1, 2)} == versions
    assert await lobby.details(room.id) == listed
    assert await lobby.history(room.id, views=True) == record


@pytest.mark.parametrize("clock", ["none", "move:30"])
async def test_a_zombie_setting_the_last_seats_dice_counts_one_timeout(
    lobby: Lobby, timers: ManualTimers, clock: str
) -> None:
    """Bo and cy are ready; ana, asked alone, sets nothing: zombies set her dice at her
    deadline (or when she is idle too long), all at once, one timeout for the step, and
    the others are sent nothing until she is ready (a frame a die would count them)."""
    room, _, spectator = await ana_alone(lobby, clock)
    assert room.state is not None and room.state["seats"][0]["dice"] > 1
    sent = len(spectator.frames)
    for _ in range(room.state["seats"][0]["dice"]):
        if room.state["phase"] != 1:
            break
        await run(timers, room, room.table.options["idle"] + 30)
    assert room.state["phase"] != 1, "ana's dice were set"
    patches = [f for f in spectator.frames[sent:] if f["t"] == "patch"]
    assert len(patches) == 1, patches
    assert room.table.timeouts[0] == 1


class Wire(Player):
    """A connection that keeps the bytes it is sent, in either protocol (protocol 1's
    frames decoded too, for :func:`mirrored`)."""

    def __init__(self, room: Room, seat: int | None, protocol: int) -> None:
        super().__init__(room, seat)
        self.protocol = protocol
        self.sent: list[bytes] = []

    def send(self, frame: bytes) -> None:
        self.sent.append(frame)
        if self.protocol == 1:
            super().send(frame)


@pytest.mark.parametrize(("seats", "every"), [(2, 2), (3, 3), (5, 1)])
async def test_every_view_is_numbered_alike_by_the_owner_a_replica_and_any_rebuild(
    timers: ManualTimers, seats: int, every: int
) -> None:
    """Random moves through Crystal Palace's dice step (some seats leaving and coming back),
    a snapshot every ``every`` versions: after each, a replica that follows the log and a
    room rebuilt from the latest snapshot (in the middle of the step) and its tail number
    every view as the owner does and hold the same documents; the replica's connections
    are sent the owner's bytes in both protocols, and each mirror is whole (no gap)."""
    store = MemoryStore()
    lobby = Lobby(store, Settings(snapshot_every=every), clock=timers, timers=timers)
    body = {"engine": "crystal-palace", "seats": seats, "options": {"clock": "fischer:120+5"}}
    room = lobby.room((await lobby.create({**body, "seed": 5, "private": True}))["id"])
    assert room is not None
    players = []
    for n in range(seats):
        seat, _ = await room.reserve(f"p{n}")
        players.append(await Player(room, seat).join())
    record = await store.load_room(room.id)
    assert record is not None
    replica = Room(record, room.engine, store, Settings(), timers, timers=timers)
    await replica.restore()
    watching = {}
    for group in (None, *range(seats)):
        for protocol in (1, 2):
            for at in (room, replica):
                watching[at is room, group, protocol] = wire = Wire(at, group, protocol)
                at.attach(wire, None)
    rnd = random.Random(seats)
    for _ in range(40):
        assert room.state is not None
        if room.state["round"] > 0:
            break
        seat = rnd.choice(sorted(room._to_act(room.state)))
        player = players[seat]
        if rnd.random() < 0.1:
            player.leave()
            players[seat] = player = await Player(room, seat).join()
        action = rnd.choice(room.engine.legal_actions(room.state, seat))
        room.submit(player, Intent(next(player.ids), action))
        await run(timers, room, rnd.choice([0, 2]))
        for version, entry in await store.read_log(room.id, replica.version):
            replica.follow(version, entry)
        rebuilt = Room(record, room.engine, store, Settings(), timers, timers=timers)
        await rebuilt.restore()
        for other in (replica, rebuilt):
            assert other.views.counts == room.views.counts
            for group in (None, *range(seats)):
                assert other.views.snapshot(other, group) == room.views.snapshot(room, group)
    for (owned, group, protocol), wire in watching.items():
        if owned:
            assert wire.sent[1:] == watching[False, group, protocol].sent[1:]
        if protocol == 1:
            mirror: Mirror = mirrored(wire)
            assert mirror.version == room.views.version(room, group)
            fresh = Player(room, group)
            room.attach(fresh, None)
            room.detach(fresh)
            assert canonical(mirror.doc) == canonical(fresh.frames[1]["doc"])
    await lobby.close()
