"""Many server processes on one Redis: sharing, failover, restart, Redis outages.

Every test runs real ``tablewire serve`` processes on a real redis-server and
real WebSocket bot clients spread over them.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Awaitable
from typing import Any

import httpx
import pytest
from processes import CLOSING, LEASE_TTL, assert_every_ack_is_logged, node_process, spread

from clients.bots import Summary, play_seat
from clients.client import LobbyClient, RoomClient
from clients.retry import Patience
from clients.spawn import SpawnedServer
from conftest import redis_server
from engines.bots import RandomBot
from engines.sintra import ENGINE as sintra
from protocol.codec import decode, encode
from server.store.redis import RedisStore


@pytest.fixture
async def cluster(redis_url: str, prefix: str) -> AsyncIterator[list[SpawnedServer]]:
    """Two server processes, ``a`` and ``b``, sharing the session's Redis."""
    servers = [node_process(n, redis_url, prefix) for n in ("a", "b")]
    try:  # one that failed to start does not leave the other running
        await asyncio.gather(*(s.start() for s in servers))
        yield servers
    finally:
        await asyncio.gather(*(s.stop() for s in servers))


async def open_room(
    server: SpawnedServer, seed: int | None, seat_via: list[SpawnedServer] | None = None
) -> tuple[str, list[str]]:
    """A four-seat room created on ``server``; seat i is reserved through
    ``seat_via[i % n]`` (a process that does not own the room forwards it). With a
    seed the room is private; without, public (listed)."""
    async with LobbyClient(server.url) as lobby:
        room = await lobby.create_room("sintra", seats=4, seed=seed)
    tokens = []
    for i in range(4):
        via = (seat_via or [server])[i % len(seat_via or [server])]
        async with LobbyClient(via.url) as lobby:
            seat = await lobby.reserve(room["id"], name=f"p{i}", invite=room.get("invite"))
            tokens.append(seat["token"])
    return room["id"], tokens


async def play(players: list[RoomClient], watchers: list[RoomClient], summary: Summary) -> None:
    """Bots on ``players`` play to the end; every client waits for the result."""
    async with asyncio.timeout(120):
        await asyncio.gather(
            *(play_seat(c, RandomBot(i), summary) for i, c in enumerate(players)),
            *(w.wait_for(lambda d: d["status"] == "finished") for w in watchers),
        )
        await asyncio.gather(*(c.wait_result() for c in players + watchers))


async def during(game: asyncio.Task[None], waiting: Awaitable[Any], within: float = 60) -> Any:
    """``waiting``'s result while ``game`` plays: if the game fails first its error is raised,
    and nothing waits longer than ``within`` seconds (a stalled game fails the test)."""
    wait = asyncio.ensure_future(waiting)
    async with asyncio.timeout(within):
        await asyncio.wait([game, wait], return_when=asyncio.FIRST_COMPLETED)
    if not wait.done():
        wait.cancel()
        await game  # raises what stopped the game
        raise AssertionError("the game ended before the awaited version")
    return wait.result()


async def replay(redis_url: str, prefix: str, room_id: str) -> tuple[list[Any], Any]:
    """The room's log, and its final state replayed from the seed."""
    store = RedisStore.connect(redis_url, prefix=prefix)
    record = await store.load_room(room_id)
    log = await store.read_log(room_id)
    await store.close()
    assert record is not None
    state = sintra.setup(record.seats, record.options, record.seed)
    for _, entry in log:
        if entry["k"] == "intent":
            state, _ = sintra.apply(state, entry["seat"], entry["action"])
    return log, state


def assert_final_docs_match(clients: list[RoomClient], state: Any) -> None:
    expected = decode(encode(sintra.view(state, None)))
    for client in clients:
        assert client.doc["status"] == "finished"
        assert client.doc["game"] == expected
        assert client.result == decode(encode(sintra.result(state)))


async def lease_holder(redis_url: str, prefix: str, room_id: str) -> str:
    store = RedisStore.connect(redis_url, prefix=prefix)
    holder = await store.redis.get(store.key(room_id, "lease"))
    await store.close()
    return holder.decode() if holder else ""


