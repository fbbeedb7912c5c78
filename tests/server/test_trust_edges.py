"""Trust, tried at its edges as an attacker would: headers that are not what they
claim to be (Host, Origin), a rematch's held seats met by quick play, names that read
as another's, and limits that counted requests but not what they cost or who sent them
(readiness, chained rematches, free ``legal`` asks, IPv6 /64s, a game's record).

Each case is one that once got through (or failed with a 500); the promises are those
of docs/operations.md ("Settings and limits") and docs/protocol.md §2, §3 and §9.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from test_owners import finished_game
from wire import Raw

from conftest import Running, running
from engines import ENGINES
from server.app import Readiness, create_app
from server.connection import FREE_LEGAL
from server.errors import ApiError
from server.limits import Gate
from server.lobby import Lobby
from server.settings import Settings
from server.store import LogEntry, MemoryStore, StoreUnavailable
from server.timers import ManualTimers
from support import ROOT, Player


@pytest.fixture
def store_kind() -> str:
    return "memory"


def http_client(server: Running) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=server.url)


async def exchange(url: str, head: str, body: str = "") -> tuple[int, bytes]:
    """Send ``head`` (a request line and headers, CRLF-separated, without the blank line)
    and ``body`` to the server at ``url`` as raw bytes, no client library tidying them;
    the status and the body of the answer."""
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    close = "" if "\r\nConnection:" in head else "\r\nConnection: close"
    writer.write(f"{head}{close}\r\n\r\n{body}".encode("latin-1"))
    await writer.drain()
    answer = await reader.read()
    writer.close()
    await writer.wait_closed()
    status_line, _, rest = answer.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


UPGRADE = (
    "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="
)


@pytest.mark.parametrize(
    "host",
    ["[::1", "[::1]]", "evil.example@localhost", "localhost/evil", "localhost#x", "localhost:x"],
)
async def test_a_host_that_is_no_host_is_refused_as_bad_host(server: Any, host: str) -> None:
    """Not ``name[:port]``: refused as any host not served, never a 500 and never served
    as the name a lenient parser found inside it."""
    status, body = await exchange(server.url, f"GET /api/games HTTP/1.1\r\nHost: {host}")
    assert status == 400 and b'"bad_host"' in body, body
    status, _ = await exchange(
        server.url, f"GET /ws/rooms/abc HTTP/1.1\r\nHost: {host}\r\n{UPGRADE}"
    )
    assert status == 403


@pytest.mark.parametrize("hosts", [("localhost", "evil.example"), ("localhost", "localhost")])
async def test_a_request_with_two_hosts_is_refused(server: Any, hosts: tuple[str, str]) -> None:
    """RFC 9112: more than one ``Host`` is a bad request. The check read the first and
    served the request whatever the second said (a proxy reading the last would have
    routed by a host nobody checked)."""
    head = "GET /api/games HTTP/1.1\r\n" + "".join(f"Host: {h}\r\n" for h in hosts)
    status, body = await exchange(server.url, head.removesuffix("\r\n"))
    assert status == 400 and b'"bad_host"' in body, body
    status, _ = await exchange(
        server.url, f"{head.replace('/api/games', '/ws/rooms/abc')}{UPGRADE}"
    )
    assert status == 403


@pytest.mark.parametrize("host", ["localhost", "LocalHost:8000", "[::1]:8000", "127.0.0.1"])
async def test_the_servers_own_names_are_still_served(server: Any, host: str) -> None:
    status, _ = await exchange(server.url, f"GET /api/games HTTP/1.1\r\nHost: {host}")
    assert status == 200


@pytest.mark.parametrize("line", ["Bad Header: x", "Content-Length: abc"])
async def test_a_request_that_is_no_http_gets_the_parsers_plain_400(server: Any, line: str) -> None:
    """Below the lobby (docs/protocol.md, section 8): a request the HTTP parser cannot
    read never reaches the app, and uvicorn answers it in plain text, not JSON."""
    status, body = await exchange(
        server.url, f"GET /api/games HTTP/1.1\r\nHost: localhost\r\n{line}"
    )
    assert (status, body) == (400, b"Invalid HTTP request received.")


async def test_an_origin_that_is_no_url_is_refused_as_cross_origin(server: Any) -> None:
    """An ``Origin`` no URL parser reads (an unclosed IPv6 bracket) is another site's:
    403 ``cross_origin`` for a write, a refused handshake; never a 500."""
    body = '{"engine": "sintra"}'
    status, answer = await exchange(
        server.url,
        "POST /api/rooms HTTP/1.1\r\nHost: localhost\r\nOrigin: http://[::1\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}",
        body,
    )
    assert status == 403 and b'"cross_origin"' in answer, answer
    assert server.lobby.rooms == {}, "nothing created"
    status, _ = await exchange(
        server.url,
        f"GET /ws/rooms/abc HTTP/1.1\r\nHost: localhost\r\nOrigin: http://[::1\r\n{UPGRADE}",
    )
    assert status == 403


@pytest.mark.parametrize("path", ["/ws/rooms/abc/", "/ws/rooms/", "/ws/rooms/abc/x", "/ws/abc"])
async def test_a_handshake_on_no_room_path_is_refused_with_403(server: Any, path: str) -> None:
    """What docs/protocol.md (2, "How a connection ends") says of a path that is not
    ``/ws/rooms/{id}``: it named only a host or an origin for a 403, and a client author
    who wrote a trailing slash looked there."""
    status, _ = await exchange(server.url, f"GET {path} HTTP/1.1\r\nHost: localhost\r\n{UPGRADE}")
    assert status == 403
    assert "a path other than `/ws/rooms/{id}`" in (ROOT / "docs" / "protocol.md").read_text()


# -- a rematch's held seats ----------------------------------------------------------------


@pytest.mark.parametrize("seats", [None, 2])
async def test_quick_play_passes_over_a_rematch_whose_free_seats_are_held(
    lobby: Lobby, timers: ManualTimers, seats: int | None
) -> None:
    """A public game ended and one player opened its rematch: the other's seat is held
    for them, so quick play seats a newcomer elsewhere instead of answering them 409
    ``seat_held`` (every quick play of the game refused for the hold's two minutes)."""
    room, (ana, _), _ = await finished_game(lobby, timers)
    again = await lobby.rematch(room.id, {"token": ana})
    rematch = lobby.room(again["id"])
    assert rematch is not None
    await Player(rematch, 0).join()  # ana waits there: the room quick play likes best
    joined = await lobby.quickplay({"engine": "sintra", "seats": seats, "name": "cy"})
    assert joined["room"] != again["id"]
    assert (await lobby.details(again["id"]))["names"] == ["ana", None], "the hold kept"
    timers.advance(121)
    after = await lobby.quickplay({"engine": "sintra", "seats": seats, "name": "di"})
    assert (after["room"], after["seat"]) == (again["id"], 1), "after the hold, open to all"


# -- the health checks ---------------------------------------------------------------------


class CountedStore(MemoryStore):
    """The memory store, counting the pings ``/readyz`` asks of it."""

    pings = 0

    async def ping(self) -> None:
        self.pings += 1
        await asyncio.sleep(0)  # a ping's round trip: the probes meanwhile come together


async def test_readiness_is_never_refused_and_probes_together_share_a_ping() -> None:
    """``/readyz`` pings the room store (Redis): a probe refused would take a healthy
    process out of service, so probes are never limited (as ``/healthz``); those that
    come while a ping is out share it, so Redis has one of theirs at a time to answer."""
    store = CountedStore()
    app = create_app(Settings(http_rate=0.001, http_burst=3), store)
    transport = httpx.ASGITransport(app=app, client=("203.0.113.9", 1234))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        together = await asyncio.gather(*(client.get("/readyz") for _ in range(20)))
        shared = store.pings
        after = [(await client.get("/readyz")).status_code for _ in range(5)]
        health = [(await client.get("/healthz")).status_code for _ in range(5)]
    assert [r.status_code for r in together] == [200] * 20 and after == [200] * 5
    assert health == [200] * 5
    assert shared <= 2, f"{shared} pings for 20 probes together"
    assert store.pings == shared + 5, "a probe after the last answer asks afresh"


async def test_each_probe_after_an_answer_asks_the_store_afresh() -> None:
    """No answer is kept: a store that stopped is reported by the next probe, and one
    back is ready at the next."""
    answers = [None, StoreUnavailable("down"), None]

    async def ping() -> None:
        answer = answers.pop(0)
        if answer is not None:
            raise answer

    readiness = Readiness(ping)
    assert [await readiness.check() for _ in range(3)] == [None, "down", None]


@pytest.mark.parametrize("probe", ["http://127.0.0.1:8000", "http://10.1.2.3:8000"])
async def test_health_probes_are_answered_whatever_host_they_name(probe: str) -> None:
    """A probe names the address it dials (Docker's HEALTHCHECK 127.0.0.1, an
    orchestrator's the container's own), not the site's name: with ``allowed_hosts``
    naming the site, both probes got 400 ``bad_host``, and a healthy process was taken
    out of service or restarted. The probes answer; everything else is still refused."""
    app = create_app(Settings(allowed_hosts="example.com"))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=probe) as http:
        assert (await http.get("/healthz")).status_code == 200
        assert (await http.get("/readyz")).json()["store"] == "ok"
        refused = await http.get("/api/games")
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad_host"
        assert (await http.get("/healthz/x")).status_code == 400


