"""The small parts of a room: what it needs of a connection and of the process that
forwards to its owner, the commands of its actor, and the frames it answers an intent
with."""

from __future__ import annotations

import asyncio
import hashlib
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from engines.base import Result
from protocol import compact, messages
from protocol.codec import encode
from protocol.messages import Intent, IntentId
from server import ids, metrics
from server.errors import UNAVAILABLE, UNAVAILABLE_RETRY

if TYPE_CHECKING:
    from server.room import Room


def hash_token(token: str) -> str:
    """Seat tokens are stored only as their SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()


class Connection(Protocol):
    """What a room needs of a client connection (a WebSocket, or a test double)."""

    seat: int | None
    protocol: int
    """The protocol version the client named in ``hello`` (1 or 2): how its frames are encoded."""

    def send(self, frame: bytes) -> None:
        """Queue a frame without blocking; a connection that cannot keep up closes itself."""

    def close(self, code: str, message: str) -> None:
        """Send a fatal error frame and close."""


class Forwarder(Protocol):
    """How a replica reaches the owner of a room (implemented by the Redis hub)."""

    def forward_intent(self, room: Room, conn: Connection, intent: Intent) -> None:
        """Send the intent to the owner; its ack or reject comes back on ``conn``."""

    async def forward_reserve(self, room: Room, ask: Reservation) -> tuple[int, str]:
        """Have the owner take the seat ``ask`` asks for; its seat and token."""

    async def owned(self, room: Room) -> None:
        """This process has just taken ``room``'s lease."""

    def following(self, room: Room) -> None:
        """``room`` is a replica in this process now (loaded so, or demoted)."""

    async def released(self, room_ids: list[str]) -> None:
        """This process has just given up these rooms' leases (it is stopping)."""

    async def forward_call(self, room: Room, op: str, args: dict[str, Any]) -> Any:
        """Run ``room.<op>(**args)`` (one of :data:`~server.room.OPS`) on the owner; its answer."""

    def forward_presence(self, room: Room, seat: int, count: int) -> None:
        """Tell the owner how many connections of ``seat`` this process has."""

    def forward_chat(self, room: Room, said: dict[str, Any]) -> None:
        """Hand a chat line said here to every other process that has ``room`` loaded."""


Asked = tuple[str, str]
"""A seat request's ``Idempotency-Key`` as a room uses it: the key's digest (logged
with the seat, :func:`server.ids.request_digest`) and the seat's token in this room
(:func:`server.ids.request_token`). A repeat of the request gets the same seat and
token, whichever process answers it."""


@dataclass(frozen=True)
class Reservation:
    """What a seat request asks of a room (:meth:`Room.reserve`), as the owner takes it
    and as a replica forwards it."""

    name: str | None = None
    seat: int | None = None
    """The seat asked for (None: the first free one not held)."""
    claim: bool = False
    """A former player taking back the seat a rematch holds for them."""
    asked: Asked | None = None
    req: str | None = None
    """The key of the forwarded request this is, when this process served another's:
    forwarded on (a lease lost meanwhile) under it, the next owner serves it once."""

    def keyed(self) -> Reservation:
        """This request as a replica forwards it: with a key of its own if it came
        without one (a digest and a token drawn here), since the owner may log the seat
        and lose the room before its answer arrives, and the next owner serve it again:
        then it answers the seat the first took, and the same token."""
        if self.asked is not None:
            return self
        asked = (ids.request_digest(ids.request_key(), "seat"), ids.seat_token())
        return Reservation(self.name, self.seat, self.claim, asked, self.req)


@dataclass
class _Reserve:
    ask: Reservation
    done: asyncio.Future[tuple[int, str]]


@dataclass
class _Intent:
    conn: Connection
    intent: Intent
    received: float
    """``time.perf_counter()`` when the room got it (the intent→patch latency metric)."""


@dataclass
class _Call:
    """A room operation run by the actor (bots taking seats, a rematch link)."""

    op: str
    args: dict[str, Any]
    done: asyncio.Future[Any]


@dataclass
class _Presence:
    """Check whether ``seat`` is connected, and log it if that changed."""

    seat: int


class _Tick:
    """The room's wake-up: do what is due (bots, timeouts, abandonment)."""


@dataclass
class _Bookkeep:
    """What an intent applied at once (:meth:`Room.submit`) leaves to the actor: a
    snapshot, the record of a game that ended."""

    result: Result | None


Command = _Reserve | _Intent | _Call | _Presence | _Tick | _Bookkeep


class Mailbox:
    """The actor's queue of commands: what ``asyncio.Queue`` does for one reader and no
    bound, for less a command (no loop lookup per call: on Python 3.11 each costs a
    ``getpid`` system call, several a move on a store that waits)."""

    def __init__(self) -> None:
        self._items: deque[Command] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def put_nowait(self, command: Command) -> None:
        self._items.append(command)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def empty(self) -> bool:
        return not self._items

    async def get(self) -> Command:
        """The oldest command, once there is one (one reader only)."""
        while not self._items:
            if self._loop is None:
                self._loop = asyncio.get_running_loop()
            self._waiter = self._loop.create_future()
            await self._waiter
        return self._items.popleft()


def reject_frame(intent: Intent, code: str, message: str) -> bytes:
    """The ``reject`` of ``intent``; a refusal for now (the store or the owner
    unavailable) says when to send the intent again."""
    wait = UNAVAILABLE_RETRY if code in UNAVAILABLE else None
    return encode(messages.reject(intent.id, code, message, retry_after=wait))


def _refuse(conn: Connection, intent: Intent, code: str, message: str) -> None:
    """Answer ``intent`` with a ``reject``; nothing changed."""
    metrics.REJECTS.labels(code).inc()
    conn.send(reject_frame(intent, code, message))


def _ack(conn: Connection, intent_id: IntentId, version: int) -> bytes:
    """The ``ack`` frame in the connection's protocol."""
    if conn.protocol >= 2:
        return encode(compact.ack(intent_id, version))
    return encode(messages.ack(intent_id, version))


def _loop_time() -> float:
    return asyncio.get_running_loop().time()


def _chain(source: asyncio.Future[Any], target: asyncio.Future[Any]) -> None:
    """Settle ``target`` like ``source``."""
    if target.done():
        return
    if source.exception() is not None:
        target.set_exception(source.exception())  # type: ignore[arg-type]
    else:
        target.set_result(source.result())
