"""``tablewire loadtest``: load a server with rooms of bots over real WebSockets.

Two modes, both speaking the normal protocol over real WebSocket connections:

* ``--workload turn-relay`` — the paced workload of ``bench/turn-relay.md``:
  N rooms × 4 seats (+ S spectators), every room's move ``k`` due at
  ``φᵢ + k·T`` and sent by its seat once that seat holds move ``k − 1``
  (§4), latency and CPU measured as §5 says, every client's final state
  checked against the reference simulation. One JSON line with the fields
  of §6 first. Its clients are :class:`~clients.lean.LeanClient` (no task or
  lock per frame), so one load-generator core holds thousands of them.
* ``--game ENGINE`` — full games with random or greedy bots, as fast as they
  go (the ``tablewire bots`` runner, timed): intent→ack and intent→patch
  latency for players, intent→update for spectators, bytes per patch and
  per snapshot, reconnects, rejects by code.

``--spawn`` starts ``tablewire serve`` on 127.0.0.1 (memory or Redis store;
pinned to CPU 0 with ``taskset`` while the load generator takes CPU 1, when
the machine has two CPUs or more); otherwise ``--server URL`` is loaded and
its CPU is read from ``/proc`` only when ``--server-pid`` is given. Every
phase is bounded in time; the exit status is non-zero if any error occurred.

A turn-relay run that completed fewer than ``SATURATED_BELOW`` (99 %) of the
moves it offered is ``saturated``, and ``limit`` names the side that was
full (:func:`saturation`): ``"server"`` or ``"load_generator"`` when that
side used ``CPU_BOUND`` (0.9) of a core or more (the busier one if both),
``"unknown"`` when neither did (CPU taken by other work on the machine, or a
server whose CPU cannot be read). ``tablewire loadtest`` then exits with
status 5.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import platform
import resource
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any
from urllib.parse import urlsplit

from rich.console import Console
from rich.live import Live
from rich.table import Table
from websockets.exceptions import WebSocketException

from clients import bots
from clients.addresses import ws_url
from clients.client import LobbyClient, Unreachable
from clients.lean import LeanClient
from clients.retry import OnWait, WaitNotices
from clients.spawn import Server, server_under_test
from clients.stats import LoopDelay, percentile, tree_cpu_seconds, tree_rss_mib
from engines import benchmark
from protocol import PROTOCOL_VERSION

WORKLOAD, _RULES = benchmark()  # the paced workload: the engine of kind "benchmark"
SEATS, client_move, simulate = WORKLOAD.max_players, _RULES.client_move, _RULES.simulate

JOIN_AT_ONCE = 16
JOIN_ATTEMPTS = 3
JOIN_DEADLINE = 180.0
SETTLE = 1.0
DRAIN = 5.0
PING_INTERVAL_MS = 20_000
"""uvicorn's default WebSocket keepalive ping interval."""
SATURATED_BELOW = 0.99
"""A turn-relay run completing fewer moves than this share of the offered ones is saturated."""
CPU_BOUND = 0.9
"""CPU seconds per second of window from which a side counts as full (bench/turn-relay.md §5)."""


@dataclass
class Config:
    """What to run; the command line's options."""

    workload: str | None = None
    game: str | None = None
    rooms: int = 10
    players: int = 4
    spectators: int = 0
    interval_ms: float = 100.0
    duration_s: float = 20.0
    bot: str = "random"
    server: str | None = None
    server_pid: int | None = None
    spawn: bool = False
    store: str = "memory"
    pin: bool = True
    seed: int = 0
    timeout: float = 900.0
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Progress:
    """Counters the progress display reads while a run goes."""

    phase: str = "starting"
    rooms_joined: int = 0
    moves: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    errors: int = 0
    started: float = field(default_factory=time.monotonic)


@contextlib.contextmanager
def quiet_gc() -> Iterator[None]:
    """Keep the load generator's collector out of the measurement window: everything
    alive after the join is frozen, and collections are rarer while it lasts."""
    thresholds = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def _ms(values: list[float], p: float) -> float | None:
    return round(percentile(values, p), 3) if values else None


def _versions() -> dict[str, str]:
    names = ("tablewire", "websockets", "uvicorn", "starlette", "msgpack")
    found = {name: metadata.version(name) for name in names}
    return {"python": platform.python_version(), **found}


# -- the turn-relay workload (bench/turn-relay.md §4–§6) ------------------------------


