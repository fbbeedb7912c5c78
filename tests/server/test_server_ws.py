"""The WebSocket endpoint against a real server: games, mirrors, resync, bad input."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import msgpack
import pytest
from websockets.exceptions import ConnectionClosed
from wire import INVITES, Raw, new_room, played_out, scrape, until

from clients import bots
from clients.client import LobbyClient, RoomClient
from conftest import Running
from engines.bots import RandomBot
from engines.sintra import ENGINE as sintra
from protocol import compact
from protocol.codec import decode, encode
from protocol.mirror import Mirror
from server.metrics import Ending
from server.settings import Settings
from support import packed


@pytest.fixture
async def table(server: Running) -> AsyncIterator[tuple[str, list[Raw]]]:
    """A started two-seat game with both seats joined (snapshot and the second seat's
    presence patch consumed)."""
    room_id, tokens = await new_room(server)
    seats = [await Raw.open(server, room_id) for _ in tokens]
    for raw, token in zip(seats, tokens, strict=True):
        await raw.join(token)
        assert (await raw.recv())["t"] == "snapshot"
    last = version(server, room_id)
    while (await seats[0].recv()).get("to") != last:
        pass
    yield room_id, seats
    for raw in seats:
        await raw.ws.close()


def turn(server: Running, room_id: str) -> int:
    room = server.lobby.room(room_id)
    assert room is not None and room.state is not None
    return int(room.state["turn"])


def version(server: Running, room_id: str) -> int:
    room = server.lobby.room(room_id)
    assert room is not None
    return room.version


# -- whole games ---------------------------------------------------------------


async def test_a_full_four_player_game_of_bots_finishes(server: Running) -> None:
    summary = await bots.run(server.url, "sintra", rooms=1, players=4, spectators=1, seed=5)
    assert summary.ok, summary
    assert summary.games_finished == 1 and summary.rejects == 0
    (room_id,) = server.lobby.rooms
    async with LobbyClient(server.url) as lobby:
        room = await lobby.room(room_id)
        assert await lobby.rooms() == [], "a room with a chosen seed is private"
    assert room["result"]["winners"] and room["private"]
    assert room["seed"] == 5


def replayed_public_views(server: Running, room_id: str, log: list[dict[str, Any]]) -> list[Any]:
    """The public document of every version, rebuilt from the room's seed and log."""
    room = server.lobby.room(room_id)
    assert room is not None
    record = room.record
    names: list[str | None] = [None] * record.seats
    state = None
    docs = []
    for entry in [None, *log]:
        if entry is not None and entry["k"] == "seat":
            names[entry["seat"]] = entry["name"]
            if None not in names:
                state = sintra.setup(record.seats, record.options, record.seed)
        elif entry is not None and entry["k"] == "intent":
            assert state is not None
            state, _ = sintra.apply(state, entry["seat"], entry["action"])
        result = state is not None and sintra.result(state) is not None
        status = "finished" if result else "playing" if state is not None else "waiting"
        docs.append(
            {
                "status": status,
                "seats": list(names),
                "to_act": sorted(sintra.to_act(state)) if state else [],
                "game": sintra.view(state, None) if state else None,
            }
        )
    return docs


async def test_a_spectators_mirror_equals_the_public_view_after_every_patch(
    server: Running,
) -> None:
    room_id, _ = await new_room(server, fill=0)
    spectator = await Raw.open(server, room_id)
    assert (await spectator.join())["seat"] is None
    mirror = Mirror()
    seen = []
    filler = asyncio.create_task(
        bots.run(server.url, "sintra", 0, 2, room_id=room_id, invite=INVITES[room_id])
    )
    while True:
        frame = await spectator.recv()
        if frame["t"] == "snapshot":
            mirror.snapshot(frame["v"], frame["doc"])
        elif frame["t"] == "patch":
            assert mirror.patch(frame["from"], frame["to"], frame["ops"]), "no gaps"
        else:
            continue
        seen.append((mirror.version, decode(encode(mirror.doc))))
        if mirror.doc["status"] == "finished":
            break
    assert (await filler).ok
    log = [entry for _, entry in await server.lobby.store.read_log(room_id)]
    expected = replayed_public_views(server, room_id, log)
    assert [v for v, _ in seen] == list(range(len(seen)))
    finished = len(seen) - 1
    assert all(entry["k"] == "presence" for entry in log[finished:]), "then only players leave"
    for v, doc in seen:
        assert {k: doc[k] for k in expected[v]} == expected[v], f"version {v}"


