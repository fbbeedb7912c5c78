"""What ``redis_durability=replica`` needs of Redis, checked once at start
(docs/operations.md, "Durability"): a master with no replica online refuses every
seat and move (``store_unavailable``), so a server started on one says so at once
rather than through its players' refusals."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from server.logs import fields

if TYPE_CHECKING:
    from server.store.redis import RedisStore

log = logging.getLogger("tablewire.app")


async def masters_without_replica(store: RedisStore) -> int | None:
    """How many of the store's masters have no replica online (``INFO replication``'s
    ``connected_slaves``); None if Redis did not say."""
    from redis.exceptions import RedisError  # (only a server on Redis loads the client)

    try:
        if store.cluster:
            from redis.asyncio.cluster import RedisCluster

            answers: Any = await store.redis.info(
                "replication", target_nodes=RedisCluster.PRIMARIES
            )
            infos = list(answers.values()) if "role" not in answers else [answers]
        else:
            infos = [await store.redis.info("replication")]
    except (RedisError, OSError):
        return None
    return sum(1 for info in infos if not int(info.get("connected_slaves", 0)))


async def warn_without_replica(store: RedisStore) -> None:
    """With ``redis_durability=replica``: a warning if a master has no replica online."""
    if store.durability != "replica":
        return
    if missing := await masters_without_replica(store):
        log.warning(
            "redis_durability is replica, but a Redis master has no replica online: "
            "every seat and move it holds is refused (store_unavailable) until one is",
            extra=fields(masters=missing),
        )
