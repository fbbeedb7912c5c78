"""The cross-process side of rooms on the Redis store: leases, forwarding, following.

One hub per server process. It runs four tasks:

* **keeper** — every third of ``lease_ttl``: renews the leases of every room
  this process owns, in script calls of ``RENEWALS`` rooms spread over half of
  that period (so that no call holds Redis up for long: a listing or a quick
  play waits behind one call at most) that answer only the leases lost (each
  such room is demoted to a replica), and hands every
  unfinished room it follows whose lease nobody holds (read for all of them
  at once) to the takeover task. This is the failover: when an owner dies its
  lease expires, a replica takes it, reads the log's tail and goes on.
* **takeovers** (while there are any) — claims the rooms handed to it, at most
  ``TAKEOVERS`` at a time, so that thousands of orphaned rooms delay neither
  the renewals nor the listener.
* **follower** — on a single Redis, one ``XREAD BLOCK`` over the log streams of
  the rooms this process follows; each committed entry is folded into the
  replica, which publishes the same frames the owner's clients get. Which rooms
  it follows it takes from the keeper's latest look at every room, or looks at
  once when one more room is followed (:meth:`RedisHub.following`); with none,
  it sleeps until then. On a cluster (where one XREAD may not span slots) the
  entries come by the rooms' sharded feeds (server/store/redis.py) to the
  listener; the follower reads a room's log (per room, in one round trip per
  master) where a feed skipped versions, when the room is first followed, and
  every ``SCAN`` seconds for every followed room (what a lost connection missed).
* **listener** — Redis pub/sub (sharded on a cluster: server/store/channels.py):
  the inboxes of the rooms this process owns (intents and seat requests
  forwarded by replicas), the feeds of the rooms it follows (a cluster),
  this node's own channel (the owner's answers) and the chat channel (every
  room's chat lines, :mod:`server.chat`: a line goes to every process, and each
  that has the room loaded sends it to its connections there). A room taken subscribes its
  own inbox; the keeper subscribes and unsubscribes the rest only when the set
  of rooms owned or followed here changed; after the connection is lost, every
  channel is subscribed again.
* **publisher** — sends queued pub/sub messages, so that a room's actor never
  waits on Redis to answer a forwarded request.

Channels carry msgpack maps::

    {p}:room:{<id>}:inbox {"k": "intent", "node", "conn", "seat", "id", "action", "protocol"}
                          {"k": "reserve", "node", "req", "name", "seat", "claim", "asked"}
                          {"k": "call", "node", "req", "op", "args"}    bots, rematch link
                          {"k": "presence", "node", "seat", "count"}   connections here
    {p}:room:{<id>}:feed  b"{version}-0 " + entry    a cluster: each entry logged
    {p}:node:{<node>}     {"conn", "frame": bytes}               an ack or reject frame
                          {"req", "seat", "token"} | {"req", "value"}
                          | {"req", "error": [status, code, message, None, retry_after]}
    {p}:owners            {"k": "owner", "node", "rooms"}       this node took these leases
                          {"k": "released", "node", "rooms"}    a stopping node gave them up
    {p}:chat              {"node", "room", "line"}              a chat line said on node

A handover is at once: a stopping process gives up its leases and says so, and
every process following one of those rooms tries to take it then (not at its
next keeper pass); a process that took a lease says so, and every process sends
the requests still waiting on the old owner again, to the new one.

Presence: a replica reports each change of its connections per seat to the
owner, and again at every keeper pass (a report older than three lease
periods is stale: its process may be dead); the owner logs what changes.

A forwarded request that gets no answer within ``forward_timeout`` (the owner
died, or Redis is down) is refused with ``owner_unavailable``; the client can
retry with the same intent id, which is never applied twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import msgpack

from protocol.errors import Code
from protocol.messages import Intent
from server.errors import ApiError
from server.logs import fields
from server.owner_side import OwnerSide
from server.room import Connection, Room
from server.room_parts import Reservation, reject_frame
from server.settings import Settings
from server.store import StoreUnavailable
from server.store.channels import Subscriber, publish
from server.store.redis import REDIS_DOWN, RedisStore, entry_version
from server.store.writers import BATCH
from server.tasks import finish

log = logging.getLogger("tablewire.hub")

RETRY = 0.5
"""Seconds between attempts to reach Redis again after a failure."""
BLOCK_MS = 100
"""How long one XREAD waits for new entries (a room followed meanwhile joins the next
read)."""
SCAN = 1.0
"""Seconds the follower waits, with no room to follow, before it looks again; on a
cluster, between two reads of every followed room's log."""
TAKEOVERS = 100
"""Leases the takeover task tries to take at once."""
_Owned = tuple[list[tuple[str, str]], list[Room]]
"""The rooms owned here at one look: (room id, lease) pairs, and the rooms in order."""

