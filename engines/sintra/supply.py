"""The pieces in play (§2.8–2.9, §3.3): the bag, the tower of used pieces, the
factories and the centre. Drawing from the bag, refilling the factories, and the
sources a player takes from."""

from __future__ import annotations

from engines.base import State
from engines.rng import Rng
from engines.sintra.data import COLORS, components


def draw(bag: list[int], rng: Rng) -> int:
    """Draw one random piece from a bag of per-colour counts."""
    r = rng.below(sum(bag))
    for color, n in enumerate(bag):
        if r < n:
            bag[color] -= 1
            return color
        r -= n
    raise AssertionError("unreachable: r < sum(bag)")


def refill_factories(state: State, rng: Rng) -> None:
    """§2.9 and §3.3: four pieces a display; refill the bag from the tower once empty."""
    per_factory = components()["pieces_per_factory"]
    bag, tower = state["bag"], state["tower"]
    for factory in state["factories"]:
        for _ in range(per_factory):
            if not any(bag):
                bag[:] = [b + t for b, t in zip(bag, tower, strict=True)]
                tower[:] = [0] * COLORS
                if not any(bag):
                    return
            factory[draw(bag, rng)] += 1


def sources(state: State) -> list[tuple[int | None, list[int]]]:
    """The factories by index, then the centre as ``None``, with their pieces by colour."""
    sources: list[tuple[int | None, list[int]]] = list(enumerate(state["factories"]))
    sources.append((None, state["center"]))
    return sources