async def test_protocol_1_and_2_clients_of_one_game_hold_the_same_document_at_every_version(
    server: Running,
) -> None:
    room_id, _ = await new_room(server, fill=0)
    old, new = await Raw.open(server, room_id), await Raw.open(server, room_id)
    assert "keys" not in await old.join(protocol=1)
    keys = (await new.join(protocol=2))["keys"]
    assert ["game", "factories"] in keys and ["to_act"] in keys
    filler = asyncio.create_task(
        bots.run(server.url, "sintra", 0, 2, room_id=room_id, invite=INVITES[room_id])
    )
    seen: dict[int, list[tuple[int, bytes]]] = {1: [], 2: []}
    sizes: dict[int, list[int]] = {1: [], 2: []}
    for protocol, raw in ((1, old), (2, new)):
        mirror = Mirror()
        mirror.keys = keys if protocol == 2 else None
        while mirror.doc is None or mirror.doc["status"] != "finished":
            data = await raw.ws.recv(decode=False)
            frame = decode(data, arrays=True)
            message = compact.read(frame)
            assert isinstance(frame, list) == (protocol == 2 and message["t"] == "patch")
            if message["t"] == "snapshot":
                mirror.snapshot(message["v"], message["doc"])
            elif message["t"] == "patch":
                assert mirror.patch(message["from"], message["to"], message["ops"]), "no gaps"
                sizes[protocol].append(len(data))
            else:
                continue
            seen[protocol].append((mirror.version, encode(mirror.doc)))
    assert (await filler).ok
    assert seen[1] == seen[2], "the same documents, version by version"
    assert sum(sizes[2]) < sum(sizes[1]) / 2, "protocol 2's patches are less than half the bytes"


async def test_a_reconnecting_client_gets_the_patches_it_missed(server: Running) -> None:
    room_id, tokens = await new_room(server, seed=3)
    mover = turn(server, room_id)
    watcher = RoomClient(server.ws, room_id, None)  # keeps the public view's patches
    await watcher.connect()
    me = RoomClient(server.ws, room_id, tokens[mover])
    await me.connect()
    mine = await me.intent((await me.legal())[0])
    await me.wait_version(mine["v"])
    await me.close()
    async with RoomClient(server.ws, room_id, tokens[1 - mover]) as other:
        await other.wait_version(mine["v"])
        theirs = await other.intent((await other.legal())[0])
        assert theirs["t"] == "ack"
    me.received.clear()
    await me.connect()
    doc = await me.wait_version(theirs["v"])
    await me.close()
    await watcher.close()
    assert me.received["snapshot"] == 0, "a short absence is caught up with patches"
    # Every version since: the move and the presence entries (me away, the other here…).
    assert me.version is not None and me.received["patch"] == me.version - mine["v"] >= 2
    room = server.lobby.room(room_id)
    assert room is not None and room.state is not None
    assert doc["game"] == decode(encode(sintra.view(room.state, mover)))
    assert doc["to_act"] == [mover]


async def test_a_seats_second_connection_gets_the_patches_but_not_the_ack(
    server: Running,
) -> None:
    """docs/protocol.md said that the connections of one seat "all get the same frames":
    they get the same patches and events, but an answer (ack, legal, pong) goes only to
    the connection that asked."""
    room_id, tokens = await new_room(server, seed=3)
    mover = turn(server, room_id)
    async with (
        Raw.joined(server, room_id, tokens[mover]) as asking,
        Raw.joined(server, room_id, tokens[mover]) as other,
    ):
        await asking.send({"t": "legal"})
        actions = (await asking.recv_until("legal"))["actions"]
        await asking.send({"t": "intent", "id": "one", "action": actions[0]})
        assert (await asking.recv_until("ack"))["id"] == "one"
        await other.send({"t": "ping", "data": "after"})
        seen = []
        while (frame := await other.recv())["t"] != "pong":
            seen.append(frame["t"])
        assert "patch" in seen and "ack" not in seen and "legal" not in seen, seen


