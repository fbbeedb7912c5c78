"""The room session without I/O: what each side says and makes of each frame.

A WebSocket carries the frames; this module decides them. The server and the
Python clients (``clients.client.RoomClient``, ``clients.lean.LeanClient``) feed
it frames and send what it returns; neither holds protocol logic of its own.
The browser SDK (``tablewire.js``) follows the same split: ``mirror.js`` and its
session half decide, the socket code only carries.

Server side (:func:`joining`, :func:`refusal`):

* the first frame must be ``hello`` in a protocol this server speaks, or the
  connection is refused with a stable code before anything is sent;
* a frame refused after ``welcome`` is answered by a ``reject`` when it is an
  intent with an id, by a non-fatal ``error`` otherwise.

Client side (:class:`ClientSession`):

* ``hello`` carries the seat's token and the version the mirror holds, so a
  reconnect catches up with the patches it missed (or a snapshot);
* ``welcome`` picks the frame format (protocol 2: compact patches against the
  key table of ``welcome.keys``);
* snapshots and patches keep a :class:`~protocol.mirror.Mirror`; a patch that
  does not follow the version held leaves it stale, and the session answers
  with the ``resync`` that repairs it;
* intent ids are unique per seat across every connection of the seat (they
  start at random), so an intent resent after a reconnect is applied once.
"""

from __future__ import annotations

import itertools
import secrets
from collections import Counter
from dataclasses import dataclass
from typing import Any

from protocol import PROTOCOL_VERSION, PROTOCOLS, compact, messages
from protocol.codec import decode, encode
from protocol.errors import Code, ProtocolError
from protocol.messages import ClientMessage, Hello, IntentId
from protocol.mirror import Mirror

# -- the server's side ----------------------------------------------------------------


def joining(message: ClientMessage) -> Hello:
    """The connection's first message, checked: a ``hello`` in a protocol spoken here.
    Raises :class:`ProtocolError` (``hello_required``, ``unsupported_protocol``)."""
    if not isinstance(message, Hello):
        raise ProtocolError(Code.HELLO_REQUIRED, "the first frame must be hello")
    if message.protocol not in PROTOCOLS:
        spoken = " and ".join(map(str, PROTOCOLS))
        raise ProtocolError(
            Code.UNSUPPORTED_PROTOCOL,
            f"protocol {message.protocol} is not supported; this server speaks {spoken}",
        )
    return message


def refusal(exc: ProtocolError) -> bytes:
    """The frame answering a frame refused after ``welcome``: a ``reject`` for an
    intent that has an id, else a non-fatal ``error``."""
    if exc.intent_id is not None:
        return encode(messages.reject(exc.intent_id, exc.code, exc.message))
    return encode(messages.error(exc.code, exc.message, of=exc.of))


# -- the client's side ----------------------------------------------------------------

CHAT_LINES = 50
"""Chat lines a client holds (as many as a room sends after a join)."""
ANSWERS = {"legal": "legal", "ping": "pong"}
"""The ``of`` of an ``error`` frame (the refused request) → the answer it stands for."""


@dataclass(slots=True)
class Received:
    """What one frame from the server meant."""

    frame: dict[str, Any]
    """The frame, decoded (compact frames of protocol 2 read back to plain maps)."""
    kind: str
    """Its ``t``."""
    reply: bytes | None = None
    """A frame to send back now (the ``resync`` that repairs a stale mirror)."""
    answers: Any = None
    """The request this frame answers: an intent id (``ack``, ``reject``), ``"legal"``,
    ``"pong"``; or None."""
    changed: bool = False
    """The mirror's version or document changed (a snapshot or a patch applied)."""


class ClientSession:
    """One seat's (``token``) or spectator's side of a room connection.

    It outlives a connection: :meth:`hello` on a new connection asks to catch up
    from the version the mirror holds.
    """

    def __init__(self, token: str | None = None, protocol: int = PROTOCOL_VERSION) -> None:
        self.token = token
        self.protocol = protocol
        self.mirror = Mirror()
        self.welcome: dict[str, Any] = {}
        self.resyncs = 0
        """Resyncs asked for because a patch did not fit."""
        self.received: Counter[str] = Counter()
        """Frames received, by type."""
        self.bytes_received: Counter[str] = Counter()
        """Payload bytes received, by frame type."""
        self.chat: list[dict[str, Any]] = []
        """The room's chat lines held, oldest first (the last :data:`CHAT_LINES`): a
        ``chat`` frame's lines added, or in place of them all after a join (``history``)."""
        self._ids = itertools.count(secrets.randbits(48))

    @property
    def seat(self) -> int | None:
        seat: int | None = self.welcome.get("seat")
        return seat

    def hello(self) -> bytes:
        """The first frame of a connection (catching up from the version held)."""
        hello = {
            "t": "hello",
            "protocol": self.protocol,
            "token": self.token,
            "since": self.mirror.version,
        }
        return encode(hello)

    def new_intent_id(self) -> int:
        return next(self._ids)

    def say(self, text: str) -> bytes:
        """A chat line for everyone in the room; it comes back in a ``chat`` frame, or is
        refused by an ``error`` with ``of`` ``"say"``."""
        return encode({"t": "say", "text": text})

    def intent(self, action: dict[str, Any], intent_id: IntentId | None = None) -> bytes:
        """An ``intent`` frame (``intent_id``: resend an unanswered one)."""
        if intent_id is None:
            intent_id = self.new_intent_id()
        return encode({"t": "intent", "id": intent_id, "action": action})

    def resync(self) -> bytes:
        """Ask for what the mirror misses; a stale mirror (a gap, or a patch that did not
        fit and may have half-applied) can only be repaired by a snapshot: since nil."""
        since = None if self.mirror.stale else self.mirror.version
        return encode({"t": "resync", "since": since})

    def receive(self, data: bytes) -> Received:
        """Take one binary frame from the server."""
        frame: dict[str, Any] = compact.read(decode(data, max_size=2**31, arrays=True))
        kind = frame.get("t", "?")
        self.received[kind] += 1
        self.bytes_received[kind] += len(data)
        got = Received(frame, kind)
        mirror = self.mirror
        if kind == "patch":
            before = mirror.version
            if mirror.patch(frame["from"], frame["to"], frame["ops"]):
                got.changed = mirror.version != before
            else:
                self.resyncs += 1
                got.reply = self.resync()
        elif kind == "snapshot":
            mirror.snapshot(frame["v"], frame["doc"])
            got.changed = True
        elif kind in ("ack", "reject"):
            got.answers = frame["id"]
        elif kind in ("legal", "pong"):
            got.answers = kind
        elif kind == "chat":
            held = [] if frame.get("history") else self.chat
            self.chat = [*held, *frame["lines"]][-CHAT_LINES:]
        elif kind == "welcome":
            self.welcome = frame
            mirror.keys = frame.get("keys") if frame.get("protocol", 1) >= 2 else None
        elif kind == "error" and not frame.get("fatal"):
            got.answers = ANSWERS.get(frame.get("of", ""))
        return got
