"""The room actor on its own (memory store, no network)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from doubles import Mover

from clients.recorder import Recorder
from engines import Engine
from engines.chartered import ENGINE as chartered
from engines.crystal_palace import ENGINE as crystal_palace
from engines.sintra import ENGINE as sintra
from engines.turn_relay import ENGINE as turn_relay
from protocol.codec import decode
from protocol.messages import Intent
from protocol.mirror import Mirror
from server.owner_side import OwnerSide
from server.room import Room
from server.room_parts import Reservation
from server.settings import Settings
from server.store import MemoryStore, RoomRecord
from support import packed


class Owner:
    """A forwarder standing in for the process that owns the room now."""

    def __init__(self) -> None:
        self.intents: list[Intent] = []
        self.asks: list[Reservation] = []
        self.reached = asyncio.Event()

    def forward_intent(self, room: Room, conn: Recorder, intent: Intent) -> None:
        self.intents.append(intent)
        self.reached.set()

    async def forward_reserve(self, room: Room, ask: Reservation) -> tuple[int, str]:
        self.asks.append(ask)
        return 1, "token-from-the-owner"

    async def owned(self, room: Room) -> None:
        pass

    def following(self, room: Room) -> None:
        pass


async def test_commands_queued_before_a_lost_lease_go_to_the_new_owner() -> None:
    store, owner = MemoryStore(), Owner()
    record = RoomRecord("r", "sintra", 2, {}, False, 1, 0, 0, names=[None, None])
    room = Room(record, sintra, store, Settings(), time.time, forwarder=owner)  # type: ignore[arg-type]
    await room.promote(await store.acquire("r", "me") or "")
    reservation = asyncio.create_task(room.reserve("ana"))
    await asyncio.sleep(0)  # one scheduling step: the reservation task queues its command
    room.submit(Recorder(0), Intent(7, {"type": "reset"}))
    room.demote()  # the keeper lost the lease before the actor ran them
    room.start()
    async with asyncio.timeout(5):  # a command the actor dropped would never settle
        assert await reservation == (1, "token-from-the-owner")
        await owner.reached.wait()
    assert [i.id for i in owner.intents] == [7]
    assert room.version == 0 and await store.read_log("r") == [], "nothing written here"
    await room.close()


async def test_a_forwarded_seat_request_rerouted_keeps_its_key() -> None:
    """A process serves another's seat request for a room whose lease it has just lost:
    the request goes on to the new owner under its first key, which that owner serves
    once (it may have it already, from the requester itself: one seat, never two)."""
    store, owner = MemoryStore(), Owner()
    record = RoomRecord("k", "sintra", 2, {}, False, 1, 0, 0, names=[None, None])
    room = Room(record, sintra, store, Settings(), time.time, forwarder=owner)  # type: ignore[arg-type]
    await room.promote(await store.acquire("k", "me") or "")
    answers: list[dict[str, Any]] = []
    answered = asyncio.Event()

    def post(channel: str, answer: dict[str, Any]) -> None:
        answers.append(answer)
        answered.set()

    side = OwnerSide({"k": room}, post, str)
    request = {"k": "reserve", "node": "other", "req": "first-key", "name": "ana", "seat": None}
    side.serve("k", request)
    await asyncio.sleep(0)  # the reservation task queues its command
    room.demote()  # the lease is lost before the actor runs it
    room.start()
    async with asyncio.timeout(5):
        await answered.wait()
    assert [ask.req for ask in owner.asks] == ["first-key"]
    assert answers == [{"req": "first-key", "seat": 1, "token": "token-from-the-owner"}]
    assert room.version == 0 and await store.read_log("k") == [], "nothing written here"
    await room.close()


async def test_a_finished_room_nobody_watches_drops_its_frame_caches() -> None:
    store = MemoryStore()
    record = RoomRecord("f", "sintra", 2, {}, False, 1, 0, 0, names=[None, None])
    room = Room(record, sintra, store, Settings(), time.time)
    await room.promote(await store.acquire("f", "me") or "")
    room.start()
    await room.reserve("ana")
    await room.reserve("bo")
    watcher, player = Recorder(None), Recorder(0)
    room.attach(watcher, None)
    room.attach(player, None)
    room.detach(player)
    assert room.views.docs, "a playing room keeps the frames of its viewers"
    room.record.status = "finished"
    room.detach(watcher)
    assert (room.views.docs, room.views.history, room.views.snapshots) == ({}, {}, {})
    comeback = Recorder(None)
    room.attach(comeback, room.version - 1)
    welcome, frame = (decode(f) for f in comeback.frames)
    assert (welcome["t"], frame["t"]) == ("welcome", "snapshot")
    await room.close()


# -- history per view group ----------------------------------------------------


async def owned_room(
    engine: Engine,
    seats: int,
    store: MemoryStore,
    history: int = 64,
    options: dict[str, Any] | None = None,
) -> Room:
    record = RoomRecord("h", engine.id, seats, options or {}, False, 7, 0, 0, names=[None] * seats)
    await store.save_room(record)
    room = Room(record, engine, store, Settings(history=history), time.time)
    await room.promote(await store.acquire("h", "me") or "")
    room.start()
    for _ in range(seats):
        await room.reserve(None)
    return room


async def play(room: Room, moves: int) -> None:
    movers: dict[int, Mover] = {}
    for _ in range(moves):
        assert room.state is not None
        seat = min(room.engine.to_act(room.state))
        answer = await movers.setdefault(seat, Mover(seat)).move(room)
        assert answer["t"] == "ack", answer


def caught_up(frames: list[bytes]) -> list[dict[str, Any]]:
    welcome, *rest = (decode(frame) for frame in frames)
    assert welcome["t"] == "welcome"
    return rest


@pytest.mark.parametrize("missed", [2, 5, 10])
@pytest.mark.parametrize("engine", [chartered, crystal_palace], ids=["chartered", "palace"])
async def test_a_seat_back_after_a_few_versions_gets_exactly_the_missing_patches(
    engine: Engine, missed: int
) -> None:
    room = await owned_room(engine, 3, MemoryStore())
    first = Recorder(0)
    room.attach(first, None)
    mirror, snapshot = Mirror(), decode(first.frames[-1])
    mirror.snapshot(snapshot["v"], snapshot["doc"])
    room.detach(first)  # seat 0's only connection: nobody of its view is left
    await play(room, missed)
    back = Recorder(0)
    since = snapshot["v"]
    room.attach(back, since)
    patches = caught_up(back.frames)
    assert [(p["t"], p["from"], p["to"]) for p in patches] == [
        ("patch", v, v + 1) for v in range(since, room.views.version(room, 0))
    ]
    for patch in patches:
        assert mirror.patch(patch["from"], patch["to"], patch["ops"])
    assert room.state is not None
    assert packed(mirror.doc["game"]) == packed(room.engine.view(room.state, 0))
    await room.close()


async def test_a_client_up_to_date_gets_no_snapshot_and_no_patch() -> None:
    room = await owned_room(chartered, 2, MemoryStore())
    await play(room, 3)
    for seat in (0, 1, None):
        conn = Recorder(seat)
        room.attach(conn, room.version)
        assert caught_up(conn.frames) == []
        room.catch_up(conn, room.version)  # a resync with since = the current version
        assert caught_up(conn.frames) == []
    await room.close()


async def test_history_is_bounded_per_group_then_a_snapshot() -> None:
    room = await owned_room(chartered, 2, MemoryStore(), history=4)
    seat = Recorder(1)
    room.attach(seat, None)
    since = room.version
    room.detach(seat)
    await play(room, 5)
    assert all(len(patches) <= 4 for patches in room.views.history.values())
    back = Recorder(1)
    room.attach(back, since)
    (frame,) = caught_up(back.frames)
    assert (frame["t"], frame["v"]) == ("snapshot", room.version)
    await room.close()


async def test_a_replica_keeps_the_history_of_its_groups_too() -> None:
    store = MemoryStore()
    owner = await owned_room(chartered, 2, store)
    record = await store.load_room("h")
    assert record is not None
    replica = Room(record, chartered, store, Settings(), time.time)
    await replica.restore()
    assert replica.version == owner.version and replica.lease is None
    seat = Recorder(0)
    replica.attach(seat, None)
    since = replica.version
    replica.detach(seat)
    await play(owner, 4)
    for version, entry in await store.read_log("h", replica.version):
        replica.follow(version, entry)
    back = Recorder(0)
    replica.attach(back, since)
    assert [(p["t"], p["from"]) for p in caught_up(back.frames)] == [
        ("patch", v) for v in range(since, owner.version)
    ]
    await owner.close()


async def test_a_client_joining_a_finished_room_gets_the_result_after_its_state() -> None:
    room = await owned_room(turn_relay, 4, MemoryStore(), options={"moves": 12})
    room.attach(Recorder(None), None)  # a spectator watching to the end
    await play(room, 12)
    assert room.record.status == "finished" and room.record.result is not None
    for since, before in (
        (None, ["snapshot"]),
        (room.version - 3, ["patch"] * 3),
        (room.version, []),
    ):
        conn = Recorder(None)
        room.attach(conn, since)
        *frames, last = caught_up(conn.frames)
        assert [f["t"] for f in frames] == before
        assert last == {"t": "result", "v": room.version, "result": room.record.result}
    await room.close()
