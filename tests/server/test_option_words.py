"""Option choices in player words: GET /api/games serves each option's ``choice_names``
beside its ``choices`` (from the game's data file) for every option that is not yes/no,
so the lobby's form and the room's "Rules changed" line never show a raw value such as
Chartered's "0" (no floor limit) or "shuffle"."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

import engines
from server.app import create_app
from server.settings import Settings


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(Settings()))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        yield client


async def listed(http: httpx.AsyncClient) -> dict[str, Any]:
    return {game["id"]: game for game in (await http.get("/api/games")).json()}


async def test_chartereds_choices_are_served_in_words(http: httpx.AsyncClient) -> None:
    options = (await listed(http))["chartered"]["options"]
    assert options["stack_cap"]["choices"] == [0, 4]
    assert options["stack_cap"]["choice_names"] == {"0": "no limit", "4": "at most 4 floors"}
    assert options["market_refresh"]["choice_names"] == {
        "shuffle": "shuffled back into the deck",
        "discard": "discarded for good",
    }
    assert options["three_stocks_amount"]["choice_names"] == {"30": "ƒ30 each", "50": "ƒ50 each"}
    assert "choice_names" not in options["events"]


@pytest.mark.parametrize("engine_id", list(engines.GAMES))
async def test_every_choice_but_yes_or_no_has_words(
    http: httpx.AsyncClient, engine_id: str
) -> None:
    game = (await listed(http))[engine_id]
    for name, spec in game["options"].items():
        choices = [str(choice) for choice in spec["choices"]]
        names = spec.get("choice_names", {})
        if all(isinstance(choice, bool) for choice in spec["choices"]):
            assert not names, name
            continue
        assert set(names) <= set(choices), f"{name}: words for no choice"
        assert all(words and words != key and "_" not in words for key, words in names.items())
        # Left unnamed only: ids of printed components, which the game's words.js names.
        assert set(names) == set(choices) or game["web"]["words"], f"{name}: choices unnamed"
