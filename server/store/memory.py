"""The embedded in-memory store: the default, for one process.

It keeps the same data as any other store (records, hashed tokens, logs,
snapshots) so the room code never knows which store it runs on. With one
process there is nobody to share a room with: the lease is always granted.

**What it keeps of a log.** Nothing outlives the process, so the log serves
only to rebuild a room from its latest snapshot and to recognise retried
intents; it is not an archive. A room's log keeps the entries after its
latest snapshot and at most ``memory_log`` entries before it (older ones are
dropped when a snapshot is saved): memory stays bounded, however long a game
runs (docs/operations.md).

**Indexes.** Each index (:func:`~server.store.base.indexes_of`) is a sorted
list of :func:`~server.store.base.index_key`\\ s: a page is a bisection and a
slice, its cost bounded by its length, not by the number of rooms.
"""

from __future__ import annotations

import bisect
import copy
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import msgpack

from protocol.codec import encode
from server.store.base import (
    QUICKPLAY_KEPT,
    LogEntry,
    NotOwner,
    RoomRecord,
    index_key,
    indexes_of,
    key_room,
)

LOCAL_LEASE = "local"


class MemoryStore:
    """Rooms in dicts; lost when the process exits."""

    def __init__(self, memory_log: int = 1000) -> None:
        self.memory_log = memory_log
        """Log entries kept before a room's latest snapshot."""
        self._rooms: dict[str, RoomRecord] = {}
        self._tokens: dict[str, dict[str, int]] = {}
        self._logs: dict[str, list[bytes]] = {}
        """Each room's entries, msgpack-encoded: a long log is then a list of byte strings,
        which the garbage collector does not walk (a dict per entry it would)."""
        self._dropped: dict[str, int] = {}
        """Per room: the log entries dropped from its start (the first kept is this + 1)."""
        self._snapshots: dict[str, tuple[int, dict[str, Any]]] = {}
        self._indexes: dict[str, list[str]] = {}
        self._placed: dict[str, tuple[str, set[str]]] = {}
        """Per room: its index key and the indexes it is in."""
        self._quickplays: OrderedDict[str, str] = OrderedDict()
        """Quick plays' rooms by their key's digest, oldest first."""

    async def ping(self) -> None:
        """The memory store is this process: it always answers."""

    async def save_room(self, record: RoomRecord) -> None:
        self._rooms[record.id] = copy.deepcopy(record)
        key, names = index_key(record), indexes_of(record)
        _, before = self._placed.get(record.id, (key, set()))
        for name in before - names:
            self._unindex(name, key)
        for name in names - before:
            keys = self._indexes.setdefault(name, [])
            at = bisect.bisect_left(keys, key)
            if at == len(keys) or keys[at] != key:
                keys.insert(at, key)
        self._placed[record.id] = (key, names)

    def _unindex(self, name: str, key: str) -> None:
        keys = self._indexes.get(name, [])
        at = bisect.bisect_left(keys, key)
        if at < len(keys) and keys[at] == key:
            del keys[at]

    async def load_room(self, room_id: str) -> RoomRecord | None:
        record = self._rooms.get(room_id)
        return copy.deepcopy(record) if record else None

    async def page(
        self, index: str, limit: int, after: str | None = None
    ) -> tuple[list[RoomRecord], str | None]:
        keys = self._indexes.get(index, [])
        end = len(keys) if after is None else bisect.bisect_left(keys, after)
        chosen = keys[max(0, end - limit) : end][::-1]
        more = end - limit > 0
        records = [copy.deepcopy(self._rooms[key_room(key)]) for key in chosen]
        return records, chosen[-1] if more and chosen else None

    async def page_ids(
        self, index: str, limit: int, after: str | None = None
    ) -> tuple[list[str], str | None]:
        keys = self._indexes.get(index, [])
        end = len(keys) if after is None else bisect.bisect_left(keys, after)
        chosen = keys[max(0, end - limit) : end][::-1]
        more = end - limit > 0
        return [key_room(key) for key in chosen], chosen[-1] if more and chosen else None

    async def load_rooms(self, room_ids: Sequence[str]) -> list[RoomRecord | None]:
        return [copy.deepcopy(self._rooms.get(room_id)) for room_id in room_ids]

    async def delete_room(self, room_id: str) -> None:
        for table in (self._rooms, self._tokens, self._logs, self._dropped, self._snapshots):
            table.pop(room_id, None)
        key, names = self._placed.pop(room_id, ("", set()))
        for name in names:
            self._unindex(name, key)

    async def delete_rooms(self, records: Sequence[RoomRecord]) -> None:
        for record in records:
            await self.delete_room(record.id)

    async def seat_of(self, room_id: str, token_hash: str) -> int | None:
        return self._tokens.get(room_id, {}).get(token_hash)

    async def quickplay_room(self, digest: str) -> str | None:
        return self._quickplays.get(digest)

    async def remember_quickplay(self, digest: str, room_id: str) -> None:
        self._quickplays[digest] = room_id
        if len(self._quickplays) > QUICKPLAY_KEPT:
            self._quickplays.popitem(last=False)

    async def append(
        self,
        room_id: str,
        version: int,
        entry: LogEntry,
        lease: str,
        token: tuple[str, int] | None = None,
    ) -> None:
        self._append(room_id, version, entry, lease, token)

    def append_soon(
        self,
        room_id: str,
        version: int,
        entry: LogEntry,
        lease: str,
        settle: Callable[[BaseException | None], None],
        token: tuple[str, int] | None = None,
    ) -> None:
        try:
            self._append(room_id, version, entry, lease, token)
        except NotOwner as exc:
            settle(exc)
        else:
            settle(None)

    def _append(
        self,
        room_id: str,
        version: int,
        entry: LogEntry,
        lease: str,
        token: tuple[str, int] | None,
    ) -> None:
        log = self._logs.setdefault(room_id, [])
        last = self._dropped.get(room_id, 0) + len(log)
        if lease != LOCAL_LEASE or version != last + 1:
            raise NotOwner(f"room {room_id}: version {version} after {last}")
        log.append(encode(entry))
        if token is not None:
            self._tokens.setdefault(room_id, {})[token[0]] = token[1]

    async def read_log(self, room_id: str, after: int = 0) -> list[tuple[int, LogEntry]]:
        log = self._logs.get(room_id, [])
        dropped = self._dropped.get(room_id, 0)
        start = max(0, after - dropped)
        return [
            (dropped + i + 1, msgpack.unpackb(data)) for i, data in enumerate(log[start:], start)
        ]

    async def save_snapshot(self, room_id: str, version: int, state: dict[str, Any]) -> None:
        self._snapshots[room_id] = (version, state)
        log = self._logs.get(room_id)
        drop = version - self.memory_log - self._dropped.get(room_id, 0)
        if log and drop > 0:
            del log[:drop]
            self._dropped[room_id] = self._dropped.get(room_id, 0) + drop

    async def load_snapshot(self, room_id: str) -> tuple[int, dict[str, Any]] | None:
        return self._snapshots.get(room_id)

    async def acquire(self, room_id: str, node: str) -> str | None:
        return LOCAL_LEASE

    async def renew(self, leases: Sequence[tuple[str, str]]) -> list[str]:
        return [room_id for room_id, lease in leases if lease != LOCAL_LEASE]

    async def release(self, room_id: str, lease: str) -> None:
        pass

    async def holder(self, room_id: str) -> str | None:
        return LOCAL_LEASE if room_id in self._rooms else None

    async def holders(self, room_ids: Sequence[str]) -> list[str | None]:
        return [LOCAL_LEASE if room_id in self._rooms else None for room_id in room_ids]
