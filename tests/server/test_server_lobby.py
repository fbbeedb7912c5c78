"""The HTTP lobby against a real server, the clean-up sweep, and slow-client backpressure."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import httpx
import pytest

from server.app import create_app
from server.errors import ApiError
from server.lobby import Lobby
from server.settings import Settings
from server.store import MemoryStore, StoreUnavailable
from server.store.base import ALL
from support import error_code, play_to_the_end


async def test_games_lists_engines_with_their_options(http: httpx.AsyncClient) -> None:
    games = {g["id"]: g for g in (await http.get("/api/games")).json()}
    assert set(games) == {"sintra", "chartered", "crystal-palace"}
    assert {g["kind"] for g in games.values()} == {"game"}
    sintra, chartered = games["sintra"], games["chartered"]
    assert (sintra["min_players"], sintra["max_players"]) == (2, 4)
    assert sintra["options"]["side"]["choices"] == ["A", "B"]
    assert (chartered["min_players"], chartered["max_players"]) == (2, 6)
    assert chartered["options"]["events"] == {
        "choices": [False, True],
        "default": False,
        "name": "Event cards",
        "description": chartered["options"]["events"]["description"],
    }
    palace = games["crystal-palace"]
    assert (palace["min_players"], palace["max_players"]) == (2, 5)
    assert palace["options"]["publisher"]["default"] == "random"


async def test_benchmark_engines_are_listed_only_when_asked_for(
    http: httpx.AsyncClient,
) -> None:
    every = {g["id"]: g["kind"] for g in (await http.get("/api/games?kind=all")).json()}
    assert every["turn-relay"] == "benchmark" and every["sintra"] == "game"
    benchmarks = (await http.get("/api/games", params={"kind": "benchmark"})).json()
    assert [g["id"] for g in benchmarks] == ["turn-relay"]
    bad = await http.get("/api/games", params={"kind": "toys"})
    assert (bad.status_code, error_code(bad)) == (400, "bad_kind")


async def test_benchmark_rooms_can_be_created_but_errors_name_only_games(
    http: httpx.AsyncClient,
) -> None:
    relay = await http.post("/api/rooms", json={"engine": "turn-relay", "seats": 4})
    assert relay.status_code == 201 and relay.json()["engine"] == "turn-relay"
    refused = (await http.post("/api/rooms", json={"engine": "chess"})).json()["error"]
    assert "sintra" in refused["message"] and "turn-relay" not in refused["message"]


async def test_create_reserve_and_show_a_room(http: httpx.AsyncClient) -> None:
    created = await http.post(
        "/api/rooms", json={"engine": "sintra", "seats": 2, "options": {"side": "B"}}
    )
    assert created.status_code == 201
    room = created.json()
    assert room["options"] == {"side": "B", "track": "growing", "negative_scores": False}
    assert room["status"] == "waiting" and "seed" not in room
    first = (await http.post(f"/api/rooms/{room['id']}/seats", json={"name": "ana"})).json()
    second = (await http.post(f"/api/rooms/{room['id']}/seats", json={})).json()
    assert (first["seat"], second["seat"]) == (0, 1)
    assert len(first["token"]) >= 40 and first["token"] != second["token"]
    shown = (await http.get(f"/api/rooms/{room['id']}")).json()
    assert shown["status"] == "playing"
    assert shown["names"] == ["ana", "player 2"]
    assert shown["version"] == 2


async def test_brackets_inside_strings_do_not_count_as_nesting(http: httpx.AsyncClient) -> None:
    body = b'{"engine": "sintra", "note": "' + b"[{" * 1000 + b'\\"]"}'
    assert (await http.post("/api/rooms", content=body)).status_code == 201


async def test_listing_filters_and_hides_private_rooms(http: httpx.AsyncClient) -> None:
    public = (await http.post("/api/rooms", json={"engine": "sintra", "seats": 2})).json()
    await http.post("/api/rooms", json={"engine": "sintra", "private": True})
    listed = (await http.get("/api/rooms")).json()
    assert [r["id"] for r in listed] == [public["id"]]
    assert (await http.get("/api/rooms", params={"status": "playing"})).json() == []
    assert len((await http.get("/api/rooms", params={"engine": "sintra"})).json()) == 1


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (b"{not json", 400, "bad_json"),
        (b"[1, 2]", 400, "bad_json"),
        (b'{"engine": "chess"}', 400, "unknown_engine"),
        (b"{}", 400, "unknown_engine"),
        (b'{"engine": "sintra", "seats": 5}', 400, "bad_seats"),
        (b'{"engine": "sintra", "seats": "4"}', 400, "bad_seats"),
        (b'{"engine": "sintra", "options": {"side": "C"}}', 400, "bad_options"),
        (b'{"engine": "sintra", "options": {"colour": 1}}', 400, "bad_options"),
        (b'{"engine": "sintra", "options": {"negative_scores": 1}}', 400, "bad_options"),
        (b'{"engine": "sintra", "options": []}', 400, "bad_options"),
        (b'{"engine": "sintra", "private": "yes"}', 400, "bad_private"),
        (b'{"engine": "sintra", "seed": 1.5}', 400, "bad_seed"),
        (b'{"engine": "sintra", "seed": -1}', 400, "bad_seed"),
        (b'{"engine": "sintra", "seed": 9223372036854775808}', 400, "bad_seed"),
        (b'{"engine": "sintra", "seed": 18446744073709551617}', 400, "bad_seed"),
        (b'{"engine": "sintra", "seed": 1' + b"0" * 4000 + b"}", 400, "bad_seed"),
        (b'{"engine": "sintra", "seats": 1' + b"0" * 4400 + b"}", 400, "bad_json"),
        (b'{"engine": "sintra", "seats": 1e400}', 400, "bad_seats"),
        (b'{"engine": "sintra", "options": ' + b"[" * 1000 + b"]" * 1000 + b"}", 400, "bad_json"),
        (b'{"engine": "sintra", "options": ' + b"[" * 20 + b"]" * 20 + b"}", 400, "bad_json"),
        (b"\xff\xfe", 400, "bad_json"),
        (b'{"engine": "sintra", "engine": "chess"}', 400, "bad_json"),
        (b'{"engine": "sintra", "options": {"side": "A", "side": "B"}}', 400, "bad_json"),
        (b"{" + b" " * 20000 + b"}", 413, "body_too_large"),
        (b'{"engine": "sintra", "options": {"clock": "move:1"}}', 400, "bad_clock"),
        (b'{"engine": "sintra", "options": {"clock": "fischer:60"}}', 400, "bad_clock"),
        (b'{"engine": "sintra", "options": {"grace": 7200}}', 400, "bad_grace"),
        (b'{"engine": "sintra", "options": {"bot_delay": "1"}}', 400, "bad_bot_delay"),
        (b'{"engine": "sintra", "bots": {"kind": "clever"}}', 400, "bad_bot_kind"),
        (b'{"engine": "sintra", "bots": {"seats": [4]}}', 400, "bad_seat"),
        (b'{"engine": "sintra", "bots": [1]}', 400, "bad_bots"),
        (b'{"engine": "crystal-palace", "seats": 2, "bots": {"seats": []}}', 400, "bad_seat"),
    ],
)
async def test_bad_room_requests_are_refused_and_create_nothing(
    http: httpx.AsyncClient, body: bytes, status: int, code: str
) -> None:
    response = await http.post("/api/rooms", content=body)
    assert (response.status_code, error_code(response)) == (status, code)
    assert response.json()["error"]["message"]
    assert (await http.get("/api/rooms")).json() == []


@pytest.mark.parametrize("suffix", [":tokens", ":log", " x", "/../x", "%00", "é", "a" * 60])
async def test_room_ids_outside_the_id_alphabet_name_no_room(
    http: httpx.AsyncClient, suffix: str
) -> None:
    room = (await http.post("/api/rooms", json={"engine": "sintra", "seats": 2})).json()
    await http.post(f"/api/rooms/{room['id']}/seats", json={})  # its tokens and log exist now
    path = f"/api/rooms/{room['id']}{suffix}"
    for response in (await http.get(path), await http.post(f"{path}/seats", json={})):
        assert response.status_code in (404, 405), response.text
        assert error_code(response) in ("no_such_room", "not_found", "method_not_allowed")
    assert (await http.get(f"/api/rooms/{room['id']}")).json()["taken"] == 1


class BrokenStore(MemoryStore):
    """A store with a bug: listing rooms raises something nobody expects."""

    async def page(self, *args: Any) -> Any:
        raise RuntimeError("a bug")

    async def page_ids(self, *args: Any) -> Any:
        raise RuntimeError("a bug")


async def test_an_unexpected_exception_answers_json_500_and_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    transport = httpx.ASGITransport(app=create_app(Settings(), BrokenStore()))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        for response in (
            await client.get("/api/rooms"),
            await client.post("/api/quickplay", json={"engine": "sintra"}),
        ):
            assert response.status_code == 500
            assert response.headers["content-type"] == "application/json"
            assert error_code(response) == "internal" and response.json()["error"]["message"]
    assert "a bug" in caplog.text


async def test_joining_a_finished_room_is_game_over_not_room_full() -> None:
    lobby = Lobby(MemoryStore(), Settings())
    room = await lobby.create({"engine": "turn-relay", "seats": 4, "options": {"moves": 12}})
    live = lobby.rooms[room["id"]]
    for _ in range(4):
        await lobby.reserve(room["id"], {})
    with pytest.raises(ApiError) as full:
        await lobby.reserve(room["id"], {})
    assert (full.value.status, full.value.code) == (409, "room_full")
    await play_to_the_end(live)
    with pytest.raises(ApiError) as over:
        await lobby.reserve(room["id"], {})
    assert (over.value.status, over.value.code) == (409, "game_over")
    await lobby.close()


@pytest.mark.parametrize(
    "name",
    [
        "\x1b[31mred",  # an ANSI escape
        "two\nlines",
        "a\u2028b",  # line separator
        "evil\u202egnp.exe",  # right-to-left override
        "in\u200bvisible",  # zero-width space
        "\ue000private",
        "q" + "\u0301" * 5,  # "zalgo": five accents on one letter
        "\U0001d15e" * 32,  # 32 half notes: 64 characters in NFC
        "\ufb2c" * 32,  # 32 shin with dagesh and shin dot: 96 characters in NFC
        "\u3164",  # Hangul filler: a letter that shows nothing
        "\u2800",  # braille pattern blank
        "\u115f\u115f",  # Hangul choseong fillers
        "\u034f" * 3 + "\u0301",  # combining grapheme joiners and an accent on nothing
    ],
)
async def test_names_that_would_not_show_as_typed_are_refused(
    http: httpx.AsyncClient, name: str
) -> None:
    room = (await http.post("/api/rooms", json={"engine": "sintra", "seats": 2})).json()
    refused = await http.post(f"/api/rooms/{room['id']}/seats", json={"name": name})
    assert (refused.status_code, error_code(refused)) == (400, "bad_name")
    assert (await http.get(f"/api/rooms/{room['id']}")).json()["names"] == [None, None]


async def test_names_with_markup_accents_and_any_script_are_data(http: httpx.AsyncClient) -> None:
    room = (await http.post("/api/rooms", json={"engine": "sintra", "seats": 4})).json()
    names = ["[/]<b>&amp;", "Zoë", "Nguyễn", "ana\u0301", "  李小龍  "]
    for name in names[:4]:
        answer = await http.post(f"/api/rooms/{room['id']}/seats", json={"name": name})
        assert answer.status_code == 201, name
    kept = (await http.get(f"/api/rooms/{room['id']}")).json()["names"]
    assert kept == ["[/]<b>&amp;", "Zoë", "Nguyễn", "aná"]  # NFC: a + U+0301 is á
    quick = await http.post("/api/quickplay", json={"engine": "chartered", "name": names[4]})
    shown = (await http.get(f"/api/rooms/{quick.json()['room']}")).json()["names"]
    assert "李小龍" in shown


async def test_bad_seat_requests_are_refused(http: httpx.AsyncClient) -> None:
    room = (await http.post("/api/rooms", json={"engine": "sintra", "seats": 2})).json()
    seats = f"/api/rooms/{room['id']}/seats"
    assert error_code(await http.post("/api/rooms/nope/seats", json={})) == "no_such_room"
    assert error_code(await http.post(seats, json={"seat": 7})) == "bad_seat"
    assert error_code(await http.post(seats, json={"name": ""})) == "bad_name"
    assert error_code(await http.post(seats, json={"name": 3})) == "bad_name"
    await http.post(seats, json={"seat": 1})
    taken = await http.post(seats, json={"seat": 1})
    assert (taken.status_code, error_code(taken)) == (409, "seat_taken")
    await http.post(seats, json={})
    full = await http.post(seats, json={})
    assert (full.status_code, error_code(full)) == (409, "room_full")
    shown = (await http.get(f"/api/rooms/{room['id']}")).json()
    assert shown["version"] == 2


async def test_rooms_with_bots_clocks_and_rematch_over_http(http: httpx.AsyncClient) -> None:
    body = {
        "engine": "chartered",
        "seats": 3,
        "options": {"clock": "fischer:300+5", "events": True},
        "bots": {"seats": [2]},
    }
    room = (await http.post("/api/rooms", json=body)).json()
    assert room["options"]["events"] is True and "clock" not in room["options"]
    assert room["room_options"]["clock"] == "fischer:300+5"
    assert room["bots"] == [None, None, "greedy"], "greedy where the engine has one"
    assert room["connected"] == [False, False, False]
    bots = f"/api/rooms/{room['id']}/bots"
    owner = {"owner_token": room["owner_token"]}
    taken = await http.post(bots, json={"seats": [2], "kind": "random", **owner})
    assert (taken.status_code, error_code(taken)) == (409, "seat_taken")
    assert error_code(await http.post("/api/rooms/nope/bots", json={})) == "no_such_room"
    early = await http.post(f"/api/rooms/{room['id']}/rematch", json={"token": "t"})
    assert (early.status_code, error_code(early)) == (409, "not_finished")
    filled = await http.post(bots, json={"seats": [0, 1], "kind": "random", **owner})
    assert filled.status_code == 201 and filled.json()["bots"] == ["random", "random", "greedy"]
    listed = (await http.get("/api/rooms")).json()
    assert [r["connected"] for r in listed] == [[False, False, False]]


async def test_unknown_routes_and_methods_answer_json(http: httpx.AsyncClient) -> None:
    missing = await http.get("/api/nothing")
    assert (missing.status_code, error_code(missing)) == (404, "not_found")
    slash = await http.get("/api/rooms/")  # no empty redirect: every /api answer is JSON
    assert (slash.status_code, error_code(slash)) == (404, "not_found")
    wrong = await http.delete("/api/rooms")
    assert (wrong.status_code, error_code(wrong)) == (405, "method_not_allowed")
    room = await http.get("/api/rooms/unknown")
    assert (room.status_code, error_code(room)) == (404, "no_such_room")
    assert error_code(await http.get("/api/rooms", params={"status": "lost"})) == "bad_status"


# -- clean-up -------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_sweep_removes_finished_and_stale_waiting_rooms_only() -> None:
    clock = Clock()
    store = MemoryStore()
    lobby = Lobby(store, Settings(finished_ttl=60, waiting_ttl=600), clock)
    waiting = await lobby.create({"engine": "sintra", "seats": 2})
    playing = await lobby.create({"engine": "sintra", "seats": 2})
    done = await lobby.create({"engine": "sintra", "seats": 2})
    for room_id in (playing["id"], done["id"]):
        for _ in range(2):
            await lobby.reserve(room_id, {})
    finished = lobby.rooms[done["id"]].record
    finished.status, finished.updated = "finished", clock.now
    await store.save_room(finished)
    clock.now += 59
    assert await lobby.sweep() == []
    clock.now += 1
    assert await lobby.sweep() == [done["id"]]
    assert await store.load_room(done["id"]) is None and done["id"] not in lobby.rooms
    clock.now += 600
    assert await lobby.sweep() == [waiting["id"]]
    assert set(lobby.rooms) == {playing["id"]}
    await lobby.close()


class BotlessStore(MemoryStore):
    """A store that cannot be reached when a bot takes a seat."""

    async def append(self, room_id: str, version: int, entry: Any, *args: Any) -> None:
        if entry.get("bot"):
            raise StoreUnavailable("connection refused")
        await super().append(room_id, version, entry, *args)


async def test_a_room_whose_bots_cannot_be_seated_is_removed_again() -> None:
    store = BotlessStore()
    lobby = Lobby(store, Settings())
    with pytest.raises(StoreUnavailable):
        await lobby.create({"engine": "sintra", "bots": {"seats": [1]}})
    assert lobby.rooms == {} and (await store.page_ids(ALL, 10))[0] == []
    await lobby.close()


async def test_bots_for_no_seat_are_refused_and_take_nothing(http: httpx.AsyncClient) -> None:
    room = (await http.post("/api/rooms", json={"engine": "sintra", "seats": 2})).json()
    body = {"owner_token": room["owner_token"], "seats": []}
    refused = await http.post(f"/api/rooms/{room['id']}/bots", json=body)
    assert (refused.status_code, error_code(refused)) == (400, "bad_seat")
    assert (await http.get(f"/api/rooms/{room['id']}")).json()["bots"] == [None, None]


class DownStore(MemoryStore):
    """A store whose backend is unreachable."""

    async def save_room(self, record: Any) -> None:
        raise StoreUnavailable("connection refused")


async def test_an_unreachable_store_answers_503_and_creates_nothing() -> None:
    transport = httpx.ASGITransport(app=create_app(Settings(), DownStore()))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        response = await client.post("/api/rooms", json={"engine": "sintra"})
        assert (response.status_code, error_code(response)) == (503, "store_unavailable")
        assert (await client.get("/api/rooms")).json() == []


# -- fair seeds, limits on rooms, pages ------------------------------------------


async def test_a_chosen_seed_only_goes_with_a_private_room(http: httpx.AsyncClient) -> None:
    for body in (
        {"engine": "sintra", "seed": 1234},
        {"engine": "sintra", "seed": 1, "private": False},
    ):
        refused = await http.post("/api/rooms", json=body)
        assert (refused.status_code, error_code(refused)) == (400, "seed_needs_private")
    assert (await http.get("/api/rooms")).json() == [], "nothing was created"
    seeded = await http.post("/api/rooms", json={"engine": "sintra", "seed": 1234, "private": True})
    assert seeded.status_code == 201 and seeded.json()["private"] is True
    joined = (await http.post("/api/quickplay", json={"engine": "sintra"})).json()
    assert joined["room"] != seeded.json()["id"], "quick play never sends anyone there"
    assert [r["id"] for r in (await http.get("/api/rooms")).json()] == [joined["room"]]


async def test_the_listing_is_paged_with_a_link_to_the_next_page(http: httpx.AsyncClient) -> None:
    made = [
        (await http.post("/api/rooms", json={"engine": "sintra"})).json()["id"] for _ in range(5)
    ]
    seen: list[str] = []
    url: str | None = "/api/rooms?engine=sintra&limit=2"
    while url is not None:
        page = await http.get(url)
        assert page.status_code == 200 and len(page.json()) <= 2
        seen += [r["id"] for r in page.json()]
        url = page.links["next"]["url"] if "next" in page.links else None
    assert seen == made[::-1], "newest first, each room once"
    for query, code in (({"limit": "0"}, "bad_limit"), ({"limit": "x"}, "bad_limit")):
        refused = await http.get("/api/rooms", params=query)
        assert (refused.status_code, error_code(refused)) == (400, code)
    huge = await http.get("/api/rooms", params={"engine": "sintra", "limit": "99999999999"})
    assert [r["id"] for r in huge.json()] == made[::-1], "a larger limit is cut to list_limit"
    refused = await http.get("/api/rooms", params={"after": "not a cursor"})
    assert (refused.status_code, error_code(refused)) == (400, "bad_cursor")


class PageSpy(MemoryStore):
    """A memory store that records the size of every page asked of it."""

    def __init__(self) -> None:
        super().__init__()
        self.limits: list[int] = []

    async def page(self, index: str, limit: int, after: str | None = None) -> Any:
        self.limits.append(limit)
        return await super().page(index, limit, after)

    async def page_ids(self, index: str, limit: int, after: str | None = None) -> Any:
        self.limits.append(limit)
        return await super().page_ids(index, limit, after)

    async def load_rooms(self, room_ids: Sequence[str]) -> Any:
        self.limits.append(len(room_ids))
        return await super().load_rooms(room_ids)


async def test_no_lobby_operation_reads_more_than_a_bounded_page_of_rooms() -> None:
    clock = Clock()
    store = PageSpy()
    settings = Settings(list_limit=4, sweep_batch=3, waiting_ttl=60)
    lobby = Lobby(store, settings, clock)
    for _ in range(10):
        await lobby.create({"engine": "sintra", "seats": 2})
    listed, cursor = await lobby.listing(None, None, "1000")
    assert len(listed) == 4 and cursor is not None, "a limit above list_limit is cut to it"
    await lobby.quickplay({"engine": "sintra"})
    assert await lobby.adopt() == []
    clock.now += 60
    assert len(await lobby.sweep()) == 10
    assert store.limits and max(store.limits) <= 4
    assert store.limits.count(3) >= 4, "the sweep walks 10 rooms three at a time"
    assert lobby.rooms.keys() == set()
    await lobby.close()


@pytest.mark.parametrize(
    ("limit", "size"),
    [("3", 3), ("003", 3), ("5", 4), ("99999999999", 4), ("1" + "0" * 5000, 4), (None, 4)],
)
async def test_a_positive_limit_of_any_size_is_cut_to_list_limit(
    limit: str | None, size: int
) -> None:
    store = PageSpy()
    lobby = Lobby(store, Settings(list_limit=4))
    await lobby.listing(None, None, limit)
    assert store.limits == [size]


@pytest.mark.parametrize("limit", ["0", "000", "-1", "1.5", "+3", " 3", "", "\u0663"])
async def test_a_limit_that_is_no_positive_integer_is_refused(limit: str) -> None:
    with pytest.raises(ApiError) as refused:
        await Lobby(PageSpy(), Settings()).listing(None, None, limit)
    assert (refused.value.status, refused.value.code) == (400, "bad_limit")


async def test_room_creation_is_limited_per_client_address() -> None:
    clock = Clock()
    lobby = Lobby(MemoryStore(), Settings(room_rate=0.5, room_burst=2), clock)
    for _ in range(2):
        await lobby.create({"engine": "sintra"}, client="10.0.0.1")
    with pytest.raises(ApiError) as limited:
        await lobby.create({"engine": "sintra"}, client="10.0.0.1")
    assert (limited.value.status, limited.value.code) == (429, "rate_limited")
    assert limited.value.headers == {"retry-after": "2"}
    with pytest.raises(ApiError):
        await lobby.quickplay({"engine": "chartered"}, client="10.0.0.1")
    assert len(lobby.rooms) == 2, "refused requests created nothing"
    await lobby.create({"engine": "sintra"}, client="10.0.0.2")
    clock.now += 2
    await lobby.create({"engine": "sintra"}, client="10.0.0.1")
    assert len(lobby.rooms) == 4
    await lobby.close()


async def test_room_creation_over_http_answers_429_with_retry_after() -> None:
    app = create_app(Settings(room_rate=1 / 60, room_burst=1))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        assert (await client.post("/api/rooms", json={"engine": "sintra"})).status_code == 201
        refused = await client.post("/api/rooms", json={"engine": "sintra"})
        assert (refused.status_code, error_code(refused)) == (429, "rate_limited")
        assert refused.headers["retry-after"] == "60"
    await app.state.lobby.close()


async def test_a_process_holds_at_most_max_rooms() -> None:
    clock = Clock()
    lobby = Lobby(MemoryStore(), Settings(max_rooms=2, waiting_ttl=60), clock)
    first = await lobby.create({"engine": "sintra"})
    second = await lobby.create({"engine": "sintra"})
    for request in (
        lobby.create({"engine": "sintra"}),
        lobby.quickplay({"engine": "chartered"}),
    ):
        with pytest.raises(ApiError) as full:
            await request
        assert (full.value.status, full.value.code) == (503, "too_many_rooms")
    joined = await lobby.quickplay({"engine": "sintra"})
    assert joined["room"] in (first["id"], second["id"]), "joining a room is not creating one"
    clock.now += 60
    await lobby.sweep()
    await lobby.create({"engine": "sintra"})
    await lobby.close()


async def test_a_game_stops_at_max_moves_with_the_move_limit_result() -> None:
    store = MemoryStore(memory_log=6)
    lobby = Lobby(store, Settings(max_moves=40, snapshot_every=5))
    room_id = (await lobby.create({"engine": "turn-relay", "seats": 4}))["id"]
    live = lobby.rooms[room_id]
    for _ in range(4):
        await lobby.reserve(room_id, {})
    await play_to_the_end(live)
    assert live.version == 40
    assert live.record.result is not None and live.record.result["move_limit"] is True
    assert live.record.result["ranks"] == []
    log = await store.read_log(room_id)
    assert log[-1][0] == 40 and log[-1][1]["k"] == "end" and log[-1][1]["why"] == "move_limit"
    assert len(log) <= 6 + 5, "the memory store keeps a bounded tail of the log"
    await lobby.close()


class SlowSnapshots(MemoryStore):
    """A memory store whose snapshot reads wait until they are let through."""

    def __init__(self) -> None:
        super().__init__()
        self.reading = asyncio.Event()
        self.through = asyncio.Event()

    async def load_snapshot(self, room_id: str) -> Any:
        self.reading.set()
        await self.through.wait()
        return await super().load_snapshot(room_id)


async def test_a_room_registered_while_it_was_being_loaded_is_the_one_kept() -> None:
    """An adoption pass loads a room its creator has saved but not registered yet: the
    creator's room stays the lobby's, never replaced by a copy that does not own it."""
    store = SlowSnapshots()
    lobby = Lobby(store, Settings())
    room_id = (await lobby.create({"engine": "sintra", "seats": 3}))["id"]
    created = lobby.rooms.pop(room_id)  # as if its creator had not registered it yet
    loading = asyncio.create_task(lobby.open(room_id))
    await store.reading.wait()
    lobby.rooms[room_id] = created  # the creator registers it now
    store.through.set()
    assert await loading is created
    assert lobby.rooms[room_id] is created and created.lease is not None
    await lobby.close()


class SlowLeases(MemoryStore):
    """A memory store whose lease acquisitions wait until they are let through."""

    def __init__(self) -> None:
        super().__init__()
        self.acquiring = asyncio.Event()
        self.through = asyncio.Event()

    async def acquire(self, room_id: str, node: str) -> str | None:
        self.acquiring.set()
        await self.through.wait()
        return await super().acquire(room_id, node)


async def test_the_sweep_never_unloads_a_room_whose_lease_is_being_taken() -> None:
    """A room just created has no lease until its claim is done; a sweep meanwhile
    would take it for a replica nobody watches and let it go, and its lease would then
    be held by a room the lobby no longer knows."""
    store = SlowLeases()
    lobby = Lobby(store, Settings())
    creating = asyncio.create_task(lobby.create({"engine": "sintra", "seats": 3}))
    await store.acquiring.wait()
    assert await lobby.sweep() == []
    store.through.set()
    room_id = (await creating)["id"]
    assert lobby.rooms[room_id].lease is not None
    await lobby.close()


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b'{"engine": "sintra", "seats": 5}', "sintra takes 2-4 players, not 5"),
        (b'{"engine": "turn-relay", "seats": 2}', "turn-relay takes 4 players, not 2"),
    ],
)
async def test_a_wrong_number_of_seats_says_what_the_game_takes(
    http: httpx.AsyncClient, body: bytes, says: str
) -> None:
    response = await http.post("/api/rooms", content=body)
    assert response.json()["error"]["message"] == says