# -- names ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["ana", "ANA", "Ａｎａ", "spectator", "Spectator"])
async def test_a_seat_is_never_named_as_another_player_or_a_spectator(
    lobby: Lobby, name: str
) -> None:
    """Chat and the log call a seat by its player's name alone: a second "ana" (or a
    player called "spectator") would speak as someone else. Refused, nothing taken."""
    created = await lobby.create({"engine": "sintra", "seats": 3})
    await lobby.reserve(created["id"], {"name": "ana"})
    with pytest.raises(ApiError) as caught:
        await lobby.reserve(created["id"], {"name": name})
    assert (caught.value.status, caught.value.code) == (409, "name_taken")
    assert (await lobby.details(created["id"]))["names"] == ["ana", None, None]
    bea = await lobby.reserve(created["id"], {"name": "bea"})
    assert bea["seat"] == 1, "another name is fine"


@pytest.mark.parametrize(
    "name",
    [
        "ana (you)",
        "ana(You)",
        "ana （ｙｏｕ）",
        "(you)",
        "ana (y\u043eu)",
        "ana (away)",
        "ana(AWAY)",
        "ana (\u0430way)",
    ],
)
async def test_a_name_never_ends_as_a_mark_the_pages_write_after_names(
    lobby: Lobby, name: str
) -> None:
    """The pages write "(you)" after the viewer's own seat's name, and the lobby "(away)"
    after a player with no page open: a player called "bo (you)" would read there as
    bo's own seat, "bo (away)" as a player gone. Refused as ``bad_name``, nothing taken."""
    created = await lobby.create({"engine": "sintra", "seats": 2})
    with pytest.raises(ApiError) as caught:
        await lobby.reserve(created["id"], {"name": name})
    assert (caught.value.status, caught.value.code) == (400, "bad_name")
    assert (await lobby.details(created["id"]))["names"] == [None, None]
    assert (await lobby.reserve(created["id"], {"name": "you (ana)"}))["seat"] == 0


