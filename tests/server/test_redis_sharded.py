"""Rooms spread over a real Redis Cluster: 3 masters, 3 replicas (``redis-server
--cluster-enabled yes`` joined by ``redis-cli --cluster create``), and real
``tablewire serve`` processes told only the URL of one node.

Every key of a room sits in one slot; bots spread over two processes finish and
agree at every version; a master killed with SIGKILL mid-game is replaced by its
replica, every game finishes, and with ``redis_durability=replica`` no move a
client saw acknowledged is missing from its room's log; seats asked for during
the failover are each taken once. These run in ``make test`` (the slot moves of
tests/server/test_redis_reshard.py and the compose profile run in ``make test-slow``).
"""

from __future__ import annotations

import asyncio
import json
import signal
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from processes import assert_games_finished_with_every_ack, node_process, relay_games, spread

from clients.client import LobbyClient
from clients.retry import Patience
from clients.spawn import TABLEWIRE, SpawnedCluster, SpawnedServer
from conftest import redis_cluster
from server.room import hash_token
from server.store.redis import RedisStore


@pytest.fixture(scope="module")
def cluster() -> Iterator[SpawnedCluster]:
    """One cluster for the tests that kill nothing."""
    spawned = redis_cluster()
    spawned.start()
    yield spawned
    spawned.cleanup()


@pytest.fixture
async def pair(cluster: SpawnedCluster, prefix: str) -> AsyncIterator[list[SpawnedServer]]:
    servers = [node_process(n, cluster.url, prefix) for n in ("a", "b")]
    try:  # one that failed to start does not leave the other running
        await asyncio.gather(*(s.start() for s in servers))
        yield servers
    finally:
        await asyncio.gather(*(s.stop() for s in servers))


async def test_a_server_told_one_node_finds_the_cluster(pair: list[SpawnedServer]) -> None:
    assert any("RedisStore (Redis Cluster)" in line for line in pair[0].log)
    async with httpx.AsyncClient() as http:
        ready = await http.get(f"{pair[0].url}/readyz")
    assert ready.status_code == 200 and ready.json()["store"] == "ok", "every master answered"


async def test_every_key_of_a_played_room_sits_in_one_slot(
    pair: list[SpawnedServer], cluster: SpawnedCluster, prefix: str
) -> None:
    async with LobbyClient(pair[0].url) as lobby:
        room = await lobby.create_room("sintra", seats=2)
        tokens = [(await lobby.reserve(room["id"]))["token"] for _ in range(2)]
    room_id = room["id"]
    players = spread(pair, room_id, list(tokens))
    for client in players:
        await client.connect()
    version = 0
    async with asyncio.timeout(60):  # a few moves, by whichever seat is to act
        while version < 12:
            for client in players:
                # Its process has the last move first: a process a move behind answers
                # `legal` from the state before it (and the intent is then rejected).
                await client.wait_version(version)
                if moves := await client.legal():
                    answer = await client.intent(moves[0])
                    assert answer["t"] == "ack", answer
                    version = answer["v"]
    for client in players:
        await client.close()
    store = RedisStore.connect(cluster.url, prefix=prefix)
    try:
        keys = [key.decode() async for key in store.redis.scan_iter(match=f"*{{{room_id}}}*")]
        slots = {await store.redis.cluster_keyslot(key) for key in keys}
    finally:
        await store.close()
    parts = {key.removeprefix(store.key(room_id)) for key in keys}
    assert {"", ":tokens", ":log", ":lease", ":epoch"} <= parts, keys
    assert len(slots) == 1, dict(zip(keys, slots, strict=False))


