"""``Table.due``, the owner's next wake-up, against the rule it implements written out
as the earliest of every candidate (the code it replaced), over random tables."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from server.table import Table

Due = tuple[float, str, int | None]

times = st.one_of(st.none(), st.floats(0, 1000, allow_nan=False))


def earliest(table: Table, to_act: frozenset[int]) -> Due | None:
    """Every candidate listed in order, and the first of the earliest."""
    options = table.options
    found: list[Due] = []
    people = [s for s, bot in enumerate(table.bots) if bot is None]
    here = any(table.connected[s] for s in people)
    for seat in sorted(to_act):
        since = table.since[seat]
        if since is None:
            continue
        if table.bots[seat] is not None:
            found.append((since + options["bot_delay"], "bot", seat))
            continue
        if not here:
            continue
        deadline = table.deadline[seat]
        if deadline is not None:
            found.append((deadline, "clock", seat))
        away = table.away_since[seat]
        if not table.connected[seat] and away is not None:
            found.append((max(away + options["grace"], since + options["bot_delay"]), "away", seat))
        elif table.connected[seat] and table.clock.kind == "none":
            found.append((since + options["idle"], "idle", seat))
    aways = [table.away_since[s] for s in people if not table.connected[s]]
    if people and len(aways) == len(people) and None not in aways:
        found.append(
            (max(a for a in aways if a is not None) + options["abandon_after"], "abandon", None)
        )
    return min(found, key=lambda f: f[0]) if found else None


@st.composite
def tables(draw: Any) -> tuple[Table, frozenset[int]]:
    seats = draw(st.integers(1, 6))
    clock = draw(st.sampled_from(["none", "move:30", "fischer:60+5"]))
    options = {
        "clock": clock,
        "bot_delay": draw(st.sampled_from([0, 0.5, 1.0])),
        "grace": draw(st.sampled_from([0, 10.0, 60.0])),
        "idle": draw(st.sampled_from([30, 300.0])),
        "abandon_after": draw(st.sampled_from([0, 60.0, 600.0])),
    }

    def column(values: Any) -> list[Any]:
        return draw(st.lists(values, min_size=seats, max_size=seats))

    data = {
        "bots": column(st.sampled_from([None, None, "random"])),
        "connected": column(st.booleans()),
        "away_since": column(times),
        "timeouts": [0] * seats,
        "remaining": [60.0] * seats,
        "deadline": column(times),
        "since": column(times),
    }
    to_act = frozenset(draw(st.sets(st.integers(0, seats - 1))))
    return Table(seats, options, data), to_act


@given(tables())
def test_the_next_wake_up_is_the_first_of_the_earliest_candidates(
    drawn: tuple[Table, frozenset[int]],
) -> None:
    table, to_act = drawn
    assert table.due(to_act) == earliest(table, to_act)


def test_ties_go_to_the_lower_seat_and_a_clock_before_idle() -> None:
    data = {
        "bots": [None, None],
        "connected": [True, True],
        "away_since": [None, None],
        "timeouts": [0, 0],
        "remaining": [60.0, 60.0],
        "deadline": [None, 5.0],
        "since": [0.0, 0.0],
    }
    table = Table(2, {"clock": "none", "idle": 5.0}, data)
    assert table.due(frozenset({0, 1})) == (5.0, "idle", 0)
    table.deadline[0] = 5.0
    assert table.due(frozenset({1, 0})) == (5.0, "clock", 0)


def test_a_table_everyone_left_is_abandoned_after_the_last_one_left() -> None:
    data = {
        "bots": [None, "random", None],
        "connected": [False, True, False],
        "away_since": [20.0, None, 10.0],
        "timeouts": [0, 0, 0],
        "remaining": [60.0] * 3,
        "deadline": [None] * 3,
        "since": [None] * 3,
    }
    table = Table(3, {"abandon_after": 60.0}, data)
    assert table.due(frozenset()) == (80.0, "abandon", None)
    table.away_since[2] = None  # one left without a time: no abandonment yet
    assert table.due(frozenset()) is None
    table.connected[2] = True
    assert table.due(frozenset()) is None