def saturation(
    moves: int, target: int, server_util: float | None, loadgen_util: float | None
) -> tuple[bool, str | None]:
    """Whether a run fell short of its offered moves, and which side was the limit.

    The limit is the side that used ``CPU_BOUND`` of a core or more, the
    busier one if both did; ``"unknown"`` if neither did (or the server's CPU
    is unknown and the load generator's is below the bound); None when the
    run was not saturated.
    """
    if not target or moves >= SATURATED_BELOW * target:
        return False, None
    shares = {"server": server_util or 0.0, "load_generator": loadgen_util or 0.0}
    busiest = max(shares, key=lambda side: shares[side])
    return True, busiest if shares[busiest] >= CPU_BOUND else "unknown"


@dataclass
class RelayRoom:
    index: int
    players: list[LeanClient]
    spectators: list[LeanClient]
    sent: dict[int, float] = field(default_factory=dict)
    intent_ids: dict[int, Any] = field(default_factory=dict)

    @property
    def clients(self) -> list[LeanClient]:
        return self.players + self.spectators


async def _join(lobby: LobbyClient, ws: str, index: int, spectators: int) -> RelayRoom:
    room = await lobby.create_room(WORKLOAD.id, seats=SEATS, seed=index)
    seats = [await lobby.reserve(room["id"], name=f"p{seat}") for seat in range(SEATS)]
    players = [LeanClient(ws, room["id"], s["token"]) for s in seats]
    watchers = [LeanClient(ws, room["id"], None) for _ in range(spectators)]
    try:
        for client in players + watchers:
            await client.connect()
        last = players[-1]
        await last.wait_until(lambda c: c.doc is not None and c.doc["status"] == "playing")
        version = last.version
        assert version is not None and last.doc["game"]["moveCount"] == 0
        for client in players + watchers:
            await client.wait_version(version)
    except BaseException:
        for client in players + watchers:  # a failed attempt leaves no connection behind
            client.close()
        raise
    return RelayRoom(index, players, watchers)


async def _join_all(
    config: Config, server: Server, live: Progress, errors: Counter[str], on_wait: OnWait | None
) -> list[RelayRoom]:
    gate = asyncio.Semaphore(JOIN_AT_ONCE)
    ws = ws_url(server.url)

    async def one(lobby: LobbyClient, index: int) -> RelayRoom | None:
        async with gate:
            for _ in range(JOIN_ATTEMPTS):
                try:
                    room = await _join(lobby, ws, index, config.spectators)
                    live.rooms_joined += 1
                    return room
                except Exception:
                    continue
            errors["rooms_failed_to_join"] += 1
            return None

    lobby = LobbyClient(server.url, on_wait=on_wait)
    async with lobby, asyncio.timeout(JOIN_DEADLINE):
        await lobby.games()  # a server that cannot be reached ends the run here (status 3)
        joined = await asyncio.gather(*(one(lobby, i) for i in range(config.rooms)))
    return [room for room in joined if room is not None]


async def _drive(
    room: RelayRoom, phase: float, interval: float, end: float, live: Progress
) -> None:
    """§4.3: move k is sent at max(due_k, arrival) and never at or after the window's end.
    A connection of the room that closes ends its moves (counted after the run)."""
    with contextlib.suppress(ConnectionError, WebSocketException):
        await _moves(room, phase, interval, end, live)


async def _moves(
    room: RelayRoom, phase: float, interval: float, end: float, live: Progress
) -> None:
    k = 0
    while True:
        due = phase + k * interval
        if due >= end:
            return
        sender = room.players[k % SEATS]
        await sender.wait_moves(k)  # its turn: move k - 1 is in (a presence entry is not)
        if k and (reached := sender.reached(k)) is not None:
            live.latencies_ms.append((reached - room.sent[k - 1]) * 1000)
        # A timer may fire a little early: re-arm, a move is never sent before it is due.
        while (wait := due - time.monotonic()) > 0:  # noqa: ASYNC110
            await asyncio.sleep(wait)
        if time.monotonic() >= end:
            return
        move = client_move(sender.doc["game"])
        intent_id = sender.new_intent_id()
        room.intent_ids[k] = intent_id
        room.sent[k] = time.monotonic()
        sender.send({"t": "intent", "id": intent_id, "action": move})
        live.moves += 1
        k += 1


def _frames(rooms: list[RelayRoom]) -> tuple[Counter[str], Counter[str]]:
    frames: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    for room in rooms:
        for client in room.clients:
            frames.update(client.received)
            sizes.update(client.bytes_received)
    return frames, sizes


async def run_turn_relay(
    config: Config, server: Server, live: Progress, on_wait: OnWait | None = None
) -> dict[str, Any]:
    with quiet_gc():
        return await _turn_relay(config, server, live, on_wait)


