"""A small deterministic PRNG whose whole state is one 64-bit integer.

Engines keep that integer inside the game state, so a state can be copied,
serialized with msgpack and replayed bit for bit on any machine. The generator
is SplitMix64 (Steele, Lea and Flood, 2014): one multiply-xorshift mix of a
Weyl sequence, good statistical quality and trivial to reimplement in another
language.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


def seed_state(seed: int) -> int:
    """The PRNG state for a seed (any int; only its low 64 bits count)."""
    return seed & _MASK


class Rng:
    """SplitMix64 over a mutable copy of the state integer; read ``state`` back."""

    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        self.state = state

    def next_u64(self) -> int:
        self.state = (self.state + _GAMMA) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)`` (Lemire's multiply-shift; n < 2**32)."""
        if n <= 0:
            raise ValueError("n must be positive")
        return (self.next_u64() * n) >> 64

    def shuffle(self, items: list[T]) -> None:
        """Fisher–Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
