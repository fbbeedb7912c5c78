"""Pub/sub between server processes: classic on a single Redis, sharded on a cluster.

On a Redis Cluster a classic PUBLISH goes to every node of the cluster; a sharded
one (SPUBLISH) only to the nodes of its channel's slot. A room's channels carry its
hash tag (server/store/redis.py), so its messages stay on its own shard. redis-py's
cluster subscriber keeps one connection per master and follows a channel to its
slot's new master after a failover or a move.
"""

from __future__ import annotations

from typing import Any


class Subscriber:
    """The subscriptions of one process: :meth:`message` returns what arrives on any of
    them, as (channel, data)."""

    def __init__(self, redis: Any, sharded: bool) -> None:
        self.sharded = sharded
        self.pubsub = redis.pubsub()

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
            got = await self.pubsub.get_sharded_message(
                ignore_subscribe_messages=True, timeout=within
            )
        else:
            got = await self.pubsub.get_message(ignore_subscribe_messages=True, timeout=within)
        if got is None or got["type"] not in ("message", "smessage", b"message", b"smessage"):
            return None
        channel = got["channel"]
        return channel.decode() if isinstance(channel, bytes) else channel, got["data"]

    async def aclose(self) -> None:
        await self.pubsub.aclose()


async def publish(redis: Any, sharded: bool, channel: str, data: bytes) -> None:
    """Send ``data`` on ``channel`` (SPUBLISH on a cluster)."""
    if sharded:
        await redis.spublish(channel, data)
    else:
        await redis.publish(channel, data)
