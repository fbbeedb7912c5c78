"""Message types: parsing of client messages and builders of server messages.

Client → server messages are parsed into small dataclasses, each field checked,
which nothing changes once made. The one made for every move, :class:`Intent`, has
its ``__init__`` written out: compiled, a dataclass is still made by the Python
``__init__`` that dataclasses writes at run time (``frozen`` or not), about five
times the cost of the compiled one. Unknown fields are ignored so
that later protocol versions can add fields. Server → client messages are built
as plain maps (ready for :func:`protocol.codec.encode`). ``docs/protocol.md``
documents each one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, cast

from protocol.codec import REQUESTS, SCALARS
from protocol.errors import Code, ProtocolError
from protocol.text import flaw, typed

IntentId = int | str

MAX_INTENT_ID_LEN: Final = 64
MAX_CHAT: Final = 300
"""Characters a chat line may hold (after its outer spaces are stripped)."""


@dataclass(slots=True)
class Hello:
    """Join a room: as the seat of ``token``, or as a spectator when it is None."""

    protocol: int
    token: str | None
    since: int | None
    """The last version this client holds (reconnect), or None for a snapshot."""


@dataclass(init=False)
class Intent:
    """An action the seat wants to take; answered by ``ack`` or ``reject``. (Its
    ``__init__`` is written out: one is made for every intent, see the module's
    docstring.)"""

    id: IntentId
    action: dict[str, Any]

    def __init__(self, id: IntentId, action: dict[str, Any]) -> None:
        self.id = id
        self.action = action


@dataclass(slots=True)
class Resync:
    """Ask for the state again: patches after ``since``, or a snapshot."""

    since: int | None


@dataclass(slots=True)
class Legal:
    """Ask for this seat's legal actions at the current version."""


@dataclass(slots=True)
class Ping:
    """Liveness check; ``data`` is echoed in the ``pong``."""

    data: Any


@dataclass(slots=True)
class Say:
    """A chat line for everyone in the room; ``text`` checked and kept as typed."""

    text: str


ClientMessage = Hello | Intent | Resync | Legal | Ping | Say


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _field(msg: dict[str, Any], name: str, ok: bool, expected: str) -> None:
    """Refuse ``msg`` unless ``ok``."""
    if not ok:
        got = _shown(msg[name]) if name in msg else "missing"
        raise ProtocolError(Code.BAD_FIELD, f"{msg['t']}.{name} must be {expected} (got {got})")


def _optional_version(msg: dict[str, Any], name: str) -> int | None:
    value = msg.get(name)
    _field(msg, name, value is None or (_is_int(value) and value >= 0), "nil or an int >= 0")
    return value


def _hello(msg: dict[str, Any]) -> Hello:
    _field(msg, "protocol", _is_int(msg.get("protocol")), "an int")
    token = msg.get("token")
    _field(msg, "token", token is None or isinstance(token, str), "nil or a string")
    return Hello(msg["protocol"], token, _optional_version(msg, "since"))


def _intent_id(value: Any) -> bool:
    if isinstance(value, str):
        return 0 < len(value) <= MAX_INTENT_ID_LEN
    return _is_int(value) and 0 <= value < 2**63


def _intent(msg: dict[str, Any]) -> Intent:
    """An intent; a refused one with a scalar ``id`` carries it, to be echoed in a ``reject``."""
    iid = msg.get("id")
    echo = iid if isinstance(iid, SCALARS) else None
    if echo is not None and not _intent_id(iid):
        raise ProtocolError(
            Code.BAD_INTENT_ID,
            f"intent.id must be an int in 0..2^63-1 or a string of 1-{MAX_INTENT_ID_LEN} "
            f"characters (got {type(iid).__name__})",
            intent_id=echo,
        )
    try:
        _field(msg, "id", echo is not None, "an int >= 0 or a string")
        _field(msg, "action", isinstance(msg.get("action"), dict), "a map")
    except ProtocolError as exc:
        raise ProtocolError(exc.code, exc.message, intent_id=echo) from None
    return Intent(iid, msg["action"])  # type: ignore[arg-type]  # checked by _intent_id


def _resync(msg: dict[str, Any]) -> Resync:
    return Resync(_optional_version(msg, "since"))


def _legal(msg: dict[str, Any]) -> Legal:
    return Legal()


def _ping(msg: dict[str, Any]) -> Ping:
    return Ping(msg.get("data"))


def _say(msg: dict[str, Any]) -> Say:
    """A chat line: plain text of 1-``MAX_CHAT`` characters that shows as typed."""
    text = msg.get("text")
    _field(msg, "text", isinstance(text, str), "a string")
    text = typed(cast(str, text))  # (checked by _field)
    why = flaw(text, MAX_CHAT)
    if why == "empty":
        raise ProtocolError(Code.CHAT_EMPTY, "say.text shows nothing")
    if why == "too_long":
        raise ProtocolError(Code.CHAT_TOO_LONG, f"say.text holds more than {MAX_CHAT} characters")
    if why == "not_shown":
        raise ProtocolError(
            Code.CHAT_BAD_TEXT,
            "say.text may not hold control or invisible characters, line breaks or "
            "piles of accents",
        )
    return Say(text)