async def test_a_ping_is_answered_with_its_own_data(server: Running) -> None:
    room_id, _ = await new_room(server, seed=3)
    async with RoomClient(server.ws, room_id, None) as watcher:
        assert await watcher.ping({"n": 1, "s": "<b>x</b>"}) == {"n": 1, "s": "<b>x</b>"}
        assert await watcher.ping() is None


async def test_a_client_whose_patch_does_not_fit_asks_for_a_snapshot(server: Running) -> None:
    room_id, tokens = await new_room(server, seed=3)
    mover = turn(server, room_id)
    async with (
        RoomClient(server.ws, room_id, tokens[mover]) as me,
        RoomClient(server.ws, room_id, tokens[1 - mover]) as other,
    ):
        await other.wait_version(version(server, room_id))
        other.mirror.doc = {"damaged": True}  # the next patch's ops do not fit
        mine = await me.intent((await me.legal())[0])
        async with asyncio.timeout(5):
            doc = await other.wait_version(mine["v"])
        assert other.resyncs == 1 and other.received["snapshot"] == 2
        assert doc == me.doc


async def test_a_client_too_far_behind_gets_a_snapshot(server: Running, settings: Settings) -> None:
    room_id, _ = await new_room(server, seed=4, fill=0)
    raw = await Raw.open(server, room_id)
    await raw.join(None)
    await raw.recv_until("snapshot")
    await raw.ws.close()
    summary = await bots.run(server.url, "sintra", 0, 2, room_id=room_id, invite=INVITES[room_id])
    assert summary.ok
    async with RoomClient(server.ws, room_id, None) as watcher:  # the bots' leaving logged
        await watcher.wait_for(lambda doc: not any(p["connected"] for p in doc["presence"]))
    late = await Raw.open(server, room_id)
    await late.join(None, since=2)
    frame = await late.recv()
    assert frame["t"] == "snapshot" and frame["v"] == version(server, room_id)
    assert version(server, room_id) - 2 > settings.history


async def test_patches_are_kept_in_the_protocols_the_view_has_spoken(
    server: Running, table: tuple[str, list[Raw]]
) -> None:
    """A connection coming back with ``since`` gets the patches in a protocol that the
    view's connections have spoken on this process, and a snapshot in another (7)."""
    room_id, seats = table  # both seats speak protocol 1
    me = seats[turn(server, room_id)]
    await me.send({"t": "legal"})
    action = (await me.recv())["actions"][0]
    await me.send({"t": "intent", "id": 1, "action": action})
    await me.recv_until("ack")
    since = version(server, room_id) - 1
    for protocol, first in [(1, "patch"), (2, "snapshot")]:
        late = await Raw.open(server, room_id)
        await late.join(None, since=since, protocol=protocol)
        frame = await late.recv()
        assert (frame["t"] if isinstance(frame, dict) else "patch") == first, (protocol, frame)
        await late.ws.close()


async def test_resync_on_request_sends_a_snapshot(table: tuple[str, list[Raw]]) -> None:
    _, (a, _) = table
    await a.send({"t": "resync", "since": None})
    assert (await a.recv())["t"] == "snapshot"


async def test_legal_and_ping(server: Running, table: tuple[str, list[Raw]]) -> None:
    room_id, seats = table
    me = seats[turn(server, room_id)]
    await me.send({"t": "legal"})
    legal = await me.recv()
    assert legal["t"] == "legal" and legal["actions"]
    await me.send({"t": "ping", "data": "x"})
    assert await me.recv() == {"t": "pong", "data": "x"}


