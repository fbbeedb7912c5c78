"""Sintra's components, per ``rules/sintra.md``: the colours, the strips and their
patterns, the window points, ornaments and broken-glass tracks, read from
``data/components.json`` (no printed value is in the code), and what of them a view
carries for clients that draw the board without the data file."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from engines.base import load_components

WILD = -1


COLORS = 5


SLOTS = 8


def _color_id(token: str) -> int:
    return WILD if token == "W" else int(token[1:])


@cache
def components() -> dict[str, Any]:
    """The engine's component data, with colour tokens turned into ints."""
    raw = load_components(__package__)
    raw["patterns"] = {
        strip["id"]: [[_color_id(t) for t in side] for side in strip["sides"]]
        for strip in raw["strips"]
    }
    raw["wild_strip"] = next(s["id"] for s in raw["strips"] if "wild_side" in s)
    raw["wild_side"] = next(s["wild_side"] for s in raw["strips"] if "wild_side" in s)
    return raw


def pattern(strip: Mapping[str, Any]) -> list[int]:
    """The five printed spaces of a strip's up side."""
    patterns: dict[int, list[list[int]]] = components()["patterns"]
    return patterns[strip["id"]][strip["side"]]


def printed(options: Mapping[str, Any]) -> dict[str, Any]:
    """What is printed on the components for a game with ``options``, for clients
    that draw the board without the data file: colour names, rounds, the points
    under the windows, side A's ornaments and their points, the broken-glass track.
    A fresh copy each time: a view never shares lists with the data file."""
    data = components()
    side = options["side"]
    return {
        "colors": [str(c["name"]) for c in data["colors"]],
        "rounds": data["rounds"],
        "window_points": list(data["window_points"][side]),
        "ornaments": [list(o) for o in data["ornaments_side_a"]] if side == "A" else [],
        "ornament_points": list(data["ornament_points"]),
        "track": list(data["broken_glass_tracks"][options["track"]]),
    }
