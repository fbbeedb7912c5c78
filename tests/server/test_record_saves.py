"""A finished game's record reaches the store: the last move is logged first, the
record after, and a store that refuses the record meanwhile (or a snapshot before
it) must not leave the lobby listing the game as playing for good."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.lobby import Lobby
from server.settings import Settings
from server.store import MemoryStore, StoreUnavailable
from support import play_to_the_end


class RecordsDown(MemoryStore):
    """A memory store that refuses to save room records while ``down``."""

    def __init__(self) -> None:
        super().__init__()
        self.down = False
        self.refused = asyncio.Event()
        self.finished = asyncio.Event()

    async def save_room(self, record: Any) -> None:
        if self.down:
            self.refused.set()
            raise StoreUnavailable("redis: Connection refused")
        await super().save_room(record)
        if record.status == "finished":
            self.finished.set()


async def test_a_finished_games_record_missed_in_an_outage_is_saved_once_the_store_is_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The last move is logged, then the record's save fails (the master died between
    the two: seen on the compose cluster profile). Nothing else would save it again,
    the game making no more moves, and the lobby would list the game as playing for
    good; the room saves it again until the store takes it."""
    monkeypatch.setattr("server.room_commands.SAVE_AGAIN", 0.01)
    store = RecordsDown()
    lobby = Lobby(store, Settings())
    room_id = (await lobby.create({"engine": "turn-relay", "seats": 4, "options": {"moves": 12}}))[
        "id"
    ]
    live = lobby.rooms[room_id]
    for _ in range(4):
        await lobby.reserve(room_id, {})
    store.down = True
    await play_to_the_end(live)
    await store.refused.wait()
    saved = await store.load_room(room_id)
    assert saved is not None and saved.status == "playing", "the outage kept the old record"
    store.down = False
    async with asyncio.timeout(10):
        await store.finished.wait()
    saved = await store.load_room(room_id)
    assert saved is not None and saved.status == "finished" and saved.result is not None
    await lobby.close()


class SnapshotsDown(MemoryStore):
    """A memory store that refuses every snapshot."""

    async def save_snapshot(self, room_id: str, version: int, state: dict[str, Any]) -> None:
        raise StoreUnavailable("redis: Connection refused")


async def test_a_snapshot_refused_does_not_keep_the_finished_record_from_being_saved() -> None:
    """The snapshot and the record of the last move are written one after the other: a
    snapshot refused (the log is the truth: the next one will do) must not skip the
    record, which nothing else would save."""
    store = SnapshotsDown()
    lobby = Lobby(store, Settings(snapshot_every=1))
    options = {"engine": "turn-relay", "seats": 4, "options": {"moves": 12}}
    room_id = (await lobby.create(options))["id"]
    live = lobby.rooms[room_id]
    for _ in range(4):
        await lobby.reserve(room_id, {})
    await play_to_the_end(live)
    await live.settled()
    saved = await store.load_room(room_id)
    assert saved is not None and saved.status == "finished" and saved.result is not None
    assert live.saving is None, "saved at once, nothing left to retry"
    await lobby.close()
