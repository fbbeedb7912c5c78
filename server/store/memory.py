"""The embedded in-memory store: the default, for one process.

It keeps the same data as any other store (records, hashed tokens, logs) so
the room code never knows which store it runs on.
"""

from __future__ import annotations

import copy

from server.store.base import LogEntry, RoomRecord


class MemoryStore:
    """Rooms in dicts; lost when the process exits."""

    def __init__(self) -> None:
        self._rooms: dict[str, RoomRecord] = {}
        self._tokens: dict[str, dict[str, int]] = {}
        self._logs: dict[str, list[LogEntry]] = {}

    async def save_room(self, record: RoomRecord) -> None:
        self._rooms[record.id] = copy.deepcopy(record)

    async def load_room(self, room_id: str) -> RoomRecord | None:
        record = self._rooms.get(room_id)
        return copy.deepcopy(record) if record else None

    async def list_rooms(self) -> list[RoomRecord]:
        return [copy.deepcopy(r) for r in self._rooms.values()]

    async def delete_room(self, room_id: str) -> None:
        self._rooms.pop(room_id, None)
        self._tokens.pop(room_id, None)
        self._logs.pop(room_id, None)

    async def add_token(self, room_id: str, token_hash: str, seat: int) -> None:
        self._tokens.setdefault(room_id, {})[token_hash] = seat

    async def seat_of(self, room_id: str, token_hash: str) -> int | None:
        return self._tokens.get(room_id, {}).get(token_hash)

    async def append(self, room_id: str, entry: LogEntry) -> None:
        self._logs.setdefault(room_id, []).append(entry)

    async def read_log(self, room_id: str) -> list[LogEntry]:
        return list(self._logs.get(room_id, []))