_PARSERS: Final[dict[str, Callable[[dict[str, Any]], ClientMessage]]] = {
    "hello": _hello,
    "intent": _intent,
    "resync": _resync,
    "legal": _legal,
    "ping": _ping,
    "say": _say,
}

TYPES_SAID: Final = "hello, intent, legal, ping, resync or say"
"""The types of :data:`_PARSERS`, as a refusal names them."""
_KINDS: Final[dict[type, str]] = {list: "list", dict: "map", bytes: "binary string"}
"""msgpack's words for a value a refusal shows by its kind (:func:`_shown`)."""


def _shown(value: Any) -> str:
    """A value a client sent, as a refusal shows it: a list, a map or a binary string by
    its kind, the others as JSON writes them (``7``, ``-1``, ``true``, ``null``,
    ``"teleport"``), cut at 40 characters; never Python's names (``NoneType``)."""
    named = _KINDS.get(type(value))
    return f"(a {named})" if named else json.dumps(value)[:40]


def parse(msg: dict[str, Any]) -> ClientMessage:
    """Turn a decoded frame into a client message, or raise ``ProtocolError``: the
    refusal of a request a client waits on (:data:`~protocol.codec.REQUESTS`) names it
    (``of``), as the codec's refusal of a malformed one does."""
    kind = msg.get("t")
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        if kind is None:
            raise ProtocolError(Code.UNKNOWN_TYPE, f"a frame needs `t`, its type: {TYPES_SAID}")
        raise ProtocolError(
            Code.UNKNOWN_TYPE, f"unknown message type {_shown(kind)}; the types are {TYPES_SAID}"
        )
    try:
        return parser(msg)
    except ProtocolError as exc:
        if exc.of is None and kind in REQUESTS:
            raise ProtocolError(exc.code, exc.message, of=kind) from None
        raise


# -- server -> client -------------------------------------------------------


def welcome(
    *,
    protocol: int,
    room: str,
    engine: str,
    title: str,
    options: dict[str, Any],
    seats: int,
    seat: int | None,
    version: int,
    keys: list[list[str]] | None = None,
    seed_chosen: bool = False,
) -> dict[str, Any]:
    """``title``: the game's name for players (``engine`` is its id);
    ``keys``: protocol 2's key table (:mod:`protocol.compact`), sent only under it;
    ``seed_chosen``: the room's creator chose its seed (and can know the hidden cards);
    sent only when true."""
    message = {
        "t": "welcome",
        "protocol": protocol,
        "room": room,
        "engine": engine,
        "title": title,
        "options": options,
        "seats": seats,
        "seat": seat,
        "version": version,
    }
    if keys is not None:
        message["keys"] = keys
    if seed_chosen:
        message["seed_chosen"] = True
    return message


def snapshot(version: int, doc: Any) -> dict[str, Any]:
    return {"t": "snapshot", "v": version, "doc": doc}


def patch(from_version: int, to_version: int, ops: list[list[Any]]) -> dict[str, Any]:
    return {"t": "patch", "from": from_version, "to": to_version, "ops": ops}


def ack(intent_id: IntentId, version: int) -> dict[str, Any]:
    return {"t": "ack", "id": intent_id, "v": version}


def reject(
    intent_id: Any, code: str, message: str, *, retry_after: float | None = None
) -> dict[str, Any]:
    """``intent_id``: the refused intent's ``id`` as the client sent it (a valid id, or
    any scalar a malformed intent carried; None when it had none). ``retry_after``:
    seconds until the same intent may be served (``rate_limited``)."""
    frame = {"t": "reject", "id": intent_id, "code": code, "message": message}
    if retry_after is not None:
        frame["retry_after"] = retry_after
    return frame


def event(version: int, events: list[dict[str, Any]]) -> dict[str, Any]:
    return {"t": "event", "v": version, "events": events}


def result(version: int, outcome: dict[str, Any]) -> dict[str, Any]:
    return {"t": "result", "v": version, "result": outcome}


def legal(
    version: int, seat: int, actions: list[dict[str, Any]], labels: list[str]
) -> dict[str, Any]:
    return {"t": "legal", "v": version, "seat": seat, "actions": actions, "labels": labels}


def error(
    code: str,
    message: str,
    *,
    fatal: bool = False,
    of: str | None = None,
    retry_after: float | None = None,
) -> dict[str, Any]:
    """An ``error`` frame; ``of``: the ``t`` of the refused request it answers, if any;
    ``retry_after``: seconds until it may be served (``rate_limited``)."""
    frame: dict[str, Any] = {"t": "error", "code": code, "message": message, "fatal": fatal}
    if of is not None:
        frame["of"] = of
    if retry_after is not None:
        frame["retry_after"] = retry_after
    return frame


def chat(lines: list[dict[str, Any]], *, history: bool = False) -> dict[str, Any]:
    """Chat ``lines`` (each ``{"seat", "name", "text", "at"}``); ``history``: the room's
    recent lines for a connection that has just joined, which replace what it showed."""
    frame: dict[str, Any] = {"t": "chat", "lines": lines}
    if history:
        frame["history"] = True
    return frame


def pong(data: Any) -> dict[str, Any]:
    return {"t": "pong", "data": data}
