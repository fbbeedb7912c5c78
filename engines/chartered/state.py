"""Chartered's cards and state helpers, per ``rules/chartered.md``.

The cards of the box (§6.2, §11.2), the stock chart's bounds (§7), and the
helpers the turn's parts share: the board's neighbours, occupied plots and the
buffer zone (§5.4), how a plot card would build (§9.0), share prices and the
bank's shares (§10.1), and money paid to and from the bank.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

from engines.base import State
from engines.chartered.board import board, closed_to_founding, components, founding_layouts


@cache
def cards() -> tuple[dict[str, Any], ...]:
    """Every card of the box, by id: plot, level and event cards (§6.2, §11.2)."""
    table: list[dict[str, Any]] = []
    for entry in components()["deck"]:
        if entry["kind"] == "plot":
            first, last = entry["plots"]
            table += [
                {"kind": "plot", "plot": p, "color": entry["color"]} for p in range(first, last + 1)
            ]
        else:
            table += [
                {"kind": "level", "level": entry["level"], "color": entry["color"]}
                for _ in range(entry["count"])
            ]
    table += [{"kind": "event", **event} for event in components()["events"]]
    return tuple(table)


def company_ids() -> list[str]:
    return [c["id"] for c in components()["companies"]]


def clamp(value: int) -> int:
    """§7: values stay within ƒ30 … ƒ500."""
    stock = components()["stock"]
    return int(max(stock["min"], min(stock["max"], value)))


def _card(card: int) -> dict[str, Any]:
    return {"id": card, **cards()[card]}


def _bank_shares(state: State, company: str) -> int:
    held = sum(sum(s[company]) for s in state["shares"])
    return int(components()["shares_per_company"]) - held


def _held(state: State, seat: int) -> list[str]:
    return [c for c, n in state["shares"][seat].items() if sum(n)]


def _price(state: State, company: str) -> int:
    """§10.1: a share costs its value, at least ƒ50."""
    return int(max(components()["prices"]["share_minimum"], state["companies"][company]["value"]))


def _pay(state: State, seat: int, amount: int) -> None:
    """Money from a seat to the bank (the bank is unlimited; ``bank`` is its ledger)."""
    state["cash"][seat] -= amount
    state["bank"] += amount


def _neighbours(state: State, plot: int) -> tuple[int, ...]:
    return board(state["board"])[plot]


def _adjacent_companies(state: State, plot: int) -> list[str]:
    return sorted({state["plots"][n][0] for n in _neighbours(state, plot) if state["plots"][n]})


def _occupied(state: State) -> list[int]:
    return [p for p, held in enumerate(state["plots"]) if held]


def _closed(state: State) -> set[int]:
    """Occupied plots and the buffer zone around them (§5.4)."""
    return set(_closed_of(state["board"], tuple(_occupied(state)), state["options"]["buffer"]))


@lru_cache(maxsize=256)
def _closed_of(side: str, occupied: tuple[int, ...], buffer: int) -> frozenset[int]:
    """:func:`_closed` by what it depends on: a turn asks it of one board many times."""
    return frozenset(closed_to_founding(board(side), occupied, buffer))


def _founding_layouts(
    state: State, plot: int, closed: set[int] | None = None
) -> list[tuple[int, int]]:
    return founding_layouts(
        board(state["board"]), plot, _closed(state) if closed is None else closed
    )


def _plot_outcome(state: State, plot: int, closed: set[int] | None = None) -> str | None:
    """§9.0: what playing the plot card for ``plot`` would do, or None if unplayable.
    ``closed`` (the buffer zone) may be passed in when it is known."""
    held = state["plots"][plot]
    if held:
        cap = state["options"]["stack_cap"]
        return "stack" if not cap or held[1] < cap else None
    near = _adjacent_companies(state, plot)
    if len(near) == 1:
        return "expand"
    if len(near) > 1:
        return "merge"
    can_found = (
        len(state["companies"]) < len(company_ids())
        and state["supply"] >= components()["founding_warehouses"]
        and _founding_layouts(state, plot, closed)
    )
    return "found" if can_found else None


def _add_value(state: State, company: str, amount: int) -> None:
    state["companies"][company]["value"] = clamp(state["companies"][company]["value"] + amount)