async def test_a_name_is_never_that_of_another_seat_taken_with_no_name(lobby: Lobby) -> None:
    """A seat taken with no name is "player N": a player who called themselves "player
    2" at seat 0 would read as the nameless player of seat 1. Refused; "player 1" at
    seat 0 is that seat's own name, and fine."""
    created = await lobby.create({"engine": "sintra", "seats": 3})
    with pytest.raises(ApiError) as caught:
        await lobby.reserve(created["id"], {"name": "Player 2"})
    assert (caught.value.status, caught.value.code) == (409, "name_taken")
    assert (await lobby.reserve(created["id"], {"name": "player 1"}))["seat"] == 0
    assert (await lobby.reserve(created["id"], {}))["seat"] == 1
    assert (await lobby.details(created["id"]))["names"] == ["player 1", "player 2", None]


async def test_quick_play_seats_a_name_where_nobody_goes_by_it(lobby: Lobby) -> None:
    first = await lobby.quickplay({"engine": "sintra", "name": "ana"})
    second = await lobby.quickplay({"engine": "sintra", "name": "Ana"})
    assert second["room"] != first["room"], "not a second ana beside the first"
    third = await lobby.quickplay({"engine": "sintra", "name": "bea"})
    assert third["room"] in (first["room"], second["room"])


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("ana", "\u0430na"),  # a Cyrillic а among Latin letters
        ("paypal", "\u0440\u0430\u0443\u0440\u0430l"),  # all but the l Cyrillic
        ("Bill", "BiII"),  # capital I for l
        ("ana", "\u0410NA"),  # Cyrillic А, then capitals
        (None, "pIayer 2"),  # seat 1, free: "player 2"
    ],
)
async def test_a_name_that_only_looks_like_another_players_is_refused(
    lobby: Lobby, first: str | None, second: str
) -> None:
    """Letters of another script, or a capital I for an l, make a name that reads as
    another player's in chat and on the board: refused as that name, nothing taken."""
    created = await lobby.create({"engine": "sintra", "seats": 3})
    if first is not None:
        await lobby.reserve(created["id"], {"name": first})
    with pytest.raises(ApiError) as caught:
        await lobby.reserve(created["id"], {"name": second})
    assert (caught.value.status, caught.value.code) == (409, "name_taken")
    assert (await lobby.details(created["id"]))["names"] == [first, None, None]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("ana", "ana\ufe0f"),  # a variation selector: nothing to see
        ("ana", "an\u034fa"),  # the combining grapheme joiner
        ("ana", "ana\u180b"),  # a Mongolian variation selector
        ("ana", "ana\u17b4"),  # a Khmer inherent vowel, never drawn
        ("ana", "ana\u3164"),  # a Hangul filler after the name
        ("ana", "ana\u2800"),  # the braille blank
        ("ana bo", "ana  bo"),  # two spaces: a page shows one
        ("ana bo", "ana\u2002\u2002bo"),  # two en spaces
        (None, "player  2"),  # seat 1, free: "player 2"
        (None, "greedy  bot 3"),  # what a bot in seat 2 would be called
    ],
)
async def test_a_name_with_what_does_not_show_is_another_players_name(
    lobby: Lobby, first: str | None, second: str
) -> None:
    """Characters that draw nothing, or spaces a page draws as one, make a name that
    shows as another player's (or a bot's): refused as that name, nothing taken."""
    created = await lobby.create({"engine": "sintra", "seats": 3})
    if first is not None:
        await lobby.reserve(created["id"], {"name": first})
    with pytest.raises(ApiError) as caught:
        await lobby.reserve(created["id"], {"name": second})
    assert (caught.value.status, caught.value.code) == (409, "name_taken")
    assert (await lobby.details(created["id"]))["names"] == [first, None, None]


