"""Doubles for tests of many server processes on one Redis (or one Redis Cluster): the
processes, clients spread over them (each failing over to the others) and the check
that no acknowledged move is missing from the log."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from typing import Any, Protocol

from clients.bots import Summary, play_seat
from clients.client import LobbyClient, RoomClient
from clients.spawn import SpawnedServer
from engines.bots import RandomBot
from server.store.redis import RedisStore

LEASE_TTL = 1.0
CLOSING = "Waiting for application shutdown."
"""What a stopping server logs (:meth:`~clients.spawn.SpawnedServer.logged`) as it goes
on to close its rooms and give up their leases: its connections are closed already."""


class Reachable(Protocol):
    """Where clients go: a server process, or nginx in front of several."""

    url: str
    ws: str


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


class HeldClient(RoomClient):
    """A room client whose moves wait where a test holds them: for each ``(version, go)``
    of ``holds``, an intent sent once the room is at ``version`` or later waits until the
    event ``go`` is set (a move held across a step of the test, e.g. a process stopping)."""

    def __init__(
        self, *args: Any, holds: Sequence[tuple[int, asyncio.Event]] = (), **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.holds = list(holds)

    async def intent(self, action: dict[str, Any], intent_id: int | None = None) -> dict[str, Any]:
        for version, go in self.holds:
            if (self.version or 0) >= version:
                await go.wait()
        return await super().intent(action, intent_id)


def spread(
    servers: Sequence[Reachable],
    room_id: str,
    tokens: list[str | None],
    holds: Sequence[tuple[int, asyncio.Event]] = (),
) -> list[RoomClient]:
    """Client i starts on server i % n and fails over to the others; its moves wait at
    ``holds`` (:class:`HeldClient`)."""
    clients: list[RoomClient] = []
    for i, token in enumerate(tokens):
        order = [*servers[i % len(servers) :], *servers[: i % len(servers)]]
        ws = ",".join(s.ws for s in order)
        clients.append(HeldClient(ws, room_id, token, record=True, holds=holds))
    return clients


Tables = list[tuple[str, list[RoomClient]]]
"""Rooms and their players' clients: (room id, one client a seat)."""


async def relay_games(
    servers: Sequence[Reachable], rooms: int
) -> tuple[Tables, Summary, list[Coroutine[Any, Any, None]]]:
    """``rooms`` four-seat turn-relay games of 100 moves, created on the first server, each
    seat's client connected (:func:`spread` over ``servers``): the rooms, the summary the
    random bots will fill, and the bots' play (to run: gather it)."""
    tables: Tables = []
    async with LobbyClient(servers[0].url) as lobby:
        for _ in range(rooms):
            room = await lobby.create_room("turn-relay", options={"moves": 100})
            tokens = [(await lobby.reserve(room["id"]))["token"] for _ in range(4)]
            tables.append((room["id"], spread(servers, room["id"], list(tokens))))
    players = [client for _, clients in tables for client in clients]
    for client in players:
        await client.connect()
    summary = Summary("turn-relay")
    return tables, summary, [play_seat(c, RandomBot(i), summary) for i, c in enumerate(players)]


async def assert_games_finished_with_every_ack(
    url: str, tables: Tables, prefix: str | None = None
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
