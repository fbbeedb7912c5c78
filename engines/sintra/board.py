"""A player's board: a new one (§2.4–2.7), where the glazier can be reset to
(§3.2 B) and what a view shows of it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.rng import Rng
from engines.sintra.data import SLOTS, components, pattern


def new_board(rng: Rng) -> dict[str, Any]:
    """§2.4–2.7: strips shuffled into slots, random sides, the wild side down."""
    data = components()
    ids = [s["id"] for s in data["strips"]]
    rng.shuffle(ids)
    strips = []
    for strip_id in ids:
        side = rng.below(2)
        if strip_id == data["wild_strip"] and side == data["wild_side"]:
            side = 1 - side
        strips.append({"id": strip_id, "side": side, "pieces": [None] * 5})
    return {
        "score": 0,
        "track": 0,
        "wraps": 0,
        "glazier": 0,
        "strips": strips,
        "windows": [[None, None] for _ in range(SLOTS)],
        "final": None,
    }


def leftmost_strip(board: Mapping[str, Any]) -> int | None:
    """The slot of the leftmost strip still on the board (None when none is left)."""
    return next((slot for slot, s in enumerate(board["strips"]) if s is not None), None)


def can_reset(board: Mapping[str, Any]) -> bool:
    """§3.2 B: a reset moves the glazier, so it is legal only away from the leftmost strip."""
    leftmost = leftmost_strip(board)
    return leftmost is not None and board["glazier"] != leftmost


def board_view(board: Mapping[str, Any]) -> dict[str, Any]:
    """A board as views show it: each strip with its printed pattern."""
    return {
        "score": board["score"],
        "track": board["track"],
        "wraps": board["wraps"],
        "glazier": board["glazier"],
        "strips": [
            None
            if s is None
            else {"id": s["id"], "side": s["side"], "pattern": pattern(s), "pieces": s["pieces"]}
            for s in board["strips"]
        ],
        "windows": board["windows"],
        "final": board["final"],
    }
