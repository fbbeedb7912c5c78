"""Chartered in the terminal: the whole screen fits 15 rows of 80 columns, the map
shows canals and bridges, companies have unique letters, names print literally."""

from __future__ import annotations

import io
import random
from typing import Any

from chartered_positions import company, plot_card, table
from rich.console import Console

from engines.base import State
from engines.chartered import ENGINE as chartered
from engines.chartered.render import COMPANY_STYLES, render
from engines.chartered.render import legend as game_legend
from engines.chartered.state import company_ids
from engines.chartered.words import company_label, company_name

ROWS = 15
NAMES = ["[/]Ana[b]", "Bo", "Cyrillus the Long", "Di", "Ed", "Flo"]


def screen(state: State, viewer: int | None, width: int = 80) -> str:
    players = state["players"]
    doc: dict[str, Any] = {
        "status": "playing",
        "seats": NAMES[:players],
        "to_act": sorted(chartered.to_act(state)),
        "game": chartered.view(state, viewer),
    }
    out = io.StringIO()
    Console(file=out, width=width, color_system=None).print(render(doc, viewer))
    return out.getvalue()


def test_six_players_fit_15_rows_of_80_columns_over_whole_games() -> None:
    for seed in range(3):
        rnd = random.Random(seed)
        state = chartered.setup(6, {"events": True, "hidden_shares": seed == 1}, seed)
        step = 0
        while not state["finished"]:
            if step % 5 == 0:
                for viewer in (0, None):
                    lines = screen(state, viewer).splitlines()
                    assert len(lines) <= ROWS, "\n".join(lines)
                    assert all(len(line) <= 80 for line in lines)
            seat = min(chartered.to_act(state))
            state, _ = chartered.apply(
                state, seat, rnd.choice(chartered.legal_actions(state, seat))
            )
            step += 1
        assert len(screen(state, 0).splitlines()) <= ROWS


def test_the_status_line_names_the_seat_to_act_in_full() -> None:
    state = chartered.setup(3, {}, 1)
    seat = min(chartered.to_act(state))
    names = ["greedy bot 1", "greedy bot 2", "greedy bot 3"]
    doc = {"status": "playing", "seats": names, "to_act": [seat], "game": chartered.view(state, 0)}
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(render(doc, 0))
    (status,) = [line for line in out.getvalue().splitlines() if line.startswith("supply")]
    assert status.endswith(f"· greedy bot {seat + 1}: to play"), "names cut to 10 look alike"


def test_the_seat_rows_tell_bots_apart_and_mark_a_name_cut_short() -> None:
    """Cut to 10 letters, "greedy bot 2" and "greedy bot 3" were both "greedy bot" in the
    seats' rows: a bot is "bot N" there (as in Crystal Palace), a cut name ends in "…"."""
    state = chartered.setup(3, {}, 1)
    names = ["Cyrillus the Long", "greedy bot 2", "greedy bot 3"]
    doc = {"status": "playing", "seats": names, "to_act": [0], "game": chartered.view(state, 0)}
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(render(doc, 0))
    rows = "\n".join(line for line in out.getvalue().splitlines() if line[:1] in "123")
    assert "2 bot 2 " in rows and "3 bot 3 " in rows, rows
    assert "greedy bot" not in rows
    assert "▶Cyrillus …" in rows


def test_company_letters_and_colours_are_unique_and_the_legend_names_them() -> None:
    assert len({company_label(c) for c in company_ids()}) == len(company_ids())
    assert len({COMPANY_STYLES[c] for c in company_ids()}) == len(company_ids())
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(game_legend())
    legend = out.getvalue()
    for name in company_ids():
        assert company_name(name) in legend and name in legend
    assert "bridge" in legend and "HQ" in legend
    assert all(len(line) <= 80 for line in legend.splitlines())


def test_the_map_shows_companies_hqs_heights_canals_and_bridges() -> None:
    state = table(players=4)
    company(state, "gold", 29, [30, 28], 60)
    company(state, "silk", 8, [7, 16], 40)
    text = screen(state, 0)
    assert "29G2" in text and "30g1" in text, "HQ in capitals, with heights"
    assert " 8Z2" in text and "16z1" in text, "silver and silk no longer share a label"
    assert "10  ═══18" in text and "42  ═══50" in text, "bridges between blocks"
    assert "≈" in text
    assert "Goud" in text and "ƒ60" in text and "Zyde" in text


def test_market_and_hand_name_cards_and_what_they_do_and_names_print_literally() -> None:
    state = table(players=2)
    company(state, "gold", 29, [30, 28], 60)
    state["market"] = [plot_card(31), plot_card(17)]
    state["hands"][0] = [plot_card(27), plot_card(25), plot_card(2)]
    text = screen(state, 0)
    assert "1:plot 31 +Goud · 2:plot 17 ✗" in text
    assert "plot 2 ★ · plot 27 +Goud · ✗ 25" in text
    assert "[/]Ana[b]" in text
    assert "plot 27" not in screen(state, 1), "another seat's hand stays hidden"


def test_an_empty_bank_shows_as_exactly_none_left_with_hidden_shares() -> None:
    """With hidden shares a bank's count is "at most" (≤4: seat 1's face-down shares may
    be among them), but an empty bank is public and exact: ▮0, not ≤0."""
    state = table(players=3, hidden_shares=True)
    company(state, "gold", 29, [30, 28], 60)
    company(state, "tea", 8, [7, 16], 50)
    state["shares"][0]["gold"] = [3, 0]
    state["shares"][1]["gold"], state["shares"][1]["tea"] = [0, 6], [0, 5]
    lines = screen(state, 2).splitlines()
    (gold,) = [line for line in lines if f"{company_label('gold')} {company_name('gold')}" in line]
    (tea,) = [line for line in lines if f"{company_label('tea')} {company_name('tea')}" in line]
    assert "▮0" in gold and "≤0" not in gold, gold
    assert "≤9" in tea, tea
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(game_legend())
    assert "▮0 when none are" in out.getvalue()
