"""Slots moved from one master to another while their rooms are played, on a real
Redis Cluster (3 masters, 3 replicas) under two ``tablewire serve`` processes.

A slot is moved as ``redis-cli --cluster reshard`` moves it, by hand, so that a
room's keys sit on both masters for a while: the target ``IMPORTING``, the source
``MIGRATING``, the room's keys ``MIGRATE``\\ d one at a time (between two keys the
mover lets the games run on), then ``SETSLOT NODE`` on every master. Meanwhile a
move's script finds some of its room's keys gone (``TRYAGAIN``) or all of them
(``ASK``), and afterwards its slot elsewhere (``MOVED``): the store refuses it
(``store_unavailable``) and the bots send it again; a lease that could not be
renewed meanwhile may expire, and another process takes the room over. The old
master ends the subscriptions to the slot's channels, and the subscriber follows
them to the new one (server/store/channels.py). Every game finishes with
``--check`` and no acknowledged move is missing from its room's log.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from processes import assert_every_ack_is_logged, node_process, relay_games
from redis.asyncio.cluster import RedisCluster
from wire import scrape

from clients.client import LobbyClient, RoomClient
from clients.spawn import TABLEWIRE, SpawnedCluster
from conftest import redis_cluster
from server.metrics import STORE_REDIRECTS as REDIRECTS
from server.store import LogEntry, RoomRecord, StoreUnavailable
from server.store.channels import Subscriber
from server.store.redis import RedisStore

pytestmark = pytest.mark.load

ROOMS = 8
"""Turn-relay rooms played here (their acks checked), and Sintra rooms ``tablewire bots``
plays beside them."""
ROUNDS = 3
"""Times the slot of every room being played moves."""
REDIRECTED = ("ask", "tryagain", "moved")


class Mover:
    """Moves slots between the masters of ``cluster`` with CLUSTER SETSLOT and MIGRATE,
    one key at a time."""

    def __init__(self, cluster: SpawnedCluster) -> None:
        self.clients = {
            node.port: aioredis.Redis(port=node.port, decode_responses=True)
            for node in cluster.nodes
        }
        self.keys_moved = 0
        self.slots_moved = 0

    async def on(self, port: int, *command: str | int) -> Any:
        """``command``'s answer from the node of ``port``."""
        return await self.clients[port].execute_command(*command)  # type: ignore[no-untyped-call]

    async def asking(self, port: int, *command: str | int) -> Any:
        """``command``'s answer from the node of ``port`` that imports its key's slot:
        ``ASKING`` first, on the same connection; the answer not decoded."""
        async with aioredis.Redis(port=port) as raw, raw.pipeline(transaction=False) as pipe:
            pipe.execute_command("ASKING")
            pipe.execute_command(*command)
            return (await pipe.execute())[1]

    async def masters(self) -> dict[str, int]:
        """Each master's node id and port."""
        found = {}
        for port in self.clients:
            if (await self.on(port, "ROLE"))[0] == "master":
                found[await self.on(port, "CLUSTER", "MYID")] = port
        return found

    async def owner(self, slot: int) -> str:
        """The node id of ``slot``'s master."""
        for low, high, master, *_ in await self.on(next(iter(self.clients)), "CLUSTER", "SLOTS"):
            if low <= slot <= high:
                return str(master[2])
        raise LookupError(slot)

    async def move(self, slot: int, pause: float = 0.02) -> None:
        """Move ``slot`` to another master (the next one by node id) as redis-cli does,
        one key at a time, ``pause`` seconds apart."""
        target = await self.begin(slot)
        await self.migrate(slot, target, pause)
        await self.end(slot, target)

    async def begin(self, slot: int) -> str:
        """Mark ``slot`` importing on the next master by node id (returned) and migrating
        on its owner."""
        masters = await self.masters()
        source = await self.owner(slot)
        ids = sorted(masters)
        target = ids[(ids.index(source) + 1) % len(ids)]
        await self.on(masters[target], "CLUSTER", "SETSLOT", slot, "IMPORTING", source)
        await self.on(masters[source], "CLUSTER", "SETSLOT", slot, "MIGRATING", target)
        return target

    async def migrate(self, slot: int, target: str, pause: float = 0.0) -> None:
        """Move every key of ``slot`` to ``target``, one at a time, ``pause`` seconds
        apart."""
        masters = await self.masters()
        source = await self.owner(slot)
        while keys := await self.on(masters[source], "CLUSTER", "GETKEYSINSLOT", slot, 1):
            host = ("127.0.0.1", masters[target])
            await self.on(masters[source], "MIGRATE", *host, "", 0, 5000, "KEYS", *keys)
            self.keys_moved += 1
            # Not a wait for anything: the width of the window in which the room's keys
            # are split between the two masters, while its games go on.
            await asyncio.sleep(pause)

    async def end(self, slot: int, target: str) -> None:
        """Give ``slot`` to ``target`` on every master."""
        masters = await self.masters()
        for port in (masters[target], *masters.values()):
            await self.on(port, "CLUSTER", "SETSLOT", slot, "NODE", target)
        self.slots_moved += 1

    async def aclose(self) -> None:
        for client in self.clients.values():
            await client.aclose()


