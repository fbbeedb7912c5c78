"""The terminal renderers: every engine has one, and it draws any position."""

from __future__ import annotations

import io
import random

import pytest
from rich.console import Console

from clients.render import render, renderer
from engines import ENGINES, Engine
from support import playout, random_options


@pytest.mark.parametrize("engine", list(ENGINES.values()), ids=list(ENGINES))
def test_every_engine_renders_every_position_for_seats_and_spectators(engine: Engine) -> None:
    assert renderer(engine.id) is not None, "add render.py to the game's folder"
    players = engine.max_players
    names = [f"seat{i}" for i in range(players)]
    rnd = random.Random(1)
    options = random_options(engine, rnd)
    for step, (state, _seat, _action) in enumerate(playout(engine, 1, players, options, rnd)):
        if step % 7:
            continue
        for viewer in (None, 0):
            out = io.StringIO()
            doc = {
                "status": "playing",
                "seats": names,
                "to_act": sorted(engine.to_act(state)),
                "game": engine.view(state, viewer),
            }
            render(Console(file=out, width=120), engine.id, doc, viewer)
            assert "seat1" in out.getvalue()