# -- bad input -------------------------------------------------------------------


async def assert_unaffected(server: Running, room_id: str, seats: list[Raw], before: int) -> None:
    """The room did not change and every connection still answers."""
    assert version(server, room_id) == before
    for raw in seats:
        await raw.send({"t": "ping", "data": 1})
        assert await raw.recv_until("pong") == {"t": "pong", "data": 1}


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (b"\xc1", "malformed_frame"),
        (b"\x93\x01", "malformed_frame"),
        (encode({"t": "fly"}), "unknown_type"),
        (encode([1, 2, 3]), "not_a_map"),
        (encode({"t": {"t": [[[[0]]]]}}), "unknown_type"),
        (b"\x81\xa1t" + b"\x91" * 1000 + b"\x00", "malformed_frame"),  # {"t": [[[…]]]}
        (b"\x82\xa1t\xa4ping\xa4data\xd6\xff" + bytes(4), "malformed_frame"),  # a timestamp
        (b"\x82\xa1t\xa4ping\xa1t\xa6intent", "malformed_frame"),  # "t" twice
        (encode({"t": "hello", "protocol": 1}), "already_joined"),
        (b"\x90" * 5000, "frame_too_large"),
    ],
)
async def test_bad_frames_get_an_error_and_change_nothing(
    server: Running, table: tuple[str, list[Raw]], frame: bytes, code: str
) -> None:
    room_id, seats = table
    before = version(server, room_id)
    await seats[0].ws.send(frame)
    error = await seats[0].recv()
    assert (error["t"], error["code"], error["fatal"]) == ("error", code, False)
    await assert_unaffected(server, room_id, seats, before)


def nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("intent_id", "action", "code"),
    [
        (2.0**32, {"type": "reset"}, "bad_intent_id"),  # JavaScript's 2^32, sent as a float
        (-1, {"type": "reset"}, "bad_intent_id"),
        ("x" * 65, {"type": "reset"}, "bad_intent_id"),
        (1, None, "bad_field"),
        (2, [1], "bad_field"),
        (3, {"type": nested(1000)}, "malformed_frame"),
        (4, {"type": msgpack.ExtType(5, b"x")}, "malformed_frame"),
        ("five", {"type": "reset", 5: "an int key"}, "malformed_frame"),
    ],
)
async def test_a_refused_intent_is_rejected_with_its_id(
    server: Running, table: tuple[str, list[Raw]], intent_id: Any, action: Any, code: str
) -> None:
    room_id, seats = table
    before = version(server, room_id)
    frame = {"t": "intent", "id": intent_id} | ({} if action is None else {"action": action})
    await seats[0].ws.send(packed(frame))
    reject = await seats[0].recv()
    assert (reject["t"], reject["id"], reject["code"]) == ("reject", intent_id, code)
    assert type(reject["id"]) is type(intent_id) and reject["message"]
    await assert_unaffected(server, room_id, seats, before)


@pytest.mark.parametrize(
    ("frame", "of", "code"),
    [
        (encode({"t": "resync", "since": "3"}), "resync", "bad_field"),
        (encode({"t": "ping", "data": nested(40)}), "ping", "malformed_frame"),
        (b"\x82\xa1t\xa4ping\xa4data\xd6\xff" + bytes(4), "ping", "malformed_frame"),
        (packed({"t": "legal", "x": msgpack.ExtType(5, b"x")}), "legal", "malformed_frame"),
    ],
    ids=["resync-since", "ping-deep", "ping-timestamp", "legal-ext"],
)
async def test_a_refused_request_gets_an_error_naming_it(
    server: Running, table: tuple[str, list[Raw]], frame: bytes, of: str, code: str
) -> None:
    room_id, seats = table
    before = version(server, room_id)
    await seats[0].ws.send(frame)
    error = await seats[0].recv()
    assert (error["t"], error["code"], error["fatal"], error["of"]) == ("error", code, False, of)
    await assert_unaffected(server, room_id, seats, before)


