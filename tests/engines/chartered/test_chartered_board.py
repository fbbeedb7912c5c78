"""Chartered's board geometry and component data (rules/chartered.md §2–§6, §14)."""

from __future__ import annotations

import pytest

from engines.chartered.board import (
    board,
    closed_to_founding,
    components,
    distances,
    founding_layouts,
)

# §5.3, verbatim: the Center board's adjacency list.
ADJACENCY = """
1→2,9 · 2→1,3,10 · 3→2,4,11 · 4→3,5,12 · 5→4,6,13 · 6→5,7,14 · 7→6,8,15 · 8→7,16
9→1,10 · 10→2,9,11,18 · 11→3,10,12 · 12→4,11,13 · 13→5,12,14 · 14→6,13,15,22 · 15→7,14,16 · 16→8,15
17→18,25 · 18→10,17,19,26 · 19→18,20,27 · 20→19,21,28 · 21→20,22,29 · 22→14,21,23,30 · 23→22,24,31 · 24→23,32
25→17,26 · 26→18,25,27 · 27→19,26,28,35 · 28→20,27,29 · 29→21,28,30 · 30→22,29,31 · 31→23,30,32,39 · 32→24,31
33→34,41 · 34→33,35,42 · 35→27,34,36,43 · 36→35,37,44 · 37→36,38,45 · 38→37,39,46 · 39→31,38,40,47 · 40→39,48
41→33,42 · 42→34,41,43,50 · 43→35,42,44 · 44→36,43,45 · 45→37,44,46 · 46→38,45,47,54 · 47→39,46,48 · 48→40,47
49→50,57 · 50→42,49,51,58 · 51→50,52,59 · 52→51,53,60 · 53→52,54,61 · 54→46,53,55,62 · 55→54,56,63 · 56→55,64
57→49,58 · 58→50,57,59 · 59→51,58,60,67 · 60→52,59,61 · 61→53,60,62 · 62→54,61,63 · 63→55,62,64,71 · 64→56,63
65→66,73 · 66→65,67,74 · 67→59,66,68,75 · 68→67,69,76 · 69→68,70,77 · 70→69,71,78 · 71→63,70,72,79 · 72→71,80
73→65,74 · 74→66,73,75 · 75→67,74,76 · 76→68,75,77 · 77→69,76,78 · 78→70,77,79 · 79→71,78,80 · 80→72,79
"""


def spec_adjacency() -> dict[int, tuple[int, ...]]:
    graph = {}
    for item in ADJACENCY.replace("\n", " · ").split("·"):
        if item.strip():
            plot, near = item.strip().split("→")
            graph[int(plot)] = tuple(sorted(int(n) for n in near.split(",")))
    return graph


def test_the_center_board_is_the_specs_adjacency_list() -> None:
    assert dict(board("center")) == spec_adjacency()


@pytest.mark.parametrize(
    ("side", "plots", "edges", "degrees"),
    [("center", 80, 118, {2: 20, 3: 44, 4: 16}), ("harbor", 48, 70, {2: 12, 3: 28, 4: 8})],
)
def test_board_sizes(side: str, plots: int, edges: int, degrees: dict[int, int]) -> None:
    graph = board(side)
    assert len(graph) == plots
    assert sum(len(near) for near in graph.values()) == 2 * edges
    for degree, count in degrees.items():
        assert sum(len(near) == degree for near in graph.values()) == count


def test_the_harbor_board_is_the_center_board_cut_at_48() -> None:
    center = board("center")
    cut = {p: tuple(n for n in near if n <= 48) for p, near in center.items() if p <= 48}
    assert dict(board("harbor")) == cut
    harbor = board("harbor")
    assert all(
        distances(harbor, [p], 99)[q] == distances(center, [p], 99)[q]
        for p in (1, 17, 33)
        for q in range(1, 49)
    ), "distances between Harbor plots are the same on both boards"


def test_t1_the_buffer_blocks_founding() -> None:
    """T1: X on 29 (HQ), 30, 28. Plot 25 is in the buffer; 17 is outside it, but both
    of its neighbours (18, 25) are in it, so no layout exists."""
    harbor = board("harbor")
    closed = closed_to_founding(harbor, [28, 29, 30], buffer=3)
    assert distances(harbor, [28, 29, 30], 9)[25] == 3 and 25 in closed
    assert distances(harbor, [28, 29, 30], 9)[17] == 4 and 17 not in closed
    assert founding_layouts(harbor, 25, closed) == []
    assert founding_layouts(harbor, 17, closed) == []


def test_t2_founding_layouts_on_an_empty_board() -> None:
    layouts = founding_layouts(board("harbor"), 1, set())
    for legal in [(2, 9), (2, 3), (2, 10), (9, 10)]:
        assert legal in layouts
    for illegal in [(3, 9), (2, 11)]:
        assert illegal not in layouts
    assert layouts == sorted(set(layouts)), "each layout once"


def test_t4_the_two_companies_are_five_plots_apart() -> None:
    harbor = board("harbor")
    assert min(distances(harbor, [33, 34, 41], 9)[p] for p in (39, 40, 48)) == 5


def test_t5_a_three_way_merger_plot_exists() -> None:
    """T5: X (29, 30, 28), Y (8, 7, 16) and Z (12, 11, 3) can all be founded, and plot
    14 then touches Z (13), Y (15) and X (22, across the bridge)."""
    harbor = board("harbor")
    x = [29, 30, 28]
    closed = closed_to_founding(harbor, x, buffer=3)
    assert (7, 16) in founding_layouts(harbor, 8, closed)
    closed = closed_to_founding(harbor, [*x, 8, 7, 16], buffer=3)
    assert (3, 11) in founding_layouts(harbor, 12, closed)
    assert set(harbor[14]) == {6, 13, 15, 22}


def test_a_narrower_buffer_opens_more_plots() -> None:
    harbor = board("harbor")
    assert 25 not in closed_to_founding(harbor, [28, 29, 30], buffer=2)


def deck_size(players: int) -> int:
    colors = components()["setup"][str(players)]["colors"]
    size = 0
    for card in components()["deck"]:
        if card["color"] in colors:
            size += (
                card["plots"][1] - card["plots"][0] + 1 if card["kind"] == "plot" else card["count"]
            )
    return size


@pytest.mark.parametrize(("players", "cards"), [(2, 63), (3, 69), (4, 101), (5, 101), (6, 101)])
def test_building_cards_in_play_by_player_count(players: int, cards: int) -> None:
    """§6.3; and enough cards to place the whole supply (2 free warehouses per founding)."""
    assert deck_size(players) == cards
    assert cards + 2 >= components()["setup"][str(players)]["supply"]


def test_the_deck_has_113_cards_and_every_plot_one_card() -> None:
    data = components()
    plots = [
        p
        for c in data["deck"]
        if c["kind"] == "plot"
        for p in range(c["plots"][0], c["plots"][1] + 1)
    ]
    assert sorted(plots) == list(range(1, 81))
    assert deck_size(6) + len(data["events"]) == 113
    assert max(s["events"] for s in data["setup"].values()) == len(data["events"])


def test_setup_table() -> None:
    setup = components()["setup"]
    assert [setup[str(n)]["capital"] for n in range(2, 7)] == [600, 500, 400, 400, 350]
    assert [setup[str(n)]["hand"] for n in range(2, 7)] == [11, 10, 9, 9, 8]
    assert [setup[str(n)]["board"] for n in range(2, 7)] == ["harbor"] * 2 + ["center"] * 3
    assert len(components()["companies"]) == 9
    assert {c["triple"] for c in components()["companies"]} == {1, 2, 3}
