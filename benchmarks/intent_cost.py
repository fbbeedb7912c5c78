"""Server-side cost of one intent, and the size of what it sends.

    python benchmarks/intent_cost.py [--games N] [--players P] [--spectators S]

Drives real ``Room`` actors (memory store) with seated and spectating
connections that only collect frames, and plays random games through
``server.room_commands.apply_soon`` (on the memory store the move is committed before
it returns): validation, apply, store append, views, diff, encode
and queueing to every connection. Prints the median and p99 of that whole
cost per intent, the same for each stage measured apart (apply, view, diff,
encode), and the sizes in bytes of the patch frames a spectator received and
of a snapshot frame at each version.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import time

from common import machine, percentile

from clients.recorder import Recorder
from engines import ENGINES
from protocol.codec import decode, encode
from protocol.diff import diff
from protocol.messages import Intent, patch, snapshot
from server.room import Room
from server.room_commands import apply_soon
from server.settings import Settings
from server.store import MemoryStore, RoomRecord


async def play(engine_id: str, seed: int, players: int, spectators: int) -> dict[str, list[int]]:
    engine = ENGINES[engine_id]
    record = RoomRecord(
        id=f"bench{seed}",
        engine=engine_id,
        seats=players,
        options={},
        private=False,
        seed=seed,
        created=0,
        updated=0,
        names=[None] * players,
    )
    store = MemoryStore()
    room = Room(record, engine, store, Settings(), time.time)
    lease = await store.acquire(record.id, "bench")
    assert lease is not None
    await room.promote(lease)
    room.start()
    for _ in range(players):
        await room.reserve(None)
    seats = [Recorder(seat) for seat in range(players)]
    watcher = Recorder(None)
    for conn in [*seats, watcher, *(Recorder(None) for _ in range(spectators - 1))]:
        room.attach(conn, None)
    rnd = random.Random(seed)
    ids = itertools.count()
    costs: dict[str, list[int]] = {k: [] for k in ("total", "apply", "view", "diff", "encode")}
    sizes: dict[str, list[int]] = {"patch": [], "snapshot": []}
    while room.record.status != "finished":
        assert room.state is not None
        seat = rnd.choice(sorted(engine.to_act(room.state)))
        action = rnd.choice(engine.legal_actions(room.state, seat))
        before = room.state
        t0 = time.perf_counter_ns()
        apply_soon(room, seats[seat], Intent(next(ids), action), time.perf_counter())
        costs["total"].append(time.perf_counter_ns() - t0)
        await room.settled()  # the actor's bookkeeping (a snapshot, the end), untimed
        # The same stages measured apart, for the breakdown.
        t0 = time.perf_counter_ns()
        after, _ = engine.apply(before, seat, action)
        t1 = time.perf_counter_ns()
        old_view, new_view = engine.view(before, None), engine.view(after, None)
        t2 = time.perf_counter_ns()
        ops = diff(old_view, new_view)
        t3 = time.perf_counter_ns()
        encode(patch(0, 1, ops))
        t4 = time.perf_counter_ns()
        costs["apply"].append(t1 - t0)
        costs["view"].append((t2 - t1) // 2)
        costs["diff"].append(t3 - t2)
        costs["encode"].append(t4 - t3)
        sizes["snapshot"].append(len(encode(snapshot(room.version, room.views.doc(room, None)))))
    await room.close()
    sizes["patch"] = [len(f) for f in watcher.frames if decode(f)["t"] == "patch"]
    return {**costs, **sizes}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--spectators", type=int, default=2)
    args = parser.parse_args()
    print(machine())
    for engine_id in ENGINES:
        totals: dict[str, list[int]] = {}
        for seed in range(args.games):
            for key, values in (await play(engine_id, seed, args.players, args.spectators)).items():
                totals.setdefault(key, []).extend(values)
        n = len(totals["total"])
        print(
            f"{engine_id}: {args.games} games, {n} intents, {args.players} seats + "
            f"{args.spectators} spectators connected"
        )
        for stage in ("total", "apply", "view", "diff", "encode"):
            values = totals[stage]
            print(
                f"  {stage:>6}: p50 {percentile(values, 50) / 1000:7.1f} us   "
                f"p99 {percentile(values, 99) / 1000:7.1f} us"
            )
        print(
            f"  patch p50 {percentile(totals['patch'], 50)} B (p99 "
            f"{percentile(totals['patch'], 99)} B); snapshot p50 "
            f"{percentile(totals['snapshot'], 50)} B (p99 {percentile(totals['snapshot'], 99)} B)"
        )


if __name__ == "__main__":
    asyncio.run(main())
