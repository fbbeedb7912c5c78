"""Bounded fuzzing, run in CI: hostile frames through the codec, the parser and
the room's entry points of every engine, and hostile JSON bodies through the
lobby. Each property is limited by ``max_examples`` to a few seconds.

What must hold: nothing crashes or hangs; every refusal has a stable code; an
intent frame with a scalar id is answered exactly once (``ack`` or ``reject``)
with that id; a room changes only through acknowledged intents; the lobby
answers every request with JSON and a status below 500.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx
import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import ENGINES, Engine
from protocol.codec import MAX_DEPTH, SCALARS, decode
from protocol.errors import Code, ProtocolError
from protocol.messages import Intent, parse
from server.app import create_app
from server.connection import dispatch, refusal
from server.room import Room
from server.settings import Settings
from server.store import MemoryStore, RoomRecord

BOUNDED = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# -- values a hostile client can send ------------------------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=70),
    st.binary(max_size=8),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@dataclass(frozen=True)
class Deep:
    """Arrays nested ``depth`` levels around a 0 (packed by :func:`pack`: the msgpack
    library itself refuses to pack such a value)."""

    depth: int


deep = st.integers(min_value=MAX_DEPTH - 3, max_value=1200).map(Deep)
KINDS = ["hello", "intent", "resync", "legal", "ping"]
frames = st.fixed_dictionaries(
    {"t": st.sampled_from(KINDS) | values | deep},
    optional={
        "id": scalars | values | deep,
        "action": values | deep | st.fixed_dictionaries({"type": st.text(max_size=10) | values}),
        "since": scalars,
        "protocol": scalars,
        "token": scalars,
        "data": values | deep,
    },
)


_DEEP_EXT = 42


def pack(value: Any) -> bytes:
    """msgpack bytes of ``value``, each :class:`Deep` spliced in as raw nested arrays."""

    def placeholder(obj: Any) -> msgpack.ExtType:
        assert isinstance(obj, Deep)
        return msgpack.ExtType(_DEEP_EXT, obj.depth.to_bytes(2, "big"))

    data: bytes = msgpack.packb(value, use_bin_type=True, default=placeholder)
    return re.sub(
        rb"\xd5\x2a(..)",
        lambda m: b"\x91" * int.from_bytes(m[1], "big") + b"\x00",
        data,
        flags=re.S,
    )


# -- codec and parser -------------------------------------------------------------


@BOUNDED
@given(st.one_of(frames.map(pack), st.binary(max_size=64), values.map(pack)))
def test_any_frame_parses_or_is_refused_with_a_code(frame: bytes) -> None:
    try:
        parse(decode(frame, max_size=1 << 20))
    except ProtocolError as exc:
        assert exc.code in set(Code)
        assert exc.intent_id is None or isinstance(exc.intent_id, SCALARS)


# -- the room's entry points ----------------------------------------------------------


class Client:
    """A joined connection that keeps the ack and reject frames it gets."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.protocol = 1
        self.answers: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.frames = 0
        self.closed: str | None = None

    def send(self, frame: bytes) -> None:
        self.frames += 1
        message = decode(frame, max_size=1 << 30, max_depth=1 << 10)
        if message["t"] in ("ack", "reject"):
            self.answers.put_nowait(message)

    def close(self, code: str, message: str) -> None:
        self.closed = code


