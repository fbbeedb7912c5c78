"""Final scoring (§7) and what the tie-break counts (§8): leftover pieces, the
broken-glass track's value, and the palace bonus of the board's side (ornaments on
side A, completed windows on side B)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.base import State
from engines.sintra.data import COLORS, components
from engines.sintra.glass import add_score, glass_track


def ornament_bonus(windows: list[list[int | None]]) -> int:
    """§7.3 side A: per ornament, points by how many surrounding spaces hold a piece."""
    data = components()
    total = 0
    for ornament in data["ornaments_side_a"]:
        filled = sum(piece is not None for w in ornament for piece in windows[w])
        total += data["ornament_points"][filled]
    return total


def window_colour_bonus(windows: list[list[int | None]]) -> int:
    """§7.3 side B: completed windows x pieces of the best colour in the windows."""
    completed = sum(1 for w in windows if w[1] is not None)
    pieces = [p for w in windows for p in w if p is not None]
    return completed * max((pieces.count(c) for c in range(COLORS)), default=0)


def leftover_points(board: Mapping[str, Any]) -> int:
    """§7.1: one point per three pieces left on the strips."""
    left = sum(p is not None for s in board["strips"] if s is not None for p in s["pieces"])
    return left // 3


def final_scoring(state: State) -> None:
    """§7: score every board and finish the game; ``final`` keeps the parts (§8 tie-break)."""
    track = glass_track(state)
    side = state["options"]["side"]
    for board in state["boards"]:
        leftover = leftover_points(board)
        penalty = track[board["track"]]
        bonus = (
            ornament_bonus(board["windows"])
            if side == "A"
            else window_colour_bonus(board["windows"])
        )
        before = board["score"]
        add_score(state, board, leftover)
        add_score(state, board, penalty)
        add_score(state, board, bonus)
        board["final"] = {
            "before_final": before,
            "leftover": leftover,
            "broken_glass": penalty,
            "palace_bonus": bonus,
            "glass_lost": 18 * board["wraps"] - penalty,
        }
    state["finished"] = True
