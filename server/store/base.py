"""The store interface and the records it keeps.

A room is fully described by its :class:`RoomRecord` (engine, seats, options,
seed) and its log: the ordered list of everything that changed it (a seat
taken, an intent applied). Engines are deterministic, so the record plus the
log rebuild the room exactly; the room's version is the length of its log.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Final, Protocol

from engines import BENCHMARK, ENGINES

LogEntry = dict[str, Any]
"""``{"k": "seat", "seat": int, "name": str}`` or
``{"k": "intent", "seat": int, "id": int | str, "action": map}`` (with ``"by": "bot"``
or ``"zombie"`` when the owner decided it), ``{"k": "presence", "seat": int,
"connected": bool}``, ``{"k": "end", "why": "abandoned"}`` or ``{"k": "rematch",
"room": str}``. The owner stamps every entry with ``"at"``: epoch seconds, from
which every process folds the same clocks (server/table.py)."""


STATUSES: Final = ("waiting", "playing", "finished")

ALL: Final = "all"
"""The index of every room of the store (the sweep and adoption walk it)."""

QUICKPLAY_TTL: Final = 3600
"""Seconds a quick play's room is kept under its ``Idempotency-Key`` (on Redis; the
memory store keeps the latest :data:`QUICKPLAY_KEPT`)."""
QUICKPLAY_KEPT: Final = 100_000
CURSOR: Final = re.compile(r"\d{10}\.\d{6}:[A-Za-z0-9_-]{1,64}")
"""A room's place in an index (:func:`index_key`); listings page on it."""


def index_key(record: RoomRecord) -> str:
    """The room's place in every index: its creation time (fixed width, so text order is
    time order), then its id for rooms created in the same microsecond."""
    return f"{record.created:017.6f}:{record.id}"


def key_room(key: str) -> str:
    """The room id of an index key."""
    return key.split(":", 1)[1]


def public_index(engine: str | None, status: str | None) -> str:
    """The index of the public rooms of ``engine`` in ``status`` (None: any)."""
    return f"public:{engine or '*'}:{status or '*'}"


def indexes_of(record: RoomRecord) -> set[str]:
    """The indexes a room belongs to: every room is in :data:`ALL`; a public one also in
    the public indexes of its engine and status, and, a game's (not a benchmark's:
    turn-relay is the load generators' workload), of any engine."""
    if record.private:
        return {ALL}
    engine = ENGINES.get(record.engine)
    games = engine is None or engine.kind != BENCHMARK
    return {ALL} | {
        public_index(listed, status)
        for listed in ((record.engine, None) if games else (record.engine,))
        for status in (record.status, None)
    }


def indexes_for(record: RoomRecord) -> set[str]:
    """Every index a room of this engine could ever be in (whatever its status)."""
    return {ALL} | {
        public_index(engine, status)
        for engine in (record.engine, None)
        for status in (*STATUSES, None)
    }


class StoreUnavailable(Exception):
    """The store cannot be reached; nothing was written."""


class NotOwner(Exception):
    """An append refused: the lease is not (or no longer) held, or the version is taken."""


@dataclass
class RoomRecord:
    """What the lobby knows of a room."""

    id: str
    engine: str
    seats: int
    options: dict[str, Any]
    private: bool
    seed: int
    created: float
    updated: float
    status: str = "waiting"
    """``waiting`` (seats free), ``playing`` or ``finished``."""
    names: list[str | None] = field(default_factory=list)
    result: dict[str, Any] | None = None
    room_options: dict[str, Any] = field(default_factory=dict)
    """Clock, bot pacing, grace and abandonment (server/table.py); not the engine's."""
    bots: list[str | None] = field(default_factory=list)
    """Per seat: the kind of bot that holds it, or None for a person."""
    connected: list[bool] = field(default_factory=list)
    """Per seat: a connection of the seat is open (as of the owner's last log entry)."""
    away_since: list[float | None] = field(default_factory=list)
    """Per seat held by a person: since when nobody is connected for it."""
    rematch: str | None = None
    """The room opened as this finished room's rematch."""
    seed_chosen: bool = False
    """The creator chose the seed (and so can know every hidden card): shown to all."""
    owner: str | None = None
    """The SHA-256 of the owner credential given to the room's creator (None: a room
    the server opened, by quick play)."""
    invite: str | None = None
    """A private room's invitation secret, SHA-256: taking a seat needs it."""
    held: list[bool] = field(default_factory=list)
    """A rematch's seats held for the finished game's players until :attr:`held_until`."""
    held_until: float | None = None
    held_names: list[str | None] = field(default_factory=list)
    """Per seat of a rematch: the name of the finished game's player who may take it
    back (None: a bot's seat). While the seat is free, nobody else may take a name
    that reads or looks the same, even after :attr:`held_until`
    (:func:`server.chat.held_for`). Records written before it have none."""

    def public(self) -> dict[str, Any]:
        """The record as the lobby API shows it (no seed: it would reveal the bag; no
        credential's hash)."""
        data = asdict(self)
        for secret in ("seed", "owner", "invite"):
            del data[secret]
        data["owned"] = self.owner is not None
        data["taken"] = sum(name is not None for name in self.names)
        return data

    @classmethod
    def stored(cls, data: dict[str, Any]) -> RoomRecord:
        """A record as a store read it back: fields this version does not know (a newer
        process wrote them, in a rolling deploy) are left out rather than refused."""
        return cls(**{k: v for k, v in data.items() if k in RECORD_FIELDS})


