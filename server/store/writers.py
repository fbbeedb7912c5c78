"""Script calls over many rooms, on one Redis or a Redis Cluster, in one round trip per
master.

A script may only touch the keys of one slot on a cluster, so a call over many
rooms (the appends of a group-commit batch, a lease renewal pass) becomes one call
per slot there; on a single Redis it stays one call per :data:`BATCH` rooms.
:meth:`Writers.run` sends the calls on connections of their own, one per master
(no pool, no retry layer), every call of a master in one write, followed by
``WAIT`` when a replica must have the appended entries too: the replies are read
in order, each call answered on its own, so a master that is down fails its own
calls only.

While a slot moves between masters (a reshard), a call is redirected the way Redis
Cluster asks: ``ASK`` (the room's keys are on the importing master already) is sent
there after ``ASKING``; ``TRYAGAIN`` (the keys are split between the two) and
``MOVED`` (the slot is the other master's now; the client's slot table learns it)
are sent again for up to :data:`REDIRECT_FOR` seconds. None of them ran the script.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import time
from collections.abc import Sequence
from typing import Any

import hiredis
from redis import exceptions as redis_errors

from server.metrics import STORE_REDIRECTS
from server.store.base import StoreUnavailable

BATCH = 1000
"""Rooms per call of a script over many rooms (appends, renewals), so that no call
blocks Redis for long."""

REFRESH = 0.5
"""Least seconds between two reads of the cluster's slots after a failed write."""
REDIRECT_FOR = 1.0
"""Seconds within which a call answered ``TRYAGAIN`` (its room's keys split between two
masters by a slot move) or ``MOVED`` (the slot moved) is sent again, backing off from
:data:`REDIRECT_PAUSE`; past them it fails (:class:`Redirected`). Neither answer ran
the script, so sending it again is safe. A lease renewal pass waits for its calls
(:meth:`Writers.run`'s ``redirect_for``); an append is sent again by its own room
(:meth:`~server.store.redis.RedisStore.append`), so that the rooms of a batch whose
slots did not move are answered at once."""
REDIRECT_PAUSE = 0.005
"""The first pause before a redirected call is sent again (doubled each time)."""
REDIRECTS = (redis_errors.TryAgainError, redis_errors.MovedError)
METRIC_ASK = STORE_REDIRECTS.labels("ask")
METRIC_TRYAGAIN = STORE_REDIRECTS.labels("tryagain")
METRIC_MOVED = STORE_REDIRECTS.labels("moved")

Answer = Any | BaseException
"""A call's reply, or why it has none (the call wrote nothing, or its fate is unknown)."""


def why(exc: BaseException) -> str:
    """What a failed call to Redis says to a client or operator (``store_unavailable``,
    ``/readyz``): the error's words, or its kind when it has none (a timeout)."""
    return f"redis: {str(exc) or type(exc).__name__}"