RENEWALS = 250
"""Leases renewed by one script call. Redis runs a call alone, other clients waiting,
at about 3 µs a lease: about 0.7 ms for 250, where a call of 1,000 held a quick play
up by 3 ms at each pass (benchmarks/README.md, "the keeper's renewals in short
calls")."""
SPREAD = 0.5
"""Part of the keeper's period over which one pass spreads its renewal calls: a
lease is renewed at most ``(1 + SPREAD) / 3`` of ``lease_ttl`` after the last time."""


class RedisHub:
    """Leases, forwarding and following for the rooms of one process (see the module)."""

    def __init__(
        self,
        store: RedisStore,
        settings: Settings,
        node: str,
        rooms: dict[str, Room],
        claim: Callable[[Room], Awaitable[bool]],
    ) -> None:
        self.store = store
        self.redis = store.redis
        self.settings = settings
        self.node = node
        self.rooms = rooms
        self.claim = claim
        self._ids = itertools.count()
        self._run = secrets.token_hex(4)
        """This run's mark in the keys of what it forwards: a process restarted under the
        same node name (compose fixes it) starts its count again, and the owners remember
        keys they served (:class:`~server.owner_side.OwnerSide`)."""
        self._clients: dict[str, Connection] = {}
        self._requests: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._outbox: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()
        self._orphans: dict[str, Room] = {}
        """Rooms whose lease nobody holds, waiting for the takeover task, by id."""
        self._taker: asyncio.Task[None] | None = None
        self._unanswered: dict[str, tuple[str, dict[str, Any]]] = {}
        """Forwarded requests not answered yet, by key: their room and message, sent again
        as soon as the room has a new owner (:meth:`_handed_over`)."""
        self.owner_side = OwnerSide(self.rooms, self.post, self.node_channel)
        """What this process answers to the requests forwarded to its rooms."""
        self._inboxes: set[str] = set()
        """The ids of the rooms whose inbox is subscribed (owned here)."""
        self._feeds: set[str] = set()
        """The ids of the rooms whose feed is subscribed (followed here, on a cluster)."""
        self._behind: set[str] = set()
        """Followed rooms whose feed skipped versions: the follower reads their log."""
        self._scanned: dict[str, Room] = {}
        """The rooms followed, by id, as the latest :meth:`_scan` found them."""
        self._inbox_lock = asyncio.Lock()
        self._wake = asyncio.Event()
        """Set when a room is followed: the follower reads the followed set again now."""
        self._pubsub: Subscriber | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._closing = False
        """Set by :meth:`close`: the loops end even where a cancellation was swallowed."""

    def node_channel(self, node: str) -> str:
        return f"{self.store.prefix}:node:{{{node}}}"

    def inbox(self, room_id: str) -> str:
        return self.store.key(room_id, "inbox")

    def feed(self, room_id: str) -> str:
        return self.store.key(room_id, "feed")

    async def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._keep(), name="hub-keeper"),
            asyncio.create_task(self._follow(), name="hub-follower"),
            asyncio.create_task(self._listen(), name="hub-listener"),
            asyncio.create_task(self._publish(), name="hub-publisher"),
        ]

    async def close(self) -> None:
        self._closing = True
        await finish([*self._tasks, *([self._taker] if self._taker else [])])
        await self._drop_pubsub()

    # -- forwarding (the replica's side) ---------------------------------------

    def post(self, channel: str, message: dict[str, Any]) -> None:
        self._outbox.put_nowait((channel, msgpack.packb(message)))

    def _key(self) -> str:
        """A new key for something forwarded: unique to this node and run."""
        return f"{self.node}:{self._run}:{next(self._ids)}"

    def forward_intent(self, room: Room, conn: Connection, intent: Intent) -> None:
        key = self._key()
        self._clients[key] = conn
        message: dict[str, Any] = {
            "k": "intent",
            "node": self.node,
            "conn": key,
            "seat": conn.seat,
            "id": intent.id,
            "action": intent.action,
            "protocol": conn.protocol,
        }
        self._unanswered[key] = (room.id, message)
        self.post(self.inbox(room.id), message)
        asyncio.get_running_loop().call_later(
            self.settings.forward_timeout / 2, self._send_again, key, intent
        )

    def _send_again(self, key: str, intent: Intent) -> None:
        """Halfway to the forward timeout, an intent still unanswered is posted once more:
        a pub/sub message can be lost (a sharded channel's slot moving between masters
        drops its subscribers until they subscribe again). The owner applies it once:
        a second delivery gets the first one's answer again, if it has one (that
        answer may be the message lost). Then it is given up at the timeout."""
        unanswered = self._unanswered.get(key)
        if unanswered is None:
            return
        room_id, message = unanswered
        self.post(self.inbox(room_id), message)
        asyncio.get_running_loop().call_later(
            self.settings.forward_timeout / 2, self._give_up, key, intent
        )

    def _give_up(self, key: str, intent: Intent) -> None:
        self._unanswered.pop(key, None)
        conn = self._clients.pop(key, None)
        if conn is not None:
            why = "the room's owner did not answer; retry with the same intent id"
            conn.send(reject_frame(intent, Code.OWNER_UNAVAILABLE, why))

    async def forward_reserve(self, room: Room, ask: Reservation) -> tuple[int, str]:
        answer = await self._request(room, {"k": "reserve", **dataclasses.asdict(ask)})
        return answer["seat"], answer["token"]

    async def forward_call(self, room: Room, op: str, args: dict[str, Any]) -> Any:
        answer = await self._request(room, {"k": "call", "op": op, "args": args})
        return answer["value"]

    def forward_presence(self, room: Room, seat: int, count: int) -> None:
        message = {"k": "presence", "node": self.node, "seat": seat, "count": count}
        self.post(self.inbox(room.id), message)

    def forward_chat(self, room: Room, said: dict[str, Any]) -> None:
        self.post(self.chat_channel(), {"node": self.node, "room": room.id, "line": said})

    def _chat(self, message: dict[str, Any]) -> None:
        """A chat line said on another process: for this process's connections to its
        room, if it has the room loaded."""
        room = self.rooms.get(message["room"])
        if message["node"] != self.node and room is not None:
            room.chat_pace.heard(room.clock())  # the room's chat rate counts it here too
            room.hear(message["line"])

    async def _request(self, room: Room, request: dict[str, Any]) -> dict[str, Any]:
        # A request served here for another process and rerouted keeps its key.
        key = request.get("req") or self._key()
        done: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._requests[key] = done
        message = {**request, "node": self.node, "req": key}
        self._unanswered[key] = (room.id, message)
        self.post(self.inbox(room.id), message)
        try:
            async with asyncio.timeout(self.settings.forward_timeout):
                answer = await done
        except TimeoutError:
            raise ApiError(503, Code.OWNER_UNAVAILABLE, "the room's owner did not answer") from None
        finally:
            self._requests.pop(key, None)
            self._unanswered.pop(key, None)
        if "error" in answer:
            raise ApiError(*answer["error"])
        return answer

    async def owned(self, room: Room) -> None:
        """This process took ``room``'s lease: listen to its inbox now, then tell every
        process, so that requests they forwarded to the old owner come here at once."""
        async with self._inbox_lock:
            pubsub = self._pubsub
            if pubsub is not None and room.id not in self._inboxes:
                with contextlib.suppress(*REDIS_DOWN):  # the listener subscribes it again
                    await pubsub.subscribe(self.inbox(room.id))
                    if self._pubsub is pubsub:  # not a connection replaced meanwhile
                        self._inboxes.add(room.id)
        self.post(self.owners_channel(), {"k": "owner", "node": self.node, "rooms": [room.id]})

    def following(self, room: Room) -> None:
        """``room`` is a replica here now (loaded so, or demoted): follow its log at once."""
        self._wake.set()

    async def released(self, room_ids: list[str]) -> None:
        """This process gave up these rooms' leases (a graceful stop): every other process
        that follows one takes it over now, not at its next keeper pass. Published at
        once, not queued: the publisher is about to stop."""
        if room_ids:
            message = msgpack.packb({"k": "released", "node": self.node, "rooms": room_ids})
            with contextlib.suppress(*REDIS_DOWN):
                await publish(self.redis, self.store.cluster, self.owners_channel(), message)

    def owners_channel(self) -> str:
        return f"{self.store.prefix}:owners"

    def chat_channel(self) -> str:
        return f"{self.store.prefix}:chat"

    def _handed_over(self, message: dict[str, Any]) -> None:
        """A room changed hands: a released room followed here is claimed now; a room
        with a new owner gets the requests still waiting on its old one again (the
        owner serves each key once: :class:`~server.owner_side.OwnerSide`)."""
        rooms = set(message["rooms"])
        if message["k"] == "released":
            self._take_over(room for room_id in rooms if (room := self.rooms.get(room_id)))
            return
        for room_id, request in list(self._unanswered.values()):
            if room_id in rooms:
                self.post(self.inbox(room_id), request)

    def _take_over(self, rooms: Iterable[Room]) -> None:
        """Claim these rooms' leases soon, in the takeover task (started if need be)."""
        for room in rooms:
            if room.lease is None and room.record.status != "finished":
                self._orphans[room.id] = room
        if self._orphans and not self._closing and (self._taker is None or self._taker.done()):
            self._taker = asyncio.create_task(self._take_overs(), name="hub-takeovers")

    async def _take_overs(self) -> None:
        while self._orphans and not self._closing:
            chunk = list(itertools.islice(self._orphans.values(), TAKEOVERS))
            for room in chunk:
                del self._orphans[room.id]
            await asyncio.gather(*(self._take_over_one(room) for room in chunk))

    async def _take_over_one(self, room: Room) -> None:
        if room.lease is not None or self.rooms.get(room.id) is not room:
            return  # taken already, or unloaded meanwhile
        try:
            if await self.claim(room):
                log.info("room taken over", extra=fields(room=room.id, node=self.node))
        except StoreUnavailable as exc:
            log.warning("lease check failed", extra=fields(room=room.id, error=str(exc)))
        except Exception:
            # One room's fault (a log that does not fold) must not stop the others.
            log.exception("lease check failed", extra=fields(room=room.id))

    def _answer(self, message: dict[str, Any]) -> None:
        if "conn" in message:
            self._unanswered.pop(message["conn"], None)
            conn = self._clients.pop(message["conn"], None)
            if conn is not None:
                conn.send(message["frame"])
        else:
            future = self._requests.get(message["req"])
            if future is not None and not future.done():
                future.set_result(message)

    # -- the four tasks ------------------------------------------------------------

    async def _keep(self) -> None:
        loop = asyncio.get_running_loop()
        period = self.settings.lease_ttl / 3
        due = loop.time() + period
        while not self._closing:
            await asyncio.sleep(max(0.0, due - loop.time()))
            due = max(due + period, loop.time())  # a pass that ran late does not pile up
            try:
                await self._keep_pass(period * SPREAD)
            except StoreUnavailable as exc:
                log.warning("lease pass failed", extra=fields(node=self.node, error=str(exc)))

    async def _keep_pass(self, spread: float = 0.0) -> None:
        """Renew every lease held here, ``RENEWALS`` a call, the calls spread over
        ``spread`` seconds (a lease lost demotes its room); then read who holds each
        followed room's lease, in one round trip per batch, and hand the rooms nobody
        holds to the takeover task. The inboxes are synced first, on the same look at
        every room (:meth:`_scan`): one a pass."""
        loop = asyncio.get_running_loop()
        (held, owners), followed = await self._sync_inboxes()
        calls = -(-len(held) // RENEWALS)
        start = loop.time()
        for n in range(calls):  # the event loop runs between two
            await asyncio.sleep(max(0.0, start + n * spread / calls - loop.time()))
            first, end = n * RENEWALS, (n + 1) * RENEWALS
            lost = set(await self.store.renew(held[first:end]))
            for (room_id, lease), room in zip(held[first:end], owners[first:end], strict=True):
                if room_id in lost:
                    if room.lease == lease and self.rooms.get(room_id) is room:
                        room.demote()  # unless demoted or taken again while the pass ran
                    continue
                try:
                    room.refresh_presence()
                except Exception:  # one room's fault must not stop the keeper
                    log.exception("presence check failed", extra=fields(room=room_id))
        unfinished = [room for room in followed.values() if room.record.status != "finished"]
        holders = await self.store.holders([room.id for room in unfinished])
        orphans = []
        for room, holder in zip(unfinished, holders, strict=True):
            if holder is None:
                orphans.append(room)
                continue
            for seat, count in room.local_counts().items():
                self.forward_presence(room, seat, count)
        self._take_over(orphans)

    def _scan(self) -> tuple[_Owned, dict[str, Room]]:
        """The rooms owned here, and the rooms followed by id (unfinished, or watched
        here), in one loop over every room loaded; the follower on a single Redis takes
        the followed ones from the keeper's latest scan (:meth:`_follow`)."""
        held: list[tuple[str, str]] = []
        owners: list[Room] = []
        followed: dict[str, Room] = {}
        for room_id, room in list(self.rooms.items()):
            if (lease := room.lease) is not None:
                held.append((room_id, lease))
                owners.append(room)
            elif room.record.status != "finished" or room.conns:
                followed[room_id] = room
        self._scanned = followed
        return (held, owners), followed

    async def _sync_inboxes(self) -> tuple[_Owned, dict[str, Room]]:
        """Subscribe to the inboxes of the rooms owned here and (on a cluster) to the
        feeds of the rooms followed, and only those: a no-op unless that set changed
        since the last call. The sets of room ids are compared, and channel names made
        for the changes only: a pass over 10,000 rooms that changed nothing is cheap.
        Returns the scan it compared (:meth:`_scan`), made under the lock: no room is
        owned (:meth:`owned` subscribes) between the look and the sync."""
        async with self._inbox_lock:
            scan = owned, followed = self._scan()
            pubsub = self._pubsub
            if pubsub is None:
                return scan
            inboxes = dict(owned[0]).keys()  # the ids, made in C
            feeds = set(followed) if self.store.cluster else set()
            if inboxes == self._inboxes and feeds == self._feeds:
                return scan
            add = [self.inbox(i) for i in inboxes - self._inboxes]
            add += [self.feed(i) for i in feeds - self._feeds]
            drop = [self.inbox(i) for i in self._inboxes - inboxes]
            drop += [self.feed(i) for i in self._feeds - feeds]
            with contextlib.suppress(*REDIS_DOWN):
                if add:
                    await pubsub.subscribe(*add)
                if drop:
                    await pubsub.unsubscribe(*drop)
                if self._pubsub is pubsub:  # a connection replaced meanwhile subscribes anew
                    self._inboxes, self._feeds = set(inboxes), feeds
        return scan

    async def _follow(self) -> None:
        if self.store.cluster:
            await self._catch_up_feeds()
            return
        while not self._closing:
            if self._wake.is_set():
                self._wake.clear()
                self._scan()
            followed = self._scanned  # the keeper's latest look, unless woken since
            if not followed:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(SCAN):
                        await self._wake.wait()
                continue
            try:
                streams: Any = {
                    self.store.key(room_id, "log"): f"{room.version}-0"
                    for room_id, room in followed.items()
                }
                answer: Any = await self.redis.xread(streams, block=BLOCK_MS, count=256)
            except REDIS_DOWN:
                await asyncio.sleep(RETRY)
                continue
            for key, entries in answer or []:
                room = followed[self.store.room_of(key.decode())]
                _fold(room, [(entry_version(i), data[b"e"]) for i, data in entries])

    async def _catch_up_feeds(self) -> None:
        """The follower on a cluster: the feeds bring the entries; this reads the logs of
        the rooms a feed left behind or just followed at once, and of every followed room
        every ``SCAN`` seconds."""
        loop = asyncio.get_running_loop()
        known: set[str] = set()
        scanned = -SCAN
        while not self._closing:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(SCAN):
                    await self._wake.wait()
            self._wake.clear()
            _, followed = await self._sync_inboxes()  # subscribed before the read
            if loop.time() - scanned >= SCAN:
                due, scanned = set(followed), loop.time()
            else:
                due = (set(followed) - known) | self._behind
            known, self._behind = set(followed), self._behind - due
            rooms = [followed[i] for i in due if i in followed]
            for start in range(0, len(rooms), BATCH):
                chunk = rooms[start : start + BATCH]
                try:
                    logs = await self.store.read_logs({r.id: r.version for r in chunk})
                except StoreUnavailable:
                    self._behind |= {r.id for r in chunk}
                    await asyncio.sleep(RETRY)
                    break
                for room in chunk:
                    _fold(room, logs[room.id])

    def _fed(self, room_id: str, data: bytes) -> None:
        """An entry from a room's feed: folded if it is the next one; after a gap, the
        follower reads the log."""
        room = self.rooms.get(room_id)
        if room is None or room.lease is not None:
            return
        entry_id, entry = data.split(b" ", 1)
        version = entry_version(entry_id)
        if version > room.version + 1:
            self._behind.add(room_id)
            self._wake.set()
        else:
            _fold(room, [(version, entry)])

    async def _listen(self) -> None:
        """Hear the node's, owners', chat and rooms' channels; (re)subscribe after Redis
        comes back. An outage is logged once (``pub/sub lost``), its end once (``pub/sub
        back``), not at every retry."""
        node_channel = self.node_channel(self.node)
        lost = False
        while not self._closing:
            pubsub = Subscriber(self.redis, self.store.cluster)
            try:
                # A new PubSub takes its connection on its first command: an inbox sync
                # (a room owned meanwhile) may use it only after that, or it would take a
                # second connection that replaces the first, and the subscriptions made
                # on the replaced one would never be heard.
                await pubsub.subscribe(node_channel, self.owners_channel(), self.chat_channel())
                async with self._inbox_lock:
                    self._pubsub, self._inboxes, self._feeds = pubsub, set(), set()
                await self._sync_inboxes()
                if lost:
                    lost = False
                    log.info("pub/sub back", extra=fields(node=self.node))
                while not self._closing:
                    message = await pubsub.message(within=1.0)
                    if message is None:
                        continue
                    channel, data = message
                    if channel == node_channel:
                        self._answer(msgpack.unpackb(data))
                    elif channel == self.owners_channel():
                        self._handed_over(msgpack.unpackb(data))
                    elif channel == self.chat_channel():
                        self._chat(msgpack.unpackb(data))
                    elif channel.endswith(":feed"):
                        self._fed(self.store.room_of(channel), data)
                    else:
                        room_id = self.store.room_of(channel)
                        self.owner_side.serve(room_id, msgpack.unpackb(data))
            except REDIS_DOWN as exc:
                if not lost:
                    lost = True
                    log.warning("pub/sub lost", extra=fields(node=self.node, error=str(exc)))
            finally:
                await self._drop_pubsub(pubsub)
            await asyncio.sleep(RETRY)

    async def _drop_pubsub(self, unused: Subscriber | None = None) -> None:
        """Close the pub/sub connection, once no inbox sync is using it (none subscribes
        on a closed PubSub: that would take a connection nobody reads), and ``unused``,
        one the listener had not handed over yet."""
        async with self._inbox_lock:
            pubsub, self._pubsub = self._pubsub, None
        for channel in (pubsub, unused):
            if channel is not None:
                with contextlib.suppress(Exception):
                    await channel.aclose()

    async def _publish(self) -> None:
        while not self._closing:
            channel, data = await self._outbox.get()
            try:
                await publish(self.redis, self.store.cluster, channel, data)
            except REDIS_DOWN as exc:
                # The requester times out and retries; nothing was acknowledged.
                log.warning("publish failed", extra=fields(channel=channel, error=str(exc)))


def _fold(room: Room, entries: list[tuple[int, bytes]]) -> None:
    """Fold a replica's committed entries (packed), in order."""
    for version, data in entries:
        try:
            room.follow(version, msgpack.unpackb(data))
        except Exception:
            # That room stops here (it is retried on the next read); the others go on.
            log.exception("log entry does not fold", extra=fields(room=room.id))
            return
