"""Spectators, as a spectator, a streamer and an attacker meet them (docs/protocol.md
§2-§9, docs/operations.md "Settings and limits"): the room's limit of spectators, what
a spectator may ask and say and what it is refused, with its code, the names nobody
may take, a spectator coming back, and the game's record a viewer steps through."""

from __future__ import annotations

import copy
import itertools
import logging
import time
from typing import Any

import pytest
from wire import Raw, new_room, scrape, until

from clients.recorder import Recorder
from conftest import running
from engines import ENGINES, Engine
from engines.sintra import ENGINE as sintra
from protocol import compact
from protocol.codec import decode
from protocol.messages import Hello, Intent
from protocol.mirror import Mirror
from server import chat
from server.connection import dispatch
from server.errors import ApiError
from server.lobby import Lobby
from server.metrics import ERRORS, INTENT_LATENCY
from server.room import Room
from server.settings import Settings
from server.store import MemoryStore, RoomRecord
from server.store.base import ALL
from server.timers import ManualTimers
from support import BOUNDED_CHOICES, Player, canonical, run

REFUSED = 'tablewire_closes_total{reason="too_many_connections"}'


async def test_the_rooms_limit_counts_its_spectators_not_its_players() -> None:
    """``max_room_connections`` is the spectators a room admits, seat holders aside: two
    players connected leave room for the one spectator allowed, and the next spectator
    is refused with ``too_many_connections`` (counted as such)."""
    async with running(Settings(max_room_connections=1, hello_timeout=5)) as server:
        room_id, tokens = await new_room(server, seats=2)
        async with (
            Raw.joined(server, room_id, tokens[0]),
            Raw.joined(server, room_id, tokens[1]),
            Raw.joined(server, room_id),
        ):
            before = (await scrape(server.url))[REFUSED]
            second = await Raw.open(server, room_id)
            await second.send({"t": "hello", "protocol": 1, "token": None, "since": None})
            frame = await second.closed_with()
            assert frame["code"] == "too_many_connections"
            assert "admits 1 spectators" in frame["message"]
            async with Raw.joined(server, room_id, tokens[0]):
                pass  # a seat holder always gets in
            assert (await scrape(server.url))[REFUSED] == before + 1


def errors_sent(code: str) -> float:
    """``tablewire_errors_total{code}`` of this process so far."""
    counted: float = ERRORS.labels(code)._value.get()
    return counted


async def test_a_spectators_legal_and_a_second_hello_are_counted_as_the_errors_they_get(
    lobby: Lobby,
) -> None:
    """Every ``error`` frame sent is counted by its code (docs/operations.md, Metrics):
    the ``spectator`` a spectator's ``legal`` gets, and the ``already_joined`` of a
    ``hello`` on a joined connection, as much as any other."""
    created = await lobby.create({"engine": "sintra", "seats": 2})
    room = lobby.room(created["id"])
    assert room is not None
    watcher = await Player(room, None).join()
    before = errors_sent("spectator"), errors_sent("already_joined")
    room.send_legal(watcher)
    dispatch(watcher, room, Hello(1, None, None))
    refused = [(f["code"], f["fatal"]) for f in watcher.frames if f["t"] == "error"]
    assert refused == [("spectator", False), ("already_joined", False)]
    assert (errors_sent("spectator"), errors_sent("already_joined")) == (
        before[0] + 1,
        before[1] + 1,
    )


# -- names: nobody speaks as someone else ------------------------------------------------


async def test_a_player_cannot_take_the_name_a_bot_of_the_room_would_go_by(lobby: Lobby) -> None:
    """Chat lines and the log name a seat by its player's name alone, so no name may read
    as another seat's (docs/protocol.md §9): a person asking to be "Greedy Bot 2" in a
    room where a bot in seat 2 would be called "greedy bot 2" is refused, as for
    "player 2"; two seats never end up with one name."""
    created = await lobby.create({"engine": "sintra", "seats": 3})
    for name in ("Greedy Bot 2", "random bot 3", "ＧＲＥＥＤＹ ＢＯＴ 1"):
        with pytest.raises(ApiError) as refused:
            await lobby.reserve(created["id"], {"name": name})
        assert (refused.value.status, refused.value.code) == (409, "name_taken"), name
    await lobby.reserve(created["id"], {"name": "greedy bot 4"})  # no such seat here
    await lobby.reserve(created["id"], {"name": "a greedy bot 2 fan"})
    await lobby.add_bots(created["id"], {"owner_token": created["owner_token"]})
    room = lobby.room(created["id"])
    assert room is not None
    names = [chat.look_alikes(name) for name in room.record.names if name is not None]
    assert len(names) == 3
    assert all(a.isdisjoint(b) for a, b in itertools.combinations(names, 2)), names


