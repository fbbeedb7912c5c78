"""Every game's in-room help (``web/help.json``, shown by clients/web/static/help.js) has
a sentence for each phase or step met in real games: seeded random playouts with random
options, the step named from the spectator's view as the room page names it. And each
sentence links to a section that the game's how-to-play page has."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import engines
from engines import Engine
from server import rules
from support import playout, random_options

PLAYOUTS = 25


def help_of(engine: Engine) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((engines.folder(engine.id) / "web" / "help.json").read_text())
    return data


def step_name(paths: list[str], view: Any) -> str:
    """help.js's ``stepName``: the values at ``paths`` ("a.b", "" when missing), joined."""
    names = []
    for path in paths:
        value = view
        for key in path.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        names.append("" if value is None else str(value))
    return " ".join(names)


games = pytest.mark.parametrize("engine", list(engines.GAMES.values()), ids=list(engines.GAMES))


@games
def test_every_step_met_in_real_games_has_help(engine: Engine) -> None:
    help = help_of(engine)
    met: dict[str, int] = {}
    for seed in range(PLAYOUTS):
        rnd = random.Random(seed)
        players = rnd.randint(engine.min_players, engine.max_players)
        for state, _, _ in playout(engine, seed, players, random_options(engine, rnd), rnd):
            name = step_name(help["step"], engine.view(state, None))
            met[name] = met.get(name, 0) + 1
    missing = sorted(set(met) - set(help["steps"]))
    assert not missing, f"steps met without help: {missing}"
    assert all(entry["text"].strip() for entry in help["steps"].values())


@games
def test_each_help_links_to_a_section_of_the_rules_page(engine: Engine) -> None:
    source = rules.source(engine.id)
    assert source is not None, "a game folder has rules.md"
    page = rules.body(engine, source.read_text(encoding="utf-8"), drawn=False)
    for name, entry in help_of(engine)["steps"].items():
        assert f'id="{entry["section"]}"' in page, f"{name!r}: no section {entry['section']!r}"
