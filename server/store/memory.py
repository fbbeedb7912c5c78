"""The embedded in-memory store: the default, for one process.

It keeps the same data as any other store (records, hashed tokens, logs,
snapshots) so the room code never knows which store it runs on. With one
process there is nobody to share a room with: the lease is always granted.
"""

from __future__ import annotations

import copy
from typing import Any

from server.store.base import LogEntry, NotOwner, RoomRecord

LOCAL_LEASE = "local"


class MemoryStore:
    """Rooms in dicts; lost when the process exits."""

    def __init__(self) -> None:
        self._rooms: dict[str, RoomRecord] = {}
        self._tokens: dict[str, dict[str, int]] = {}
        self._logs: dict[str, list[LogEntry]] = {}
        self._snapshots: dict[str, tuple[int, dict[str, Any]]] = {}

    async def save_room(self, record: RoomRecord) -> None:
        self._rooms[record.id] = copy.deepcopy(record)

    async def load_room(self, room_id: str) -> RoomRecord | None:
        record = self._rooms.get(room_id)
        return copy.deepcopy(record) if record else None

    async def list_rooms(self) -> list[RoomRecord]:
        return [copy.deepcopy(r) for r in self._rooms.values()]

    async def delete_room(self, room_id: str) -> None:
        for table in (self._rooms, self._tokens, self._logs, self._snapshots):
            table.pop(room_id, None)

    async def add_token(self, room_id: str, token_hash: str, seat: int) -> None:
        self._tokens.setdefault(room_id, {})[token_hash] = seat

    async def seat_of(self, room_id: str, token_hash: str) -> int | None:
        return self._tokens.get(room_id, {}).get(token_hash)

    async def append(self, room_id: str, version: int, entry: LogEntry, lease: str) -> None:
        log = self._logs.setdefault(room_id, [])
        if lease != LOCAL_LEASE or version != len(log) + 1:
            raise NotOwner(f"room {room_id}: version {version} after {len(log)}")
        log.append(entry)

    async def read_log(self, room_id: str, after: int = 0) -> list[tuple[int, LogEntry]]:
        log = self._logs.get(room_id, [])
        return [(version, log[version - 1]) for version in range(after + 1, len(log) + 1)]

    async def save_snapshot(self, room_id: str, version: int, state: dict[str, Any]) -> None:
        self._snapshots[room_id] = (version, state)

    async def load_snapshot(self, room_id: str) -> tuple[int, dict[str, Any]] | None:
        return self._snapshots.get(room_id)

    async def acquire(self, room_id: str, node: str) -> str | None:
        return LOCAL_LEASE

    async def renew(self, room_id: str, lease: str) -> bool:
        return lease == LOCAL_LEASE

    async def release(self, room_id: str, lease: str) -> None:
        pass

    async def holder(self, room_id: str) -> str | None:
        return LOCAL_LEASE if room_id in self._rooms else None
