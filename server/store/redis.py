"""The Redis store: rooms shared by any number of server processes.

Keys (``{p}`` is the prefix, ``tw`` by default)::

    {p}:index:{name}          ZSET   the lobby's indexes (store/base.py ``indexes_of``):
                                     members ``index_key`` (creation time, room id),
                                     all of score 0, so a page is one ZREVRANGEBYLEX
    {p}:room:{id}             STRING msgpack room record
    {p}:room:{id}:tokens      HASH   sha256(token) -> seat, expiring after token_ttl
    {p}:room:{id}:log         STREAM the room's log; entry id "{version}-0", field "e"
    {p}:room:{id}:snap        STRING msgpack {"v": version, "s": engine state}
    {p}:room:{id}:lease       STRING fencing token of the owning process, with a TTL
    {p}:room:{id}:epoch       STRING counter behind the fencing tokens

Appends run one Lua script that checks each entry's lease token and writes it
with an explicit stream id: a process that lost its lease, or that is behind,
cannot write (Redis refuses an id that is not above the last one). A seat
entry's token is written by the same script, after the entry: a seat is never
logged without its token, nor a token stored for a seat not taken. The appends
of many rooms that arrive together go in one call of that script
(:mod:`server.store.batch`: one round trip and, under ``appendfsync always``,
one ``fsync`` for the batch), each entry fenced and answered on its own. An
entry is acknowledged after the script returns; with ``appendonly yes`` and
``appendfsync always`` it is on disk by then.

Connections come from a bounded pool (``redis_pool``) that makes a caller wait
for a free connection (up to ``redis_pool_timeout``) instead of failing: a busy
service queues, it never refuses a move for want of a connection. Lease
renewals go in one script call per ``BATCH`` rooms.

Every Redis failure surfaces as :class:`StoreUnavailable`; nothing half-written
is acknowledged.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from typing import Any

import msgpack
import redis.asyncio as aioredis
from redis import exceptions as redis_errors

from server.store.base import (
    LogEntry,
    NotOwner,
    RoomRecord,
    StoreUnavailable,
    index_key,
    indexes_for,
    indexes_of,
    key_room,
)
from server.store.batch import GroupCommit, Outcome

Append = tuple[str, int, LogEntry, str, "tuple[str, int] | None"]
"""One queued append: room id, version, entry, lease token, and the seat token (hash,
seat) stored with it, if any."""

_APPEND = """
local batch = cmsgpack.unpack(ARGV[1])
local out = {}
for i = 1, #KEYS / 3 do
  local item = batch[i]
  if redis.call('GET', KEYS[3 * i - 2]) ~= item[1] then
    out[i] = 'NOTOWNER lease lost'
  else
    local added = redis.pcall('XADD', KEYS[3 * i - 1], item[2], 'e', item[3])
    if type(added) == 'table' and added.err then
      out[i] = added.err
    else
      if item[4] ~= '' then
        redis.call('HSET', KEYS[3 * i], item[4], item[5])
        redis.call('EXPIRE', KEYS[3 * i], ARGV[2])
      end
      out[i] = 1
    end
  end