async def _turn_relay(
    config: Config, server: Server, live: Progress, on_wait: OnWait | None = None
) -> dict[str, Any]:
    errors: Counter[str] = Counter()
    join_started = time.monotonic()
    live.phase = "joining"
    rooms = await _join_all(config, server, live, errors, on_wait)
    join_s = time.monotonic() - join_started
    live.phase = "settling"
    await asyncio.sleep(SETTLE)
    interval = config.interval_ms / 1000
    frames0, sizes0 = _frames(rooms)
    cpu0 = tree_cpu_seconds(server.pid) if server.pid else None
    own0 = resource.getrusage(resource.RUSAGE_SELF)
    delay = LoopDelay()
    delay.start()
    t0 = time.monotonic()
    end = t0 + config.duration_s
    live.phase = "running"
    live.started = t0
    drivers = [
        asyncio.create_task(
            _drive(room, t0 + i * interval / max(1, len(rooms)), interval, end, live)
        )
        for i, room in enumerate(rooms)
    ]
    # asyncio.timeout, not wait_for: wait_for leaves a gather cancelled by Ctrl-C with
    # its CancelledError unretrieved, which asyncio then prints (Python 3.11).
    try:
        async with asyncio.timeout(config.duration_s + 60):
            await asyncio.gather(*drivers)
    except TimeoutError:
        errors["watchdog"] += 1
    finally:
        for driver in drivers:
            driver.cancel()
        await asyncio.gather(*drivers, return_exceptions=True)
    live.phase = "draining"
    drain_end = time.monotonic() + DRAIN

    async def answered(room: RelayRoom) -> None:
        last = max(room.sent, default=-1) + 1
        await asyncio.gather(*(c.wait_moves(last) for c in room.clients))

    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(max(0.0, drain_end - time.monotonic())):
            await asyncio.gather(*(answered(r) for r in rooms), return_exceptions=True)
    window_end = time.monotonic()
    cpu1 = tree_cpu_seconds(server.pid) if server.pid else None
    own1 = resource.getrusage(resource.RUSAGE_SELF)
    delay.stop()
    frames1, sizes1 = _frames(rooms)

    latencies, fanout, acks = [], [], []
    moves = 0
    for room in rooms:
        for k, sent in room.sent.items():  # §5: the first update with moveCount ≥ k + 1
            sender = room.players[k % SEATS]
            reached = sender.reached(k + 1)
            if reached is None:
                errors["unanswered_moves"] += 1
                continue
            moves += 1
            latencies.append((reached - sent) * 1000)
            ack = sender.ack_times.get(room.intent_ids[k])
            if ack is not None:
                acks.append((ack - sent) * 1000)
            for client in room.clients:
                if (seen := client.reached(k + 1)) is not None:
                    fanout.append((seen - sent) * 1000)
    for room in rooms:
        for client in room.clients:
            errors["rejected_intents"] += sum(client.reject_codes.values())
            errors["client_errors"] += len(client.errors)
            if client.closed is not None:
                errors["connections_closed"] += 1
    cache: dict[tuple[int, int], Any] = {}
    for room in rooms:
        for client in room.clients:
            count = client.doc["game"]["moveCount"]
            key = (room.index, count)
            if key not in cache:
                cache[key] = simulate(room.index, count)
            if client.doc["game"] != cache[key]:
                errors["final_state_mismatch"] += 1
    if server.died():
        errors["server_died"] += 1
    elif rooms and sum(errors.values()) and not await _answers(server.url):  # it was there
        for room in rooms:
            for client in room.clients:
                client.close()
        raise Unreachable(server.url, "it went away during the run")
    rss = tree_rss_mib(server.pid) if server.pid else None
    window = window_end - t0
    updates = (frames1["patch"] - frames0["patch"]) + (frames1["snapshot"] - frames0["snapshot"])
    update_bytes = (sizes1["patch"] - sizes0["patch"]) + (sizes1["snapshot"] - sizes0["snapshot"])
    own_cpu = (own1.ru_utime + own1.ru_stime) - (own0.ru_utime + own0.ru_stime)
    server_cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0
    for room in rooms:
        for client in room.clients:
            client.close()
    live.errors = sum(errors.values())
    target = int(len(rooms) * config.duration_s * 1000 / config.interval_ms)
    server_util = server_cpu / window if server_cpu is not None and window else None
    loadgen_util = own_cpu / window if window else None
    saturated, limit = saturation(moves, target, server_util, loadgen_util)
    spectator_fanout = [
        (seen - sent) * 1000
        for room in rooms
        for c in room.spectators
        for k, sent in room.sent.items()
        if (seen := c.reached(k + 1)) is not None
    ]
    return {
        "peer": "python-tablewire",
        "rooms": config.rooms,
        "clients": config.rooms * (SEATS + config.spectators),
        "spectators": config.spectators,
        "moves": moves,
        "moves_per_s": round(moves / config.duration_s, 1),
        "p50_ms": _ms(latencies, 50),
        "p95_ms": _ms(latencies, 95),
        "p99_ms": _ms(latencies, 99),
        "max_ms": round(max(latencies), 3) if latencies else None,
        "server_cpu_s": None if server_cpu is None else round(server_cpu, 3),
        "server_cpu_ms_per_move": (
            None if server_cpu is None or not moves else round(1000 * server_cpu / moves, 4)
        ),
        "server_rss_mb": None if rss is None else round(rss, 1),
        "bytes_per_update_avg": round(update_bytes / updates, 1) if updates else None,
        "errors": sum(errors.values()),
        "protocol": f"tablewire/{PROTOCOL_VERSION} (WebSocket, msgpack patches)",
        "workload": WORKLOAD.id,
        "interval_ms": config.interval_ms,
        "duration_s": config.duration_s,
        "moves_target": target,
        "moves_share": round(moves / target, 4) if target else None,
        "saturated": saturated,
        "limit": limit,
        "server_cpu_util": None if server_util is None else round(server_util, 3),
        "fanout_p50_ms": _ms(fanout, 50),
        "fanout_p99_ms": _ms(fanout, 99),
        "spectator_p50_ms": _ms(spectator_fanout, 50),
        "spectator_p99_ms": _ms(spectator_fanout, 99),
        "ack_p50_ms": _ms(acks, 50),
        "ack_p99_ms": _ms(acks, 99),
        "updates_received": updates,
        "window_s": round(window, 3),
        "join_s": round(join_s, 3),
        "loadgen_cpu_s": round(own_cpu, 3),
        "loadgen_cpu_util": None if loadgen_util is None else round(loadgen_util, 3),
        "loadgen_bound": bool(loadgen_util is not None and loadgen_util >= CPU_BOUND),
        "loadgen_eld_p99_ms": _ms(delay.samples_ms, 99),
        "loadgen_eld_max_ms": round(max(delay.samples_ms), 3) if delay.samples_ms else None,
        "errors_detail": {k: v for k, v in errors.items() if v},
        "server_cpu_total_s": round(tree_cpu_seconds(server.pid), 3) if server.pid else None,
        "server_processes": 1,
        "patch_rate": "immediate",
        "ping_interval_ms": PING_INTERVAL_MS,
        "store": config.store if config.spawn else None,
        "pinned": server.pinned,
        "cores": os.cpu_count(),
        "versions": _versions(),
    }


