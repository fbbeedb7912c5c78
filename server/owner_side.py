"""The owner's side of requests forwarded over pub/sub (server/hub.py): an intent, a
seat request, a call or a presence report another process sent to a room owned
here, handed to the room, and its answer posted back to the sender's channel.

Anything can be delivered twice: a replica posts an intent still unanswered again
(:meth:`~server.hub.RedisHub.forward_intent`), and every request still waiting when
a room changes hands (:meth:`~server.hub.RedisHub._handed_over`; on a cluster the
new owner's notice and the request travel on different shards, in either order).
The room gets each once, by its key, and a second delivery is answered with the
first one's answer, never judged again: the room may have changed in between, and
a seat request served twice would take two seats.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from protocol.errors import Code
from protocol.messages import Intent
from server.errors import ApiError
from server.logs import fields
from server.room import OPS, Room

log = logging.getLogger("tablewire.hub")

SERVED = 10_000
"""Forwarded intents and requests an owner remembers (with their answers), to answer a
second delivery without serving it again."""

Post = Callable[[str, dict[str, Any]], None]
"""Queue a message on a channel (:meth:`~server.hub.RedisHub.post`)."""


class _RemoteClient:
    """The owner's stand-in for a client of another process: answers go back over pub/sub."""

    def __init__(
        self, side: OwnerSide, reply_to: str, key: str, seat: int | None, protocol: int
    ) -> None:
        self.side, self.reply_to, self.key, self.seat = side, reply_to, key, seat
        self.protocol = protocol
        """The client's protocol version: the owner encodes its ack in it."""

    def send(self, frame: bytes) -> None:
        self.side.answered(self.reply_to, self.key, frame)

    def close(self, code: str, message: str) -> None:
        """Nothing to close: the client's own process owns its socket."""


class OwnerSide:
    """Serves what is forwarded to the rooms of ``rooms`` owned here; ``post`` sends the
    answers, to the channel ``node_channel(sender)``."""

    def __init__(
        self, rooms: dict[str, Room], post: Post, node_channel: Callable[[str], str]
    ) -> None:
        self.rooms = rooms
        self.post = post
        self.node_channel = node_channel
        self._served: OrderedDict[str, dict[str, Any] | None] = OrderedDict()
        """The last :data:`SERVED` intents and requests forwarded here, by key: the
        answer posted (None until then)."""

    def serve(self, room_id: str, message: dict[str, Any]) -> None:
        """One message of the room's inbox."""
        room = self.rooms.get(room_id)
        if room is None or room.lease is None:
            # Not ours (any more): the requester times out and retries.
            log.debug("forwarded request ignored", extra=fields(room=room_id, kind=message["k"]))
            return
        reply_to = self.node_channel(message["node"])
        key: str | None = message["conn"] if message["k"] == "intent" else message.get("req")
        if key is not None and not self._first(reply_to, key):
            return
        if message["k"] == "intent":
            # (no protocol: from a process of an earlier version)
            protocol = message.get("protocol", 1)
            client = _RemoteClient(self, reply_to, message["conn"], message["seat"], protocol)
            room.submit(client, Intent(message["id"], message["action"]))
        elif message["k"] == "reserve":
            # (claim, asked: absent from a process of an earlier version)
            claim, asked = message.get("claim", False), message.get("asked")
            seat = message["seat"]
            asked = None if asked is None else (str(asked[0]), str(asked[1]))
            reserve = room.reserve(message["name"], seat, claim, asked, message["req"])
            task = asyncio.create_task(reserve)
            task.add_done_callback(lambda t: self._answer(reply_to, message["req"], t))
        elif message["k"] == "call" and message["op"] in OPS:
            call = asyncio.create_task(getattr(room, message["op"])(**message["args"]))
            call.add_done_callback(lambda t: self._answer(reply_to, message["req"], t))
        elif message["k"] == "presence":
            room.report(message["seat"], message["node"], message["count"])

    def _first(self, reply_to: str, key: str) -> bool:
        """Whether ``key`` is delivered here for the first time (then remembered); a
        second delivery is answered with the first one's answer, once there is one."""
        if key in self._served:
            if (answer := self._served[key]) is not None:
                self.post(reply_to, answer)
            return False
        self._served[key] = None
        if len(self._served) > SERVED:
            self._served.popitem(last=False)
        return True

    def _post(self, reply_to: str, key: str, answer: dict[str, Any]) -> None:
        """Post ``answer``, kept for a second delivery of ``key``."""
        if key in self._served:
            self._served[key] = answer
        self.post(reply_to, answer)

    def answered(self, reply_to: str, key: str, frame: bytes) -> None:
        """A forwarded intent's answer (an ack or a reject), kept and sent."""
        self._post(reply_to, key, {"conn": key, "frame": frame})

    def _answer(self, channel: str, key: str, task: asyncio.Task[Any]) -> None:
        exc = task.exception()
        answer: dict[str, Any]
        if isinstance(exc, ApiError):
            error = [exc.status, exc.code, exc.message, None, exc.retry_after]
            answer = {"req": key, "error": error}
        elif exc is not None:
            answer = {"req": key, "error": [503, Code.STORE_UNAVAILABLE, str(exc)]}
        elif isinstance(task.result(), tuple):
            seat, token = task.result()
            answer = {"req": key, "seat": seat, "token": token}
        else:
            answer = {"req": key, "value": task.result()}
        self._post(channel, key, answer)
