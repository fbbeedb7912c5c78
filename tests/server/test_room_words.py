"""The sentences of the room's own events in the game log (``server.room_frames.narrate``):
written as the engines write theirs, a sentence each (a capital or a player's name first,
a full stop last), so the log and "Just played" read alike whoever told the line."""

from __future__ import annotations

import pytest

from engines import GAMES
from server.room_frames import narrate

NAMES = ["ana", "Bea"]


@pytest.mark.parametrize(
    ("event", "said"),
    [
        ({"type": "seat", "seat": 0}, "ana takes seat 1."),
        ({"type": "start"}, "The game starts."),
        (
            {"type": "expelled", "seat": 1},
            "Bea timed out too often: a bot plays the seat for the rest of the game.",
        ),
        ({"type": "abandoned"}, "The game is abandoned: every player left."),
        ({"type": "rematch", "room": "AbCd1234"}, "A rematch is open: room AbCd1234."),
        (
            {"type": "move_limit"},
            "The game stops: it reached the server's limit of moves, with no ranking.",
        ),
    ],
)
def test_a_room_event_is_told_as_a_sentence(event: dict[str, object], said: str) -> None:
    engine = GAMES["sintra"]
    assert narrate(engine, NAMES, [event])[0]["text"] == said