async def test_two_processes_share_a_room_and_every_client_sees_the_same_versions(
    cluster: list[SpawnedServer], redis_url: str, prefix: str
) -> None:
    a, b = cluster
    room_id, tokens = await open_room(a, seed=None, seat_via=[a, b])
    players = spread(cluster, room_id, list(tokens))
    watchers = spread([a, b], room_id, [None, None])
    assert {p.url.split("/ws")[0] for p in players} == {a.ws, b.ws}, "seats on both processes"
    for client in players + watchers:
        await client.connect()
    summary = Summary("sintra")
    await play(players, watchers, summary)
    assert (summary.rejects, summary.reconnects) == (0, 0)
    log, state = await replay(redis_url, prefix, room_id)
    for client in players + watchers:
        # A replica that has just loaded the room may start a client a version or two back.
        versions = [v for v, _ in client.seen]
        # All seats were taken before the clients joined; each player who joined
        # earlier added a presence entry.
        assert versions[0] <= 4 + 4
        assert versions == list(range(versions[0], len(log) + 1)), "every version, in order"
    docs = {(v, doc) for c in players + watchers for v, doc in c.seen}
    assert len({v for v, _ in docs}) == len(docs), "one document per version, the same for all"
    assert_final_docs_match(players + watchers, state)
    async with LobbyClient(b.url) as lobby:
        assert [r["id"] for r in await lobby.rooms()] == [room_id], "b lists a's room"


async def test_killing_the_owner_hands_the_room_to_another_process(
    cluster: list[SpawnedServer], redis_url: str, prefix: str
) -> None:
    a, b = cluster
    room_id, tokens = await open_room(a, seed=12)
    assert (await lease_holder(redis_url, prefix, room_id)).startswith("a:")
    players = spread(cluster, room_id, list(tokens))
    watchers = spread([b], room_id, [None])
    for client in players + watchers:
        await client.connect()
    summary = Summary("sintra")
    game = asyncio.create_task(play(players, watchers, summary))
    await during(game, watchers[0].wait_version(30))
    await a.stop(signal.SIGKILL)
    await game
    assert summary.reconnects >= 2, "the clients of a reconnected to b"
    assert (await lease_holder(redis_url, prefix, room_id)).startswith("b:")
    assert any("room taken over" in line for line in b.log)
    log, state = await replay(redis_url, prefix, room_id)
    assert_every_ack_is_logged(players, log)
    assert_final_docs_match(players + watchers, state)


async def test_rooms_resume_after_every_process_restarts(
    cluster: list[SpawnedServer], redis_url: str, prefix: str
) -> None:
    a, b = cluster
    room_id, tokens = await open_room(a, seed=None)
    # Play goes on while they stop, but a move from version 60 waits until both have
    # stopped: a game (over 100 versions) that ended meanwhile would not resume.
    stopped = asyncio.Event()
    players = spread(cluster, room_id, list(tokens), holds=[(60, stopped)])
    for client in players:
        await client.connect()
    summary = Summary("sintra")
    game = asyncio.create_task(play(players, [], summary))
    await during(game, players[0].wait_version(5))
    await asyncio.gather(a.stop(), b.stop())
    stopped.set()
    restarted = [node_process(str(s.settings["node"]), redis_url, prefix, s.port) for s in (a, b)]
    cluster[:] = restarted  # the fixture stops these, even if one of them fails to start
    await asyncio.gather(*(s.start() for s in restarted))
    async with LobbyClient(restarted[1].url) as lobby:
        (listed,) = await lobby.rooms()
    assert (listed["id"], listed["status"]) == (room_id, "playing")
    await game
    log, state = await replay(redis_url, prefix, room_id)
    assert_every_ack_is_logged(players, log)
    assert_final_docs_match(players, state)


async def test_a_redis_outage_rejects_moves_loses_nothing_and_play_goes_on(prefix: str) -> None:
    redis = redis_server("--appendonly", "yes", "--appendfsync", "always", "--save", "")
    redis.start()
    servers = [node_process(n, redis.url, prefix) for n in ("a", "b")]
    try:
        await asyncio.gather(*(s.start() for s in servers))
        room_id, tokens = await open_room(servers[0], seed=14)
        players = spread(servers, room_id, list(tokens))
        # Probes that return a refusal at once (clients wait out store_unavailable).
        probes = [RoomClient(servers[0].ws, room_id, t, patience=Patience(1)) for t in tokens]
        for client in players + probes:
            await client.connect()
        summary = Summary("sintra")
        game = asyncio.create_task(play(players, [], summary))
        await during(game, probes[0].wait_version(20))
        redis.stop()
        for probe in probes:  # whose turn it is, from the server (a mirror may lag a frame)
            if actions := await probe.legal():
                break
        reply = await probe.intent(actions[0])
        assert (reply["t"], reply["code"]) == ("reject", "store_unavailable")
        async with httpx.AsyncClient() as http:
            down = await http.get(f"{servers[1].url}/api/rooms")
        assert (down.status_code, down.json()["error"]["code"]) == (503, "store_unavailable")
        # Keep Redis away for longer than a lease, so ownership must be taken again.
        await asyncio.sleep(2 * LEASE_TTL)
        redis.start()
        await game
        log, state = await replay(redis.url, prefix, room_id)
        assert_every_ack_is_logged(players, log)
        assert_final_docs_match(players, state)
        refused = summary.refused()
        assert refused, "some moves were refused during the outage"
        assert set(refused) <= {"store_unavailable", "owner_unavailable"}
        for client in probes:
            await client.close()
    finally:
        await asyncio.gather(*(s.stop() for s in servers))
        redis.cleanup()


