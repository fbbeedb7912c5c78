"""Every code of docs/protocol.md's "Protocol and room codes" table, provoked for real.

The table is read from the document itself. :data:`CASES` maps each code to a
trigger: a coroutine that runs a real server (:func:`conftest.running`, with
settings of its own where the code needs them), speaks real msgpack frames to
it over a WebSocket, and returns the ``error`` or ``reject`` frame the server
answered. A code added to the table without a case fails
:func:`test_every_code_of_the_table_has_a_case`, and so does a case for a code
the table does not list. To cover a new code: add its row to the table and one
``@case("code")`` trigger here.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from wire import Raw, new_room, played_out

from clients.client import LobbyClient
from conftest import Running, redis_server
from engines.base import Action
from protocol.codec import encode
from server.settings import Settings
from support import CodeEnv, Triggers, code_env, codes_in, table_rows

__all__ = ["code_env"]  # the fixture, used through ``env``

GUARD = 30.0
"""Seconds a case may take at most (a guard against a hang, not a measurement)."""

PONGS = 100
"""Pongs of 60 kB that a client leaves unread to be ``too_slow``: more than the kernel's
default buffers of a loopback connection hold (a receive buffer of 128 kB, not grown
while the client reads nothing)."""

BASE = Settings(hello_timeout=10.0, max_frame=4096)

TABLE = "Protocol and room codes"


def table_codes() -> set[str]:
    """The codes of the table: every code named in its first column."""
    return {code for row in table_rows(TABLE) for code in codes_in(row[0])}


Frame = dict[str, Any]

CASES: Triggers[Frame] = Triggers()
"""Each code of the table, and the trigger that provokes it: it returns the ``error``
or ``reject`` frame that carries the code."""
case = CASES.case

UNTESTABLE: dict[str, str] = {}
"""Codes of the table that cannot be provoked without a mock, each with the reason. None
today: every code has a real trigger; keep it so."""


async def answer(raw: Raw) -> Frame:
    """The next ``error`` or ``reject`` frame (patches, events and the like skipped)."""
    while (frame := await raw.recv())["t"] not in ("error", "reject"):
        pass
    result: Frame = frame
    return result


@asynccontextmanager
async def spectator(server: Running) -> AsyncIterator[Raw]:
    """A spectator joined to a new waiting room (its snapshot read)."""
    room_id, _ = await new_room(server, fill=0)
    raw = await Raw.open(server, room_id)
    try:
        await raw.join()
        assert (await raw.recv())["t"] == "snapshot"
        yield raw
    finally:
        await raw.ws.close()


async def refused_after_welcome(env: CodeEnv, frame: bytes | str) -> Frame:
    """What a joined spectator gets for ``frame`` (sent as it is)."""
    async with env.serve() as server, spectator(server) as raw:
        await raw.ws.send(frame)
        refused = await answer(raw)
        assert refused.get("fatal", False) is False, refused  # (a reject has no fatal)
        return refused


async def refused_before_welcome(env: CodeEnv, *frames: Frame, **settings: Any) -> Frame:
    """The fatal error a new connection to a waiting room gets after ``frames``."""
    async with env.serve(**settings) as server:
        room_id, _ = await new_room(server, fill=0)
        raw = await Raw.open(server, room_id)
        for frame in frames:
            await raw.send(frame)
        return await raw.closed_with()


def hello(token: str | None = None, protocol: int = 1) -> Frame:
    return {"t": "hello", "protocol": protocol, "token": token, "since": None}


@case("malformed_frame")
async def malformed_frame(env: CodeEnv) -> Frame:
    return await refused_after_welcome(env, b"\xc1")  # a byte msgpack never uses


@case("frame_too_large")
async def frame_too_large(env: CodeEnv) -> Frame:
    return await refused_after_welcome(env, encode({"t": "ping", "data": "x" * BASE.max_frame}))


@case("text_frame")
async def text_frame(env: CodeEnv) -> Frame:
    return await refused_after_welcome(env, '{"t": "ping"}')


@case("not_a_map")
async def not_a_map(env: CodeEnv) -> Frame:
    return await refused_after_welcome(env, encode(["ping"]))


@case("unknown_type")
async def unknown_type(env: CodeEnv) -> Frame:
    return await refused_after_welcome(env, encode({"t": "fly"}))


@case("bad_field")
async def bad_field(env: CodeEnv) -> Frame:
    return await refused_after_welcome(env, encode({"t": "resync", "since": "yesterday"}))


@case("bad_intent_id")
async def bad_intent_id(env: CodeEnv) -> Frame:
    frame = encode({"t": "intent", "id": 1.5, "action": {"type": "reset"}})
    refused = await refused_after_welcome(env, frame)
    assert (refused["t"], refused["id"]) == ("reject", 1.5)
    return refused


@case("unsupported_protocol")
async def unsupported_protocol(env: CodeEnv) -> Frame:
    return await refused_before_welcome(env, hello(protocol=3))


@case("hello_required")
async def hello_required(env: CodeEnv) -> Frame:
    return await refused_before_welcome(env, {"t": "ping"})


@case("already_joined")
async def already_joined(env: CodeEnv) -> Frame:
    return await refused_after_welcome(env, encode(hello()))


@case("hello_timeout")
async def hello_timeout(env: CodeEnv) -> Frame:
    return await refused_before_welcome(env, hello_timeout=0.05)


@case("no_such_room")
async def no_such_room(env: CodeEnv) -> Frame:
    async with env.serve() as server:
        return await (await Raw.open(server, "no-such-room")).closed_with()


@case("bad_token")
async def bad_token(env: CodeEnv) -> Frame:
    return await refused_before_welcome(env, hello(token="not-a-token"))


@case("spectator")
async def spectator_legal(env: CodeEnv) -> Frame:
    refused = await refused_after_welcome(env, encode({"t": "legal"}))
    assert refused["of"] == "legal"
    return refused


async def said(env: CodeEnv, text: Any) -> Frame:
    """What a spectator of a waiting room (who may chat) gets for saying ``text``."""
    refused = await refused_after_welcome(env, encode({"t": "say", "text": text}))
    assert refused["of"] == "say", refused
    return refused


@case("chat_empty")
async def chat_empty(env: CodeEnv) -> Frame:
    return await said(env, " \u3000 ")


@case("chat_too_long")
async def chat_too_long(env: CodeEnv) -> Frame:
    return await said(env, "ha" * 151)


@case("chat_bad_text")
async def chat_bad_text(env: CodeEnv) -> Frame:
    return await said(env, "first line\nsecond line")


@case("chat_not_allowed")
async def chat_not_allowed(env: CodeEnv) -> Frame:
    """A spectator's line while the game is played (``spectator_chat`` off)."""
    async with env.serve() as server:
        room_id, _ = await new_room(server, seats=2)
        raw = await Raw.open(server, room_id)
        try:
            await raw.join()
            assert (await raw.recv())["doc"]["status"] == "playing"
            await raw.send({"t": "say", "text": "psst: take the blue one"})
            refused = await answer(raw)
        finally:
            await raw.ws.close()
        assert refused["of"] == "say"
        return refused