RECORD_FIELDS: Final = frozenset(f.name for f in fields(RoomRecord))


class Store(Protocol):
    """Persistence of rooms; every method may raise :class:`StoreUnavailable`."""

    async def ping(self) -> None:
        """Return once the store answers (``GET /readyz``); raise
        :class:`StoreUnavailable` if it does not, within its timeout."""

    async def save_room(self, record: RoomRecord) -> None: ...

    async def load_room(self, room_id: str) -> RoomRecord | None: ...

    async def page(
        self, index: str, limit: int, after: str | None = None
    ) -> tuple[list[RoomRecord], str | None]:
        """Up to ``limit`` rooms of ``index`` (:data:`ALL` or a :func:`public_index`),
        newest first, from the one after the cursor ``after`` on; with the cursor of the
        next page, or None when this one is the last. The work is bounded by ``limit``,
        whatever the number of rooms."""

    async def page_ids(
        self, index: str, limit: int, after: str | None = None
    ) -> tuple[list[str], str | None]:
        """:meth:`page`'s room ids only (a room removed meanwhile may be among them), and
        the cursor of the next page."""

    async def load_rooms(self, room_ids: Sequence[str]) -> list[RoomRecord | None]:
        """The records of these rooms at once (None for a room that is gone)."""

    async def delete_room(self, room_id: str) -> None:
        """Forget the room, its tokens, log, snapshot and lease."""

    async def delete_rooms(self, records: Sequence[RoomRecord]) -> None:
        """:meth:`delete_room` of each of these rooms (their records as read), at once."""

    async def seat_of(self, room_id: str, token_hash: str) -> int | None: ...

    async def quickplay_room(self, digest: str) -> str | None:
        """The room a quick play request chose, by its key's ``digest`` (None: none)."""

    async def remember_quickplay(self, digest: str, room_id: str) -> None:
        """Keep ``room_id`` as the choice of the quick play whose key's digest is
        ``digest``, for :data:`QUICKPLAY_TTL` seconds; as durable as an append."""

    async def append(
        self,
        room_id: str,
        version: int,
        entry: LogEntry,
        lease: str,
        token: tuple[str, int] | None = None,
    ) -> None:
        """Durably append ``entry`` as ``version`` (the log's length + 1).

        Raises :class:`NotOwner` unless ``lease`` is the room's current lease
        and ``version`` is next: a process that lost the room cannot write.
        The entry is acknowledged only after this returns. ``token``: a seat
        token (its hash, the seat) stored with the entry, atomically: both are
        written or neither (:meth:`seat_of` finds it after this returns).
        """

    def append_soon(
        self,
        room_id: str,
        version: int,
        entry: LogEntry,
        lease: str,
        settle: Callable[[BaseException | None], None],
        token: tuple[str, int] | None = None,
    ) -> None:
        """:meth:`append` without an await: ``settle`` is called once with the outcome
        (None once the entry is durable, else the error :meth:`append` would raise):
        before this returns on the memory store, on Redis once the entry's batch is
        written. ``settle`` must not block; it is how a room commits a move without its
        actor waking for it."""

    async def read_log(self, room_id: str, after: int = 0) -> list[tuple[int, LogEntry]]:
        """The entries with a version above ``after``, as (version, entry), in order."""

    async def save_snapshot(self, room_id: str, version: int, state: dict[str, Any]) -> None: ...

    async def load_snapshot(self, room_id: str) -> tuple[int, dict[str, Any]] | None: ...

    async def acquire(self, room_id: str, node: str) -> str | None:
        """Take the room's lease if nobody holds it; return the fencing token."""

    async def renew(self, leases: Sequence[tuple[str, str]]) -> list[str]:
        """Extend each (room id, lease token) at once; the ids of the rooms whose lease
        is no longer ours (not renewed)."""

    async def release(self, room_id: str, lease: str) -> None: ...

    async def holder(self, room_id: str) -> str | None:
        """The room's current lease (fencing token), or None when nobody owns it."""

    async def holders(self, room_ids: Sequence[str]) -> list[str | None]:
        """:meth:`holder` of each room, at once."""
