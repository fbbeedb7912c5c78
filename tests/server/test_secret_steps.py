"""What the room document tells the other viewers of a decision made in secret: nothing.

In a simultaneous step (Crystal Palace's dice, its final repayment) a seat decides in
steps that the engine keeps to itself until every seat is ready; the room's own parts
of the document (the clocks) must not tell the others which seat decided, nor when.
Played on a hand-driven clock: nothing waits for a real timeout.
"""

from __future__ import annotations

import pytest

from protocol.messages import Intent
from server.lobby import Lobby
from server.room import Room
from server.timers import ManualTimers
from support import Player, run


async def dice_step(lobby: Lobby, clock: str) -> tuple[Room, list[Player]]:
    """A 3-seat Crystal Palace room at phase 1 (every seat sets its dice in secret)."""
    body = {"engine": "crystal-palace", "seats": 3, "options": {"clock": clock}}
    created = await lobby.create({**body, "seed": 7, "private": True})
    room = lobby.room(created["id"])
    assert room is not None
    players = []
    for name in ("ana", "bo", "cy"):
        seat, _ = await room.reserve(name)
        players.append(await Player(room, seat).join())
    assert room.state is not None and room.engine.to_act(room.state) == {0, 1, 2}
    return room, players


@pytest.mark.parametrize("clock", ["move:30", "fischer:120+5"])
async def test_a_secret_decision_moves_no_clock_the_others_see(
    lobby: Lobby, timers: ManualTimers, clock: str
) -> None:
    room, players = await dice_step(lobby, clock)
    await run(timers, room, 7)
    others = [None, 1, 2]
    before = {viewer: room.views.doc(room, viewer) for viewer in others}
    ana = players[0]
    ana.room.submit(ana, ana_die := _die(ana))
    await room.settled()
    assert [f for f in ana.frames if f["t"] == "ack"][-1]["id"] == ana_die.id
    assert room.engine.to_act(room.state) == {0, 1, 2}, "ana has dice left to set"
    for viewer in others:
        assert room.views.doc(room, viewer) == before[viewer], (
            f"viewer {viewer} can tell that ana set a die"
        )


async def test_a_seat_still_deciding_in_secret_is_played_at_its_first_deadline(
    lobby: Lobby, timers: ManualTimers
) -> None:
    """The clock of a seat that decides in secret keeps running from the step's start:
    a seat that set some dice and stopped is played for at the step's deadline."""
    room, players = await dice_step(lobby, "move:30")
    started = timers.now()
    ana = players[0]
    await run(timers, room, 10)
    ana.room.submit(ana, _die(ana))
    await room.settled()
    assert room.table.deadline[0] == started + 30
    await run(timers, room, 20.5)
    assert room.state is not None and 0 not in room.engine.to_act(room.state), (
        "a zombie set ana's other dice at her deadline"
    )


def _die(player: Player) -> Intent:
    return Intent(next(player.ids), {"type": "die", "value": 3})


async def test_a_zombie_deciding_in_secret_counts_one_timeout_when_the_seat_is_done(
    lobby: Lobby, timers: ManualTimers
) -> None:
    """At the deadline zombies set every seat's dice, one silent decision each: the
    others see a seat's timeout once its part of the step is done, not one per die (the
    number of its secret decisions)."""
    room, _ = await dice_step(lobby, "move:30")
    spectator = await Player(room, None).join()
    await run(timers, room, 30.5)
    assert room.state is not None
    for _ in range(10):  # the last seat asked decides alone: 30 s a die
        if room.state["phase"] != 1:
            break
        await run(timers, room, 30)
    assert room.state["phase"] != 1, "the dice step resolved"
    seen: list[tuple[int, int]] = []
    for frame in spectator.frames:
        for op in frame.get("ops", []) if frame["t"] == "patch" else []:
            path = op[1]
            if path[:1] == ["presence"] and path[-1:] == ["timeouts"]:
                seen.append((path[1], op[2]))
            elif path == ["presence"]:
                seen += [(s, p["timeouts"]) for s, p in enumerate(op[2]) if p["timeouts"]]
    assert (0, 1) in seen and (1, 1) in seen
    assert (0, 2) not in seen and (1, 2) not in seen, seen
