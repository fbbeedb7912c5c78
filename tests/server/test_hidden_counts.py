"""Channels through which a seat or a spectator could count the decisions another seat
makes in secret in Crystal Palace (its dice, its final repayment), beyond those of
tests/server/test_secret_steps.py: each asserts that the others are sent nothing and
that their versions stay, in a case that test does not cover."""

from __future__ import annotations

import pytest

from server.lobby import Lobby
from server.timers import ManualTimers
from support import Player, run
from tests.server.test_secret_steps import _die, dice_step


@pytest.mark.parametrize("clock", ["none", "move:30", "fischer:120+5"])
async def test_the_last_seat_setting_its_dice_alone_sends_the_others_nothing(
    lobby: Lobby, timers: ManualTimers, clock: str
) -> None:
    """Bo and cy are ready: ana, the only seat still asked, sets a die (not her last).
    How many she has set is hidden until she is ready, so her clock must not move (the
    others would count her dice by its deadline) and no one else is sent a frame."""
    room, players = await dice_step(lobby, clock)
    ana, bo, cy = players
    spectator = await Player(room, None).join()
    for player in (bo, cy):
        while room.state is not None and player.seat in room._to_act(room.state):
            player.room.submit(player, _die(player))
            await room.settled()
    assert room.state is not None and room._to_act(room.state) == {0}
    assert room.state["seats"][0]["dice"] > 1
    sent = {id(p): len(p.frames) for p in (bo, cy, spectator)}
    versions = {v: room.views.version(room, v) for v in (None, 1, 2)}
    listed, record = await lobby.details(room.id), await lobby.history(room.id, views=True)
    await run(timers, room, 5)
    ana.room.submit(ana, _die(ana))
    await room.settled()
    assert room._to_act(room.state) == {0}, "ana has dice left to set"
    for other in (bo, cy, spectator):
        assert other.frames[sent[id(other)] :] == [], f"seat {other.seat} was sent a frame"
    assert {v: room.views.version(room, v) for v in (None, 1, 2)} == versions
    assert await lobby.details(room.id) == listed
    assert await lobby.history(room.id, views=True) == record


@pytest.mark.parametrize("clock", ["none", "move:30"])
async def test_a_zombie_setting_the_last_seats_dice_counts_one_timeout(
    lobby: Lobby, timers: ManualTimers, clock: str
) -> None:
    """Bo and cy are ready; ana, asked alone, sets nothing: zombies set her dice at her
    deadline (or when she is idle too long), all at once, one timeout for the step, and
    the others are sent nothing until she is ready (a frame a die would count them)."""
    room, players = await dice_step(lobby, clock)
    _, bo, cy = players
    spectator = await Player(room, None).join()
    for player in (bo, cy):
        while room.state is not None and player.seat in room._to_act(room.state):
            player.room.submit(player, _die(player))
            await room.settled()
    assert room.state is not None and room.state["seats"][0]["dice"] > 1
    sent = len(spectator.frames)
    for _ in range(room.state["seats"][0]["dice"]):
        if room.state["phase"] != 1:
            break
        await run(timers, room, room.table.options["idle"] + 30)
    assert room.state["phase"] != 1, "ana's dice were set"
    patches = [f for f in spectator.frames[sent:] if f["t"] == "patch"]
    assert len(patches) == 1, patches
    assert room.table.timeouts[0] == 1
