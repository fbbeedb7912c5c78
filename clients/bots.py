"""``tablewire bots``: real WebSocket bot clients that play rooms to the end.

Each bot is a :class:`~clients.client.RoomClient` holding one seat and a pure
bot from :mod:`engines.bots`; spectators only mirror the view. The runner
either creates ``rooms`` rooms of ``players`` bots (plus spectators) each, or
fills the free seats of one existing room, and reports one JSON line.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from clients.client import LobbyClient, RoomClient, ws_url
from engines.bots import RandomBot

MAX_REJECTS_IN_A_ROW = 20


@dataclass
class Summary:
    """What a bot run did; ``ok`` only if every game finished without errors."""

    game: str
    rooms: int = 0
    players: int = 0
    spectators: int = 0
    games_finished: int = 0
    intents: int = 0
    rejects: int = 0
    resyncs: int = 0
    errors: int = 0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    """The first few failures, for diagnosis."""

    @property
    def ok(self) -> bool:
        return self.errors == 0 and self.games_finished == self.rooms

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _finished(doc: Any) -> bool:
    return bool(doc["status"] == "finished")


async def play_seat(client: RoomClient, bot: RandomBot, summary: Summary) -> None:
    """Play one seat until the game ends."""
    seat = client.seat
    rejects_in_a_row = 0
    while True:
        doc = await client.wait_for(
            lambda d: _finished(d) or (d["status"] == "playing" and seat in d["to_act"])
        )
        if _finished(doc):
            return
        actions = await client.legal()
        reply = await client.intent(bot.choose(doc["game"], actions))
        summary.intents += 1
        if reply["t"] == "reject":
            summary.rejects += 1
            rejects_in_a_row += 1
            if rejects_in_a_row >= MAX_REJECTS_IN_A_ROW:
                raise RuntimeError(f"seat {seat}: {rejects_in_a_row} rejects in a row: {reply}")
            continue
        rejects_in_a_row = 0
        await client.wait_version(reply["v"])


async def _run_room(
    lobby: LobbyClient,
    ws_base: str,
    room_id: str,
    spectators: int,
    seed: int,
    summary: Summary,
) -> None:
    room = await lobby.room(room_id)
    if None not in room["names"]:
        raise RuntimeError(f"room {room_id} has no free seat for a bot")
    seats = [
        await lobby.reserve(room_id, name=f"bot {seat + 1}")
        for seat, name in enumerate(room["names"])
        if name is None
    ]
    players = [RoomClient(ws_base, room_id, s["token"]) for s in seats]
    watchers = [RoomClient(ws_base, room_id) for _ in range(spectators)]
    clients = players + watchers
    try:
        for client in clients:
            await client.connect()
        await asyncio.gather(
            *(play_seat(c, RandomBot(seed * 100 + i), summary) for i, c in enumerate(players)),
        )
        results = await asyncio.gather(*(c.wait_result() for c in clients))
        if all(r == results[0] for r in results) and all(_finished(c.doc) for c in clients):
            summary.games_finished += 1
        if watchers and any(w.doc != watchers[0].doc for w in watchers):
            summary.errors += 1
    finally:
        summary.resyncs += sum(c.resyncs for c in clients)
        for client in clients:
            summary.errors += len(client.errors)
            summary.failures += [f"{e['code']}: {e['message']}" for e in client.errors[:5]]
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)


async def run(
    server: str,
    game: str,
    rooms: int,
    players: int,
    spectators: int = 0,
    options: dict[str, Any] | None = None,
    seed: int = 0,
    room_id: str | None = None,
    time_limit: float = 600.0,
) -> Summary:
    """Create ``rooms`` rooms (or fill ``room_id``) and play them all to the end."""
    summary = Summary(game=game, spectators=spectators)
    started = time.perf_counter()
    ws_base = ws_url(server)
    async with LobbyClient(server) as lobby:
        if room_id is not None:
            room = await lobby.room(room_id)
            room_ids = [room_id]
            summary.game, players = room["engine"], room["seats"]
        else:
            room_ids = [
                (await lobby.create_room(game, seats=players, options=options, seed=seed + i))["id"]
                for i in range(rooms)
            ]
        summary.rooms = len(room_ids)
        summary.players = players
        try:
            async with asyncio.timeout(time_limit):
                outcomes = await asyncio.gather(
                    *(
                        _run_room(lobby, ws_base, rid, spectators, seed + i, summary)
                        for i, rid in enumerate(room_ids)
                    ),
                    return_exceptions=True,
                )
        except TimeoutError:
            outcomes = [TimeoutError(f"not finished within {time_limit} s")]
    failures = [o for o in outcomes if isinstance(o, BaseException)]
    summary.errors += len(failures)
    summary.failures += [f"{type(f).__name__}: {f}" for f in failures[:5]]
    summary.seconds = round(time.perf_counter() - started, 3)
    return summary