async def test_names_of_any_script_are_fine_beside_each_other(lobby: Lobby) -> None:
    """Accents, other scripts, and names that differ only by an accent are names."""
    for names in (
        ["Jos\u00e9", "Jose", "Zo\u00eb"],
        ["\u674e\u96f7", "\u0410\u043d\u043d\u0430", "Anna"],
    ):
        created = await lobby.create({"engine": "sintra", "seats": len(names)})
        for name in names:
            await lobby.reserve(created["id"], {"name": name})
        assert (await lobby.details(created["id"]))["names"] == names


async def test_quick_play_seats_a_look_alike_name_apart(lobby: Lobby) -> None:
    first = await lobby.quickplay({"engine": "sintra", "name": "ana"})
    second = await lobby.quickplay({"engine": "sintra", "name": "\u0430na"})
    assert second["room"] != first["room"], "not a Cyrillic ana beside the Latin one"


# -- rooms made by rematches ---------------------------------------------------------------


async def finish(server: Running, room_id: str) -> None:
    """Watch the room (of bots alone) until its game's result."""
    async with Raw.joined(server, room_id) as raw:
        await raw.recv_until("result")


async def test_a_chain_of_rematches_counts_against_the_room_rate() -> None:
    """A room of bots alone ends in seconds, and its owner may open its rematch, which
    seats the bots again: rematch after rematch, one address made rooms without end
    (each a game played by bots), none counted by ``room_rate``. The rematch a request
    opens counts against its address like any room it creates."""
    settings = Settings(room_burst=3, room_rate=0.001)
    async with running(settings) as server, http_client(server) as http:
        body = {"engine": "turn-relay", "options": {"moves": 12, "bot_delay": 0}, "bots": {}}
        room = (await http.post("/api/rooms", json=body)).json()
        owner = {"owner_token": room["owner_token"]}
        opened = [room["id"]]
        for _ in range(2):
            await finish(server, opened[-1])
            again = await http.post(f"/api/rooms/{opened[-1]}/rematch", json=owner)
            assert again.status_code == 201, again.text
            opened.append(again.json()["id"])
        await finish(server, opened[-1])
        refused = await http.post(f"/api/rooms/{opened[-1]}/rematch", json=owner)
        assert refused.status_code == 429, refused.text
        assert refused.json()["error"]["code"] == "rate_limited"
        assert refused.headers["retry-after"]
        assert set(server.lobby.rooms) == set(opened), "nothing more created"
        assert (await http.get(f"/api/rooms/{opened[-1]}")).json()["rematch"] is None


