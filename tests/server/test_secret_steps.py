"""What the room tells the other viewers of a decision made in secret: nothing.

In a simultaneous step (Crystal Palace's dice, its final repayment) a seat decides in
steps that the engine keeps to itself until every seat is ready; the room's own parts
of the document (the clocks) must not tell the others which seat decided, nor when,
and neither may the versions they see (each view numbers its own: server/room_frames.py),
the frames they are sent, the lobby's view of the room or its record.
Played on a hand-driven clock: nothing waits for a real timeout.
"""

from __future__ import annotations

from typing import Any

import pytest

from protocol.messages import Intent
from protocol.mirror import Mirror
from server.lobby import Lobby
from server.room import Room
from server.settings import Settings
from server.store import MemoryStore
from server.timers import ManualTimers
from support import Player, canonical, run


async def dice_step(lobby: Lobby, clock: str) -> tuple[Room, list[Player]]:
    """A 3-seat Crystal Palace room at phase 1 (every seat sets its dice in secret)."""
    body = {"engine": "crystal-palace", "seats": 3, "options": {"clock": clock}}
    created = await lobby.create({**body, "seed": 7, "private": True})
    room = lobby.room(created["id"])
    assert room is not None
    players = []
    for name in ("ana", "bo", "cy"):
        seat, _ = await room.reserve(name)
        players.append(await Player(room, seat).join())
    assert room.state is not None and room.engine.to_act(room.state) == {0, 1, 2}
    return room, players


@pytest.mark.parametrize("clock", ["move:30", "fischer:120+5"])
async def test_a_secret_decision_moves_no_clock_the_others_see(
    lobby: Lobby, timers: ManualTimers, clock: str
) -> None:
    room, players = await dice_step(lobby, clock)
    await run(timers, room, 7)
    others = [None, 1, 2]
    before = {viewer: room.views.doc(room, viewer) for viewer in others}
    ana = players[0]
    ana.room.submit(ana, ana_die := _die(ana))
    await room.settled()
    assert [f for f in ana.frames if f["t"] == "ack"][-1]["id"] == ana_die.id
    assert room.engine.to_act(room.state) == {0, 1, 2}, "ana has dice left to set"
    for viewer in others:
        assert room.views.doc(room, viewer) == before[viewer], (
            f"viewer {viewer} can tell that ana set a die"
        )


async def test_a_seat_still_deciding_in_secret_is_played_at_its_first_deadline(
    lobby: Lobby, timers: ManualTimers
) -> None:
    """The clock of a seat that decides in secret keeps running from the step's start:
    a seat that set some dice and stopped is played for at the step's deadline."""
    room, players = await dice_step(lobby, "move:30")
    started = timers.now()
    ana = players[0]
    await run(timers, room, 10)
    ana.room.submit(ana, _die(ana))
    await room.settled()
    assert room.table.deadline[0] == started + 30
    await run(timers, room, 20.5)
    assert room.state is not None and 0 not in room.engine.to_act(room.state), (
        "a zombie set ana's other dice at her deadline"
    )


def _die(player: Player) -> Intent:
    return Intent(next(player.ids), {"type": "die", "value": 3})


async def test_a_zombie_deciding_in_secret_counts_one_timeout_when_the_seat_is_done(
    lobby: Lobby, timers: ManualTimers
) -> None:
    """At the deadline zombies set every seat's dice, one silent decision each: the
    others see a seat's timeout once its part of the step is done, not one per die (the
    number of its secret decisions)."""
    room, _ = await dice_step(lobby, "move:30")
    spectator = await Player(room, None).join()
    await run(timers, room, 30.5)
    assert room.state is not None
    assert room.state["phase"] != 1, "the dice step resolved at the deadline"
    seen: list[tuple[int, int]] = []
    for frame in spectator.frames:
        for op in frame.get("ops", []) if frame["t"] == "patch" else []:
            path = op[1]
            if path[:1] == ["presence"] and path[-1:] == ["timeouts"]:
                seen.append((path[1], op[2]))
            elif path == ["presence"]:
                seen += [(s, p["timeouts"]) for s, p in enumerate(op[2]) if p["timeouts"]]
    assert (0, 1) in seen and (1, 1) in seen and (2, 1) in seen
    assert not [timeouts for _, timeouts in seen if timeouts > 1], seen