async def _answers(url: str) -> bool:
    """Something accepts connections at ``url`` (the first, if several: the server is
    still there)."""
    parsed = urlsplit(url.split(",")[0])
    try:
        async with asyncio.timeout(5):
            _, writer = await asyncio.open_connection(parsed.hostname, parsed.port or 80)
    except (OSError, TimeoutError):
        return False
    writer.close()
    return True


# -- full games ---------------------------------------------------------------------


async def run_games(
    config: Config, server: Server, live: Progress, on_wait: OnWait | None = None
) -> dict[str, Any]:
    assert config.game is not None
    summary = bots.Summary(game=config.game, timing=bots.Timing())
    live.phase = "playing"
    cpu0 = tree_cpu_seconds(server.pid) if server.pid else None
    own0 = resource.getrusage(resource.RUSAGE_SELF)
    started = time.monotonic()
    watch = asyncio.create_task(_watch_summary(summary, live))
    try:
        await bots.run(
            server.url,
            config.game,
            config.rooms,
            config.players,
            spectators=config.spectators,
            options=config.options,
            seed=config.seed,
            time_limit=config.timeout,
            bot=config.bot,
            summary=summary,
            on_wait=on_wait,
        )
    finally:
        watch.cancel()
    seconds = time.monotonic() - started
    own1 = resource.getrusage(resource.RUSAGE_SELF)
    timing = summary.timing
    assert timing is not None
    server_cpu = None
    if server.pid and cpu0 is not None:
        server_cpu = tree_cpu_seconds(server.pid) - cpu0
    if server.died():
        summary.errors += 1
        summary.failures.append("server died")
    intents = len(timing.ack_ms)
    own_cpu = (own1.ru_utime + own1.ru_stime) - (own0.ru_utime + own0.ru_stime)

    def per_frame(kind: str) -> float | None:
        return round(timing.bytes[kind] / timing.frames[kind], 1) if timing.frames[kind] else None

    live.errors = summary.errors
    return {
        "peer": "python-tablewire",
        "workload": "games",
        "game": config.game,
        "bot": config.bot,
        "rooms": config.rooms,
        "players": config.players,
        "spectators": config.spectators,
        "clients": config.rooms * (config.players + config.spectators),
        "games_finished": summary.games_finished,
        "intents": intents,
        "intents_per_s": round(intents / seconds, 1) if seconds else None,
        "ack_p50_ms": _ms(timing.ack_ms, 50),
        "ack_p99_ms": _ms(timing.ack_ms, 99),
        "patch_p50_ms": _ms(timing.patch_ms, 50),
        "patch_p99_ms": _ms(timing.patch_ms, 99),
        "spectator_p50_ms": _ms(timing.spectator_ms, 50),
        "spectator_p99_ms": _ms(timing.spectator_ms, 99),
        "bytes_per_patch": per_frame("patch"),
        "bytes_per_snapshot": per_frame("snapshot"),
        "reconnects": summary.reconnects,
        "resyncs": summary.resyncs,
        "rejects": summary.rejects,
        "reject_codes": summary.reject_codes,
        "server_cpu_s": None if server_cpu is None else round(server_cpu, 3),
        "server_cpu_ms_per_intent": (
            None if server_cpu is None or not intents else round(1000 * server_cpu / intents, 4)
        ),
        "server_rss_mb": round(tree_rss_mib(server.pid), 1) if server.pid else None,
        "loadgen_cpu_s": round(own_cpu, 3),
        "seconds": round(seconds, 3),
        "errors": summary.errors,
        "failures": summary.failures[:5],
        "store": config.store if config.spawn else None,
        "pinned": server.pinned,
        "cores": os.cpu_count(),
        "versions": _versions(),
    }


