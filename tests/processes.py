"""Doubles for tests of many server processes on one Redis (or one Redis Cluster): the
processes, clients spread over them (each failing over to the others) and the check
that no acknowledged move is missing from the log."""

from __future__ import annotations

from typing import Any

from clients.client import RoomClient
from clients.spawn import SpawnedServer
from server.store.redis import RedisStore

LEASE_TTL = 1.0


def node_process(
    node: str, redis_url: str, prefix: str, port: int | None = None, **settings: object
) -> SpawnedServer:
    """``tablewire serve`` on the Redis store, with short leases for fast failovers."""
    return SpawnedServer(
        port,
        redis_url=redis_url,
        redis_prefix=prefix,
        lease_ttl=LEASE_TTL,
        forward_timeout=1.0,
        node=node,
        **settings,
    )


def spread(
    servers: list[SpawnedServer], room_id: str, tokens: list[str | None]
) -> list[RoomClient]:
    """Client i starts on server i % n and fails over to the others."""
    clients = []
    for i, token in enumerate(tokens):
        order = servers[i % len(servers) :] + servers[: i % len(servers)]
        clients.append(RoomClient(",".join(s.ws for s in order), room_id, token, record=True))
    return clients


async def assert_games_finished_with_every_ack(
    url: str, tables: list[tuple[str, list[RoomClient]]], prefix: str | None = None
) -> None:
    """Every room of ``tables`` (room id, its clients) in the Redis at ``url`` is finished,
    and every ack its clients got names its log entry (:func:`assert_every_ack_is_logged`)."""
    store = RedisStore.connect(url, **({} if prefix is None else {"prefix": prefix}))
    try:
        for room_id, clients in tables:
            assert_every_ack_is_logged(clients, await store.read_log(room_id))
            record = await store.load_room(room_id)
            assert record is not None and record.status == "finished", room_id
    finally:
        await store.close()


def assert_every_ack_is_logged(clients: list[RoomClient], log: list[Any]) -> None:
    """No acknowledged intent is missing: each ack names a log entry of that seat and id."""
    by_version = dict(log)
    acks = [(c.seat, a) for c in clients for a in c.acks]
    assert acks, "the bots were acknowledged"
    for seat, ack in acks:
        entry = by_version[ack["v"]]
        assert (entry["k"], entry["seat"], entry["id"]) == ("intent", seat, ack["id"]), ack
