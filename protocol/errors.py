"""Stable, machine-readable error codes and the typed protocol error.

Every code is a lowercase snake_case string that never changes meaning once
published; ``docs/protocol.md`` lists them all. Codes an engine raises for an
illegal action (``not_your_turn``, ``bad_action`` …) reach the client
unchanged in a ``reject`` frame and are documented per engine.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class Code(StrEnum):
    """Error codes of the protocol and the room (not the engines')."""

    MALFORMED_FRAME = "malformed_frame"
    """The frame is not exactly one valid msgpack value."""
    FRAME_TOO_LARGE = "frame_too_large"
    """The frame is larger than the server's limit."""
    TEXT_FRAME = "text_frame"
    """A text WebSocket frame; the protocol uses binary frames only."""
    NOT_A_MAP = "not_a_map"
    """The frame decodes to something other than a map with string keys."""
    UNKNOWN_TYPE = "unknown_type"
    """The ``t`` field names no message type."""
    BAD_FIELD = "bad_field"
    """A field is missing or has the wrong type or range."""
    BAD_INTENT_ID = "bad_intent_id"
    """An intent's ``id`` is neither an int in 0…2⁶³−1 nor a string of 1–64 characters
    (a float, say); the ``reject`` echoes it."""
    UNSUPPORTED_PROTOCOL = "unsupported_protocol"
    """``hello.protocol`` is a version the server does not speak."""
    HELLO_REQUIRED = "hello_required"
    """The first frame of a connection must be ``hello``."""
    ALREADY_JOINED = "already_joined"
    """A second ``hello`` on a connection that has joined."""
    HELLO_TIMEOUT = "hello_timeout"
    """No ``hello`` arrived in time after the connection opened."""
    NO_SUCH_ROOM = "no_such_room"
    """The room does not exist (or no longer exists)."""
    BAD_TOKEN = "bad_token"
    """The seat token is unknown for this room."""
    SPECTATOR = "spectator"
    """A spectator sent an intent; spectators only watch."""
    NOT_STARTED = "not_started"
    """An intent before every seat is taken and the game has begun."""
    GAME_OVER = "game_over"
    """An intent after the game ended."""
    TOO_SLOW = "too_slow"
    """The connection fell too far behind; reconnect and resync."""
    STORE_UNAVAILABLE = "store_unavailable"
    """The room's store could not record the intent; it was not applied. Retry."""
    OWNER_UNAVAILABLE = "owner_unavailable"
    """The process that owns the room did not answer in time (it may be failing
    over); nothing was applied unless a later ack says so. Retry with the same id."""
    EXPELLED = "expelled"
    """The seat timed out too often; a bot plays it for the rest of the game."""
    RATE_LIMITED = "rate_limited"
    """The connection (or its address) sent more intents, queries or pings than its
    rate limit allows; the frame was not served. Persisting closes the connection."""
    CHAT_EMPTY = "chat_empty"
    """A ``say`` whose text shows nothing: empty, only spaces, or only characters that
    render blank (:func:`protocol.text.visible`)."""
    CHAT_TOO_LONG = "chat_too_long"
    """A ``say`` whose text is longer than ``MAX_CHAT`` characters."""
    CHAT_BAD_TEXT = "chat_bad_text"
    """A ``say`` whose text holds a character that does not show as typed: a control
    or format character (a line break, an escape, a bidirectional override), or a pile
    of combining marks."""
    CHAT_NOT_ALLOWED = "chat_not_allowed"
    """A spectator's ``say`` while the game is being played, in a room whose option
    ``spectator_chat`` is off (the default): spectators do not talk to the players."""
    TOO_MANY_CONNECTIONS = "too_many_connections"
    """The server or the room holds as many connections as it may; retry later."""
    ROOM_CLOSED = "room_closed"
    """The room was cleaned up or the server is shutting down."""
    INTERNAL_ERROR = "internal_error"
    """A server fault; the room's state did not change."""


class ProtocolError(Exception):
    """A frame or request the protocol refuses, with its stable code.

    ``intent_id`` is the ``id`` of a refused intent frame when it has a scalar
    one (valid or not): such a refusal is answered with a ``reject`` carrying it,
    so a client waiting for that id hears back. None: the frame has no id.
    ``of`` is the ``t`` of a refused request a client waits on (``legal``,
    ``resync``, ``ping``): the ``error`` frame names it, so that wait ends.
    """

    def __init__(
        self, code: Code, message: str, *, intent_id: Any = None, of: str | None = None
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.intent_id = intent_id
        self.of = of
