"""The engines' PRNG: SplitMix64, reproducible bit for bit."""

from __future__ import annotations

from collections import Counter

from engines.rng import Rng, seed_state


def test_splitmix64_matches_the_reference_outputs() -> None:
    """Seed 0 of the reference implementation (Vigna's splitmix64.c)."""
    rng = Rng(seed_state(0))
    assert [rng.next_u64() for _ in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]


def test_below_stays_in_range_and_covers_it() -> None:
    rng = Rng(seed_state(42))
    counts = Counter(rng.below(6) for _ in range(6000))
    assert set(counts) == set(range(6))
    assert min(counts.values()) > 800


def test_shuffle_is_a_permutation_and_depends_only_on_the_state() -> None:
    first, second = list(range(20)), list(range(20))
    Rng(seed_state(7)).shuffle(first)
    Rng(seed_state(7)).shuffle(second)
    assert first == second != list(range(20))
    assert sorted(first) == list(range(20))


def test_seeds_are_taken_modulo_two_to_the_64() -> None:
    assert seed_state(-1) == 2**64 - 1
    assert Rng(seed_state(2**64 + 5)).next_u64() == Rng(seed_state(5)).next_u64()