# -- what a spectator sends ----------------------------------------------------------------


class FarOwner:
    """The forwarder of a process that follows the room: whatever it is handed goes to
    an owner elsewhere (kept here, never answered: an owner that is away)."""

    def __init__(self) -> None:
        self.intents: list[Intent] = []

    def forward_intent(self, room: Room, conn: Recorder, intent: Intent) -> None:
        self.intents.append(intent)

    def following(self, room: Room) -> None:
        pass


async def test_a_spectators_intent_is_refused_where_it_arrives_not_forwarded_to_the_owner() -> None:
    """A spectator's intent is rejected with ``spectator`` (docs/protocol.md §3), on the
    process that follows the room as on its owner: it is not sent on to the owner, so it
    costs the owner nothing, and an owner away does not turn the answer into
    ``owner_unavailable`` (which says: send it again)."""
    owner = FarOwner()
    record = RoomRecord("f", "sintra", 2, {}, False, 1, 0, 0, names=[None, None])
    room = Room(record, sintra, MemoryStore(), Settings(), time.time, forwarder=owner)  # type: ignore[arg-type]
    watcher = Recorder(None)
    timed = sum(INTENT_LATENCY.counts)
    room.submit(watcher, Intent("look", {"type": "reset"}))
    assert owner.intents == [], "nothing for the owner"
    assert sum(INTENT_LATENCY.counts) == timed + 1, "its answer is timed like any intent's"
    (frame,) = [decode(f) for f in watcher.frames]
    assert (frame["t"], frame["id"], frame["code"]) == ("reject", "look", "spectator")


