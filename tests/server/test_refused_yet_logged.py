"""An append refused as ``store_unavailable`` may be in the log all the same: with
``redis_durability=replica`` the script wrote it on the master, then no replica confirmed
it in time (a replica starved of CPU, or a master killed after its replica had the entry
but before it answered ``WAIT``). Such an entry is a committed version for everyone who
reads the log: the room's followers fold it, a failover's new master holds it. The
owner must not go on deciding from the state before it: it reads its log first, so that
the next seat's move is taken and the refused intent, sent again, is acknowledged once.

(Seen in tests/server/test_compose_cluster.py: once a killed master's replica took its
slots over, it had no replica of its own until the killed node came back as one, so
each room's next append there was written and refused; the other server's clients saw
the move, the owner still held the version before it and refused the next seat's moves
as ``not_your_turn``, twenty in a row.)
"""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator

import pytest

from clients.client import LobbyClient, RoomClient
from clients.retry import Patience
from clients.spawn import SpawnedRedis
from conftest import Running, redis_server, running
from engines.turn_relay.engine import client_move
from server.settings import Settings
from server.store.redis import RedisStore

ONE_TRY = Patience(attempts=1)


class Pair:
    """A master and its replica, and a server on them with ``redis_durability=replica``."""

    def __init__(self, master: SpawnedRedis, replica: SpawnedRedis, server: Running) -> None:
        self.master, self.replica, self.server = master, replica, server

    def replica_signal(self, sig: signal.Signals) -> None:
        assert self.replica.process is not None
        self.replica.process.send_signal(sig)


@pytest.fixture
async def pair(prefix: str) -> AsyncIterator[Pair]:
    master = redis_server("--save", "", "--repl-diskless-sync-delay", "0")
    master.start()
    replica = redis_server("--save", "", "--replicaof", "127.0.0.1", str(master.port))
    settings = Settings(
        redis_url=master.url,
        redis_prefix=prefix,
        redis_durability="replica",
        load_test_clients="127.0.0.1",
    )
    try:
        replica.start()
        store = RedisStore.connect(master.url, prefix=prefix)
        try:
            await store.redis.set(f"{prefix}:marker", 1)
            assert await store.redis.wait(1, 10_000) == 1, "the replica is in sync"
        finally:
            await store.close()
        async with running(settings) as server:
            yield Pair(master, replica, server)
    finally:
        if replica.process is not None:
            replica.process.send_signal(signal.SIGCONT)
        replica.cleanup()
        master.cleanup()


async def test_the_owner_reads_a_refused_append_back_from_its_log(pair: Pair, prefix: str) -> None:
    async with LobbyClient(pair.server.url) as lobby:
        room = await lobby.create_room("turn-relay", options={"moves": 12})
        tokens = [(await lobby.reserve(room["id"]))["token"] for _ in range(4)]
    clients = [RoomClient(pair.server.ws, room["id"], t, patience=ONE_TRY) for t in tokens]
    store = RedisStore.connect(pair.master.url, prefix=prefix)
    try:
        for client in clients:
            await client.connect()
        doc = await clients[0].wait_for(lambda doc: doc["status"] == "playing")
        before = clients[0].version
        assert before is not None and doc["to_act"] == [0]
        logged = len(await store.read_log(room["id"]))
        assert logged == before, "every version is logged and acknowledged"

        pair.replica_signal(signal.SIGSTOP)  # WAIT runs out: the append is refused
        first = client_move(doc["game"])
        intent_id = clients[0].new_intent_id()
        refused = await clients[0].intent(first, intent_id)
        assert (refused["t"], refused["code"]) == ("reject", "store_unavailable"), refused
        log = await store.read_log(room["id"])
        assert [(v, e["seat"], e["id"]) for v, e in log[before:]] == [(before + 1, 0, intent_id)]
        pair.replica_signal(signal.SIGCONT)

        # Seat 1's move after seat 0's, as a client that read the log (a follower's) has it.
        second = {"take": 1, "colour": doc["game"]["board"][1][0]}
        assert second == client_move({**doc["game"], "moveCount": 1})
        reply = await clients[1].intent(second)
        assert (reply["t"], reply.get("v")) == ("ack", before + 2), reply
        again = await clients[0].intent(first, intent_id)
        assert (again["t"], again["v"]) == ("ack", before + 1), "applied once, acked again"
        assert [v for v, _ in await store.read_log(room["id"])] == list(range(1, before + 3))
        for client in clients:
            await client.wait_version(before + 2)
    finally:
        await store.close()
        for client in clients:
            await client.close()
