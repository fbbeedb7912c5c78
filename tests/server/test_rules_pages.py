"""The how-to-play pages (server/rules.py) over HTTP: one per game, built from its
folder's rules.md with pictures of example positions and the options as named house
rules; unknown games get a 404 page in words; markup in rules.md is shown as text."""

from __future__ import annotations

import html
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

import engines
from server import rules
from server.app import create_app
from server.settings import Settings


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(Settings()))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        yield client


def examples(page: str) -> list[dict[str, object]]:
    """The room documents of the page's pictures."""
    found = re.findall(r'data-example="([^"]*)"', page)
    return [json.loads(html.unescape(doc)) for doc in found]


@pytest.mark.parametrize("engine_id", list(engines.GAMES))
async def test_each_game_has_a_page_with_pictures_and_named_house_rules(
    http: httpx.AsyncClient, engine_id: str
) -> None:
    answer = await http.get(f"/rules/{engine_id}")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in answer.headers["content-security-policy"]
    page = answer.text
    game = engines.GAMES[engine_id]
    assert f"<title>How to play {html.escape(game.title)} · tablewire</title>" in page
    assert '<h2 id="goal">Goal</h2>' in page and '<h2 id="house-rules">' in page
    pictures = examples(page)
    assert pictures and all(doc["game"] for doc in pictures)
    assert pictures[0]["game"] == game.view(game.setup(rules.players(game), {}, rules.SEED), None)
    house_rules = page.split('id="house-rules"')[1]
    for name, spec in game.options.items():
        assert f"<strong>{html.escape(spec['name'])}.</strong>" in house_rules
        assert "_" not in name or name not in house_rules, "an option's id shown to players"
    assert "[proposed" not in page and "_note" not in page and "[board" not in page


async def test_the_games_list_links_each_page(http: httpx.AsyncClient) -> None:
    for game in (await http.get("/api/games")).json():
        assert game["web"]["rules"] == f"/rules/{game['id']}"
        assert "_note" not in json.dumps(game["options"])


async def test_an_unknown_game_is_a_404_page_in_words(http: httpx.AsyncClient) -> None:
    answer = await http.get("/rules/%3Cb%3Ebold")
    assert answer.status_code == 404
    assert answer.headers["content-type"].startswith("text/html")
    assert "<h1>No such game</h1>" in answer.text
    assert "“&lt;b&gt;bold”" in answer.text and "<b>" not in answer.text
    for engine_id in engines.GAMES:
        assert f'href="/rules/{engine_id}"' in answer.text
    assert (await http.get("/games/sintra/rules.md")).status_code == 404


MARKUP = """# Tricky <b>game</b>

## Goal

<script>alert("rules")</script>

A <img src=x onerror=alert(1)> picture, a [link](javascript:alert(1)) and *words*.

[board 2] A caption with <i>markup</i>.
"""


@pytest.fixture
def tricky(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A game whose rules.md is full of markup (the first game's, replaced)."""
    written = tmp_path / "rules.md"
    written.write_text(MARKUP, encoding="utf-8")
    monkeypatch.setattr(rules, "source", lambda engine_id: written)
    return next(iter(engines.GAMES))


async def test_markup_in_rules_md_is_shown_as_text(tricky: str, http: httpx.AsyncClient) -> None:
    page = (await http.get(f"/rules/{tricky}")).text
    assert "<h1>Tricky &lt;b&gt;game&lt;/b&gt;</h1>" in page
    assert "&lt;script&gt;alert(&quot;rules&quot;)&lt;/script&gt;" in page
    text = page.split("<h1>")[1].split('<section aria-labelledby="house-rules">')[0]
    assert "<img" not in text and "<i>" not in text and "href=" not in text
    assert "a [link](javascript:alert(1))" in page  # a link markdown-it refuses stays text
    assert "<em>words</em>" in page
    assert "<figcaption>A caption with &lt;i&gt;markup&lt;/i&gt;.</figcaption>" in page
    assert page.count("<script") == 1  # the page's own module, nothing from the file