class Writers:
    """Calls of scripts over many slots; ``wait_ms``: after each master's appends,
    ``WAIT 1 wait_ms`` (None: acknowledged once the master has them)."""

    def __init__(self, redis: Any, wait_ms: int | None, timeout: float | None) -> None:
        self.redis = redis
        self.cluster = hasattr(redis, "nodes_manager")
        self.wait_ms = wait_ms
        self._connections: dict[str, tuple[Any, asyncio.Lock]] = {}
        self.timeout = timeout
        """Seconds a round trip on a connection of these calls may take: past it, the
        connection is dropped and the calls fail."""
        self._refreshed = -REFRESH

    @staticmethod
    def spans(count: int) -> list[range]:
        """Positions ``0 .. count - 1`` in groups of at most :data:`BATCH`: a call each, on
        a single Redis (where every key is in one slot)."""
        return [range(at, min(at + BATCH, count)) for at in range(0, count, BATCH)]

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

    # -- the calls ------------------------------------------------------------------

    async def run(
        self,
        source: str,
        calls: Sequence[tuple[list[str], list[Any]]],
        wait: bool = False,
        redirect_for: float = 0.0,
    ) -> list[Answer]:
        """Script ``source`` once per (keys, args), every master's calls in one round trip
        on its connection, then (with ``wait``, if ``wait_ms`` is set) ``WAIT``: each
        call's reply, or the error it failed with (:class:`StoreUnavailable`: it wrote
        nothing, or its fate is unknown; :class:`Redirected`: a slot move's answer).
        Calls redirected are sent again for up to ``redirect_for`` seconds."""
        sha = _sha(source)
        commands = [("EVALSHA", sha, len(keys), *keys, *args) for keys, args in calls]
        waits = wait and self.wait_ms is not None
        answers: list[Answer] = [None] * len(calls)
        pending = list(range(len(calls)))
        pause, deadline = REDIRECT_PAUSE, time.monotonic() + redirect_for
        while True:
            await self._run_all(source, commands, pending, answers, waits)
            pending = [i for i in pending if isinstance(answers[i], REDIRECTS)]
            for i in pending:
                answer = answers[i]
                if isinstance(answer, redis_errors.MovedError):
                    METRIC_MOVED.inc()
                    await self.redis.nodes_manager.move_slot(answer)
                else:
                    METRIC_TRYAGAIN.inc()
            if not pending or time.monotonic() + pause > deadline:
                break
            await asyncio.sleep(pause)  # the slot's keys are still moving: back off
            pause *= 2
        if self.cluster and any(isinstance(a, BaseException) for a in answers):
            await self._refresh()
        return [_unavailable(answer) for answer in answers]

    async def _run_all(
        self,
        source: str,
        commands: list[tuple[Any, ...]],
        chosen: list[int],
        answers: list[Answer],
        wait: bool,
    ) -> None:
        """The ``chosen`` calls, every master's in one round trip, their replies into
        ``answers``; then the ones answered ``ASK`` (:meth:`_follow_asks`)."""
        by_node: dict[str, list[int]] = {}
        for i in chosen:
            by_node.setdefault(self._node_name(commands[i][3]), []).append(i)
        if len(by_node) == 1:  # one master (always, on a single Redis): no task to gather
            node, on_node = next(iter(by_node.items()))
            outcomes = [await self._run_on(node, source, [commands[i] for i in on_node], wait)]
        else:
            outcomes = await asyncio.gather(
                *(
                    self._run_on(node, source, [commands[i] for i in on_node], wait)
                    for node, on_node in by_node.items()
                )
            )
        for on_node, replies in zip(by_node.values(), outcomes, strict=True):
            for i, reply in zip(on_node, replies, strict=True):
                answers[i] = reply
        if self.cluster:
            await self._follow_asks(source, commands, answers, wait)

    async def _follow_asks(
        self, source: str, commands: list[tuple[Any, ...]], answers: list[Answer], wait: bool
    ) -> None:
        """The calls a master answered ``ASK`` (their slot is being moved and their keys
        are on the importing master already) sent there once, each after ``ASKING``."""
        by_node: dict[str, list[int]] = {}
        for i, answer in enumerate(answers):
            # (A MOVED is an AskError too, in redis-py: the retry loop takes it.)
            if isinstance(answer, redis_errors.AskError) and not isinstance(answer, REDIRECTS):
                METRIC_ASK.inc()
                by_node.setdefault(f"{answer.host}:{answer.port}", []).append(i)
        outcomes = await asyncio.gather(
            *(
                self._run_on(node, source, [commands[i] for i in chosen], wait, asking=True)
                for node, chosen in by_node.items()
            )
        )
        for chosen, replies in zip(by_node.values(), outcomes, strict=True):
            for i, reply in zip(chosen, replies, strict=True):
                answers[i] = reply

    def _node_name(self, key: str) -> str:
        if not self.cluster:
            return ""
        try:
            node = self.redis.get_node_from_key(key)
        except redis_errors.SlotNotCoveredError:
            return "?"
        return str(node.name)

    def _connection(self, name: str) -> tuple[Any, asyncio.Lock]:
        """The connection of the master ``name`` (made on first use), and its lock: the
        flusher and the lease keeper take turns on it.

        It has no socket timeout: :attr:`timeout` bounds each call's whole round trip
        (:meth:`_send`), not each write and read: redis-py would start a task for every
        write and a timer for every reply (measured: 4 % of the server's CPU at 250
        rooms)."""
        if name not in self._connections:
            if self.cluster:
                node = self.redis.get_node(node_name=name)
                if node is None:
                    raise StoreUnavailable(f"redis: no master {name} in the cluster's slots")
                connection = node.connection_class(**node.connection_kwargs)
            else:
                connection = self.redis.connection_pool.make_connection()
            connection.socket_timeout = connection.orig_socket_timeout = None
            self._connections[name] = (connection, asyncio.Lock())
        return self._connections[name]

    async def _run_on(
        self,
        name: str,
        source: str,
        commands: list[tuple[Any, ...]],
        wait: bool,
        asking: bool = False,
    ) -> list[Answer]:
        """The script calls on one master's connection (then ``WAIT``); the script loaded
        first where the master does not know it (a restarted Redis, a promoted replica),
        and the calls it refused sent again. With ``asking``, each call follows an
        ``ASK``: it is sent after ``ASKING``. An error reply stays an exception
        (:func:`_unavailable` turns it into :class:`StoreUnavailable`)."""
        try:
            connection, lock = self._connection(name)
        except StoreUnavailable as exc:
            return [exc] * len(commands)
        async with lock:
            try:
                replies = await self._send(connection, commands, wait, asking)
                unknown = [
                    i for i, r in enumerate(replies) if isinstance(r, redis_errors.NoScriptError)
                ]
                if unknown:
                    await self._send(connection, [("SCRIPT", "LOAD", source)], False)
                    again = [commands[i] for i in unknown]
                    for i, reply in zip(
                        unknown, await self._send(connection, again, wait, asking), strict=True
                    ):
                        replies[i] = reply
            except BaseException as exc:
                # Replies left unread (an error, or a cancellation mid-read) would answer
                # the next calls on this connection: it is dropped, never reused.
                self._connections.pop(name, None)
                await asyncio.shield(self._drop(connection))
                if not isinstance(exc, Exception):
                    raise
                return [StoreUnavailable(why(exc))] * len(commands)
        return replies

    async def _send(
        self, connection: Any, commands: list[tuple[Any, ...]], wait: bool, asking: bool = False
    ) -> list[Answer]:
        """``commands`` in one write (each after ``ASKING``, with ``asking``; then
        ``WAIT``, with ``wait``); their replies in order, an error reply as its
        exception. A call whose entries no replica confirmed is answered
        :class:`StoreUnavailable`."""
        sent = [
            part for command in commands for part in ([("ASKING",)] if asking else []) + [command]
        ]
        if wait:
            sent.append(("WAIT", 1, self.wait_ms))
        replies: list[Answer] = []
        async with asyncio.timeout(self.timeout):
            await connection.send_packed_command(b"".join(map(hiredis.pack_command, sent)), False)
            for _ in sent:
                try:
                    replies.append(await connection.read_response())
                except redis_errors.ResponseError as exc:
                    replies.append(exc)
        if asking:  # the ASKING replies (OK) go
            replies = [*replies[1 : 2 * len(commands) : 2], *replies[2 * len(commands) :]]
        if wait:
            replicas = replies.pop()
            if not isinstance(replicas, int) or replicas < 1:
                why = StoreUnavailable(f"redis: no replica confirmed within {self.wait_ms} ms")
                replies = [why if isinstance(r, list) else r for r in replies]
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

    async def close(self) -> None:
        for connection, _ in self._connections.values():
            await self._drop(connection)
        self._connections.clear()


@functools.cache
def _sha(source: str) -> str:
    """The SHA1 ``EVALSHA`` names a script by."""
    return hashlib.sha1(source.encode()).hexdigest()


class Redirected(StoreUnavailable):
    """A call answered ``TRYAGAIN`` or ``MOVED`` while a slot moves: the script did not
    run, and the same call may be sent again shortly (:data:`REDIRECT_FOR`)."""


def _unavailable(answer: Answer) -> Answer:
    """A call's error reply as :class:`StoreUnavailable` (it wrote nothing), or
    :class:`Redirected`; a reply as it came."""
    if isinstance(answer, REDIRECTS):
        return Redirected(f"redis: {answer}")
    if isinstance(answer, BaseException) and not isinstance(answer, StoreUnavailable):
        return StoreUnavailable(f"redis: {answer}")
    return answer
