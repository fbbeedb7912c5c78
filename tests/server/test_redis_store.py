"""The Redis store against a real redis-server: records, tokens, the fenced log, leases."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator, Sequence
from typing import Any, cast

import msgpack
import pytest
from redis import exceptions as redis_errors
from redis.asyncio.client import PubSub

from clients.spawn import free_port
from conftest import redis_server
from protocol.messages import Intent
from server import hub as hub_module
from server.errors import ApiError
from server.hub import RedisHub
from server.lobby import Lobby
from server.room import Asked, Room
from server.settings import Settings
from server.store import NotOwner, StoreUnavailable
from server.store.base import ALL
from server.store.channels import Subscriber
from server.store.redis import RedisStore
from support import play_to_the_end, record


@pytest.fixture
async def store(redis_url: str, prefix: str) -> AsyncIterator[RedisStore]:
    store = RedisStore.connect(redis_url, prefix=prefix, lease_ttl=0.3, token_ttl=60)
    yield store
    await store.close()


async def test_records_are_saved_listed_and_deleted(store: RedisStore) -> None:
    await store.save_room(record("a", 1.0))
    await store.save_room(record("b", 2.0))
    assert await store.load_room("a") == record("a", 1.0)
    assert [r.id for r in (await store.page(ALL, 10))[0]] == ["b", "a"]
    await store.delete_room("a")
    assert await store.load_room("a") is None
    assert [r.id for r in (await store.page(ALL, 10))[0]] == ["b"]
    assert await store.redis.zcard(f"{store.prefix}:index:public:*:*") == 1


async def test_a_finished_room_gets_an_expiry_as_a_backstop(store: RedisStore) -> None:
    await store.save_room(record("done", status="finished"))
    assert 0 < await store.redis.ttl(store.key("done")) <= 2 * store.finished_ttl


async def test_an_index_entry_whose_room_expired_is_dropped_by_the_next_page(
    store: RedisStore,
) -> None:
    await store.save_room(record("gone", 1.0, status="finished"))
    await store.save_room(record("kept", 2.0))
    await store.redis.delete(store.key("gone"))  # as if its backstop expiry had passed
    assert [r.id for r in (await store.page(ALL, 10))[0]] == ["kept"]
    assert await store.redis.zcard(f"{store.prefix}:index:{ALL}") == 1


async def test_tokens_are_stored_hashed_with_their_seat_entry_and_an_expiry(
    store: RedisStore,
) -> None:
    await store.save_room(record("a"))
    lease = await store.acquire("a", "node-1")
    assert lease is not None
    seat = {"k": "seat", "seat": 1, "name": "bo"}
    with pytest.raises(NotOwner):
        await store.append("a", 1, seat, "not-the-lease", ("hash-of-token", 1))
    assert await store.seat_of("a", "hash-of-token") is None, "neither the entry nor its token"
    await store.append("a", 1, seat, lease, ("hash-of-token", 1))
    assert await store.seat_of("a", "hash-of-token") == 1
    assert await store.seat_of("a", "other") is None
    assert 0 < await store.redis.ttl(store.key("a", "tokens")) <= 60
    with pytest.raises(NotOwner):  # version 1 is taken: nothing written, token included
        await store.append("a", 1, seat, lease, ("another-hash", 0))
    assert await store.seat_of("a", "another-hash") is None


async def test_only_the_lease_holder_appends_and_only_the_next_version(store: RedisStore) -> None:
    await store.save_room(record("a"))
    lease = await store.acquire("a", "node-1")
    assert lease is not None
    assert await store.acquire("a", "node-2") is None, "the lease is exclusive"
    await store.append("a", 1, {"k": "seat", "seat": 0, "name": "ana"}, lease)
    with pytest.raises(NotOwner):
        await store.append("a", 2, {"k": "seat", "seat": 1, "name": "x"}, "node-2:99")
    with pytest.raises(NotOwner):
        await store.append("a", 1, {"k": "seat", "seat": 1, "name": "again"}, lease)
    await store.append("a", 2, {"k": "seat", "seat": 1, "name": "bo"}, lease)
    assert await store.read_log("a") == [
        (1, {"k": "seat", "seat": 0, "name": "ana"}),
        (2, {"k": "seat", "seat": 1, "name": "bo"}),
    ]
    assert [v for v, _ in await store.read_log("a", after=1)] == [2]


async def test_appends_go_on_when_redis_has_forgotten_the_script(store: RedisStore) -> None:
    """A restarted Redis (or SCRIPT FLUSH) no longer knows the append script: the
    flusher loads it again instead of failing the batch."""
    await store.save_room(record("a"))
    lease = await store.acquire("a", "node-1")
    assert lease is not None
    await store.append("a", 1, {"k": "seat", "seat": 0, "name": "ana"}, lease)
    await store.redis.script_flush()
    await store.append("a", 2, {"k": "seat", "seat": 1, "name": "bo"}, lease)
    assert [v for v, _ in await store.read_log("a")] == [1, 2]


async def test_renewals_reach_the_lease_but_not_the_append_only_file(prefix: str) -> None:
    """On Redis as docker-compose.yml runs it (AOF, fsync always): a renewal pass renews
    each lease held, answers the lost one, and adds nothing to the AOF (no fsync for the
    moves beside it to wait on); a move's append still does."""
    redis = redis_server("--appendonly", "yes", "--appendfsync", "always", "--save", "")
    redis.start()
    store = RedisStore.connect(redis.url, prefix=prefix)
    try:
        leases = []
        for room_id in ("a", "b", "c"):
            await store.save_room(record(room_id))
            lease = await store.acquire(room_id, "node-1")
            assert lease is not None
            leases.append((room_id, lease))
            await store.redis.pexpire(store.key(room_id, "lease"), 1000)
        before = (await store.redis.info("persistence"))["aof_current_size"]
        for _ in range(10):
            assert await store.renew([*leases, ("gone", "x")]) == ["gone"]
        assert (await store.redis.info("persistence"))["aof_current_size"] == before
        for room_id, _ in leases:
            assert await store.redis.pttl(store.key(room_id, "lease")) > 1000, "renewed"
        await store.append("a", 1, {"k": "intent", "seat": 0, "id": 1, "action": {}}, leases[0][1])
        assert (await store.redis.info("persistence"))["aof_current_size"] > before
    finally:
        await store.close()
        redis.cleanup()


