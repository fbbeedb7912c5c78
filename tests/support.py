"""Helpers shared by the tests: random playouts, hidden-information scramblers, what
the tests that provoke every documented error code share, a recording console for the
terminal client, and Crystal Palace positions the rules tests start from."""

from __future__ import annotations

import io
import os
import random
import re
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import httpx
import msgpack
import pytest
from doubles import Mover
from rich.console import Console

import engines
from clients.spawn import SpawnedServer
from conftest import Running, running
from engines import ENGINES, Engine
from engines.base import STEP, Action, State
from engines.crystal_palace import ENGINE as crystal_palace
from engines.crystal_palace.data import components as crystal_palace_components
from protocol.codec import decode
from protocol.messages import Intent
from server.room import Room
from server.settings import Settings
from server.store import RoomRecord
from server.timers import ManualTimers

T = TypeVar("T")


def packed(value: Any) -> bytes:
    """Canonical bytes of plain data: equal bytes means strictly equal data."""
    return msgpack.packb(value, use_bin_type=True)


def canonical(value: Any) -> Any:
    """A form of plain data whose equality is strict about types (True is not 1)
    and, like msgpack maps, indifferent to key order."""
    if isinstance(value, dict):
        return ("map", {k: canonical(v) for k, v in value.items()})
    if isinstance(value, list):
        return ("list", [canonical(v) for v in value])
    return (type(value).__name__, value)


BOUNDED_CHOICES: dict[str, dict[str, list[Any]]] = {engines.benchmark()[0].id: {"moves": [12, 100]}}
"""Option values random tests use instead of an engine's full choices, where the
full choices include games too long to play out thousands of times (the benchmark
workload, found by kind, ends after ``moves``)."""


def random_options(engine: Engine, rnd: random.Random) -> dict[str, Any]:
    bounded = BOUNDED_CHOICES.get(engine.id, {})
    return {
        name: rnd.choice(bounded.get(name, spec["choices"]))
        for name, spec in engine.options.items()
    }


def playout(
    engine: Engine, seed: int, players: int, options: dict[str, Any], rnd: random.Random
) -> Iterator[tuple[State, int, Action]]:
    """Play random legal actions to the end; yield (state before, seat, action) per step."""
    state = engine.setup(players, options, seed)
    while engine.result(state) is None:
        seat = rnd.choice(sorted(engine.to_act(state)))
        action = rnd.choice(engine.legal_actions(state, seat))
        yield state, seat, action
        state, _ = engine.apply(state, seat, action)


# -- rooms without a network -------------------------------------------------


async def play_to_the_end(room: Room) -> None:
    """Each seat to act plays its first legal action until the game is over; every one
    must be acknowledged. (After each ack, the actor's bookkeeping is let run: the end
    a move limit logs comes there.)"""
    movers: dict[int, Mover] = {}
    while room.record.status == "playing":
        assert room.state is not None
        seat = min(room.engine.to_act(room.state))
        answer = await movers.setdefault(seat, Mover(seat)).move(room)
        assert answer["t"] == "ack", answer
        await room.settled()


# -- hidden information -----------------------------------------------------------
#
# Each game's folder has hidden.py with ``scramble(state, viewer, rnd)``: a copy of
# ``state`` changed only in what ``viewer`` must not see. The conformance suite checks
# that the viewer's view is byte-identical for both: whatever the hidden part holds,
# it leaks nothing. Every engine must have one.


def scrambler(engine_id: str) -> Callable[[State, int | None, random.Random], State] | None:
    """The hidden-information scrambler of a game's folder (None: it has no hidden.py)."""
    module = engines.part(engine_id, "hidden")
    found: Callable[[State, int | None, random.Random], State] | None = getattr(
        module, "scramble", None
    )
    return found


# -- provoking the codes of docs/protocol.md's error tables -----------------------
#
# tests/server/test_protocol_codes.py and tests/server/test_http_codes.py read a table of section 8
# and provoke each of its codes on a real server.

ROOT = Path(__file__).resolve().parent.parent
"""The repository's root."""

PROTOCOL_DOC = (ROOT / "docs" / "protocol.md").read_text()


def table_rows(heading: str) -> list[list[str]]:
    """The body rows of the first table under ``### {heading}`` in docs/protocol.md,
    as lists of stripped cells."""
    section = PROTOCOL_DOC.split(f"### {heading}", 1)[1].split("\n#", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]


def codes_in(cell: str) -> list[str]:
    """The codes a cell names (`a`, `b`)."""
    return re.findall(r"`(\w+)`", cell)


def error_code(response: httpx.Response) -> str:
    """The ``code`` of an HTTP error answer."""
    code: str = response.json()["error"]["code"]
    return code