# -- free `legal` asks -----------------------------------------------------------------------


async def test_free_legal_asks_are_computed_once_per_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each connection gets ``FREE_LEGAL`` ``legal`` asks per room version that no rate
    limit counts, so one seat's many connections from one address got 4 each: every one
    computed the seat's legal moves and their labels again (up to 12 ms in Chartered:
    256 connections, 1,024 asks, 12 s of the server's one core at a single version).
    Now all of them are answered, from one computation per version."""
    engine = ENGINES["sintra"]
    computed = []

    def counted(state: Any, seat: int) -> list[dict[str, Any]]:
        computed.append(seat)
        return type(engine).legal_actions(engine, state, seat)

    monkeypatch.setattr(engine, "legal_actions", counted)
    settings = Settings(query_rate=0.001, query_burst=1, address_factor=1, hello_timeout=5)
    async with running(settings) as server, http_client(server) as http:
        room = (await http.post("/api/rooms", json={"engine": "sintra", "seats": 2})).json()
        seats = [(await http.post(f"/api/rooms/{room['id']}/seats", json={})).json()]
        seats.append((await http.post(f"/api/rooms/{room['id']}/seats", json={})).json())
        conns = [await Raw.open(server, room["id"]) for _ in range(4)]
        try:
            for raw in conns:
                await raw.join(seats[0]["token"])
                await raw.recv_until("snapshot")
            answers = []
            for raw in conns:
                for _ in range(FREE_LEGAL):
                    await raw.send({"t": "legal"})
                for _ in range(FREE_LEGAL):
                    answers.append(await legal_or_error(raw))
        finally:
            for raw in conns:
                await raw.ws.close()
    assert answers == ["legal"] * 4 * FREE_LEGAL, "each connection's free asks answered"
    assert computed == [0], "the moves computed once"


async def legal_or_error(raw: Raw) -> str:
    """The next answer to a ``legal``: ``"legal"``, or the code of the error refusing it."""
    while True:
        frame = await raw.recv()
        if frame.get("t") == "legal":
            return "legal"
        if frame.get("t") == "error" and frame.get("of") == "legal":
            return str(frame["code"])


# -- IPv6 ------------------------------------------------------------------------------------


def v6(i: int, block: str = "2001:db8:1:2") -> str:
    """The ``i``th address of an IPv6 /64: what one subscriber holds (2⁶⁴ of them)."""
    return f"{block}::{i + 1:x}"


async def test_an_ipv6_client_is_one_address_across_its_64() -> None:
    """Every limit per client address counted an IPv6 address alone, and one subscriber
    holds a /64: drawing a new address for each request got 5 of 5 lobby requests past
    an ``http_burst`` of 3, rooms past ``room_burst`` and WebSockets past
    ``address_connections``. A /64 now counts as one address."""
    app = create_app(Settings(http_rate=0.001, http_burst=3))
    codes = []
    for i in range(5):
        transport = httpx.ASGITransport(app=app, client=(v6(i), 1))
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
            codes.append((await c.get("/api/games")).status_code)
    assert codes == [200, 200, 200, 429, 429]
    transport = httpx.ASGITransport(app=app, client=(v6(0, "2001:db8:1:3"), 1))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
        assert (await c.get("/api/games")).status_code == 200, "another /64 is another client"

    lobby = Lobby(MemoryStore(), Settings(room_rate=0.001, room_burst=2))
    try:
        for i in range(2):
            await lobby.create({"engine": "sintra"}, v6(i))
        with pytest.raises(ApiError) as caught:
            await lobby.create({"engine": "sintra"}, v6(2))
        assert caught.value.code == "rate_limited"
        await lobby.create({"engine": "sintra"}, "2001:db8:1:3::1")
    finally:
        await lobby.close()

    gate = Gate(Settings(address_connections=2))
    assert gate.admit(v6(0)) is None and gate.admit(v6(1)) is None
    assert gate.admit(v6(2)) is not None, "the /64 holds its 2 connections"
    gate.leave(v6(0))
    assert gate.admit(v6(3)) is None, "a connection that ended frees the /64's place"
    assert gate.admit("::ffff:198.51.100.7") is None and gate.admit("198.51.100.7") is None
    assert gate.admit("198.51.100.7") is not None, "an IPv4-mapped address is the IPv4 one"


# -- a game's record -------------------------------------------------------------------------


async def test_a_records_cost_counts_against_the_lobby_rate() -> None:
    """``GET /api/rooms/{id}/record`` replays the whole game (with ``views=1`` it also
    builds a spectator's document after every move): about 0.2 s and 1.4 MB for a
    Crystal Palace game, where the lobby rate counted it as one request like any other
    (20 of 20 answered at ``http_burst`` 20: 4 s of the one core). Its time now counts:
    one request's worth for each 5 ms it took."""
    app = create_app(Settings(http_rate=0.001, http_burst=20))
    lobby: Lobby = app.state.lobby
    created = await lobby.create({"engine": "crystal-palace", "seats": 5})
    room = lobby.room(created["id"])
    assert room is not None
    for name in ("ana", "bea", "cy", "di", "ed"):
        await room.reserve(name)
    players = [await Player(room, seat).join() for seat in range(5)]
    rnd = random.Random(1)
    while room.record.status != "finished":
        assert room.state is not None
        for player in players:
            if player.seat in room.engine.to_act(room.state):
                await player.play(rnd)
    transport = httpx.ASGITransport(app=app, client=("203.0.113.9", 1))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
        codes = [
            (await http.get(f"/api/rooms/{room.id}/record?views=1")).status_code for _ in range(20)
        ]
    await lobby.close()
    assert codes.count(200) <= 3 and codes[-1] == 429, codes


class SlowLog(MemoryStore):
    """A store whose log takes 50 ms to read, as a busy Redis or a busy machine makes it:
    the wait is not the server's CPU."""

    async def read_log(self, room_id: str, after: int = 0) -> list[tuple[int, LogEntry]]:
        await asyncio.sleep(0.05)  # the slow store this double stands for, not a wait for a result
        return await super().read_log(room_id, after)


async def test_a_records_cost_is_the_cpu_it_took_not_the_time_it_waited() -> None:
    """The record's charge was its wall time: on a busy machine (CI's browser tests, four
    workers and Chromium) a short game's record counted as tens of requests, and a page
    of the lobby answered 429 after a few of them. It counts the CPU it took."""
    app = create_app(Settings(http_rate=0.001, http_burst=20), store=SlowLog())
    lobby: Lobby = app.state.lobby
    created = await lobby.create({"engine": "sintra", "seats": 2})
    room = lobby.room(created["id"])
    assert room is not None
    for name in ("ana", "bea"):
        await room.reserve(name)
    transport = httpx.ASGITransport(app=app, client=("203.0.113.9", 1))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
        codes = [(await http.get(f"/api/rooms/{room.id}/record")).status_code for _ in range(21)]
    await lobby.close()
    assert codes == [200] * 20 + [429], codes
