"""The cross-origin policy (server/origins.py, docs/protocol.md §9): other sites cannot use
the lobby or the WebSocket unless listed in ``allowed_origins``; non-browser clients can."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from conftest import Running
from protocol.codec import decode, encode
from server.app import create_app
from server.origins import parse_origins
from server.settings import Settings

FRIEND = "https://friend.example"
EVIL = "https://evil.example"
ROOM = {"engine": "sintra", "seats": 2}


def lobby(allowed: str = "") -> httpx.AsyncClient:
    app = create_app(Settings(allowed_origins=allowed))
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost")


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with lobby() as client:
        yield client


async def rooms(http: httpx.AsyncClient) -> int:
    return len((await http.get("/api/rooms")).json())


async def test_the_servers_own_pages_and_non_browser_clients_may_post(
    http: httpx.AsyncClient,
) -> None:
    own = await http.post("/api/rooms", json=ROOM, headers={"origin": "http://localhost"})
    assert own.status_code == 201
    assert "access-control-allow-origin" not in own.headers
    assert (await http.post("/api/rooms", json=ROOM)).status_code == 201
    fetched = {"sec-fetch-site": "same-origin"}
    assert (await http.post("/api/rooms", json=ROOM, headers=fetched)).status_code == 201


async def test_a_text_plain_post_from_another_site_is_refused_and_changes_nothing(
    http: httpx.AsyncClient,
) -> None:
    before = await rooms(http)
    for headers in ({"origin": EVIL}, {"origin": "null"}, {"sec-fetch-site": "cross-site"}):
        response = await http.post(
            "/api/rooms",
            content='{"engine": "sintra"}',
            headers={**headers, "content-type": "text/plain"},
        )
        assert response.status_code == 403, headers
        assert response.json()["error"]["code"] == "cross_origin"
        assert "access-control-allow-origin" not in response.headers
    seat = await http.post("/api/quickplay", json={"engine": "sintra"}, headers={"origin": EVIL})
    assert seat.status_code == 403
    assert await rooms(http) == before


async def test_other_sites_get_no_cors_headers_and_no_preflight(http: httpx.AsyncClient) -> None:
    games = await http.get("/api/games", headers={"origin": EVIL})
    assert games.status_code == 200 and "access-control-allow-origin" not in games.headers
    preflight = await http.options(
        "/api/rooms", headers={"origin": EVIL, "access-control-request-method": "POST"}
    )
    assert preflight.status_code == 403
    assert "access-control-allow-origin" not in preflight.headers


async def test_a_listed_origin_may_use_the_lobby_with_cors_and_frame_the_pages() -> None:
    async with lobby(f"{FRIEND}, https://other.example:8443") as http:
        preflight = await http.options(
            "/api/rooms", headers={"origin": FRIEND, "access-control-request-method": "POST"}
        )
        assert preflight.status_code == 204
        assert preflight.headers["access-control-allow-origin"] == FRIEND
        assert "POST" in preflight.headers["access-control-allow-methods"]
        created = await http.post("/api/rooms", json=ROOM, headers={"origin": FRIEND})
        assert created.status_code == 201
        assert created.headers["access-control-allow-origin"] == FRIEND
        assert "Origin" in created.headers["vary"]
        refused = await http.post("/api/rooms", json=ROOM, headers={"origin": EVIL})
        assert refused.status_code == 403
        policy = (await http.get("/")).headers["content-security-policy"]
        assert f"frame-ancestors 'self' {FRIEND} https://other.example:8443" in policy


async def test_any_origin_with_a_star() -> None:
    async with lobby("*") as http:
        created = await http.post("/api/rooms", json=ROOM, headers={"origin": EVIL})
        assert created.status_code == 201
        assert created.headers["access-control-allow-origin"] == EVIL


def test_allowed_origins_are_checked_at_startup() -> None:
    assert parse_origins("") == ()
    assert parse_origins(" https://A.example/ ,http://b:81") == ("https://a.example", "http://b:81")
    for bad in ("friend.example", "ftp://x", "https://x/path"):
        with pytest.raises(ValueError, match="allowed_origins"):
            parse_origins(bad)


@pytest.mark.parametrize("store_kind", ["memory"], indirect=False)
async def test_a_websocket_from_another_origin_is_refused(server: Running) -> None:
    async with httpx.AsyncClient(base_url=server.url) as http:
        room = (await http.post("/api/rooms", json=ROOM)).json()
    url = f"{server.ws}/ws/rooms/{room['id']}"
    with pytest.raises(InvalidStatus) as refused:
        await connect(url, origin=EVIL)
    assert refused.value.response.status_code == 403
    hello = encode({"t": "hello", "protocol": 1, "token": None, "since": None})
    for origin in (server.url, None):  # the server's own pages; a client sending no Origin
        async with connect(url, origin=origin) as ws:
            await ws.send(hello)
            assert decode(await ws.recv())["t"] == "welcome"
