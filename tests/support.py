"""Helpers shared by the tests: random playouts and hidden-information scramblers."""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import Callable, Iterator
from typing import Any

import msgpack

from engines import Engine
from engines.base import Action, State
from engines.chartered.board import components as chartered_components
from protocol.codec import decode
from protocol.messages import Intent
from server.room import Room


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


BOUNDED_CHOICES: dict[str, dict[str, list[Any]]] = {"turn-relay": {"moves": [12, 100]}}
"""Option values random tests use instead of an engine's full choices, where the
full choices include games too long to play out thousands of times."""


def random_options(engine: Engine, rnd: random.Random) -> dict[str, Any]:
    bounded = BOUNDED_CHOICES.get(engine.id, {})
    return {
        name: rnd.choice(bounded.get(name, spec["choices"]))
        for name, spec in engine.options.items()
    }


def all_options(engine: Engine) -> list[dict[str, Any]]:
    """Every combination of option values."""
    names = list(engine.options)
    choices = [engine.options[name]["choices"] for name in names]
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*choices)]


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


class Mover:
    """Sends intents for one seat and waits for each answer (ack or reject)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.protocol = 1
        self.ids = itertools.count(1)
        self.answer: asyncio.Future[dict[str, Any]] | None = None

    def send(self, frame: bytes) -> None:
        message = decode(frame)
        if message["t"] in ("ack", "reject") and self.answer and not self.answer.done():
            self.answer.set_result(message)

    def close(self, code: str, message: str) -> None:
        pass

    async def move(self, room: Room) -> dict[str, Any]:
        assert room.state is not None
        action = room.engine.legal_actions(room.state, self.seat)[0]
        self.answer = asyncio.get_running_loop().create_future()
        room.submit(self, Intent(next(self.ids), action))
        async with asyncio.timeout(5):
            return await self.answer


# -- hidden information -------------------------------------------------------
#
# For each engine, a function that returns a copy of ``state`` changed only in
# what ``viewer`` must not see. The conformance suite checks that the viewer's
# view is byte-identical for both: whatever the hidden part holds, it leaks
# nothing. Every engine must register one.


def _scramble_sintra(state: State, viewer: int | None, rnd: random.Random) -> State:
    """The bag's and the tower's colour mix, and the PRNG, are hidden from everyone."""
    scrambled = msgpack.unpackb(packed(state))
    for pile in ("bag", "tower"):
        total = sum(scrambled[pile])
        counts = [0] * len(scrambled[pile])
        for _ in range(total):
            counts[rnd.randrange(len(counts))] += 1
        scrambled[pile] = counts
    scrambled["rng"] = rnd.getrandbits(64)
    return scrambled


def _scramble_chartered(state: State, viewer: int | None, rnd: random.Random) -> State:
    """Hidden: the deck's order, the other seats' hands (only their sizes show) and,
    with hidden shares, which companies the other seats' face-down shares are in
    (only how many each seat holds shows): they are dealt again at random among
    the companies on the board, at most nine held per company."""
    scrambled = msgpack.unpackb(packed(state))
    others = [s for s in range(scrambled["players"]) if s != viewer]
    pool = scrambled["deck"] + [c for s in others for c in scrambled["hands"][s]]
    rnd.shuffle(pool)
    for seat in others:
        size = len(scrambled["hands"][seat])
        scrambled["hands"][seat], pool = sorted(pool[:size]), pool[size:]
    scrambled["deck"] = pool
    scrambled["rng"] = rnd.getrandbits(64)
    if scrambled["options"]["hidden_shares"]:
        holdings = scrambled["shares"]
        counts = {s: sum(down for _, down in holdings[s].values()) for s in others}
        for seat in others:
            for cell in holdings[seat].values():
                cell[1] = 0
        per_company = chartered_components()["shares_per_company"]
        room = {c: per_company - sum(sum(h[c]) for h in holdings) for c in scrambled["companies"]}
        for seat in others:
            for _ in range(counts[seat]):
                company = rnd.choice(sorted(c for c, n in room.items() if n))
                holdings[seat][company][1] += 1
                room[company] -= 1
    return scrambled


def _scramble_crystal_palace(state: State, viewer: int | None, rnd: random.Random) -> State:
    """Hidden: other seats' secret dice values (until the reveal), what other seats
    did in the simultaneous loan repayment (their money, newspapers, gears, income
    and repaid loans, until every seat is ready), other seats' loan values and the
    loan stack, the order of every face-down stack, and the face-up card stacks
    below their top card."""
    scrambled = msgpack.unpackb(packed(state))
    others = [s for s in range(scrambled["players"]) if s != viewer]
    low, high = 1, 6
    repaying = scrambled["step"]["kind"] == "repay" and not scrambled["finished"]
    for seat in others:
        secret = scrambled["seats"][seat]["secret"]
        scrambled["seats"][seat]["secret"] = [rnd.randint(low, high) for _ in secret]
        if repaying:
            for key in ("money", "newspapers", "gears", "income", "repaid"):
                scrambled["seats"][seat][key] = rnd.randint(0, 7)
    pool = scrambled["loans"] + [v for s in others for v in scrambled["seats"][s]["loans"]]
    rnd.shuffle(pool)
    for seat in others:
        size = len(scrambled["seats"][seat]["loans"])
        scrambled["seats"][seat]["loans"], pool = pool[:size], pool[size:]
    scrambled["loans"] = pool
    for stack in (scrambled["green"], *scrambled["violet"].values(), *scrambled["share_piles"]):
        rnd.shuffle(stack)
    for display in (scrambled["patents"], scrambled["characters"]):
        below = display["stack"][:-1]
        rnd.shuffle(below)
        display["stack"][:-1] = below
    scrambled["rng"] = rnd.getrandbits(64)
    return scrambled


def _scramble_turn_relay(state: State, viewer: int | None, rnd: random.Random) -> State:
    """Hidden: the generator's state (the tiles to come)."""
    return {**state, "rng": rnd.getrandbits(32) or 1}


HIDDEN: dict[str, Callable[[State, int | None, random.Random], State]] = {
    "sintra": _scramble_sintra,
    "chartered": _scramble_chartered,
    "crystal-palace": _scramble_crystal_palace,
    "turn-relay": _scramble_turn_relay,
}