async def test_a_process_that_lost_its_lease_is_fenced_off(store: RedisStore) -> None:
    await store.save_room(record("a"))
    old = await store.acquire("a", "node-1")
    assert old is not None
    await store.redis.delete(store.key("a", "lease"))  # as if it had expired
    new = await store.acquire("a", "node-2")
    assert new is not None and new != old
    assert await store.renew([("a", old)]) == ["a"], "the lost lease, not renewed"
    with pytest.raises(NotOwner):
        await store.append("a", 1, {"k": "intent", "seat": 0, "id": 1, "action": {}}, old)
    await store.redis.pexpire(store.key("a", "lease"), 50)
    assert await store.renew([("a", new), ("a", old), ("nobody", new)]) == ["a", "nobody"]
    assert await store.redis.pttl(store.key("a", "lease")) > 50, "the held one renewed"
    assert await store.holders(["a", "nobody"]) == [new, None]
    await store.release("a", old)
    assert await store.redis.get(store.key("a", "lease")) == new.encode(), "not the old one's"
    await store.release("a", new)
    assert await store.acquire("a", "node-3") is not None


async def test_a_lease_has_a_time_to_live(store: RedisStore) -> None:
    await store.save_room(record("a"))
    lease = await store.acquire("a", "node-1")
    assert lease is not None
    assert 0 < await store.redis.pttl(store.key("a", "lease")) <= 300


async def test_a_removed_room_leaves_no_key_behind_and_cannot_be_owned_again(
    store: RedisStore,
) -> None:
    """A process still following a room another one removed tries to take its lease: that
    wrote a new lease and epoch key, which nothing would ever delete."""
    await store.save_room(record("gone"))
    lease = await store.acquire("gone", "node-1")
    assert lease is not None
    await store.append("gone", 1, {"k": "seat", "seat": 0, "name": "ana"}, lease)
    await store.delete_room("gone")
    assert await store.acquire("gone", "node-2") is None
    assert await store.redis.keys(f"{store.key('gone')}*") == []


async def test_snapshots_round_trip(store: RedisStore) -> None:
    assert await store.load_snapshot("a") is None
    await store.save_snapshot("a", 50, {"round": 3, "bag": [1, 2]})
    assert await store.load_snapshot("a") == (50, {"round": 3, "bag": [1, 2]})


async def test_an_unreachable_redis_raises_store_unavailable(prefix: str) -> None:
    down = RedisStore(f"redis://127.0.0.1:{free_port()}/0", prefix=prefix, timeout=0.5)
    with pytest.raises(StoreUnavailable):
        await down.load_room("a")
    with pytest.raises(StoreUnavailable):
        await down.append("a", 1, {"k": "seat"}, "lease")
    await down.close()


