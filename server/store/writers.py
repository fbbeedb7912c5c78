"""Script calls over many rooms, on one Redis or a Redis Cluster, in one round trip per
master.

A script may only touch the keys of one slot on a cluster, so a call over many
rooms (the appends of a group-commit batch, a lease renewal pass) becomes one call
per slot there; on a single Redis it stays one call per :data:`BATCH` rooms.
:meth:`Writers.append` sends the appends' calls on connections of their own, one per
master (the flusher's: no pool, no retry layer), every call of a master in one
write, followed by ``WAIT`` when a replica must have the entries too: the replies
are read in order, each call answered on its own. :meth:`Writers.scripts` runs
other scripts the same way through the client's pipeline.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Sequence
from typing import Any

from redis import exceptions as redis_errors

from server.store.base import StoreUnavailable

BATCH = 1000
"""Rooms per call of a script over many rooms (appends, renewals), so that no call
blocks Redis for long."""

REFRESH = 0.5
"""Least seconds between two reads of the cluster's slots after a failed write."""

Answer = Any | BaseException
"""A call's reply, or why it has none (the call wrote nothing, or its fate is unknown)."""


class Writers:
    """Calls of one script over many slots; ``wait_ms``: after each master's appends,
    ``WAIT 1 wait_ms`` (None: acknowledged once the master has them)."""

    def __init__(self, redis: Any, append: str, wait_ms: int | None) -> None:
        self.redis = redis
        self.cluster = hasattr(redis, "nodes_manager")
        self.append_sha = hashlib.sha1(append.encode()).hexdigest()
        self.append_source = append
        self.wait_ms = wait_ms
        self._connections: dict[str, Any] = {}
        self._refreshed = -REFRESH

    def by_slot(self, keys: Sequence[str]) -> list[list[int]]:
        """The positions of ``keys`` in groups that go in one call each: one slot's (on a
        cluster), at most :data:`BATCH` of them."""
        slots: dict[int, list[int]] = {}
        for i, key in enumerate(keys):
            slots.setdefault(self.redis.keyslot(key) if self.cluster else 0, []).append(i)
        return [
            positions[start : start + BATCH]
            for positions in slots.values()
            for start in range(0, len(positions), BATCH)
        ]

    # -- the appends ----------------------------------------------------------------

    async def append(
        self, calls: Sequence[tuple[list[str], bytes]], args: list[Any]
    ) -> list[Answer]:
        """The append script once per call (its keys, its packed batch, then ``args``):
        each call's reply, or the error it failed with."""
        by_node: dict[str, list[int]] = {}
        for i, (keys, _) in enumerate(calls):
            by_node.setdefault(self._node_name(keys[0]), []).append(i)
        answers: list[Answer] = [None] * len(calls)
        outcomes = await asyncio.gather(
            *(
                self._append_on(node, [calls[i] for i in chosen], args)
                for node, chosen in by_node.items()
            )
        )
        for chosen, replies in zip(by_node.values(), outcomes, strict=True):
            for i, reply in zip(chosen, replies, strict=True):
                answers[i] = reply
        if self.cluster and any(isinstance(a, StoreUnavailable) for a in answers):
            await self._refresh()
        return answers

    def _node_name(self, key: str) -> str:
        if not self.cluster:
            return ""
        try:
            node = self.redis.get_node_from_key(key)
        except redis_errors.SlotNotCoveredError:
            return "?"
        return str(node.name)

    def _connection(self, name: str) -> Any:
        connection = self._connections.get(name)
        if connection is None:
            if self.cluster:
                node = self.redis.get_node(node_name=name)
                if node is None:
                    raise StoreUnavailable(f"redis: no node {name} in the cluster's slots")
                connection = node.connection_class(**node.connection_kwargs)
            else:
                connection = self.redis.connection_pool.make_connection()
            self._connections[name] = connection
        return connection

    async def _append_on(
        self, name: str, calls: Sequence[tuple[list[str], bytes]], args: list[Any]
    ) -> list[Answer]:
        """The calls on one master's connection, then ``WAIT``; loading the script first
        where the master does not know it (a restarted Redis, a promoted replica)."""
        commands = [("EVALSHA", self.append_sha, len(k), *k, batch, *args) for k, batch in calls]
        try:
            connection = self._connection(name)
            replies = await self._send(connection, commands)
            if any(isinstance(r, redis_errors.NoScriptError) for r in replies):
                await self._send(connection, [("SCRIPT", "LOAD", self.append_source)])
                replies = await self._send(connection, commands)
        except StoreUnavailable as exc:
            return [exc] * len(calls)
        except Exception as exc:
            self._connections.pop(name, None)
            await self._drop(connection)
            return [StoreUnavailable(f"redis: {exc}")] * len(calls)
        if self.wait_ms is not None:
            replicas = replies.pop()
            if not isinstance(replicas, int) or replicas < 1:
                why = StoreUnavailable(f"redis: no replica confirmed within {self.wait_ms} ms")
                return [why if isinstance(r, list) else r for r in replies]
        return [
            StoreUnavailable(f"redis: {reply}") if isinstance(reply, BaseException) else reply
            for reply in replies
        ]

    async def _send(self, connection: Any, commands: list[tuple[Any, ...]]) -> list[Answer]:
        """``commands`` (and ``WAIT`` after a script call, if asked) in one write; the
        replies in order, an error reply as its exception."""
        if self.wait_ms is not None and commands[0][0] == "EVALSHA":
            commands = [*commands, ("WAIT", 1, self.wait_ms)]
        await connection.send_packed_command(connection.pack_commands(commands), check_health=False)
        replies: list[Answer] = []
        for _ in commands:
            try:
                replies.append(await connection.read_response())
            except redis_errors.ResponseError as exc:
                replies.append(exc)
        return replies

    async def _drop(self, connection: Any) -> None:
        try:
            await connection.disconnect()
        except Exception:  # a broken connection may fail to close too; it is dropped
            return

    async def _refresh(self) -> None:
        """Read the cluster's slots again (a master died, a slot moved): at most every
        :data:`REFRESH` seconds; failures are left to the next batch."""
        now = time.monotonic()
        if now - self._refreshed < REFRESH:
            return
        self._refreshed = now
        try:
            await self.redis.nodes_manager.initialize()
        except Exception:  # the cluster is still down: the next failed batch tries again
            return

    # -- other scripts ------------------------------------------------------------

    async def scripts(self, source: str, calls: Sequence[tuple[list[str], list[Any]]]) -> list[Any]:
        """Script ``source`` once per (keys, args), in one pipeline (one round trip per
        master); loaded first where Redis has forgotten it."""
        script: Any = self.redis.register_script(source)
        for _ in range(2):
            async with self.redis.pipeline(transaction=False) as pipe:
                for keys, args in calls:
                    pipe.evalsha(script.sha, len(keys), *keys, *args)
                replies: list[Any] = await pipe.execute(raise_on_error=False)
            if not any(isinstance(r, redis_errors.NoScriptError) for r in replies):
                break
            await self.redis.script_load(source)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return replies

    async def close(self) -> None:
        for connection in self._connections.values():
            await self._drop(connection)
        self._connections.clear()