async def _watch_summary(summary: bots.Summary, live: Progress) -> None:
    while True:
        timing = summary.timing
        live.moves = len(timing.ack_ms) if timing else summary.intents
        live.latencies_ms = timing.patch_ms if timing else []
        live.rooms_joined = summary.games_finished
        live.errors = summary.errors
        await asyncio.sleep(0.25)


# -- the display and the entry point ----------------------------------------------


def _panel(config: Config, live: Progress) -> Table:
    table = Table(title=f"tablewire loadtest · {config.workload or config.game}", box=None)
    for column in ("phase", "rooms", "moves", "moves/s", "p50 ms", "p99 ms", "errors"):
        table.add_column(column, justify="right")
    elapsed = max(1e-9, time.monotonic() - live.started)
    sample = live.latencies_ms[-5000:]
    rooms = "finished" if config.game else "joined"
    table.add_row(
        live.phase,
        f"{live.rooms_joined}/{config.rooms} {rooms}",
        str(live.moves),
        f"{live.moves / elapsed:.0f}",
        f"{percentile(sample, 50):.1f}" if sample else "—",
        f"{percentile(sample, 99):.1f}" if sample else "—",
        str(live.errors),
    )
    return table


async def loadtest(config: Config, console: Console | None = None) -> dict[str, Any]:
    """Run one load test and return its result (one JSON object). Each wait for a
    limit of the server (:mod:`clients.retry`) is a line on ``console``."""
    if (config.workload is None) == (config.game is None):
        raise ValueError(f"give either --workload {WORKLOAD.id} or --game ENGINE")
    if config.workload not in (None, WORKLOAD.id):
        raise ValueError(f"unknown workload {config.workload!r}")
    live = Progress()
    console = console or Console(stderr=True)
    show = console.print  # above the live panel, which stays at the bottom

    on_wait = WaitNotices(lambda line: show(line, markup=False, highlight=False))

    async with (
        asyncio.timeout(config.timeout),
        server_under_test(
            config.server, config.server_pid, config.spawn, config.store, config.pin
        ) as server,
    ):
        runner = run_turn_relay if config.workload else run_games
        if not console.is_terminal:
            return await runner(config, server, live, on_wait)
        with Live(_panel(config, live), console=console, refresh_per_second=4) as display:
            task = asyncio.create_task(runner(config, server, live, on_wait))
            while not task.done():
                display.update(_panel(config, live))
                await asyncio.wait({task}, timeout=0.25)
            display.update(_panel(config, live))
            return task.result()