async def test_a_server_that_cannot_reach_redis_cannot_tell_a_cluster(prefix: str) -> None:
    with pytest.raises(StoreUnavailable):
        RedisStore.connect(f"redis://127.0.0.1:{free_port()}/0", prefix=prefix, timeout=0.5)


async def test_replica_durability_acknowledges_only_what_a_replica_has(prefix: str) -> None:
    """``durability="replica"``: an append is refused while no replica confirms it (it
    may be on the master: refused means not acknowledged), and acknowledged once one
    does."""
    master = redis_server("--save", "", "--repl-diskless-sync-delay", "0")
    master.start()
    replica = redis_server("--save", "", "--replicaof", "127.0.0.1", str(master.port))
    # WAIT gets half the timeout: 1 s, room for a replica starved of CPU by other tests
    store = RedisStore.connect(master.url, prefix=prefix, durability="replica", timeout=2.0)
    try:
        await store.save_room(record("a"))
        lease = await store.acquire("a", "node-1")
        assert lease is not None
        with pytest.raises(StoreUnavailable, match="no replica confirmed"):
            await store.append("a", 1, {"k": "seat", "seat": 0, "name": "ana"}, lease)
        replica.start()
        await store.redis.set(f"{prefix}:marker", 1)
        assert await store.redis.wait(1, 10_000) == 1, "the replica has synced past the marker"
        await store.append("a", 2, {"k": "seat", "seat": 1, "name": "bo"}, lease)
        assert [v for v, _ in await store.read_log("a")] == [1, 2]
    finally:
        await store.close()
        replica.cleanup()
        master.cleanup()


async def test_the_hub_stops_when_a_cancellation_comes_out_of_redis_as_an_error(
    store: RedisStore,
) -> None:
    """A cancellation that lands inside a Redis call can come out of the client as a
    connection error, which the hub's loops are built to survive: closing must still
    end them (a server that hangs on SIGTERM holds its port and its operator)."""
    listening = asyncio.Event()
    open_pubsub = store.redis.pubsub

    def pubsub() -> PubSub:
        channel = open_pubsub()
        get_message = channel.get_message

        async def turned(**kwargs: Any) -> Any:
            listening.set()
            try:
                return await get_message(**kwargs)
            except asyncio.CancelledError:
                raise redis_errors.ConnectionError("cancelled mid-read") from None

        channel.get_message = turned  # type: ignore[method-assign]
        return channel

    store.redis.pubsub = pubsub  # type: ignore[method-assign]

    async def claim(room: Room) -> bool:
        return False

    hub = RedisHub(store, Settings(), "node-1", {}, claim)
    await hub.start()
    await listening.wait()
    async with asyncio.timeout(10):
        await hub.close()