def finished(client: RoomClient) -> bool:
    """Whether ``client`` has seen its room's game end."""
    return client.doc is not None and client.doc["status"] == "finished"


async def moves_on(client: RoomClient, by: int) -> None:
    """Until ``client``'s room is ``by`` versions further than now, or finished."""
    target = (client.version or 0) + by
    await client.wait_for(
        lambda doc: doc["status"] == "finished" or (client.version or 0) >= target
    )


@pytest.fixture(scope="module")
def cluster() -> Iterator[SpawnedCluster]:
    spawned = redis_cluster()
    spawned.start()
    yield spawned
    spawned.cleanup()


async def test_a_subscriber_follows_its_channel_to_the_master_its_slot_moved_to(
    cluster: SpawnedCluster, prefix: str
) -> None:
    """Nothing but the old master's ``sunsubscribe`` tells the subscriber: it reads the
    slots again and subscribes on the new master."""
    listening, publishing = (RedisCluster.from_url(cluster.url) for _ in range(2))
    subscriber = Subscriber(listening, sharded=True)
    mover = Mover(cluster)
    channel = f"{prefix}:room:{{moving}}:inbox"
    try:
        await subscriber.subscribe(channel)
        slot = listening.keyslot(channel)
        await mover.move(slot)
        heard = None
        async with asyncio.timeout(10):
            while heard is None:  # what is published before it subscribes again is lost
                await publishing.spublish(channel, b"hello")
                heard = await subscriber.message(within=0.1)
        assert heard == (channel, b"hello")
    finally:
        await subscriber.aclose()
        await mover.aclose()
        await listening.aclose()
        await publishing.aclose()


async def test_slots_moved_while_their_rooms_are_played_lose_no_acknowledged_move(
    cluster: SpawnedCluster, prefix: str
) -> None:
    """``ROUNDS`` times, the slot of every room being played moves to another master
    while the games go on; every game finishes (``tablewire bots --check`` agrees at
    every version), and every ack a client saw names its entry in the room's log."""
    servers = [
        node_process(n, cluster.url, prefix, load_test_clients="127.0.0.1") for n in ("a", "b")
    ]
    mover = Mover(cluster)
    store = RedisStore.connect(cluster.url, prefix=prefix)
    bots: asyncio.subprocess.Process | None = None
    games: asyncio.Future[Any] | None = None
    try:
        await asyncio.gather(*(s.start() for s in servers))
        bots = await asyncio.create_subprocess_exec(
            TABLEWIRE,
            *("bots", "--server", ",".join(s.url for s in servers), "--rooms", str(ROOMS)),
            *("--players", "3", "--spectators", "1", "--check", "--timeout", "240"),
            stdout=asyncio.subprocess.PIPE,
        )
        tables, summary, plays = await relay_games(servers, ROOMS)
        games = asyncio.gather(*plays, bots.communicate())
        async with asyncio.timeout(300):
            for _ in range(ROUNDS):
                # Ours by what their clients see (the listing may still show a room just
                # filled as waiting: its record is saved after the game's first entry),
                # the bots' by the listing.
                ours = [room_id for room_id, clients in tables if not finished(clients[0])]
                async with LobbyClient(servers[0].url) as lobby:
                    listed = [r["id"] for r in await lobby.rooms() if r["status"] == "playing"]
                for slot in {store.redis.keyslot(store.key(i)) for i in (*ours, *listed)}:
                    await mover.move(slot)
                # The games go on after the round: each room of ours some moves further.
                await asyncio.gather(*(moves_on(clients[0], 5) for _, clients in tables))
            *_, (out, _) = await games
        report = json.loads(out.decode().strip().splitlines()[-1])
        seen = [await scrape(server.url) for server in servers]
        counted = {
            name: sum(samples.get(name, 0) for samples in seen)
            for name in (
                'tablewire_lease_changes_total{change="lost"}',
                *(f'tablewire_store_redirects_total{{answer="{a}"}}' for a in REDIRECTED),
            )
        }
        print(
            f"slots moved {mover.slots_moved}, keys {mover.keys_moved}; "
            f"rejects here {summary.reject_codes}, bots' {report['reject_codes']}; "
            f"waited out here {summary.waits}, bots' {report['waits']}; {counted}"
        )
        assert bots.returncode == 0, f"the bots failed: {report}"  # whole, not cut short
        assert (report["games_finished"], report["errors"]) == (ROOMS, 0), report
        for room_id, clients in tables:
            assert_every_ack_is_logged(clients, await store.read_log(room_id))
            record = await store.load_room(room_id)
            assert record is not None and record.status == "finished", room_id
        assert mover.slots_moved >= ROOMS, "the rooms' slots moved while they were played"
    finally:
        if games is not None:
            games.cancel()
            with contextlib.suppress(BaseException):
                await games
        if bots is not None and bots.returncode is None:
            bots.kill()
            await bots.wait()
        await asyncio.gather(*(s.stop() for s in servers))
        await store.close()
        await mover.aclose()