@dataclass
class CodeEnv:
    """What a code's trigger may use besides servers of its own."""

    request: pytest.FixtureRequest
    monkeypatch: pytest.MonkeyPatch
    prefix: str
    base: Settings = field(default_factory=Settings)

    def serve(self, **settings: Any) -> AbstractAsyncContextManager[Running]:
        """A real server (:func:`conftest.running`) with ``base`` and these settings."""
        return running(replace(self.base, **settings))

    def redis_url(self) -> str:
        """The session's redis-server (started, or the test skipped, on first use)."""
        url: str = self.request.getfixturevalue("redis_url")
        return url

    @asynccontextmanager
    async def frozen_owner(self, room: Callable[[str], Awaitable[T]]) -> AsyncIterator[T]:
        """A ``tablewire serve`` process ``a`` on Redis that runs ``room(its url)`` (which
        creates a room there, so ``a`` owns it), then is frozen with SIGSTOP: it holds
        its lease and answers nothing. Yields what ``room`` returned; the process is
        killed at the end."""
        owner = SpawnedServer(redis_url=self.redis_url(), redis_prefix=self.prefix, node="a")
        await owner.start()
        try:
            made = await room(owner.url)
            os.kill(owner.pid, signal.SIGSTOP)
            yield made
        finally:
            await owner.stop(signal.SIGKILL)

    def follower(self, **settings: Any) -> AbstractAsyncContextManager[Running]:
        """A server ``b`` on the Redis of :meth:`frozen_owner`, which gives up on the
        owner after 0.2 s."""
        redis = {"redis_url": self.redis_url(), "redis_prefix": self.prefix, "node": "b"}
        return self.serve(**redis, forward_timeout=0.2, **settings)

    def faulty_engine(self, fault: str) -> str:
        """Register, for this test only, the engine ``faulty``: the benchmark engine whose
        method ``fault`` (``apply``, ``setup``) raises. Returns its id."""
        faulty = Faulty(fault)
        self.monkeypatch.setitem(ENGINES, faulty.id, faulty)
        return faulty.id


class Faulty:
    """The benchmark engine with a bug (:meth:`CodeEnv.faulty_engine`): every attribute
    is that engine's but the method ``fault``, which raises. It wraps the engine rather than
    subclass it: under ``make test`` the engine is compiled, and an interpreted class
    cannot inherit from a compiled one."""

    id = "faulty"

    def __init__(self, fault: str) -> None:
        self._relay = engines.benchmark()[0]
        self._fault = fault

    def __getattr__(self, name: str) -> Any:
        if name == self._fault:
            return self.fail
        return getattr(self._relay, name)

    def fail(self, *args: Any) -> Any:
        raise RuntimeError("a bug in the engine")


@pytest.fixture
def code_env(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, prefix: str
) -> CodeEnv:
    return CodeEnv(request, monkeypatch, prefix)


Trigger = Callable[[CodeEnv], Awaitable[T]]
"""Provokes a code on servers of its own; returns what carried the code."""


class Triggers(dict[str, Trigger[T]]):
    """Each documented code, and the trigger that provokes it (``@triggers.case(code)``)."""

    def case(self, code: str) -> Callable[[Trigger[T]], Trigger[T]]:
        def register(trigger: Trigger[T]) -> Trigger[T]:
            assert code not in self, f"two triggers for {code}"
            self[code] = trigger
            return trigger

        return register

    def check_coverage(self, documented: set[str], untestable: dict[str, str]) -> None:
        """Every documented code is provoked or explained untestable, and nothing else."""
        assert len(documented) >= 20, "the table was not found"
        assert not set(self) & set(untestable), "a code is both provoked and untestable"
        assert sorted(set(self) | set(untestable)) == sorted(documented)


# -- the terminal client ------------------------------------------------------------


def recorded(width: int = 80, height: int = 24) -> tuple[Console, io.StringIO]:
    """A console of ``width`` × ``height`` without colour, and what it printed."""
    out = io.StringIO()
    return Console(file=out, width=width, height=height, color_system=None), out


def stepped(factories: int = 9, colours: int = 5, strips: int = 8) -> list[str]:
    """Sintra-like labels in three choice steps: 9 × 5 × 8 = 360 moves."""
    return [
        f"factory {f}{STEP}{c} glass{STEP}strip {s}"
        for f in range(1, factories + 1)
        for c in ("red", "orange", "yellow", "light blue", "dark blue")[:colours]
        for s in range(1, strips + 1)
    ]


# -- Crystal Palace positions ---------------------------------------------------------


Act = dict[str, Any]


