"""The broken-glass track (§6): the track in play, the marker's way down it, the
−18 for each time it reaches the bottom, and the score floor (§7)."""

from __future__ import annotations

from typing import Any

from engines.base import Event, State
from engines.sintra.data import components


def glass_track(state: State) -> list[int]:
    """The broken-glass track in play: the value of each space, top first."""
    track: list[int] = components()["broken_glass_tracks"][state["options"]["track"]]
    return track


def down_the_track(track: list[int], step: int, moves: int) -> tuple[int, int]:
    """§6: the marker's step after ``moves`` spaces down from ``step``, and how
    often it reached the bottom (each time it restarts from the top)."""
    bottom = len(track) - 1
    hits = 0
    for _ in range(moves):
        step += 1
        if step == bottom:
            step, hits = 0, hits + 1
    return step, hits


def break_glass(state: State, seat: int, steps: int, events: list[Event]) -> None:
    """§6: one space down per step; reaching the bottom costs 18 and wraps to the top."""
    track = glass_track(state)
    board = state["boards"][seat]
    board["track"], hits = down_the_track(track, board["track"], steps)
    for _ in range(hits):
        board["wraps"] += 1
        add_score(state, board, track[-1])
        events.append({"type": "track_wrap", "seat": seat, "points": track[-1]})


def add_score(state: State, board: dict[str, Any], points: int) -> None:
    """Add ``points`` (maybe negative) to a board, not below 0 unless ``negative_scores``."""
    board["score"] += points
    if board["score"] < 0 and not state["options"]["negative_scores"]:
        board["score"] = 0