class Faults(logging.Handler):
    """Collects error logs: a fault the room only logged still fails the test."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record.getMessage())


def mutated(action: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    """A legal action with one field changed, added or removed."""
    action = dict(action)
    key = data.draw(st.sampled_from([*action, "extra"]))
    if data.draw(st.booleans()):
        action.pop(key, None)
    else:
        action[key] = data.draw(values | deep)
    return action


async def fuzz_room(engine: Engine, data: st.DataObject) -> None:
    store = MemoryStore()
    seats = engine.min_players
    record = RoomRecord("f", engine.id, seats, {}, False, 5, 0, 0, names=[None] * seats)
    room = Room(record, engine, store, Settings(), time.time)
    await room.promote(await store.acquire("f", "fuzz") or "")
    room.start()
    for _ in range(seats):
        await room.reserve(None)
    clients = [Client(seat) for seat in [*range(seats), None]]
    for client in clients:
        room.attach(client, None)
    for _ in range(data.draw(st.integers(1, 8))):
        assert room.state is not None
        acting = sorted(engine.to_act(room.state))
        how = data.draw(st.sampled_from(["legal", "mutated", "frame"]))
        if how == "frame" or not acting:
            client = data.draw(st.sampled_from(clients))
            message: Any = data.draw(frames)
        else:
            client = clients[data.draw(st.sampled_from(acting))]
            action = data.draw(st.sampled_from(engine.legal_actions(room.state, client.seat)))
            if how == "mutated":
                action = mutated(action, data)
            message = {"t": "intent", "id": data.draw(scalars), "action": action}
        before = room.version
        try:
            parsed = parse(decode(pack(message), max_size=1 << 20))
        except ProtocolError as exc:
            client.send(refusal(exc))
            expected = exc.intent_id
        else:
            dispatch(client, room, parsed)
            expected = parsed.id if isinstance(parsed, Intent) else None
        if expected is None:
            assert client.answers.empty() and room.version == before
            continue
        async with asyncio.timeout(5):  # an intent nobody answers would hang the client
            answer = await client.answers.get()
        assert answer["id"] == expected and type(answer["id"]) is type(expected), answer
        assert answer["t"] == "ack" or answer["code"] != Code.INTERNAL_ERROR, answer
        assert client.answers.empty(), "one answer per intent"
        assert room.version in (before, before + 1)
        assert answer["t"] == "ack" or room.version == before
        if how == "legal" and type(expected) is int and 0 <= expected < 2**63:
            assert answer["t"] == "ack", answer
    assert [c.closed for c in clients] == [None] * len(clients), "no connection was dropped"
    await room.close()


@pytest.mark.parametrize("engine", ENGINES.values(), ids=ENGINES.keys())
def test_hostile_frames_never_break_a_room(engine: Engine) -> None:
    faults = Faults()
    logging.getLogger("tablewire").addHandler(faults)
    try:

        @BOUNDED
        @given(st.data())
        def run(data: st.DataObject) -> None:
            asyncio.run(fuzz_room(engine, data))

        run()
    finally:
        logging.getLogger("tablewire").removeHandler(faults)
    assert faults.records == []


# -- the lobby's JSON bodies --------------------------------------------------------------

FIELDS = ["engine", "seats", "options", "private", "seed", "name", "seat"]
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([*ENGINES, "side", "A", ""]),
    st.text(max_size=40),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)
bodies = st.one_of(
    st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=6), json_values, max_size=6).map(
        lambda body: json.dumps(body).encode()
    ),
    st.integers(1, 3000).map(
        lambda depth: b'{"engine": "sintra", "options": ' + b"[" * depth + b"]" * depth + b"}"
    ),
    st.integers(4301, 5000).map(
        lambda digits: b'{"engine": "sintra", "seed": ' + b"7" * digits + b"}"
    ),
    st.binary(max_size=40),
)
requests = st.tuples(
    st.sampled_from(["POST /api/rooms", "POST /api/quickplay", "POST seats", "GET"]),
    bodies,
    st.just("") | st.text(max_size=70),
)


async def one_request(method_path: str, body: bytes, text: str) -> httpx.Response:
    transport = httpx.ASGITransport(app=create_app(Settings()))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        room = (await client.post("/api/rooms", json={"engine": "sintra", "seats": 2})).json()
        if method_path == "GET":
            for path in (f"/api/rooms/{quote(text, safe='')}", "/api/rooms", "/api/games"):
                response = await client.get(
                    path, params={"engine": text, "status": text, "kind": text}
                )
                assert response.status_code < 500 and response.json() is not None
            return response
        path = method_path.split()[-1]
        if path == "seats":
            path = f"/api/rooms/{quote(text, safe='') or room['id']}/seats"
        return await client.post(path, content=body)


@BOUNDED
@given(requests)
def test_hostile_lobby_requests_get_json_and_never_500(request: tuple[str, bytes, str]) -> None:
    response = asyncio.run(one_request(*request))
    assert response.status_code < 500, response.text
    answer = response.json()
    if response.status_code >= 400:
        assert isinstance(answer["error"]["code"], str) and answer["error"]["message"]