end
return out
"""
"""Entries of several rooms: KEYS lease1, log1, tokens1, lease2, log2, tokens2 …;
ARGV[1] one msgpack array of [lease token, stream id, entry, seat token hash or "",
seat] per room (one argument, whatever the batch: the client packs one value, not
five per entry), ARGV[2] the seat tokens' TTL; per entry 1 (written, with its seat
token if any: both or neither) or the reason it was not."""

_ACQUIRE = """
if redis.call('EXISTS', KEYS[3]) == 0 then return false end
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local token = ARGV[1] .. ':' .. redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], token, 'PX', ARGV[2])
return token
"""

_RENEW = """
local items = cmsgpack.unpack(ARGV[3])
local lost = {}
for i = 1, #items, 2 do
  local key = ARGV[1] .. items[i] .. ':lease'
  if redis.call('GET', key) == items[i + 1] then
    redis.call('PEXPIRE', key, ARGV[2])
  else
    lost[#lost + 1] = items[i]
  end
end
return lost
"""
"""The leases of several rooms: ARGV the room key prefix, the TTL, then one msgpack
array room id, token, room id, token …; the ids of the leases not held (not renewed).
One packed argument and a reply of the lost ones only: a pass over thousands of
rooms costs the client little to build and less to read."""

BATCH = 1000
"""Rooms per call of a script over many rooms (appends, renewals), so that no call
blocks Redis for long."""

_PAGE = """
local members = redis.call('ZREVRANGEBYLEX', KEYS[1], ARGV[1], '-', 'LIMIT', 0, ARGV[2])
local out = {}
for i, member in ipairs(members) do
  out[2 * i - 1] = member
  out[2 * i] = redis.call('GET', ARGV[3] .. string.sub(member, string.find(member, ':') + 1))
end
return out
"""
"""A page of an index with its records, in one round trip: KEYS the index, ARGV the
top of the range, how many, and the room key prefix; index key, record (false: the
room is gone), index key, record … The records are read in the script, so a
listing waits for Redis once, not twice."""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

#: The Redis client's errors that mean "Redis cannot be reached now".
REDIS_DOWN = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.BusyLoadingError,
    OSError,
)


@contextlib.contextmanager
def _unavailable() -> Iterator[None]:
    try:
        yield
    except REDIS_DOWN as exc:
        raise StoreUnavailable(f"redis: {exc}") from exc


def entry_version(entry_id: bytes) -> int:
    """The version of a log entry from its stream id ``b"{version}-0"``."""
    return int(entry_id.split(b"-")[0])


def _pack(value: Any) -> bytes:
    data: bytes = msgpack.packb(value, use_bin_type=True)
    return data


def _unpack(data: Any) -> Any:
    return msgpack.unpackb(data, raw=False)


class RedisStore:
    """Rooms in Redis (see the module docstring for the keys)."""

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "tw",
        lease_ttl: float = 5.0,
        token_ttl: float = 7 * 86400,
        finished_ttl: float = 600.0,
        timeout: float = 2.0,
        pool: int = 64,
        pool_timeout: float = 20.0,
        batch_interval: float = 0.003,
    ) -> None:
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
        self._append = self.redis.register_script(_APPEND)
        self._writer: Any = None
        """The flusher's own connection (made on first use, outside the pool): a batch
        is one packed EVALSHA and one reply, without the pool's, the retry's and the
        script object's layers on every batch."""
        self._acquire = self.redis.register_script(_ACQUIRE)
        self._renew = self.redis.register_script(_RENEW)
        self._release = self.redis.register_script(_RELEASE)
        self._page = self.redis.register_script(_PAGE)
        self.appends = GroupCommit(self._write, most=BATCH, interval=batch_interval)

    def key(self, room_id: str, part: str = "") -> str:
        """The key of a room, or of one of its parts (``log``, ``lease`` …)."""
        return f"{self.prefix}:room:{room_id}" + (f":{part}" if part else "")

    def _keys(self, room_id: str) -> list[str]:
        return [self.key(room_id, part) for part in ("", "tokens", "log", "snap", "lease", "epoch")]

    async def close(self) -> None:
        await self.appends.close()
        if self._writer is not None:
            await self._writer.disconnect()
        await self.redis.aclose()

    # -- records and the lobby index -------------------------------------------

    def _index(self, name: str) -> str:
        return f"{self.prefix}:index:{name}"

    async def save_room(self, record: RoomRecord) -> None:
        key, names = index_key(record), indexes_of(record)
        with _unavailable():
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.set(self.key(record.id), _pack(asdict(record)))
                for name in names:
                    pipe.zadd(self._index(name), {key: 0})
                for name in indexes_for(record) - names:  # a status left behind
                    pipe.zrem(self._index(name), key)
                if record.status == "finished":
                    # A backstop: the sweep removes finished rooms, this expires them anyway
                    # (a listing drops index entries whose room is gone).
                    for part in self._keys(record.id):
                        pipe.expire(part, self.finished_ttl * 2)
                await pipe.execute()

    async def load_room(self, room_id: str) -> RoomRecord | None:
        with _unavailable():
            data = await self.redis.get(self.key(room_id))
        return RoomRecord(**_unpack(data)) if data else None

    async def page(
        self, index: str, limit: int, after: str | None = None
    ) -> tuple[list[RoomRecord], str | None]:
        top = "+" if after is None else f"({after}"
        with _unavailable():
            answer: Any = await self._page(
                keys=[self._index(index)], args=[top, limit + 1, self.key("")]
            )
            keys = [member.decode() for member in answer[0::2]]
            chosen = keys[:limit]
            records = answer[1 : 2 * limit : 2]
            gone = [key for key, data in zip(chosen, records, strict=True) if not data]
            if gone:
                await self.redis.zrem(self._index(index), *gone)
        found = [RoomRecord(**_unpack(data)) for data in records if data]
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

    async def load_rooms(self, room_ids: Sequence[str]) -> list[RoomRecord | None]:
        if not room_ids:
            return []
        with _unavailable():
            records: Any = await self.redis.mget([self.key(i) for i in room_ids])
        return [RoomRecord(**_unpack(data)) if data else None for data in records]

    async def delete_room(self, room_id: str) -> None:
        record = await self.load_room(room_id)
        with _unavailable():
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.delete(*self._keys(room_id))
                if record is not None:
                    self._unindex(pipe, record)
                await pipe.execute()

    async def delete_rooms(self, records: Sequence[RoomRecord]) -> None:
        if not records:
            return
        with _unavailable():
            async with self.redis.pipeline(transaction=True) as pipe:
                for record in records:
                    pipe.delete(*self._keys(record.id))
                    self._unindex(pipe, record)
                await pipe.execute()

    def _unindex(self, pipe: Any, record: RoomRecord) -> None:
        for name in indexes_for(record):
            pipe.zrem(self._index(name), index_key(record))

    # -- seat tokens -------------------------------------------------------------

    async def seat_of(self, room_id: str, token_hash: str) -> int | None:
        with _unavailable():
            seat = await self.redis.hget(self.key(room_id, "tokens"), token_hash)
        return None if seat is None else int(seat)

    # -- the log and snapshots ---------------------------------------------------

    immediate = False

    def append_now(
        self,
        room_id: str,
        version: int,
        entry: LogEntry,
        lease: str,
        token: tuple[str, int] | None = None,
    ) -> None:
        raise NotImplementedError("a Redis append is awaited (immediate is False)")

    async def append(
        self,
        room_id: str,
        version: int,
        entry: LogEntry,
        lease: str,
        token: tuple[str, int] | None = None,
    ) -> None:
        await self.appends.submit((room_id, version, entry, lease, token))

    async def _write(self, batch: Sequence[Append]) -> list[Outcome]:
        """One call of the append script for a batch; each append's own outcome."""
        keys: list[str] = []
        items: list[Any] = []
        for room_id, version, entry, lease, token in batch:
            keys += [self.key(room_id, "lease"), self.key(room_id, "log")]
            keys.append(self.key(room_id, "tokens"))
            items.append([lease, f"{version}-0", _pack(entry), *(token or ("", 0))])
        try:
            with _unavailable():
                # Old-style raw strings: Redis's cmsgpack reads no bin type.
                batch_arg = msgpack.packb(items, use_bin_type=False)
                answers: Any = await self._call_append(keys, batch_arg)
        except StoreUnavailable as exc:
            return [exc] * len(batch)
        return [
            None
            if answer == 1
            else NotOwner(f"room {room_id} version {version}: {answer.decode()}")
            for (room_id, version, *_), answer in zip(batch, answers, strict=True)
        ]

    async def _call_append(self, keys: list[str], batch_arg: bytes) -> Any:
        """EVALSHA of the append script on the flusher's connection (loading the script
        first where Redis does not know it: a restarted Redis has forgotten it)."""
        if self._writer is None:
            self._writer = self.redis.connection_pool.make_connection()  # type: ignore[no-untyped-call]
        writer = self._writer
        command = writer.pack_command(
            "EVALSHA", self._append.sha, len(keys), *keys, batch_arg, self.token_ttl
        )
        try:
            await writer.send_packed_command(command, check_health=False)
            return await writer.read_response()
        except redis_errors.NoScriptError:
            await self.redis.script_load(_APPEND)
            await writer.send_packed_command(command, check_health=False)
            return await writer.read_response()
        except BaseException:
            await writer.disconnect()  # a fresh connection for the next batch
            raise

    async def read_log(self, room_id: str, after: int = 0) -> list[tuple[int, LogEntry]]:
        with _unavailable():
            entries: Any = await self.redis.xrange(self.key(room_id, "log"), min=f"({after}-0")
        return [(entry_version(eid), _unpack(data[b"e"])) for eid, data in entries]

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
        longer held (not renewed), in one script call per ``BATCH`` rooms."""
        lost: list[str] = []
        prefix = self.key("")  # "{p}:room:"
        for start in range(0, len(leases), BATCH):
            flat = [part for lease in leases[start : start + BATCH] for part in lease]
            with _unavailable():
                answers: Any = await self._renew(
                    args=[prefix, self.lease_ms, msgpack.packb(flat, use_bin_type=False)]
                )
            lost += [answer.decode() for answer in answers]
        return lost

    async def holders(self, room_ids: Sequence[str]) -> list[str | None]:
        """The lease token of each room (None: nobody owns it), in one round trip per
        ``BATCH`` rooms."""
        found: list[str | None] = []
        for start in range(0, len(room_ids), BATCH):
            keys = [self.key(room_id, "lease") for room_id in room_ids[start : start + BATCH]]
            with _unavailable():
                tokens: Any = await self.redis.mget(keys)
            found += [token.decode() if token else None for token in tokens]
        return found

    async def holder(self, room_id: str) -> str | None:
        with _unavailable():
            token: Any = await self.redis.get(self.key(room_id, "lease"))
        return token.decode() if token else None

    async def release(self, room_id: str, lease: str) -> None:
        with _unavailable():
            await self._release(keys=[self.key(room_id, "lease")], args=[lease])