async def seated(store: RedisStore, room_id: str) -> str:
    """A one-seat room of ``store`` with its lease and its seat taken (by a token, so
    that the room has all three keys an append names); the lease."""
    await store.save_room(
        RoomRecord(
            id=room_id, engine="turn-relay", seats=1, options={}, private=True, seed=1,
            created=0.0, updated=0.0, names=[None],
        )
    )  # fmt: skip
    lease = await store.acquire(room_id, "a")
    assert lease is not None
    seat: LogEntry = {"k": "seat", "seat": 0, "name": "ana", "at": 1.0}
    await store.append(room_id, 1, seat, lease, ("token-hash", 0))
    return lease


async def test_a_move_whose_keys_went_ahead_in_a_reshard_follows_them(
    cluster: SpawnedCluster, prefix: str
) -> None:
    """A slot half moved: the room's keys on the importing master already, the slot still
    the old master's. The old master answers the room's append ``ASK``; the store sends
    it there after ``ASKING``, and the move is logged, not refused."""
    store = RedisStore.connect(cluster.url, prefix=prefix)
    mover = Mover(cluster)
    try:
        lease = await seated(store, "r")
        slot = store.redis.keyslot(store.key("r"))
        target = await mover.begin(slot)
        await mover.migrate(slot, target)
        move: LogEntry = {"k": "intent", "seat": 0, "id": 1, "action": {}, "at": 2.0}
        await store.append("r", 2, move, lease)
        await mover.end(slot, target)
        assert [version for version, _ in await store.read_log("r")] == [1, 2]
    finally:
        await mover.aclose()
        await store.close()


async def test_a_move_whose_room_is_split_by_a_reshard_waits_for_the_slot(
    cluster: SpawnedCluster, prefix: str
) -> None:
    """A room's log moved to the importing master, its lease not yet: the append script is
    answered ``TRYAGAIN`` and sent again, for up to ``REDIRECT_FOR`` seconds, then
    refused with nothing written; other rooms' appends go on meanwhile. Once the slot
    is handed over, the store still sends the move to the old master, is answered
    ``MOVED``, learns the slot's new master and logs it there."""
    store = RedisStore.connect(cluster.url, prefix=prefix)
    mover = Mover(cluster)
    tries, moves = REDIRECTS.labels("tryagain"), REDIRECTS.labels("moved")
    try:
        lease = await seated(store, "r")
        slot = store.redis.keyslot(store.key("r"))
        target = await mover.begin(slot)
        masters = await mover.masters()
        source = masters[await mover.owner(slot)]
        host = ("127.0.0.1", masters[target])
        await mover.on(source, "MIGRATE", *host, "", 0, 5000, "KEYS", store.key("r", "log"))
        tried = tries._value.get()
        move: LogEntry = {"k": "intent", "seat": 0, "id": 1, "action": {}, "at": 2.0}
        split = asyncio.ensure_future(store.append("r", 2, move, lease))
        other = await seated(store, "other-slot")  # a batch of its own answered meanwhile
        assert store.redis.keyslot(store.key("other-slot")) != slot and not split.done()
        with pytest.raises(StoreUnavailable, match="rehashing"):
            await split
        assert tries._value.get() > tried + 1  # sent again, and again
        # Read where the log now lives, not through redis-py's redirects: a slot split
        # between two masters once sent its XRANGE round until "TTL exhausted".
        log = await mover.asking(masters[target], "XRANGE", store.key("r", "log"), "-", "+")
        assert other and [entry for entry, _ in log] == [b"1-0"]
        await mover.migrate(slot, target)
        await mover.end(slot, target)
        moved = moves._value.get()
        await store.append("r", 2, move, lease)
        assert moves._value.get() == moved + 1
        assert [version for version, _ in await store.read_log("r")] == [1, 2]
    finally:
        await mover.aclose()
        await store.close()