async def test_a_keeper_pass_renews_in_small_calls_spread_over_its_window(
    redis_url: str, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ten rooms, four leases a call: three calls (4, 4, 2), the n-th no sooner than n
    thirds of the window after the pass began; a lease lost in the last call still
    demotes its room, and every other lease is renewed."""
    monkeypatch.setattr("server.hub.RENEWALS", 4)
    store = RedisStore.connect(redis_url, prefix=prefix)
    lobby = Lobby(store, Settings(), node="node-1")
    hub = RedisHub(store, Settings(), "node-1", lobby.rooms, lobby.claim)
    lobby.forwarder = hub
    ids = [(await lobby.create({"engine": "sintra", "seats": 3}))["id"] for _ in range(10)]
    await store.redis.delete(store.key(ids[-1], "lease"))
    assert await store.acquire(ids[-1], "node-2") is not None
    loop = asyncio.get_running_loop()
    calls: list[tuple[float, int]] = []
    renew = store.renew

    async def recorded(leases: Sequence[tuple[str, str]]) -> list[str]:
        calls.append((loop.time(), len(leases)))
        return await renew(leases)

    monkeypatch.setattr(store, "renew", recorded)
    for room_id in ids[:-1]:
        await store.redis.pexpire(store.key(room_id, "lease"), 1000)
    before = loop.time()
    await hub._keep_pass(spread=0.3)
    assert [size for _, size in calls] == [4, 4, 2]
    for n, (at, _) in enumerate(calls):  # a sleep ends no sooner than asked (within 1 ms)
        assert at >= before + n * 0.1 - 0.001
    assert [i for i in ids if lobby.rooms[i].lease is None] == [ids[-1]]
    for room_id in ids[:-1]:
        assert await store.redis.pttl(store.key(room_id, "lease")) > 1000, "renewed"
    await lobby.close()


async def _confirmed(subscriber: Subscriber, kind: str, count: int) -> None:
    """Read ``count`` confirmations of ``kind`` (subscribe, unsubscribe) from the
    subscriber's connection: Redis has done what they confirm."""
    async with asyncio.timeout(5):
        while count:
            message = await subscriber.pubsub.get_message(timeout=1.0)
            count -= message is not None and message["type"] == kind


async def test_the_inboxes_listened_to_are_those_of_the_rooms_owned_here(
    redis_url: str, prefix: str
) -> None:
    """Three rooms owned: their three inboxes are subscribed. One lease taken by another
    node: once the keeper demotes the room, the next sync unsubscribes that inbox only."""
    store = RedisStore.connect(redis_url, prefix=prefix)
    lobby = Lobby(store, Settings(), node="node-1")
    hub = RedisHub(store, Settings(), "node-1", lobby.rooms, lobby.claim)
    lobby.forwarder = hub
    ids = [(await lobby.create({"engine": "sintra", "seats": 3}))["id"] for _ in range(3)]
    subscriber = hub._pubsub = Subscriber(store.redis, sharded=False)
    await hub._sync_inboxes()
    await _confirmed(subscriber, "subscribe", 3)
    inboxes = await store.redis.pubsub_channels(f"{prefix}:room:*")
    assert sorted(c.decode() for c in inboxes) == sorted(hub.inbox(i) for i in ids)
    await store.redis.delete(store.key(ids[0], "lease"))
    assert await store.acquire(ids[0], "node-2") is not None
    await hub._keep_pass()
    await hub._sync_inboxes()
    await _confirmed(subscriber, "unsubscribe", 1)
    inboxes = await store.redis.pubsub_channels(f"{prefix}:room:*")
    assert sorted(c.decode() for c in inboxes) == sorted(hub.inbox(i) for i in ids[1:])
    await subscriber.aclose()
    await lobby.close()


async def test_a_room_followed_without_a_wake_is_read_from_the_keepers_next_look(
    redis_url: str, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The follower on a single Redis reads the rooms the keeper's latest look found: a
    replica it was not woken for (its wake lost) is not read until the next keeper
    pass, then its new entry is folded."""
    store = RedisStore.connect(redis_url, prefix=prefix)
    lobby = Lobby(store, Settings(), node="node-1")
    hub = RedisHub(store, Settings(), "node-1", lobby.rooms, lobby.claim)
    lobby.forwarder = hub
    room_id = (await lobby.create({"engine": "sintra", "seats": 3}))["id"]
    room = lobby.rooms[room_id]
    await store.redis.delete(store.key(room_id, "lease"))
    lease = await store.acquire(room_id, "node-2")
    assert lease is not None
    await hub._keep_pass()  # its look found the room owned; the renewal demotes it
    assert room.lease is None and room_id not in hub._scanned
    hub._wake.clear()
    folded = asyncio.Event()

    def fold(replica: Room, entries: list[tuple[int, bytes]]) -> None:
        real_fold(replica, entries)
        folded.set()

    real_fold = hub_module._fold
    monkeypatch.setattr(hub_module, "_fold", fold)
    follower = asyncio.create_task(hub._follow())
    version = room.version + 1
    await store.append(room_id, version, {"k": "seat", "seat": 1, "name": "bo"}, lease)
    await hub._keep_pass()
    assert room_id in hub._scanned, "followed from the keeper's look"
    async with asyncio.timeout(5):
        await folded.wait()
    assert room.version == version and room.record.names[1] == "bo"
    hub._closing = True
    await follower
    await lobby.close()


async def test_a_keeper_pass_demotes_only_the_rooms_whose_lease_was_lost_and_takes_them_back(
    redis_url: str, prefix: str
) -> None:
    """Thirty rooms owned by one process; three leases taken by another node, then let go:
    the pass demotes those three only (their renewal answered lost), and once nobody
    holds them the takeover task owns them again."""
    store = RedisStore.connect(redis_url, prefix=prefix)
    lobby = Lobby(store, Settings(), node="node-1")
    hub = RedisHub(store, Settings(), "node-1", lobby.rooms, lobby.claim)
    lobby.forwarder = hub
    ids = [(await lobby.create({"engine": "sintra", "seats": 3}))["id"] for _ in range(30)]
    stolen = ids[:3]
    for room_id in stolen:
        await store.redis.delete(store.key(room_id, "lease"))
        assert await store.acquire(room_id, "node-2") is not None
    await hub._keep_pass()
    assert [i for i in ids if lobby.rooms[i].lease is None] == stolen
    assert set(hub._scan()[1]) == set(stolen), "followed now"
    for room_id in stolen:
        await store.redis.delete(store.key(room_id, "lease"))  # node-2 is gone
    await hub._keep_pass()
    assert hub._taker is not None
    await hub._taker
    assert all(lobby.rooms[i].lease is not None for i in ids)
    for room_id in stolen:
        holder = await store.holder(room_id)
        assert holder is not None and holder.startswith("node-1:")
    await lobby.close()
    await hub.close()
    await store.close()


async def test_a_game_that_ended_with_its_record_unsaved_is_saved_by_the_next_to_load_it(
    redis_url: str, prefix: str
) -> None:
    """A game's last move is logged, then its owner loses the store and dies before its
    record is saved: the record says playing, the log says finished. The next process
    to load the room saves the record the log gives (else the lobby lists the game as
    playing for good: nothing else would load it again)."""
    store = RedisStore.connect(redis_url, prefix=prefix)
    first = Lobby(store, Settings(), node="node-1")
    options = {"engine": "turn-relay", "seats": 4, "options": {"moves": 12}}
    room_id = (await first.create(options))["id"]
    live = first.rooms[room_id]
    for _ in range(4):
        await first.reserve(room_id, {})
    stale = dataclasses.replace(live.record)  # the record while the game is playing
    await play_to_the_end(live)
    await first.close()
    await store.save_room(stale)
    second = Lobby(store, Settings(), node="node-2")
    room = await second.open(room_id)
    assert room is not None and room.record.status == "finished"
    saving = room.saving
    assert saving is not None
    await saving
    assert room.saving is None, "the task lets go of itself once the record is saved"
    saved = await store.load_room(room_id)
    assert saved is not None and saved.status == "finished" and saved.result is not None
    await second.close()
    await store.close()


class _Owned:
    """A room owned here, as the hub sees one: its id, its lease and one operation a
    replica can forward to it."""

    def __init__(self, room_id: str) -> None:
        self.id, self.lease = room_id, "node-1:1"

    async def seat_bots(self) -> str:
        return "served"


async def test_a_room_owned_while_the_hub_subscribes_is_heard(store: RedisStore) -> None:
    """The hub's listener (re)subscribes at start and after Redis comes back, and a room
    can be owned meanwhile (leases are taken again as Redis returns). That room's
    inbox and the node's own channel must both be heard then, and later: a request
    forwarded to the room (here by its own process) is answered once the hub listens."""

    async def claim(room: Room) -> bool:
        return False

    room = cast(Room, _Owned("r1"))
    hub = RedisHub(store, Settings(lease_ttl=60, forward_timeout=1), "node-1", {"r1": room}, claim)
    await hub.start()
    try:
        # A task created after the hub's: it runs while the listener is subscribing.
        await asyncio.create_task(hub.owned(room))
        answers = []
        for _ in range(5):  # a request sent before the listener is subscribed is not heard
            with contextlib.suppress(ApiError):
                answers.append(await hub.forward_call(room, "seat_bots", {}))
                break
        assert answers == ["served"]
    finally:
        await hub.close()


class _Client:
    """A connection of this process whose intent is forwarded: the frames it was sent."""

    seat: int | None = 0
    protocol = 2

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.sent = asyncio.Event()

    def send(self, frame: bytes) -> None:
        self.frames.append(frame)
        self.sent.set()

    def close(self, code: str, message: str) -> None:
        raise AssertionError(f"closed: {code} {message}")


async def test_a_forwarded_intent_unanswered_is_posted_again(store: RedisStore) -> None:
    """A pub/sub message can be lost (nobody subscribed to the room's inbox at that
    moment: a sharded channel whose slot moves, an owner subscribing again). Halfway to
    the forward timeout an intent still unanswered is posted once more, the same
    message (its intent id makes a second delivery harmless); the answer reaches the
    client once, and no reject follows at the timeout."""

    async def claim(room: Room) -> bool:
        return False

    room = cast(Room, _Owned("r1"))
    room.lease = None
    settings = Settings(lease_ttl=60, forward_timeout=0.6)
    hub = RedisHub(store, settings, "node-2", {}, claim)  # a room another process owns
    await hub.start()
    owner = Subscriber(store.redis, sharded=False)
    try:
        await owner.subscribe(hub.inbox("r1"))
        client = _Client()
        hub.forward_intent(room, client, Intent(id=7, action={"pass": True}))
        posted: list[Any] = []
        async with asyncio.timeout(settings.forward_timeout):
            while len(posted) < 2:  # (a None: the subscription's confirmation)
                if (heard := await owner.message(within=settings.forward_timeout)) is not None:
                    posted.append(msgpack.unpackb(heard[1]))
        first, again = posted
        assert first == again and (first["k"], first["id"]) == ("intent", 7)
        answer = msgpack.packb({"conn": first["conn"], "frame": b"the ack"})
        for _ in range(2):  # the owner answers both deliveries
            await store.redis.publish(hub.node_channel("node-2"), answer)
        async with asyncio.timeout(5):
            await client.sent.wait()
        await asyncio.sleep(settings.forward_timeout)  # past the timeout: no reject
        assert client.frames == [b"the ack"]
    finally:
        await owner.aclose()
        await hub.close()


class _Serving(_Owned):
    """A room owned here that answers each intent it is given with one frame."""

    def __init__(self, room_id: str) -> None:
        super().__init__(room_id)
        self.given: list[Intent] = []
        self.seated: list[str | None] = []

    def submit(self, conn: Any, intent: Intent) -> None:
        self.given.append(intent)
        conn.send(b"answer %d" % len(self.given))

    async def reserve(
        self, name: str | None, seat: int | None, claim: bool, asked: Asked | None, *_: object
    ) -> tuple[int, str]:
        self.seated.append(name)
        return len(self.seated) - 1, f"token {len(self.seated)}"


async def delivered_twice(store: RedisStore, room: _Serving, message: dict[str, Any]) -> list[Any]:
    """``message`` published twice on the inbox of ``room``, owned by a hub of node-1;
    the answers node-9 (the sender) hears."""

    async def claim(room: Room) -> bool:
        return False

    hub = RedisHub(store, Settings(lease_ttl=60), "node-1", {room.id: cast(Room, room)}, claim)
    await hub.start()
    replies = Subscriber(store.redis, sharded=False)
    try:
        await replies.subscribe(hub.node_channel("node-9"))
        await asyncio.create_task(hub.owned(cast(Room, room)))
        packed = msgpack.packb(message)
        async with asyncio.timeout(5):
            while await store.redis.publish(hub.inbox(room.id), packed) == 0:
                pass  # until the owner's listener has subscribed to the inbox
            await store.redis.publish(hub.inbox(room.id), packed)  # the second delivery
            answers: list[Any] = []
            while len(answers) < 2:
                if (heard := await replies.message(within=5)) is not None:
                    answers.append(msgpack.unpackb(heard[1]))
        return answers
    finally:
        await replies.aclose()
        await hub.close()


async def test_an_intent_delivered_twice_is_applied_once_and_answered_twice(
    store: RedisStore,
) -> None:
    """The owner's side of the second post: the room gets the intent once; the second
    delivery is answered with the first one's answer (the one that may have been lost),
    never evaluated again (where the room changed meanwhile, that could differ)."""
    room = _Serving("r1")
    message = {"k": "intent", "node": "node-9", "conn": "node-9:1", "seat": 0, "id": 3}
    answers = await delivered_twice(store, room, {**message, "action": {"pass": 1}, "protocol": 2})
    assert [intent.id for intent in room.given] == [3]
    assert answers == [{"conn": "node-9:1", "frame": b"answer 1"}] * 2


async def test_a_seat_request_delivered_twice_takes_one_seat(store: RedisStore) -> None:
    """A replica posts the requests still waiting on a room again when the room changes
    hands; on a cluster the owner's notice can reach the replica after the request
    reached the owner. The owner serves the request once and answers both deliveries
    alike (found through nginx on the compose cluster profile: a reserve took two
    seats, and the fourth player found the room full)."""
    room = _Serving("r1")
    message = {"k": "reserve", "node": "node-9", "req": "node-9:ab:1", "name": "Ana"}
    answers = await delivered_twice(store, room, {**message, "seat": None, "claim": False})
    assert room.seated == ["Ana"]
    assert answers == [{"req": "node-9:ab:1", "seat": 0, "token": "token 1"}] * 2