async def test_a_restarted_process_adopts_unfinished_rooms_nobody_owns(
    redis_url: str, prefix: str
) -> None:
    first = await node_process("a", redis_url, prefix).start()
    room_id, _ = await open_room(first, seed=15)
    await first.stop(signal.SIGKILL)
    store = RedisStore.connect(redis_url, prefix=prefix)
    await store.redis.delete(store.key(room_id, "lease"))  # as when its lease expires
    await store.close()
    second = await node_process("b", redis_url, prefix).start()
    try:
        async with httpx.AsyncClient() as http:
            health = (await http.get(f"{second.url}/healthz")).json()
        assert health["owned"] == 1, "adopted at startup, before any client asked"
        assert (await lease_holder(redis_url, prefix, room_id)).startswith("b:")
    finally:
        await second.stop()


async def test_a_seat_back_on_a_replica_gets_exactly_the_patches_it_missed(
    cluster: list[SpawnedServer],
) -> None:
    owner, replica = cluster
    async with LobbyClient(owner.url) as lobby:
        room = await lobby.create_room("chartered", seats=2, seed=11)
        tokens = [(await lobby.reserve(room["id"]))["token"] for _ in range(2)]
    away = RoomClient(replica.ws, room["id"], tokens[0])  # seat 0's view, on the replica only
    await away.connect()
    async with asyncio.timeout(30):
        await away.wait_version(2)
    await away.close()
    held = away.version or 0  # the room may have moved past 2 before the close
    seats = [RoomClient(owner.ws, room["id"], token) for token in tokens]  # other devices
    async with asyncio.timeout(30):
        for seat in seats:
            await seat.connect()
        for _ in range(4):
            (mover,) = [s for s in seats if s.seat in (await s.wait_version(0))["to_act"]]
            ack = await mover.intent((await mover.legal())[0])
            assert ack["t"] == "ack", ack
            await asyncio.gather(*(s.wait_version(ack["v"]) for s in seats))
        away.received.clear()
        await away.connect()
        doc = await away.wait_version(ack["v"])
    assert (away.received["snapshot"], away.received["patch"]) == (0, ack["v"] - held)
    assert doc == seats[0].doc
    for client in [away, *seats]:
        await client.close()


async def test_a_turn_clock_survives_killing_the_owner(
    cluster: list[SpawnedServer], redis_url: str, prefix: str
) -> None:
    a, b = cluster
    async with LobbyClient(a.url) as lobby:
        room = await lobby.create_room("sintra", seats=2, seed=16, options={"clock": "move:5"})
        tokens = [(await lobby.reserve(room["id"], name=f"p{i}"))["token"] for i in range(2)]
    room_id = room["id"]
    assert (await lease_holder(redis_url, prefix, room_id)).startswith("a:")
    players = [RoomClient(b.ws, room_id, token) for token in tokens]  # they never move
    watcher = RoomClient(b.ws, room_id, None, record=True)
    for client in [*players, watcher]:
        await client.connect()
    # The players' process reports them to the owner, which logs them connected.
    async with asyncio.timeout(30):
        doc = await watcher.wait_for(
            lambda d: d["status"] == "playing" and all(p["connected"] for p in d["presence"])
        )
    start = watcher.version
    assert start is not None
    (seat,) = doc["to_act"]
    deadline = doc["clock"]["deadline"][seat]
    await a.stop(signal.SIGKILL)  # the owner dies with the clock running
    async with asyncio.timeout(30):
        played = await watcher.wait_for(lambda d: d["to_act"] != [seat])
    assert (await lease_holder(redis_url, prefix, room_id)).startswith("b:")
    before = [decode(doc) for v, doc in watcher.seen if v < (watcher.version or 0)]
    assert all(d["clock"]["deadline"][seat] == deadline for d in before if d["to_act"] == [seat])
    store = RedisStore.connect(redis_url, prefix=prefix)
    log = await store.read_log(room_id, start)
    await store.close()
    (first, *_) = [entry for _, entry in log if entry["k"] == "intent"]
    assert (first["seat"], first["by"], first["why"]) == (seat, "zombie", "clock")
    assert first["at"] >= deadline, "played at the logged deadline, not before, not reset"
    next_seat = played["to_act"][0]
    assert played["clock"]["deadline"][next_seat] == first["at"] + 5, "the next clock runs"
    for client in [*players, watcher]:
        await client.close()