async def test_spectators_coming_and_going_leave_the_log_quiet(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Logs "stay quiet however many clients come and go" (docs/operations.md): a crowd
    of spectators joining a stream and leaving it writes no line at ``info``; the
    metrics count them."""
    async with running(Settings(hello_timeout=5)) as server:
        room_id, _ = await new_room(server, seats=2, fill=0)
        with caplog.at_level(logging.DEBUG, logger="tablewire"):
            for _ in range(3):
                async with Raw.joined(server, room_id):
                    pass
            await until(server.url, lambda s: s["tablewire_connections"] == 0)
    lines = [r for r in caplog.records if r.name == "tablewire.connection"]
    assert [r.getMessage() for r in lines] == ["joined", "closed"] * 3, "each at debug"
    assert [r.getMessage() for r in lines if r.levelno >= logging.INFO] == []


# -- coming back, and the record: what a spectator holds -----------------------------------


class Watcher:
    """A spectator's connection in the room's process that keeps a mirror of its frames
    (protocol 1 or 2), every version's document it held and what its events told."""

    def __init__(self, protocol: int, mirror: Mirror | None = None) -> None:
        self.seat: int | None = None
        self.protocol = protocol
        self.mirror = mirror or Mirror()
        self.held: dict[int, Any] = {}
        self.told: list[str] = []
        """The sentences of the ``event`` frames it got."""

    def send(self, frame: bytes) -> None:
        message = compact.read(decode(frame, arrays=True))
        if message["t"] == "event":
            self.told += [event["text"] for event in message["events"]]
        if message["t"] == "welcome":
            self.mirror.keys = message.get("keys")
            return
        if message["t"] == "snapshot":
            self.mirror.snapshot(message["v"], message["doc"])
        elif message["t"] == "patch":
            assert self.mirror.patch(message["from"], message["to"], message["ops"]), message
        else:
            return
        assert self.mirror.version is not None
        self.held[self.mirror.version] = copy.deepcopy(self.mirror.doc)

    def close(self, code: str, message: str) -> None:
        pass


async def bots_game(lobby: Lobby, engine: Engine) -> Room:
    """A room of bots alone (one move a second), its game started."""
    options = BOUNDED_CHOICES.get(engine.id, {})
    created = await lobby.create(
        {
            "engine": engine.id,
            "seats": engine.min_players,
            "options": {"bot_delay": 1, **{name: choices[0] for name, choices in options.items()}},
            "bots": {},
        }
    )
    room = lobby.room(created["id"])
    assert room is not None and room.record.status == "playing"
    return room


@pytest.mark.parametrize("protocol", [1, 2])
@pytest.mark.parametrize("engine", list(ENGINES.values()), ids=list(ENGINES))
async def test_a_spectator_coming_back_holds_what_a_new_spectator_is_given(
    lobby: Lobby, timers: ManualTimers, engine: Engine, protocol: int
) -> None:
    """A spectator that leaves and comes back with ``since`` = the version it holds (7)
    is caught up to exactly the document a spectator joining then is given, in every
    game (whose seats see more than a spectator in two of them) and both protocols,
    from the game's start to its result."""
    room = await bots_game(lobby, engine)
    watcher = Watcher(protocol)
    room.attach(watcher, None)
    moves = 0
    while room.record.status != "finished":
        await run(timers, room, 1)
        moves += 1
        if moves % 5 and room.record.status != "finished":
            continue
        room.detach(watcher)
        watcher = Watcher(protocol, watcher.mirror)
        room.attach(watcher, watcher.mirror.version)
        fresh = Watcher(protocol)
        room.attach(fresh, None)
        room.detach(fresh)
        assert watcher.mirror.version == fresh.mirror.version == room.views.version(room, None)
        assert canonical(watcher.mirror.doc) == canonical(fresh.mirror.doc), moves
        assert room.state is not None  # and what it holds is the game as nobody's seat sees it
        assert canonical(fresh.mirror.doc["game"]) == canonical(engine.view(room.state, None))


@pytest.mark.parametrize("engine", list(ENGINES.values()), ids=list(ENGINES))
async def test_the_record_steps_through_what_a_spectator_saw(
    lobby: Lobby, timers: ManualTimers, engine: Engine
) -> None:
    """``GET /api/rooms/{id}/record?views=1`` (docs/protocol.md §9), during the game and
    after it: each of its ``views`` is the document a spectator held at the start and
    after that move, and its log the sentences the spectator's ``event`` frames told;
    during the game no move names its action, nor the record its seed."""
    room = await bots_game(lobby, engine)
    start = room.version
    watcher = Watcher(1)
    room.attach(watcher, None)
    await run(timers, room, 3)
    for over in (False, True):
        record = await lobby.history(room.id, views=True)
        assert record["moves"] and ("seed" in record) is over
        assert all(("action" in move) is over for move in record["moves"])
        versions = [start, *(move["v"] for move in record["moves"])]
        for view, version in zip(record["views"], versions, strict=True):
            held = watcher.held[version]
            assert canonical(view) == canonical({key: held[key] for key in view}), version
        assert [line["text"] for line in record["log"] if line["v"] > start] == watcher.told
        while room.record.status != "finished":
            await run(timers, room, 1)


async def test_quick_play_under_a_name_no_room_would_take_opens_no_room(lobby: Lobby) -> None:
    """A name refused is bad input, which changes nothing: quick play asked for under
    "spectator" (or a bot's name, or "player 2": another seat's name in a new room,
    whose seat 0 it would get) finds no room where it may sit, and is refused with
    ``name_taken`` without opening one for it to wait in."""
    for name in ("Spectator", "greedy bot 1", "player 2"):
        with pytest.raises(ApiError) as refused:
            await lobby.quickplay({"engine": "sintra", "name": name})
        assert (refused.value.status, refused.value.code) == (409, "name_taken"), name
    rooms, _ = await lobby.store.page(ALL, 10)
    assert rooms == [], "no room was opened"
    seated = await lobby.quickplay({"engine": "sintra", "name": "ana"})
    assert seated["seat"] == 0