def game(players: int = 2, **options: Any) -> State:
    """A new game with a fixed publisher (1B, Punch: +2 buzz and +1 newspaper)."""
    return crystal_palace.setup(players, {"publisher": "1B", **options}, seed=7)


def play(state: State, seat: int, *actions: Act) -> State:
    """Apply ``actions`` of ``seat`` in turn."""
    for action in actions:
        state, _ = crystal_palace.apply(state, seat, action)
    return state


def commit(state: State, dice: list[list[int]]) -> tuple[State, list[dict[str, Any]]]:
    """Phase 1: every seat sets the given values; returns the state after the reveal."""
    events: list[dict[str, Any]] = []
    for seat, values in enumerate(dice):
        state["seats"][seat]["dice"] = len(values)
    for seat, values in enumerate(dice):
        for value in values:
            state, more = crystal_palace.apply(state, seat, {"type": "die", "value": value})
            events += more
    return state, events


def resolve(
    state: State, placed: dict[str, list[tuple[int, int, int]]], last: tuple[int, str, int, int]
) -> State:
    """Jump to the last placement of phase 2: ``placed`` maps a location to (space, seat,
    value) dice already there; ``last`` = (seat, location, space, value) is placed now
    (no assistant action), which starts phase 3."""
    for location, dice in placed.items():
        for space, seat, value in dice:
            state["board"][location]["placed"][space] = [seat, value]
    seat, location, space, value = last
    for player in state["seats"]:
        player["unplaced"], player["passed"] = [], True
    state["seats"][seat].update(unplaced=[value], passed=False)
    state["phase"], state["step"], state["turn"] = 2, {"kind": "place"}, seat
    state = play(
        state, seat, {"type": "place", "location": location, "space": space, "value": value}
    )
    if state["step"]["kind"] == "assistant":
        state = play(state, seat, {"type": "skip"})
    return state


def kinds(state: State, seat: int) -> set[str]:
    """The types of the legal actions of ``seat``."""
    return {a["type"] for a in crystal_palace.legal_actions(state, seat)}


def pay_nothing(state: State) -> State:
    """No seat has characters, so phase 4 pays no salaries."""
    for player in state["seats"]:
        player["characters"] = []
    return state


def placement_turn(players: int, seat: int, values: list[int]) -> State:
    """Phase 2, ``seat`` to place the dice ``values``; every other seat holds one die."""
    state = game(players)
    state["phase"], state["step"], state["turn"] = 2, {"kind": "place"}, seat
    for player in state["seats"]:
        player["unplaced"] = [1]
    state["seats"][seat]["unplaced"] = values
    return state


def end_of_phase3(state: State, seat: int = 0) -> State:
    """Place one die of ``seat`` where it is declined: phases 4–7 then run."""
    state = resolve(state, {}, (seat, "westminster", 1, 3))
    return play(state, seat, {"type": "decline"})


def last_round(players: int = 2) -> State:
    """A game in its last round, without characters."""
    state = pay_nothing(game(players))
    state["round"] = len(crystal_palace_components()["rounds"]) - 1
    return state


def record(room_id: str, created: float = 1.0, status: str = "waiting") -> RoomRecord:
    """A two-seat Sintra room's record, as a store keeps it."""
    return RoomRecord(
        id=room_id,
        engine="sintra",
        seats=2,
        options={"side": "A"},
        private=False,
        seed=7,
        created=created,
        updated=created,
        status=status,
        names=[None, None],
    )


class Player:
    """A connection of one seat (or a spectator) that keeps its frames."""

    def __init__(self, room: Room, seat: int | None) -> None:
        self.room, self.seat = room, seat
        self.protocol = 1
        self.frames: list[dict[str, Any]] = []
        self.ids = iter(range(1, 1_000_000))

    def send(self, frame: bytes) -> None:
        self.frames.append(decode(frame))

    def close(self, code: str, message: str) -> None:
        pass

    async def join(self) -> Player:
        if self.seat is not None:
            await self.room.arrive(self.seat)
        self.room.attach(self, None)
        return self

    def leave(self) -> None:
        self.room.detach(self)

    async def play(self, rnd: random.Random) -> dict[str, Any]:
        """One random legal move; the ack or reject."""
        room = self.room
        assert room.state is not None and self.seat is not None
        action = rnd.choice(room.engine.legal_actions(room.state, self.seat))
        room.submit(self, Intent(next(self.ids), action))
        await room.settled()
        return [f for f in self.frames if f["t"] in ("ack", "reject")][-1]


async def run(timers: ManualTimers, room: Room, seconds: float) -> None:
    """Move time forward and let the room do what became due."""
    timers.advance(seconds)
    await room.settled()
    await room.settled()
