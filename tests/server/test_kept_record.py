"""What is kept of a long game's record (``GET /api/rooms/{id}/record?kept=1``): once
the memory store has dropped a game's first log entries, the record cannot replay it,
but it still tells the lines from the room's latest snapshot on, as the full record
told them, and says that it is ``trimmed``; without ``kept`` it stays a 410."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engines import ENGINES
from server import history
from server.errors import ApiError
from server.lobby import Lobby
from server.room import Room
from server.settings import Settings
from server.store import MemoryStore
from server.timers import ManualTimers
from support import Player, run


async def played(
    lobby: Lobby,
    timers: ManualTimers,
    engine: str,
    seats: int,
    options: dict[str, Any] | None = None,
) -> Room:
    """A room of ``engine`` whose players made random moves for 40 versions or to the end."""
    body = {"engine": engine, "seats": seats, "seed": 5, "private": True, "options": options or {}}
    room = lobby.room((await lobby.create(body))["id"])
    assert room is not None
    players = [await Player(room, (await room.reserve(f"p{n}"))[0]).join() for n in range(seats)]
    rnd = random.Random(11)
    while room.version < 40 and room.record.status == "playing":
        assert room.state is not None
        answer = await players[min(room._to_act(room.state))].play(rnd)
        assert answer["t"] == "ack", answer
        await run(timers, room, 1)
    return room


@pytest.mark.parametrize(
    ("engine", "seats", "options"),
    [
        ("crystal-palace", 3, {}),
        ("sintra", 2, {}),
        ("chartered", 3, {"hidden_shares": True}),
    ],
)
async def test_a_trimmed_log_tells_the_lines_after_the_snapshot_as_the_whole_log_did(
    timers: ManualTimers, engine: str, seats: int, options: dict[str, Any]
) -> None:
    """The same game's record from its whole log and from its log with the first
    entries gone (as the memory store drops them): the kept one ends alike, line for
    line and at the same version, lists no moves (their numbers are lost) and cannot
    be read with ``views`` or without the snapshot."""
    store = MemoryStore()
    lobby = Lobby(store, Settings(snapshot_every=6), clock=timers, timers=timers)
    room = await played(lobby, timers, engine, seats, options)
    whole = await lobby.history(room.id)
    snapshot = await store.load_snapshot(room.id)
    assert snapshot is not None and snapshot[0] > 6
    entries = (await store.read_log(room.id))[3:]
    kept = history.game_record(ENGINES[engine], room.record, entries, snapshot=snapshot)
    assert kept["trimmed"] is True and "trimmed" not in whole
    assert kept["log"] and whole["log"][-len(kept["log"]) :] == kept["log"]
    assert kept["version"] == whole["version"] and kept["moves"] == []
    with pytest.raises(history.TrimmedLog):
        history.game_record(ENGINES[engine], room.record, entries)
    with pytest.raises(history.TrimmedLog):
        history.game_record(ENGINES[engine], room.record, entries, True, snapshot)
    await lobby.close()


async def test_the_lobby_answers_what_is_kept_only_when_asked(timers: ManualTimers) -> None:
    store = MemoryStore(memory_log=2)
    lobby = Lobby(store, Settings(snapshot_every=6), clock=timers, timers=timers)
    room = await played(lobby, timers, "sintra", 2)
    with pytest.raises(ApiError) as refused:
        await lobby.history(room.id)
    assert (refused.value.status, refused.value.code) == (410, "record_trimmed")
    kept = await lobby.history(room.id, kept=True)
    assert kept["trimmed"] is True and kept["version"] == room.version
    await lobby.close()


async def test_a_log_trimmed_past_the_snapshot_read_before_it_is_still_a_410(
    timers: ManualTimers,
) -> None:
    """The snapshot is read before the log: were a newer snapshot taken and the log
    trimmed past the older one meanwhile, the entries between would be missing, and the
    lines folded over the gap wrong. Such a log is refused as trimmed, never told."""
    store = MemoryStore()
    lobby = Lobby(store, Settings(snapshot_every=6), clock=timers, timers=timers)
    room = await played(lobby, timers, "sintra", 2)
    snapshot = await store.load_snapshot(room.id)
    assert snapshot is not None
    entries = [item for item in await store.read_log(room.id) if item[0] > snapshot[0] + 1]
    assert entries
    with pytest.raises(history.TrimmedLog, match="after its snapshot"):
        history.game_record(ENGINES["sintra"], room.record, entries, snapshot=snapshot)
    await lobby.close()


class _CountedSnapshots(MemoryStore):
    """A memory store that counts the snapshots read."""

    snapshots_read = 0

    async def load_snapshot(self, room_id: str) -> Any:
        self.snapshots_read += 1
        return await super().load_snapshot(room_id)


async def test_a_whole_log_is_told_as_without_kept_and_reads_no_snapshot(
    timers: ManualTimers,
) -> None:
    """The room page always asks with ``kept``: a log kept whole (always so on Redis) is
    the whole record, with no snapshot read for it; a trimmed one reads its snapshot."""
    store = _CountedSnapshots()
    lobby = Lobby(store, Settings(snapshot_every=6), clock=timers, timers=timers)
    room = await played(lobby, timers, "sintra", 2)
    assert await lobby.history(room.id, kept=True) == await lobby.history(room.id)
    assert store.snapshots_read == 0
    await lobby.close()
    trimming = _CountedSnapshots(memory_log=2)
    lobby = Lobby(trimming, Settings(snapshot_every=6), clock=timers, timers=timers)
    room = await played(lobby, timers, "sintra", 2)
    assert (await lobby.history(room.id, kept=True))["trimmed"] is True
    assert trimming.snapshots_read == 1
    await lobby.close()
