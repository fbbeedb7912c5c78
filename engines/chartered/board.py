"""The Chartered board: the plot graph and the geometry the rules use (rules/chartered.md §5).

Pure functions over plain data. The graph is generated from the parameters in
``data/components.json`` (the spec's proposed canal ring, §5.2), so a real
board can replace it there. Plots are ints; a graph maps each plot to the
sorted tuple of its neighbours.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from engines.base import load_components

Graph = Mapping[int, tuple[int, ...]]


@cache
def components() -> dict[str, Any]:
    """The engine's component data (board parameters, deck, setup table, events, options)."""
    return load_components(__package__)


def plot_number(block: int, row: int, column: int, columns: int) -> int:
    """§5.2: ``plot = 2·columns·block + columns·row + column + 1`` (16·b + 8·r + c + 1)."""
    return 2 * columns * block + columns * row + column + 1


@cache
def board(side: str) -> Graph:
    """The plot graph of a board side (``"center"`` or ``"harbor"``).

    Within a block, plots touch their row neighbours and the plot behind them;
    canal ``k`` joins block ``k-1``'s back row to block ``k``'s front row only
    at its bridge columns (§5.2).
    """
    params = components()["boards"]
    columns, blocks = params["columns"], params[side]["blocks"]
    edges: set[tuple[int, int]] = set()
    for block in range(blocks):
        for column in range(columns):
            front = plot_number(block, 0, column, columns)
            back = plot_number(block, 1, column, columns)
            edges.add((front, back))
            if column + 1 < columns:
                edges.add((front, front + 1))
                edges.add((back, back + 1))
        if block > 0:
            for column in params["canal_bridges"][block - 1]:
                edges.add(
                    (
                        plot_number(block - 1, 1, column, columns),
                        plot_number(block, 0, column, columns),
                    )
                )
    neighbours: dict[int, list[int]] = {
        plot_number(b, r, c, columns): []
        for b in range(blocks)
        for r in (0, 1)
        for c in range(columns)
    }
    for a, b in edges:
        neighbours[a].append(b)
        neighbours[b].append(a)
    return {plot: tuple(sorted(near)) for plot, near in sorted(neighbours.items())}


def distances(graph: Graph, sources: Iterable[int], limit: int) -> dict[int, int]:
    """Shortest distances (in edges) from the nearest source, up to ``limit``."""
    found = {plot: 0 for plot in sources}
    queue = deque(found)
    while queue:
        plot = queue.popleft()
        if found[plot] == limit:
            continue
        for near in graph[plot]:
            if near not in found:
                found[near] = found[plot] + 1
                queue.append(near)
    return found


def closed_to_founding(graph: Graph, occupied: Iterable[int], buffer: int) -> set[int]:
    """Occupied plots and their buffer zone: every plot within ``buffer`` of one (§5.4, A1)."""
    return set(distances(graph, occupied, buffer))


def founding_layouts(graph: Graph, hq: int, closed: set[int]) -> list[tuple[int, int]]:
    """The legal places (a, b) of a new company's two free warehouses around ``hq`` (§9.1).

    ``a`` touches the HQ plot and ``b`` touches the HQ plot or ``a``; both are
    distinct empty plots outside ``closed``. Each layout is listed once, as a
    sorted pair. Empty when ``hq`` itself is closed.
    """
    if hq in closed:
        return []
    layouts = set()
    for a in graph[hq]:
        if a in closed:
            continue
        for b in {*graph[hq], *graph[a]} - {hq, a}:
            if b not in closed:
                layouts.add((min(a, b), max(a, b)))
    return sorted(layouts)