async def test_a_client_up_to_date_gets_nothing_but_its_welcome(
    server: Running, table: tuple[str, list[Raw]]
) -> None:
    room_id, _ = table
    raw = await Raw.open(server, room_id)
    await raw.join(None, since=version(server, room_id))
    await raw.send({"t": "resync", "since": version(server, room_id)})
    await raw.send({"t": "ping", "data": 2})
    assert await raw.recv() == {"t": "pong", "data": 2}, "no snapshot, no patch"


async def test_the_welcome_names_the_game_by_its_title(server: Running) -> None:
    """A client that does not know the game shows its title, not its id."""
    room_id, tokens = await new_room(server)
    for token in (tokens[0], None):
        raw = await Raw.open(server, room_id)
        welcome = await raw.join(token)
        assert (welcome["engine"], welcome["title"]) == ("sintra", sintra.title)
        await raw.ws.close()


async def test_text_frames_get_an_error(server: Running, table: tuple[str, list[Raw]]) -> None:
    room_id, seats = table
    await seats[1].ws.send('{"t": "ping"}')
    assert (await seats[1].recv())["code"] == "text_frame"
    await assert_unaffected(server, room_id, seats, version(server, room_id))


async def test_a_text_frame_not_utf8_closes_1007_counted_and_logged_once_without_a_traceback(
    server: Running, caplog: pytest.LogCaptureFixture
) -> None:
    """The WebSocket layer's refusal, like a frame above 1 MiB: one ``closed`` line at info
    (reason ``protocol_error``, docs/protocol.md §2), not an error with a traceback that
    any client could repeat to fill the log."""
    caplog.set_level(logging.INFO)
    key = f'tablewire_closes_total{{reason="{Ending.PROTOCOL_ERROR}"}}'
    before = (await scrape(server.url))[key]
    room_id, _ = await new_room(server, fill=0)
    raw = await Raw.open(server, room_id)
    await raw.join()
    caplog.clear()
    await raw.ws.send(b"\xff\xfe", text=True)
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await raw.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1007
    await until(server.url, lambda samples: samples[key] == before + 1)
    loud = [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
    assert not loud, [r.getMessage() for r in loud]
    (line,) = [r for r in caplog.records if r.getMessage() == "closed"]
    assert line.levelno == logging.INFO
    assert (line.fields["reason"], line.fields["code"]) == (Ending.PROTOCOL_ERROR, 1007)


async def intent(raw: Raw, action: Any, intent_id: Any = 1) -> dict[str, Any]:
    await raw.send({"t": "intent", "id": intent_id, "action": action})
    while (frame := await raw.recv())["t"] not in ("ack", "reject"):
        pass
    return frame


async def test_out_of_turn_and_illegal_intents_are_rejected(
    server: Running, table: tuple[str, list[Raw]]
) -> None:
    room_id, seats = table
    before = version(server, room_id)
    mover = turn(server, room_id)
    waiting = seats[1 - mover]
    assert (await intent(waiting, {"type": "reset"}))["code"] == "not_your_turn"
    reply = await intent(seats[mover], {"type": "take", "factory": 99})
    assert (reply["t"], reply["code"], reply["id"]) == ("reject", "bad_action", 1)
    reply = await intent(seats[mover], {"type": "reset"})
    assert reply["code"] == "reset_not_allowed"
    await assert_unaffected(server, room_id, seats, before)


async def test_spectator_intents_are_rejected(
    server: Running, table: tuple[str, list[Raw]]
) -> None:
    room_id, seats = table
    spectator = await Raw.open(server, room_id)
    await spectator.join()
    await spectator.recv_until("snapshot")
    reply = await intent(spectator, {"type": "reset"})
    assert reply["code"] == "spectator"
    await spectator.send({"t": "legal"})
    assert (await spectator.recv())["code"] == "spectator"
    await assert_unaffected(server, room_id, [*seats, spectator], version(server, room_id))


async def test_a_repeated_intent_id_is_acknowledged_once_and_applied_once(
    server: Running, table: tuple[str, list[Raw]]
) -> None:
    room_id, seats = table
    me = seats[turn(server, room_id)]
    await me.send({"t": "legal"})
    action = (await me.recv_until("legal"))["actions"][0]
    first = await intent(me, action, "move-1")
    again = await intent(me, action, "move-1")
    assert first["t"] == again["t"] == "ack"
    assert first["v"] == again["v"] == version(server, room_id)


async def test_intents_before_the_game_starts_are_rejected(server: Running) -> None:
    room_id, tokens = await new_room(server, seats=3, fill=1)
    raw = await Raw.open(server, room_id)
    await raw.join(tokens[0])
    assert (await raw.recv())["doc"]["status"] == "waiting"
    assert (await intent(raw, {"type": "reset"}))["code"] == "not_started"


async def test_intents_after_the_game_are_rejected(server: Running) -> None:
    room_id, tokens = await played_out(server, seed=9)
    async with LobbyClient(server.url) as lobby:
        room = await lobby.room(room_id)
    assert room["status"] == "finished"
    raw = await Raw.open(server, room_id)
    await raw.join(tokens[0])
    assert (await raw.recv())["doc"]["status"] == "finished"
    assert (await intent(raw, {"type": "reset"}))["code"] == "game_over"


@pytest.mark.parametrize(
    ("hello", "code"),
    [
        ({"t": "ping"}, "hello_required"),
        ({"t": "hello", "protocol": 99}, "unsupported_protocol"),
        ({"t": "hello", "protocol": 1, "token": "not-a-token"}, "bad_token"),
        ({"t": "hello"}, "bad_field"),
    ],
)
async def test_a_bad_hello_is_refused_and_closed(
    server: Running, table: tuple[str, list[Raw]], hello: dict[str, Any], code: str
) -> None:
    room_id, seats = table
    raw = await Raw.open(server, room_id)
    await raw.send(hello)
    assert (await raw.closed_with())["code"] == code
    await assert_unaffected(server, room_id, seats, version(server, room_id))


async def test_a_token_of_another_room_is_refused(server: Running) -> None:
    room_a, _ = await new_room(server)
    _, tokens_b = await new_room(server)
    raw = await Raw.open(server, room_a)
    await raw.send({"t": "hello", "protocol": 1, "token": tokens_b[0]})
    assert (await raw.closed_with())["code"] == "bad_token"


async def test_an_unknown_room_is_refused(server: Running) -> None:
    raw = await Raw.open(server, "no-such-room")
    assert (await raw.closed_with())["code"] == "no_such_room"


@pytest.mark.parametrize("suffix", [":tokens", ":log", ":lease"])
async def test_a_room_id_naming_a_store_key_is_refused(server: Running, suffix: str) -> None:
    room_id, _ = await new_room(server, fill=1)  # the room's tokens and log exist
    raw = await Raw.open(server, room_id + suffix)
    assert (await raw.closed_with())["code"] == "no_such_room"


async def test_a_silent_client_is_dropped_after_the_hello_timeout(
    server: Running, table: tuple[str, list[Raw]]
) -> None:
    room_id, _ = table
    raw = await Raw.open(server, room_id)
    assert (await raw.closed_with())["code"] == "hello_timeout"


async def test_a_retried_last_move_is_acknowledged_again_after_the_game(server: Running) -> None:
    room_id, tokens = await new_room(server, seed=9)
    seats = [RoomClient(server.ws, room_id, token) for token in tokens]
    for client in seats:
        await client.connect()
    summary = bots.Summary("sintra")
    await asyncio.gather(*(bots.play_seat(c, RandomBot(i), summary) for i, c in enumerate(seats)))
    final = version(server, room_id)
    (last_mover,) = [c for c in seats if any(a["v"] == final for a in c.acks)]
    (last,) = [a for a in last_mover.acks if a["v"] == final]
    assert await last_mover.intent({"type": "reset"}, intent_id=last["id"]) == last
    other = seats[1 - seats.index(last_mover)]
    assert (await other.intent({"type": "reset"}))["code"] == "game_over"
    for client in seats:
        await client.close()
