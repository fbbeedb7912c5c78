"""Crystal Palace component data (``rules/crystal_palace.md`` §2, ``data/components.json``):
cards, research tiles, shares, publishers and the board side of every location."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from engines.base import (
    load_components,
)

Effect = Mapping[str, Any]
EXCHANGES = ("die", "income", "gear", "money")


@cache
def components() -> dict[str, Any]:
    """The engine's component data (boards, tracks, cards, tiles, shares, nations)."""
    return load_components(__package__)


def limit(name: str) -> Any:
    return components()["limits"][name]


@cache
def research_tiles() -> dict[str, dict[str, Any]]:
    """Every research tile by id: G01… (green), B01… (violet, blue box), O01… (orange box)."""
    tiles: dict[str, dict[str, Any]] = {}
    for color, prefix in (("green", "G"), ("blue", "B"), ("orange", "O")):
        number = 0
        for entry in components()["research"][color]:
            for _ in range(entry["count"]):
                number += 1
                tiles[f"{prefix}{number:02d}"] = {"color": color, **entry}
    return tiles


@cache
def shares() -> dict[str, dict[str, Any]]:
    """Every share by id: ``S{season}{a|b|c}``, season 1 = Spring 1849."""
    return {
        f"S{season + 1}{'abc'[i]}": {"season": season, **share}
        for season, pile in enumerate(components()["shares"])
        for i, share in enumerate(pile)
    }


@cache
def patents() -> dict[str, dict[str, Any]]:
    return {p["id"]: p for p in components()["patents"]}


@cache
def characters() -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in components()["characters"]}


@cache
def card_names() -> dict[str, str]:
    """The name of every patent and character, by id."""
    return {k: v["name"] for k, v in {**patents(), **characters()}.items()}


@cache
def publishers() -> dict[str, dict[str, Any]]:
    return {p["id"]: p for p in components()["publishers"]}


_SPACE = re.compile(r"^(\d)(A?)(?:£(\d+))?$")


def _parse_space(text: str) -> dict[str, Any]:
    match = _SPACE.match(text)
    if match is None:
        raise ValueError(f"bad placement space {text!r} in the data")
    return {"min": int(match[1]), "assistant": bool(match[2]), "fee": int(match[3] or 0)}


@cache
def layout(location: str, players: int) -> dict[str, Any]:
    """The board side of ``location`` for ``players`` (§2.2): placement and action spaces."""
    entry = components()["locations"][location]
    side = entry["sides"][entry["side_by_players"][str(players)]]
    return {
        **side,
        "action_kind": entry["action"],
        "placement": [_parse_space(s) for s in side["placement"]],
    }


def location_order(options: Mapping[str, Any]) -> list[str]:
    order = list(components()["location_order"])
    if options["port_before_waterloo"]:
        w, p = order.index("waterloo"), order.index("port")
        order[w], order[p] = order[p], order[w]
    return order
