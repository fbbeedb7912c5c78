"""Pub/sub between server processes: classic on a single Redis, sharded on a cluster.

On a Redis Cluster a classic PUBLISH goes to every node of the cluster; a sharded
one (SPUBLISH) only to the nodes of its channel's slot. A room's channels carry its
hash tag (server/store/redis.py), so its messages stay on its own shard. redis-py's
cluster subscriber keeps one connection per master and follows a channel to its
slot's new master once it reads the cluster's slots again (after a failover, or
any command answered ``MOVED``).

When a slot moves (``redis-cli --cluster reshard``), its old master ends the
subscriptions to the slot's channels itself (an ``sunsubscribe`` nobody asked for);
what is published there meanwhile goes to the new master, where nobody listens.
:class:`Subscriber` reads the slots again at once when that happens, so that
redis-py subscribes those channels on the new master within a round trip, not
whenever this process next meets a ``MOVED``: a request forwarded to a room
whose slot moved would wait ``forward_timeout`` for nothing until then.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


class Subscriber:
    """The subscriptions of one process: :meth:`message` returns what arrives on any of
    them, as (channel, data)."""

    def __init__(self, redis: Any, sharded: bool) -> None:
        self.redis = redis
        self.sharded = sharded
        self.pubsub = redis.pubsub()
        self._stale = False
        self._refresh: asyncio.Task[None] | None = None

    async def subscribe(self, *channels: str) -> None:
        if self.sharded:
            await self.pubsub.ssubscribe(*channels)
        else:
            await self.pubsub.subscribe(*channels)

    async def unsubscribe(self, *channels: str) -> None:
        if self.sharded:
            await self.pubsub.sunsubscribe(*channels)
        else:
            await self.pubsub.unsubscribe(*channels)

    async def message(self, within: float) -> tuple[str, bytes] | None:
        """The next message, or None after ``within`` seconds without one (the client's
        own wait: a cancelled read would lose a message half read)."""
        if self.sharded:
            got = await self.pubsub.get_sharded_message(timeout=within)
            if got is not None and got["type"] in ("sunsubscribe", b"sunsubscribe"):
                if got["channel"] in self.pubsub.shard_channels:  # not asked: it moved
                    self._moved()
                return None
        else:
            got = await self.pubsub.get_message(ignore_subscribe_messages=True, timeout=within)
        if got is None or got["type"] not in ("message", "smessage", b"message", b"smessage"):
            return None
        channel = got["channel"]
        return channel.decode() if isinstance(channel, bytes) else channel, got["data"]

    def _moved(self) -> None:
        """A channel's slot left its master: read the cluster's slots again; however
        many ``sunsubscribe`` arrive while a read is in flight (a slot's channels, or
        a reshard's many slots), one more read follows it."""
        self._stale = True
        if self._refresh is None or self._refresh.done():
            self._refresh = asyncio.create_task(self._follow_slots())

    async def _follow_slots(self) -> None:
        while self._stale:
            self._stale = False
            # Unreachable: the next command's MOVED or failure asks again.
            with contextlib.suppress(Exception):
                await self.redis.nodes_manager.initialize()

    async def aclose(self) -> None:
        if self._refresh is not None:
            self._refresh.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._refresh
        await self.pubsub.aclose()


async def publish(redis: Any, sharded: bool, channel: str, data: bytes) -> None:
    """Send ``data`` on ``channel`` (SPUBLISH on a cluster)."""
    if sharded:
        await redis.spublish(channel, data)
    else:
        await redis.publish(channel, data)
