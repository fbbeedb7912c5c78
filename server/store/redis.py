"""The Redis store: rooms shared by any number of server processes, on one Redis or
spread over the masters of a Redis Cluster.

Keys (``{p}`` is the prefix, ``tw`` by default; ``<id>`` a room id, in literal braces:
the hash tag that puts every key of a room in one cluster slot)::

    {p}:room:{<id>}           STRING msgpack room record
    {p}:room:{<id>}:tokens    HASH   sha256(token) -> seat, expiring after token_ttl
    {p}:room:{<id>}:log       STREAM the room's log; entry id "{version}-0", field "e"
    {p}:room:{<id>}:snap      STRING msgpack {"v": version, "s": engine state}
    {p}:room:{<id>}:lease     STRING fencing token of the owning process, with a TTL
    {p}:room:{<id>}:epoch     STRING counter behind the fencing tokens
    {p}:index:<name>          ZSET   the lobby's indexes (store/base.py ``indexes_of``):
                                     members ``index_key`` (creation time, room id),
                                     all of score 0, so a page is one ZREVRANGEBYLEX

The channels of the same rooms (server/hub.py) carry the same tag. Every script and
every transaction touches the keys of one room only, so one slot; the indexes are
other keys, in other slots, and never written in a room's transaction. A record is
saved in three steps, each idempotent: the room is added to the indexes it belongs
to, then the record is written, then the room is removed from the indexes it left.
A process that dies between two steps leaves an index entry that is wrong, never a
room missing from an index: a listing skips an entry whose record says it does not
belong there, and drops one whose record is gone (once older than :data:`GRACE`,
so never one whose record is being written). A page is one range of one index, so
its cursor stays exact. On a single Redis the three steps go in one MULTI.

Appends run one Lua script that checks each entry's lease token and writes it
with an explicit stream id: a process that lost its lease, or that is behind,
cannot write (Redis refuses an id that is not above the last one). A seat
entry's token is written by the same script, after the entry: a seat is never
logged without its token, nor a token stored for a seat not taken. The appends
of many rooms that arrive together go in one call of that script
(:mod:`server.store.batch`: one round trip and, under ``appendfsync always``,
one ``fsync`` for the batch), each entry fenced and answered on its own; on a
cluster, one call per slot, every master's calls in one round trip on a
connection of their own (:mod:`server.store.writers`). On a cluster the script also
publishes each entry on its room's sharded channel ``{p}:room:{<id>}:feed``
("{version}-0 " + entry), which the room's followers hear (server/hub.py).

An entry is acknowledged after the script returns: with ``durability`` ``master``,
once the master has it (with ``appendonly yes`` and ``appendfsync always``, on its
disk); with ``replica``, once ``WAIT 1`` on the same connection says a replica has
it too, or else the append fails as :class:`StoreUnavailable`.

The cluster is found, not configured: :func:`detect` asks the node of the URL
(``INFO cluster``). Connections to a single Redis come from a bounded pool
(``redis_pool``) that makes a caller wait for a free connection (up to
``redis_pool_timeout``) instead of failing; a cluster client keeps a pool per node.

Every Redis failure surfaces as :class:`StoreUnavailable`; nothing half-written
is acknowledged.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from typing import Any

import msgpack
import redis
import redis.asyncio as aioredis
from redis import exceptions as redis_errors
from redis.asyncio.cluster import RedisCluster

from server.settings import shown_url
from server.store import scripts
from server.store.base import (
    QUICKPLAY_TTL,
    LogEntry,
    NotOwner,
    RoomRecord,
    StoreUnavailable,
    index_key,
    indexes_for,
    indexes_of,
    key_room,
)
from server.store.batch import GroupCommit, Outcome, Settle, settle_future
from server.store.writers import (
    BATCH,
    REDIRECT_FOR,
    REDIRECT_PAUSE,
    Redirected,
    Writers,
    why,
)

Append = tuple[str, int, LogEntry, str, "tuple[str, int] | None"]
"""One queued append: room id, version, entry, lease token, and the seat token (hash,
seat) stored with it, if any."""

DURABILITIES = ("master", "replica")

GRACE = 60.0
"""Seconds after its room's creation an index entry without a record is left alone: its
record may be being written (a cluster writes the index first)."""

#: The Redis client's errors that mean "Redis cannot be reached now" (on a cluster: or
#: a slot has no master yet, or is moving).
REDIS_DOWN = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.BusyLoadingError,
    redis_errors.ClusterError,
    redis_errors.TryAgainError,
    redis_errors.AskError,
    redis_errors.SlotNotCoveredError,
    OSError,
)


@contextlib.contextmanager
def _unavailable() -> Iterator[None]:
    try:
        yield
    except REDIS_DOWN as exc:
        raise StoreUnavailable(why(exc)) from exc


class RedisRefused(ValueError):
    """The Redis of a URL answers, but refuses what the URL asks (a database it does not
    have): the URL is wrong, not Redis down."""


def detect(url: str, timeout: float = 2.0) -> bool:
    """Whether ``url`` names a node of a Redis Cluster (``INFO cluster``:
    ``cluster_enabled:1``); :class:`StoreUnavailable` if it cannot be reached (or is not
    Redis), :class:`RedisRefused` if it refuses the URL (its database, or its password
    missing or wrong). Blocking: called once, before the
    server serves."""
    client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
    try:
        info: Any = client.info("cluster")
    except redis_errors.InvalidResponse as exc:  # something answers, not in Redis's protocol
        shown = shown_url(url)
        raise StoreUnavailable(f"{shown} answers, but is not a Redis server ({exc})") from exc
    except redis_errors.ResponseError as exc:  # Redis refuses the URL: "DB index is out of range"
        raise RedisRefused(f"the Redis at {shown_url(url)} refuses it: {exc}") from exc
    except redis_errors.AuthenticationError as exc:  # (a ConnectionError, but Redis answered)
        reason = f"refuses it (a password missing or wrong): {exc}"
        raise RedisRefused(f"the Redis at {shown_url(url)} {reason}") from exc
    except REDIS_DOWN as exc:
        raise StoreUnavailable(why(exc)) from exc
    finally:
        client.close()
    return bool(info.get("cluster_enabled"))


def entry_version(entry_id: bytes) -> int:
    """The version of a log entry from its stream id ``b"{version}-0"``."""
    return int(entry_id.split(b"-")[0])


_PACKER = msgpack.Packer()
_RAW_PACKER = msgpack.Packer(use_bin_type=False)
"""For the append script's argument: Redis's cmsgpack reads no bin type."""


def _pack(value: Any) -> bytes:
    data: bytes = _PACKER.pack(value)
    return data


def _pack_raw(value: Any) -> bytes:
    data: bytes = _RAW_PACKER.pack(value)
    return data


def _item(
    room_id: str, version: int, entry: LogEntry, lease: str, token: tuple[str, int] | None
) -> list[Any]:
    """An append as the append scripts take it (:data:`~server.store.scripts.APPENDER`),
    its room id last."""
    hashed, seat = token or ("", 0)
    return [lease, f"{version}-0", _PACKER.pack(entry), hashed, seat, room_id]


def _unpack(data: Any) -> Any:
    return msgpack.unpackb(data, raw=False)


class _Redirecting:
    """The settle of one append that sends it again while its slot moves (a class, not
    a closure that names itself: that would be a reference cycle an append, garbage
    only the cycle collector frees)."""

    __slots__ = ("appends", "deadline", "item", "pause", "settle")

    def __init__(self, appends: GroupCommit[Append], item: Append, settle: Settle) -> None:
        self.appends = appends
        self.item = item
        self.settle = settle
        self.pause = REDIRECT_PAUSE
        self.deadline = 0.0

    def __call__(self, outcome: Outcome) -> None:
        if isinstance(outcome, Redirected):  # the room's slot is moving: back off
            now = time.monotonic()
            self.deadline = self.deadline or now + REDIRECT_FOR
            if now + self.pause <= self.deadline:
                loop = asyncio.get_running_loop()
                loop.call_later(self.pause, self.appends.submit_soon, self.item, self)
                self.pause *= 2
                return
        self.settle(outcome)


class RedisStore:
    """Rooms in Redis (see the module docstring for the keys). ``cluster``: the URL names
    a node of a Redis Cluster (:func:`detect`; :meth:`connect` asks)."""

    def __init__(
        self,
        url: str,
        *,
        cluster: bool = False,
        prefix: str = "tw",
        lease_ttl: float = 5.0,
        token_ttl: float = 7 * 86400,
        finished_ttl: float = 600.0,
        timeout: float = 2.0,
        pool: int = 64,
        pool_timeout: float = 20.0,
        batch_interval: float = 0.003,
        durability: str = "master",
    ) -> None:
        if "{" in prefix or "}" in prefix:
            raise ValueError(f"a Redis prefix has no braces (the rooms' hash tags): {prefix!r}")
        if durability not in DURABILITIES:
            raise ValueError(f"durability is one of {DURABILITIES}, not {durability!r}")
        self.cluster = cluster
        self.redis: Any
        if cluster:
            self.redis = RedisCluster.from_url(
                url, socket_timeout=timeout, socket_connect_timeout=timeout
            )
        else:
            connections = aioredis.BlockingConnectionPool.from_url(
                url,
                max_connections=pool,
                timeout=pool_timeout,
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
            )
            self.redis = aioredis.Redis(connection_pool=connections)
        self.prefix = prefix
        self.lease_ms = int(lease_ttl * 1000)
        self.token_ttl = int(token_ttl)
        self.finished_ttl = int(finished_ttl)
        self.durability = durability
        self.timeout = timeout
        wait_ms = int(timeout * 500) if durability == "replica" else None
        self.writers = Writers(self.redis, wait_ms, timeout)
        """The flusher's own connections, one per master: a batch is one packed EVALSHA
        per slot and one reply each, without the pool's and the retry's layers."""
        self._acquire = self.redis.register_script(scripts.ACQUIRE)
        self._release = self.redis.register_script(scripts.RELEASE)
        self._page = self.redis.register_script(scripts.PAGE)
        self._rooms = f"{prefix}:room:"
        """What a room's keys start with, before ``{id}`` (:meth:`key`, and scripts)."""
        self.appends = GroupCommit(self._write, most=BATCH, interval=batch_interval)

    @classmethod
    def connect(cls, url: str, **options: Any) -> RedisStore:
        """The store of ``url``, a single Redis or a node of a cluster (:func:`detect`)."""
        return cls(url, cluster=detect(url, options.get("timeout", 2.0)), **options)

    def key(self, room_id: str, part: str = "") -> str:
        """The key of a room, or of one of its parts (``log``, ``lease`` …)."""
        return f"{self._rooms}{{{room_id}}}" + (f":{part}" if part else "")

    def room_of(self, key: str) -> str:
        """The room id of a room's key or channel."""
        return key[key.index("{") + 1 : key.index("}")]

    def _keys(self, room_id: str) -> list[str]:
        return [self.key(room_id, part) for part in ("", "tokens", "log", "snap", "lease", "epoch")]

    async def close(self) -> None:
        await self.appends.close()
        await self.writers.close()
        await self.redis.aclose()

    async def ping(self) -> None:
        """A ``PING`` answered within the client's timeout (on a cluster, by every
        master), or :class:`StoreUnavailable`."""
        with _unavailable():
            async with asyncio.timeout(self.timeout):
                if self.cluster:
                    await self.redis.ping(target_nodes=RedisCluster.PRIMARIES)
                else:
                    await self.redis.ping()

    # -- records and the lobby index -------------------------------------------

    def _index(self, name: str) -> str:
        return f"{self.prefix}:index:{name}"

    async def save_room(self, record: RoomRecord) -> None:
        key, names = index_key(record), indexes_of(record)
        with _unavailable():
            async with self.redis.pipeline(transaction=not self.cluster) as pipe:
                for name in names:
                    pipe.zadd(self._index(name), {key: 0})
                if self.cluster:  # a step of its own: indexed before it is written
                    await pipe.execute()
                pipe.set(self.key(record.id), _pack(asdict(record)))
                if record.status == "finished":
                    # A backstop: the sweep removes finished rooms, this expires them anyway
                    # (a listing drops index entries whose room is gone).
                    for part in self._keys(record.id):
                        pipe.expire(part, self.finished_ttl * 2)
                if self.cluster:
                    await pipe.execute()
                for name in indexes_for(record) - names:  # a status left behind
                    pipe.zrem(self._index(name), key)
                await pipe.execute()

    async def load_room(self, room_id: str) -> RoomRecord | None:
        with _unavailable():
            data = await self.redis.get(self.key(room_id))
        return RoomRecord.stored(_unpack(data)) if data else None

    async def page(
        self, index: str, limit: int, after: str | None = None
    ) -> tuple[list[RoomRecord], str | None]:
        top = "+" if after is None else f"({after}"
        with _unavailable():
            if self.cluster:
                members: Any = await self.redis.zrevrangebylex(
                    self._index(index), top, "-", start=0, num=limit + 1
                )
                keys = [member.decode() for member in members]
                records: Any = await self._mget([self.key(key_room(k)) for k in keys[:limit]])
            else:
                answer: Any = await self._page(
                    keys=[self._index(index)], args=[top, limit + 1, self._rooms]
                )
                keys = [member.decode() for member in answer[0::2]]
                records = answer[1 : 2 * limit : 2]
            chosen = keys[:limit]
            found: list[RoomRecord] = []
            gone = []
            for key, data in zip(chosen, records, strict=True):
                if data:
                    record = RoomRecord.stored(_unpack(data))
                    if index in indexes_of(record):  # else left behind by a save cut short
                        found.append(record)
                elif float(key.split(":", 1)[0]) < time.time() - GRACE:
                    gone.append(key)
            if gone:
                await self.redis.zrem(self._index(index), *gone)
        return found, chosen[-1] if len(keys) > limit else None

    async def page_ids(
        self, index: str, limit: int, after: str | None = None
    ) -> tuple[list[str], str | None]:
        top = "+" if after is None else f"({after}"
        with _unavailable():
            members: Any = await self.redis.zrevrangebylex(
                self._index(index), top, "-", start=0, num=limit + 1
            )
        keys = [member.decode() for member in members]
        chosen = keys[:limit]
        return [key_room(key) for key in chosen], chosen[-1] if len(keys) > limit else None

    async def _mget(self, keys: list[str]) -> list[Any]:
        """MGET, one slot at a time on a cluster (in one round trip per master)."""
        if not keys:
            return []
        found: list[Any] = await (
            self.redis.mget_nonatomic(keys) if self.cluster else self.redis.mget(keys)
        )
        return found

    async def load_rooms(self, room_ids: Sequence[str]) -> list[RoomRecord | None]:
        with _unavailable():
            records = await self._mget([self.key(i) for i in room_ids])
        return [RoomRecord.stored(_unpack(data)) if data else None for data in records]

    async def delete_room(self, room_id: str) -> None:
        record = await self.load_room(room_id)
        await self._delete([record] if record else [], [room_id])

    async def delete_rooms(self, records: Sequence[RoomRecord]) -> None:
        await self._delete(records, [record.id for record in records])

    async def _delete(self, records: Sequence[RoomRecord], room_ids: list[str]) -> None:
        """Delete the rooms' keys, then their index entries (on a cluster, a step of its
        own: a listing drops the entries of a room that is gone, if it was cut short)."""
        if not room_ids:
            return
        with _unavailable():
            async with self.redis.pipeline(transaction=not self.cluster) as pipe:
                for room_id in room_ids:
                    pipe.delete(*self._keys(room_id))
                if self.cluster:
                    await pipe.execute()
                for record in records:
                    for name in indexes_for(record):
                        pipe.zrem(self._index(name), index_key(record))
                await pipe.execute()

    # -- seat tokens -------------------------------------------------------------

    async def seat_of(self, room_id: str, token_hash: str) -> int | None:
        with _unavailable():
            seat = await self.redis.hget(self.key(room_id, "tokens"), token_hash)
        return None if seat is None else int(seat)

    def _quickplay(self, digest: str) -> str:
        return f"{self.prefix}:quickplay:{{{digest}}}"

    async def quickplay_room(self, digest: str) -> str | None:
        with _unavailable():
            room_id = await self.redis.get(self._quickplay(digest))
        return None if room_id is None else str(room_id.decode())

    async def remember_quickplay(self, digest: str, room_id: str) -> None:
        call = ([self._quickplay(digest)], [room_id, QUICKPLAY_TTL])
        [answer] = await self.writers.run(
            scripts.REMEMBER, [call], wait=True, redirect_for=REDIRECT_FOR
        )
        if isinstance(answer, BaseException):
            raise answer

    # -- the log and snapshots ---------------------------------------------------

    async def append(
        self,
        room_id: str,
        version: int,
        entry: LogEntry,
        lease: str,
        token: tuple[str, int] | None = None,
    ) -> None:
        done = asyncio.get_running_loop().create_future()
        self.append_soon(room_id, version, entry, lease, settle_future(done), token)
        await done

    def append_soon(
        self,
        room_id: str,
        version: int,
        entry: LogEntry,
        lease: str,
        settle: Settle,
        token: tuple[str, int] | None = None,
    ) -> None:
        """Log ``entry`` through the group commit; while the room's slot moves between
        masters (a call :class:`Redirected`), sent again for up to
        :data:`~server.store.writers.REDIRECT_FOR` seconds, backing off."""
        item: Append = (room_id, version, entry, lease, token)
        self.appends.submit_soon(item, _Redirecting(self.appends, item, settle))

    async def _write(self, batch: Sequence[Append]) -> list[Outcome]:
        """The batch's appends, in one script call per slot (one in all on a single
        Redis, naming no key: :data:`~server.store.scripts.APPEND_IDS`); each append's
        own outcome."""
        calls: list[tuple[list[str], list[Any]]] = []
        members: list[Sequence[int]] = []
        if not self.cluster:
            members.extend(self.writers.spans(len(batch)))
            for span in members:
                items = _pack_raw([_item(*batch[i]) for i in span])
                calls.append(([], [items, self.token_ttl, 0, self._rooms]))
            answers = await self.writers.run(scripts.APPEND_IDS, calls, wait=True)
        else:
            for positions in self.writers.by_slot([self.key(room_id) for room_id, *_ in batch]):
                keys: list[str] = []
                for i in positions:
                    room_id, *_, token = batch[i]
                    keys += [self.key(room_id, "lease"), self.key(room_id, "log")]
                    if token:
                        keys.append(self.key(room_id, "tokens"))
                items = _pack_raw([_item(*batch[i]) for i in positions])
                calls.append((keys, [items, self.token_ttl, 1]))
                members.append(positions)
            answers = await self.writers.run(scripts.APPEND, calls, wait=True)
        outcomes: list[Outcome] = [None] * len(batch)
        for group, answer in zip(members, answers, strict=True):
            for n, i in enumerate(group):
                if isinstance(answer, BaseException):
                    outcomes[i] = answer
                elif answer[n] != 1:
                    room_id, version, *_ = batch[i]
                    why = answer[n].decode()
                    outcomes[i] = NotOwner(f"room {room_id} version {version}: {why}")
        return outcomes

    async def read_log(self, room_id: str, after: int = 0) -> list[tuple[int, LogEntry]]:
        with _unavailable():
            entries: Any = await self.redis.xrange(self.key(room_id, "log"), min=f"({after}-0")
        return [(entry_version(eid), _unpack(data[b"e"])) for eid, data in entries]

    async def read_logs(self, after: dict[str, int]) -> dict[str, list[tuple[int, Any]]]:
        """The entries of several rooms above the version given for each (by room id), in
        one round trip per master; the entries left packed (bytes)."""
        with _unavailable():
            async with self.redis.pipeline(transaction=False) as pipe:
                for room_id, version in after.items():
                    pipe.xrange(self.key(room_id, "log"), min=f"({version}-0")
                answers: Any = await pipe.execute()
        return {
            room_id: [(entry_version(eid), data[b"e"]) for eid, data in entries]
            for room_id, entries in zip(after, answers, strict=True)
        }

    async def save_snapshot(self, room_id: str, version: int, state: dict[str, Any]) -> None:
        with _unavailable():
            await self.redis.set(self.key(room_id, "snap"), _pack({"v": version, "s": state}))

    async def load_snapshot(self, room_id: str) -> tuple[int, dict[str, Any]] | None:
        with _unavailable():
            data = await self.redis.get(self.key(room_id, "snap"))
        if data is None:
            return None
        snap = _unpack(data)
        return snap["v"], snap["s"]

    # -- ownership -----------------------------------------------------------------

    async def acquire(self, room_id: str, node: str) -> str | None:
        keys = [self.key(room_id, "lease"), self.key(room_id, "epoch"), self.key(room_id)]
        with _unavailable():
            token = await self._acquire(keys=keys, args=[node, self.lease_ms])
        return token.decode() if token else None

    async def renew(self, leases: Sequence[tuple[str, str]]) -> list[str]:
        """Renew each (room id, lease token); the ids of the rooms whose lease is no
        longer held (not renewed), in one script call per ``BATCH`` rooms (per slot on
        a cluster), every call in one round trip (per master)."""
        if self.cluster:
            keys = [self.key(room_id, "lease") for room_id, _ in leases]
            groups: Sequence[Sequence[int]] = self.writers.by_slot(keys)
            calls = [
                (
                    [keys[i] for i in positions],
                    [self.lease_ms, msgpack.packb([leases[i][1] for i in positions])],
                )
                for positions in groups
            ]
            answers = await self.writers.run(scripts.RENEW, calls, redirect_for=REDIRECT_FOR)
        else:
            groups = self.writers.spans(len(leases))
            packed = [_pack(leases[span.start : span.stop]) for span in groups]
            calls = [([], [self.lease_ms, pairs, self._rooms]) for pairs in packed]
            answers = await self.writers.run(scripts.RENEW_IDS, calls)
        failed = [a for a in answers if isinstance(a, BaseException)]
        if failed and len(failed) == len(answers):
            raise failed[0]
        # A lease on a master that did not answer is not known lost: kept, its appends
        # fenced if it was.
        return [
            leases[positions[n - 1]][0]
            for positions, lost in zip(groups, answers, strict=True)
            if not isinstance(lost, BaseException)
            for n in lost
        ]

    async def holders(self, room_ids: Sequence[str]) -> list[str | None]:
        """The lease token of each room (None: nobody owns it), in one round trip per
        ``BATCH`` rooms (per master on a cluster)."""
        found: list[str | None] = []
        for span in self.writers.spans(len(room_ids)):
            keys = [self.key(room_id, "lease") for room_id in room_ids[span.start : span.stop]]
            with _unavailable():
                tokens = await self._mget(keys)
            found += [token.decode() if token else None for token in tokens]
        return found

    async def holder(self, room_id: str) -> str | None:
        with _unavailable():
            token: Any = await self.redis.get(self.key(room_id, "lease"))
        return token.decode() if token else None

    async def release(self, room_id: str, lease: str) -> None:
        with _unavailable():
            await self._release(keys=[self.key(room_id, "lease")], args=[lease])