async def test_bots_and_a_rematch_asked_of_a_process_that_does_not_own_the_room(
    cluster: list[SpawnedServer],
) -> None:
    a, b = cluster
    async with LobbyClient(a.url) as lobby:
        room = await lobby.create_room("sintra", seats=2, seed=17, options={"bot_delay": 0})
    room_id = room["id"]
    watcher = RoomClient(b.ws, room_id, None)
    await watcher.connect()
    async with httpx.AsyncClient(base_url=b.url) as http:
        owner = {"owner_token": room["owner_token"]}
        seated = await http.post(f"/api/rooms/{room_id}/bots", json={"kind": "random", **owner})
        assert seated.status_code == 201, seated.text
        assert seated.json()["bots"] == ["random", "random"]
        async with asyncio.timeout(60):
            await watcher.wait_for(lambda d: d["status"] == "finished")
        first = await http.post(f"/api/rooms/{room_id}/rematch", json=owner)
        again = await http.post(f"/api/rooms/{room_id}/rematch", json=owner)
    assert first.status_code == again.status_code == 201
    assert first.json()["id"] == again.json()["id"] != room_id
    async with asyncio.timeout(30):
        doc = await watcher.wait_for(lambda d: d["rematch"] is not None)
    assert doc["rematch"] == first.json()["id"]
    await watcher.close()


async def test_a_room_takes_no_more_bots_than_seats_whichever_processes_ask(
    cluster: list[SpawnedServer],
) -> None:
    """The only bound on bots is the room's seats, counted by the room's owner from the
    log: bots asked of both processes at once fill the free seats once, never twice
    (no process keeps an allowance of its own that a second replica would double)."""
    a, b = cluster
    async with LobbyClient(a.url) as lobby:
        room = await lobby.create_room("sintra", seats=4, seed=5, options={"bot_delay": 30})
    bots = {"kind": "random", "owner_token": room["owner_token"]}
    path = f"/api/rooms/{room['id']}/bots"
    async with httpx.AsyncClient(base_url=a.url) as on_a, httpx.AsyncClient(base_url=b.url) as on_b:
        answers = await asyncio.gather(*(http.post(path, json=bots) for http in (on_a, on_b, on_b)))
        late = await on_a.post(path, json={**bots, "seats": [0]})
        details = (await on_b.get(f"/api/rooms/{room['id']}")).json()
    assert sorted(answer.status_code for answer in answers) == [201, 409, 409]
    assert {a.json()["error"]["code"] for a in answers if a.status_code == 409} == {"room_full"}
    assert (late.status_code, late.json()["error"]["code"]) == (409, "room_full")
    assert details["bots"] == ["random"] * 4


async def test_a_graceful_stop_hands_the_rooms_over_at_once(redis_url: str, prefix: str) -> None:
    """Every player sits on ``b``, whose intents go to the owner ``a``; ``a`` stops
    (SIGTERM). It gives up its leases and says so; ``b`` takes the room at once and the
    intents still waiting on ``a`` are sent again to ``b``: none waits out the forward
    timeout (30 s here, so a stalled one would end as owner_unavailable)."""
    a, b = (
        SpawnedServer(
            redis_url=redis_url,
            redis_prefix=prefix,
            lease_ttl=LEASE_TTL,
            forward_timeout=30.0,
            node=node,
        )
        for node in ("a", "b")
    )
    await asyncio.gather(a.start(), b.start())
    try:
        room_id, tokens = await open_room(a, seed=14)
        assert (await lease_holder(redis_url, prefix, room_id)).startswith("a:")
        # The moves wait twice (the game has 115 versions): from version 20 until ``a``
        # lets its room go (the last step of its stop), so that they are on their way to
        # ``a`` as it does; and from version 80 until ``a`` has ended, so that the game
        # cannot end on ``a`` before the handover, however slow the stop.
        closing, stopped = asyncio.Event(), asyncio.Event()
        players = spread([b], room_id, list(tokens), holds=[(20, closing), (80, stopped)])
        for client in players:
            await client.connect()
        summary = Summary("sintra")
        game = asyncio.create_task(play(players, [], summary))
        await during(game, players[0].wait_version(20))
        stopping = asyncio.create_task(a.stop())
        await during(game, a.logged(CLOSING))
        closing.set()
        await stopping
        stopped.set()
        await game
        assert "owner_unavailable" not in summary.refused(), summary.refused()
        assert (await lease_holder(redis_url, prefix, room_id)).startswith("b:")
        log, state = await replay(redis_url, prefix, room_id)
        assert_every_ack_is_logged(players, log)
        assert_final_docs_match(players, state)
    finally:
        await asyncio.gather(a.stop(), b.stop())
