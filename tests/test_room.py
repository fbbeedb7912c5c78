"""The room actor on its own (memory store, no network)."""

from __future__ import annotations

import asyncio
import time

from engines.sintra import ENGINE as sintra
from protocol.codec import decode
from protocol.messages import Intent
from server.room import Room
from server.settings import Settings
from server.store import MemoryStore, RoomRecord


class Recorder:
    """A connection that keeps its frames."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.frames: list[bytes] = []

    def send(self, frame: bytes) -> None:
        self.frames.append(frame)

    def close(self, code: str, message: str) -> None:
        pass


class Owner:
    """A forwarder standing in for the process that owns the room now."""

    def __init__(self) -> None:
        self.intents: list[Intent] = []
        self.reached = asyncio.Event()

    def forward_intent(self, room: Room, conn: Recorder, intent: Intent) -> None:
        self.intents.append(intent)
        self.reached.set()

    async def forward_reserve(self, room: Room, name: str | None, seat: int | None):
        return 1, "token-from-the-owner"

    async def owned(self, room: Room) -> None:
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
    assert room._docs, "a playing room keeps the frames of its viewers"
    room.record.status = "finished"
    room.detach(watcher)
    assert (room._docs, room._history, room._snapshots) == ({}, {}, {})
    comeback = Recorder(None)
    room.attach(comeback, room.version - 1)
    welcome, frame = (decode(f) for f in comeback.frames)
    assert (welcome["t"], frame["t"]) == ("welcome", "snapshot")
    await room.close()