async def intent(raw: Raw, action: Action) -> Frame:
    """Send an intent; its ``reject`` (an ``ack`` fails the case)."""
    await raw.send({"t": "intent", "id": 1, "action": action})
    while (frame := await raw.recv())["t"] not in ("ack", "reject"):
        pass
    assert frame["t"] == "reject", frame
    refused: Frame = frame
    return refused


@case("not_started")
async def not_started(env: CodeEnv) -> Frame:
    async with env.serve() as server:
        room_id, tokens = await new_room(server, seats=2, fill=1)
        async with Raw.joined(server, room_id, tokens[0]) as raw:
            return await intent(raw, {"type": "reset"})


@case("game_over")
async def game_over(env: CodeEnv) -> Frame:
    async with env.serve() as server:
        room_id, tokens = await played_out(server, seed=9)
        async with Raw.joined(server, room_id, tokens[0]) as raw:
            return await intent(raw, {"type": "reset"})


@case("store_unavailable")
async def store_unavailable(env: CodeEnv) -> Frame:
    """The room's Redis goes down under a joined player: the move is not recorded."""
    redis = redis_server("--save", "", "--appendonly", "no")
    redis.start()
    try:
        async with env.serve(redis_url=redis.url, redis_prefix=env.prefix) as server:
            room_id, tokens = await new_room(server, seats=2)
            room = server.lobby.room(room_id)
            assert room is not None and room.state is not None
            seat = min(room.engine.to_act(room.state))
            move = room.engine.legal_actions(room.state, seat)[0]
            async with Raw.joined(server, room_id, tokens[seat]) as raw:
                redis.stop()
                return await intent(raw, move)
    finally:
        redis.cleanup()