async def test_bots_spread_over_two_processes_on_a_cluster_finish_and_agree(
    pair: list[SpawnedServer], cluster: SpawnedCluster, prefix: str
) -> None:
    """``tablewire bots --check`` over both processes: rooms on every master, each
    client's versions agreeing with every other's at every version."""
    a, b = pair
    bots = await asyncio.create_subprocess_exec(
        TABLEWIRE,
        *("bots", "--server", f"{a.url},{b.url}", "--rooms", "8", "--players", "3"),
        *("--spectators", "1", "--check", "--timeout", "180"),
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await bots.communicate()
    summary = json.loads(out.decode().strip().splitlines()[-1])
    assert bots.returncode == 0, summary
    assert (summary["games_finished"], summary["errors"]) == (8, 0), summary
    async with LobbyClient(a.url) as lobby:
        rooms = await lobby.rooms()
    store = RedisStore.connect(cluster.url, prefix=prefix)
    masters = {cluster.master_of(store.key(room["id"])).port for room in rooms}
    await store.close()
    assert len(masters) >= 2, "the rooms are spread over the masters"


ROOMS = 8


async def test_a_master_killed_mid_game_loses_no_acknowledged_move(prefix: str) -> None:
    """``redis_durability=replica``: a move is acknowledged once a replica has it. The
    master of the first room's slot is killed (SIGKILL) mid-game; its replica takes
    over within the cluster's node timeout; the killed node restarts (as the new
    master's replica: until then that master's moves are refused, no replica could
    confirm them); every game finishes, and every ack any client saw names its
    entry in the room's log, on the promoted replica."""
    cluster = redis_cluster()
    cluster.start()
    servers = [
        node_process(
            n,
            cluster.url,
            prefix,
            redis_durability="replica",
            load_test_clients="127.0.0.1",
            max_benchmark_rooms=ROOMS,
        )
        for n in ("a", "b")
    ]
    try:
        await asyncio.gather(*(s.start() for s in servers))
        tables, _, plays = await relay_games(servers, ROOMS)
        games = asyncio.gather(*plays)
        store = RedisStore.connect(cluster.url, prefix=prefix)
        first = store.key(tables[0][0])
        await store.close()
        dying = cluster.master_of(first)
        async with asyncio.timeout(120):
            await tables[0][1][0].wait_version(40)
        dying.stop(signal.SIGKILL)
        promoted = await asyncio.to_thread(cluster.wait_failover, first, dying)
        # Its new master has no replica to confirm moves: they are refused until the
        # killed node comes back, as a replica of it.
        await asyncio.to_thread(dying.start)
        async with asyncio.timeout(240):
            await games
        assert cluster.master_of(first) is promoted, "the replica kept the slot"
        await assert_games_finished_with_every_ack(cluster.url, tables, prefix)
    finally:
        await asyncio.gather(*(s.stop() for s in servers))
        cluster.cleanup()


async def test_seats_asked_while_a_master_fails_over_are_each_taken_once(prefix: str) -> None:
    """Seat requests sent while a master is killed (SIGKILL) and its replica takes over:
    some are refused (the master is gone; then the new master has no replica to confirm
    a write, until the killed node comes back as its replica), and a seat's write can
    land unconfirmed. Each request carries an ``Idempotency-Key``, so the client waits
    and asks again, and the answer is the one seat it took: every room ends with its
    seats taken once each (its log holds one entry a seat), by the tokens answered."""
    cluster = redis_cluster()
    cluster.start()
    servers = [node_process(n, cluster.url, prefix, redis_durability="replica") for n in ("a", "b")]
    try:
        await asyncio.gather(*(s.start() for s in servers))
        # A machine busy with the rest of the suite can take longer than the default
        # patience (about 15 s of waits) to fail over and bring the replica back.
        patience = Patience(attempts=240, within=120)
        lobbies = [LobbyClient(s.url, patience=patience) for s in servers]
        rooms = [(await lobbies[0].create_room("sintra", seats=2))["id"] for _ in range(ROOMS)]
        store = RedisStore.connect(cluster.url, prefix=prefix)
        dying = cluster.master_of(store.key(rooms[0]))
        on_dying = [r for r in rooms if cluster.master_of(store.key(r)) is dying]
        dying.stop(signal.SIGKILL)
        asked = [
            lobbies[(n + i) % 2].reserve(room_id, name=f"p{i}")
            for n, room_id in enumerate(rooms)
            for i in range(2)
        ]
        seats = asyncio.gather(*asked)
        await asyncio.to_thread(cluster.wait_failover, store.key(rooms[0]), dying)
        await asyncio.to_thread(dying.start)  # back as the new master's replica
        async with asyncio.timeout(180):
            answers = await seats
        for n, room_id in enumerate(rooms):
            mine = answers[2 * n : 2 * n + 2]
            assert sorted(a["seat"] for a in mine) == [0, 1], (room_id, mine)
            # The log, not a listing: a process that follows the room (its lease moved
            # in the failover) may not have read the last seat yet when this asks.
            log = await store.read_log(room_id)
            taken = [entry["seat"] for _, entry in log if entry["k"] == "seat"]
            assert sorted(taken) == [0, 1], (room_id, log)
            for answer in mine:
                holder = await store.seat_of(room_id, hash_token(answer["token"]))
                assert holder == answer["seat"], "the token answered holds the seat"
        await store.close()
        assert on_dying, "some rooms lived on the master killed"
    finally:
        for lobby in lobbies:
            await lobby.close()
        await asyncio.gather(*(s.stop() for s in servers))
        cluster.cleanup()
