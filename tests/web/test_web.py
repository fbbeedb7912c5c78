"""The browser client served by the server itself: pages, static files, cache headers."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from server.app import create_app
from server.settings import Settings


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(Settings()))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        yield client


async def test_the_lobby_and_room_pages_are_html_with_a_same_origin_policy(
    http: httpx.AsyncClient,
) -> None:
    for path in ("/", "/rooms/Xq3vT0aB"):
        response = await http.get(path)
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/html")
        assert response.headers["cache-control"] == "no-cache"
        policy = response.headers["content-security-policy"]
        assert "default-src 'self'" in policy and "connect-src 'self'" in policy
        assert "frame-ancestors 'self'" in policy
    assert "lobby.js" in (await http.get("/")).text
    assert "room.js" in (await http.get("/rooms/Xq3vT0aB")).text


async def test_modules_are_javascript_and_revalidated_vendored_files_cached(
    http: httpx.AsyncClient,
) -> None:
    own = await http.get("/static/tablewire.js")
    assert own.status_code == 200
    assert own.headers["content-type"].startswith("text/javascript")
    assert own.headers["cache-control"] == "no-cache"
    vendored = await http.get("/static/vendor/msgpack/index.mjs")
    assert vendored.headers["content-type"].startswith("text/javascript")
    assert vendored.headers["cache-control"] == "public, max-age=86400"
    again = await http.get("/static/tablewire.js", headers={"if-none-match": own.headers["etag"]})
    assert again.status_code == 304


async def test_a_missing_file_is_a_json_not_found(http: httpx.AsyncClient) -> None:
    response = await http.get("/static/nothing.js")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert (await http.get("/static/../server/app.py")).status_code == 404


BROWSER = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


@pytest.mark.parametrize("path", ["/rooms/", "/rooms/Xq3vT0aB/", "/room/Xq3vT0aB", "/nothing"])
async def test_a_page_that_does_not_exist_is_a_404_page_in_words(
    http: httpx.AsyncClient, path: str
) -> None:
    """A mistyped link opened in a browser: a page saying so, with the way back, never
    the JSON error meant for programs."""
    response = await http.get(path, headers=BROWSER)
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in response.headers["content-security-policy"]
    assert "<h1>No such page</h1>" in response.text
    assert 'href="/"' in response.text and "not_found" not in response.text


async def test_programs_and_files_still_get_the_json_not_found(http: httpx.AsyncClient) -> None:
    for path, headers in [
        ("/api/nothing", BROWSER),
        ("/static/nothing.js", BROWSER),
        ("/games/sintra/nothing.js", BROWSER),
        ("/nothing", {"accept": "application/json"}),
    ]:
        response = await http.get(path, headers=headers)
        assert response.status_code == 404, path
        assert response.json()["error"]["code"] == "not_found", path