@case("owner_unavailable")
async def owner_unavailable(env: CodeEnv) -> Frame:
    """A player on process ``b``; the room's owner, process ``a``, frozen."""

    async def room(url: str) -> tuple[str, str]:
        async with LobbyClient(url) as lobby:
            room_id = (await lobby.create_room("sintra", seats=2))["id"]
            return room_id, (await lobby.reserve(room_id))["token"]

    async with (
        env.frozen_owner(room) as (room_id, token),
        env.follower() as follower,
        Raw.joined(follower, room_id, token) as raw,
    ):
        return await intent(raw, {"type": "reset"})


@case("expelled")
async def expelled(env: CodeEnv) -> Frame:
    """Seat 0's player never comes: a zombie plays its first decision at once (grace 0)
    and, with ``expel_after`` 1, keeps the seat; the player's intent then is refused."""
    async with env.serve() as server:
        async with LobbyClient(server.url) as lobby:
            options = {"grace": 0, "expel_after": 1, "bot_delay": 0}
            room = await lobby.create_room("turn-relay", seats=4, options=options)
            tokens = [(await lobby.reserve(room["id"]))["token"] for _ in range(4)]
        async with Raw.joined(server, room["id"], tokens[1]) as watcher:
            while not any(
                event["type"] == "expelled"
                for event in (await watcher.recv_until("event"))["events"]
            ):
                pass
        async with Raw.joined(server, room["id"], tokens[0]) as raw:
            return await intent(raw, {"take": 0, "colour": 0})


@case("too_slow")
async def too_slow(env: CodeEnv) -> Frame:
    """A client that asks for big pongs and reads none of them (its reading paused, no
    compression to shrink them): once the kernel's buffers are full, the server's
    unsent bytes pass ``send_buffer``. The client reads only then, and finds the fatal
    error after the pongs that were waiting (``close_timeout`` gives it the time)."""
    settings = {"socket_send_buffer": 4096, "send_buffer": 16384, "ping_rate": 0.0}
    async with env.serve(**settings, max_frame=65536, close_timeout=GUARD) as server:
        room_id, _ = await new_room(server, fill=0)
        url = f"{server.ws}/ws/rooms/{room_id}"
        raw = Raw(await connect(url, max_size=None, max_queue=1, compression=None))
        await raw.join()
        for _ in range(PONGS):
            await raw.send({"t": "ping", "data": "x" * 60000})
        while (frame := await raw.recv())["t"] in ("snapshot", "pong"):
            pass
        assert frame["fatal"] is True, frame
        with pytest.raises(ConnectionClosed):
            await raw.recv()
        fatal: Frame = frame
        return fatal


@case("rate_limited")
async def rate_limited(env: CodeEnv) -> Frame:
    async with env.serve(ping_rate=0.001, ping_burst=1) as server, spectator(server) as raw:
        await raw.send({"t": "ping", "data": 1})
        assert (await raw.recv())["t"] == "pong"
        await raw.send({"t": "ping", "data": 2})
        refused = await answer(raw)
        assert (refused["fatal"], refused["of"]) == (False, "ping")
        return refused


@case("too_many_connections")
async def too_many_connections(env: CodeEnv) -> Frame:
    return await refused_before_welcome(env, hello(), max_room_connections=0)


@case("room_closed")
async def room_closed(env: CodeEnv) -> Frame:
    """A waiting room is swept (``waiting_ttl`` 0) under a joined spectator."""
    async with env.serve(waiting_ttl=0.0) as server, spectator(server) as raw:
        await server.lobby.sweep()
        return await raw.closed_with()


@case("internal_error")
async def internal_error(env: CodeEnv) -> Frame:
    engine = env.faulty_engine("apply")
    async with env.serve() as server:
        async with LobbyClient(server.url) as lobby:
            room = await lobby.create_room(engine, seats=4)
            tokens = [(await lobby.reserve(room["id"]))["token"] for _ in range(4)]
        async with Raw.joined(server, room["id"], tokens[0]) as raw:
            return await intent(raw, {"take": 0, "colour": 0})


@pytest.fixture
def env(code_env: CodeEnv) -> CodeEnv:
    code_env.base = BASE
    return code_env


@pytest.mark.parametrize("code", sorted(CASES))
async def test_the_code_is_provoked_for_real(code: str, env: CodeEnv) -> None:
    async with asyncio.timeout(GUARD):
        frame = await CASES[code](env)
    assert frame["t"] in ("error", "reject"), frame
    assert frame["code"] == code, frame
    assert isinstance(frame["message"], str) and frame["message"]


def test_every_code_of_the_table_has_a_case() -> None:
    CASES.check_coverage(table_codes(), UNTESTABLE)