def mirrored(player: Player) -> Mirror:
    """The document ``player``'s frames build by docs/protocol.md §7, every patch in order
    (a gap or a duplicate fails)."""
    mirror = Mirror()
    for frame in player.frames:
        if frame["t"] == "snapshot":
            mirror.snapshot(frame["v"], frame["doc"])
        elif frame["t"] == "patch":
            assert frame["from"] == mirror.version, (frame["from"], mirror.version)
            assert mirror.patch(frame["from"], frame["to"], frame["ops"])
    return mirror


async def test_a_secret_decision_sends_the_others_nothing_and_moves_only_its_seats_version(
    lobby: Lobby, timers: ManualTimers
) -> None:
    """Ana sets two of her dice: bo, cy and a spectator are sent no frame and their
    versions stay, so they cannot count her dice; her own view moves a version a die, her
    acks name those versions. At the reveal every viewer's patches follow on from its
    last version, and each mirror is what a viewer joining then is given."""
    room, players = await dice_step(lobby, "move:30")
    ana, bo, cy = players
    spectator = await Player(room, None).join()
    versions = {viewer: room.views.version(room, viewer) for viewer in (None, 0, 1, 2)}
    listed = await lobby.details(room.id)
    sent = {id(p): len(p.frames) for p in (bo, cy, spectator)}
    for _ in range(2):
        ana.room.submit(ana, _die(ana))
        await room.settled()
    for other in (bo, cy, spectator):
        assert len(other.frames) == sent[id(other)], f"seat {other.seat} was sent a frame"
    assert {v: room.views.version(room, v) for v in (None, 1, 2)} == {
        v: versions[v] for v in (None, 1, 2)
    }
    assert room.views.version(room, 0) == versions[0] + 2
    acks = [f["v"] for f in ana.frames if f["t"] == "ack"]
    assert acks == [versions[0] + 1, versions[0] + 2]
    assert await lobby.details(room.id) == listed, "the lobby tells when a secret move was made"
    record = await lobby.history(room.id)
    assert record["version"] == versions[None] and record["moves"] == []
    for player in (bo, cy, ana):  # everyone else sets every die: the reveal
        while (
            room.state is not None
            and room.state["phase"] == 1
            and player.seat in room._to_act(room.state)
        ):
            player.room.submit(player, _die(player))
            await room.settled()
    assert room.state is not None and room.state["phase"] == 2
    for viewer in (*players, spectator):
        fresh = Player(room, viewer.seat)
        room.attach(fresh, None)
        room.detach(fresh)
        mirror = mirrored(viewer)
        assert mirror.version == fresh.frames[1]["v"] == room.views.version(room, viewer.seat)
        assert canonical(mirror.doc) == canonical(fresh.frames[1]["doc"])


async def test_every_process_numbers_each_view_alike(timers: ManualTimers) -> None:
    """A room rebuilt from its snapshot and the log after it (another process, after a
    failover) numbers every view's versions as the owner did, secret dice in the log's
    tail included; so a seat coming back there with ``since`` gets exactly its patches."""
    store = MemoryStore()
    lobby = Lobby(store, Settings(snapshot_every=4), clock=timers, timers=timers)
    room, players = await dice_step(lobby, "none")
    assert room.state is not None
    ana, bo, _ = players
    for player in [ana] * room.state["seats"][0]["dice"] + [bo]:  # ana all her dice, bo one
        player.room.submit(player, _die(player))
        await room.settled()
    assert room.version > 4 and room.version % 4 != 0, "a snapshot, then a tail"
    record = await store.load_room(room.id)
    assert record is not None
    rebuilt = Room(record, room.engine, store, Settings(), timers, timers=timers)
    await rebuilt.restore()
    assert rebuilt.version == room.version
    assert rebuilt.views.counts == room.views.counts
    assert room.views.counts is not None and len(set(room.views.counts)) == 3, room.views.counts
    seat: Any = Player(rebuilt, 0)
    rebuilt.attach(seat, room.views.version(room, 0))
    assert [f["t"] for f in seat.frames] == ["welcome"], "already up to date: nothing to send"
    await lobby.close()
