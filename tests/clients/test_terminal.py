"""The terminal client without a server: the chooser, the screen at 80×24, the keyboard,
the result table and names that try to be markup or escape sequences."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from rich.console import Group, RenderableType
from rich.text import Text

from clients import render
from clients.chooser import Chooser
from clients.client import RoomClient
from clients.screen import Screen, result_table, table_line
from clients.seating import come_back
from engines import ENGINES
from engines.base import STEP
from engines.render import safe_name
from support import recorded, stepped

HOSTILE = ["[/]", "[bold]x", "\x1b[31mred\x1b[0m", "\x1b]0;owned\x07tab"]
"""Names that crash rich markup, restyle text, or send escape sequences."""


# -- the chooser ------------------------------------------------------------------


def test_moves_that_fit_are_numbered_in_columns_within_the_rows() -> None:
    labels = [f"build plot {n}" for n in range(1, 31)]
    chooser = Chooser(labels)
    lines = chooser.lines(80, 8)
    assert len(lines) <= 8
    shown = " ".join(line.plain for line in lines)
    assert all(f"{i} build plot {i}" in shown for i in range(1, 31))
    assert chooser.answer("30") == 29


def test_columns_take_the_width_of_their_own_entries() -> None:
    labels = [f"build plot {n}" for n in range(11, 22)]
    labels += [f"buy a card from market slot {k}" for k in range(1, 6)]
    labels.append("refresh the open market (ƒ50), then buy")
    lines = Chooser(labels).lines(80, 9)
    assert len(lines) == 9 and all(line.cell_len <= 80 for line in lines)
    assert "17 refresh the open market (ƒ50), then buy" in lines[7].plain


def test_too_many_moves_are_grouped_by_their_first_step_and_narrowed_step_by_step() -> None:
    labels = stepped()
    chooser = Chooser(labels)
    lines = chooser.lines(80, 10)
    assert len(lines) <= 10
    assert "factory 1 (40 moves)" in lines[0].plain + lines[1].plain
    assert chooser.answer("3") is None  # open factory 3
    lines = chooser.lines(80, 10)
    assert len(lines) <= 10 and "factory 3" in lines[0].plain
    assert chooser.answer("2") is None  # orange glass
    lines = chooser.lines(80, 10)
    assert "strip 8" in " ".join(line.plain for line in lines)
    picked = chooser.answer("8")
    assert isinstance(picked, int)
    assert labels[picked] == f"factory 3{STEP}orange glass{STEP}strip 8"


def test_back_undoes_the_last_group_opened() -> None:
    chooser = Chooser(stepped())
    chooser.lines(80, 10)
    chooser.answer("4")
    chooser.lines(80, 10)
    assert chooser.answer("b") is None
    assert chooser.prefix == []
    chooser.lines(80, 10)
    assert chooser.answer("b") == "This is the whole list already."


def test_words_narrow_the_list_and_unknown_words_say_so() -> None:
    labels = stepped()
    chooser = Chooser(labels)
    chooser.lines(80, 10)
    assert chooser.answer("Orange 8") is None
    lines = chooser.lines(80, 10)
    assert "moves with: orange 8" in lines[0].plain
    entries = [e for line in lines[1:] for e in line.plain.split("   ") if e.strip()]
    assert len(entries) == 9 + 7  # strip 8 of any factory, or any strip of factory 8
    assert all("orange" in e and "8" in e for e in entries)
    notice = chooser.answer("purple")
    assert isinstance(notice, str) and "purple" in notice


def test_labels_without_steps_are_paged_and_every_page_fits() -> None:
    labels = [
        f"take glass number {n} from somewhere far away onto strip {n % 8}" for n in range(97)
    ]
    chooser = Chooser(labels)
    seen: set[str] = set()
    for _ in range(20):
        lines = chooser.lines(80, 7)
        assert len(lines) <= 7 and all(line.cell_len <= 80 for line in lines)
        assert "page" in lines[0].plain
        seen |= {line.plain.split()[0] for line in lines[1:]}
        chooser.answer("n")
    assert seen == {str(n) for n in range(1, 98)}
    assert chooser.answer("97") == 96  # any number of the list, not only this page's


@pytest.mark.parametrize("typed", ["999", "0", ""])
def test_a_wrong_answer_names_the_valid_range(typed: str) -> None:
    chooser = Chooser([f"move {n}" for n in range(1, 13)])
    chooser.lines(80, 20)
    notice = chooser.answer(typed)
    assert isinstance(notice, str) and "1 to 12" in notice


def test_a_word_longer_than_the_width_is_cut() -> None:
    chooser = Chooser(["x" * 200, "y" * 200])
    lines = chooser.lines(80, 5)
    assert all(line.cell_len <= 80 for line in lines) and lines[0].plain.endswith("…")


FOUND = (
    "found a company: HQ here and 2 more warehouses, value ƒ30, you receive ƒ30 and 1 free share"
)
MERGE = (
    "merge Silver ƒ40 + Peper ƒ60: the higher absorbs the lower (its shares are sold at its "
    "value), together ƒ110; you receive ƒ110"
)


@pytest.mark.parametrize("rows", [20, 6])
def test_long_labels_wrap_so_that_their_effect_and_price_show(rows: int) -> None:
    labels = [f"build plot {n}{STEP}{FOUND if n % 2 else MERGE}" for n in range(1, 9)]
    labels.append("buy a card for ƒ50")
    chooser = Chooser(labels)
    shown = []
    while True:
        lines = chooser.lines(80, rows)
        assert len(lines) <= rows and all(line.cell_len <= 80 for line in lines)
        assert not any(line.plain.endswith("…") for line in lines)
        shown += [line.plain for line in lines]
        if chooser.answer("n") is not None or chooser.page == 0:
            break  # one screen, or back at the first page
    text = " ".join(" ".join(shown).split())
    for n, label in enumerate(labels, 1):
        assert f"{n} {label}" in text
    assert "  receive ƒ30 and 1 free share" in shown, "the rest is indented under the number"


def test_an_entry_longer_than_the_rows_is_cut_to_them() -> None:
    lines = Chooser(["word " * 100, "short"]).lines(40, 4)
    assert len(lines) == 4 and lines[-1].plain.endswith("…")


# -- the screen --------------------------------------------------------------------


def sintra_position(players: int = 2) -> tuple[dict[str, Any], list[str], int]:
    """A Sintra opening (many moves) as the first player, ana, sees it, with the moves' labels."""
    engine = ENGINES["sintra"]
    state = engine.setup(players, {}, 7)
    seat = min(engine.to_act(state))
    names = ["bo", "cy", "di", "ed"][: players - 1]
    names.insert(seat, "ana")
    doc = {
        "status": "playing",
        "seats": names,
        "to_act": sorted(engine.to_act(state)),
        "game": engine.view(state, seat),
    }
    labels = [engine.describe(state, seat, a) for a in engine.legal_actions(state, seat)]
    return doc, labels, seat


@pytest.mark.parametrize("labels", ["engine", "stepped"])
def test_at_80x24_the_board_and_the_prompt_share_the_screen(labels: str) -> None:
    doc, moves, seat = sintra_position()
    if labels == "stepped":
        moves = stepped()
    assert len(moves) > 40
    console, out = recorded()
    screen = Screen(console, "sintra", seat, "room1")
    screen.log = [f"event {n}" for n in range(9)] + ["event 9, told at length" * 5]
    chooser = Chooser(moves)
    notice = ""
    for answer in ["", "n", "n", "1", "b", "999"]:
        if answer:
            picked = chooser.answer(answer)
            notice = picked if isinstance(picked, str) else ""
        start = len(out.getvalue())
        screen.draw(doc, chooser, notice)
        drawn = out.getvalue()[start:].split("\n")
        assert drawn[-1].startswith("Your move"), drawn[-1]
        assert len(drawn) <= 24, "the board's first line scrolled away"
        assert "Azul: Stained Glass of Sintra" in drawn[0]
        assert "ana (you)" in "\n".join(drawn) and "event 8" in drawn
        assert any(line.startswith("event 9, told at length") for line in drawn)
    assert "999 is not on the list" in out.getvalue()


def test_the_screen_says_whose_clock_runs_and_who_is_away() -> None:
    doc, moves, seat = sintra_position(3)
    others = [i for i in range(3) if i != seat]
    now = 1_000_000.0
    doc["presence"] = [{"connected": True, "away_since": None, "bot": None, "timeouts": 0}] * 3
    doc["clock"] = {"control": "move:30", "remaining": [30.0] * 3, "deadline": [None] * 3}
    assert table_line(doc, seat, now) == "", "nothing to say: a clock that is stopped, all here"
    doc["clock"]["deadline"][seat] = now + 24.2
    doc["presence"][others[0]] = {"connected": False, "away_since": now - 130, "bot": None}
    doc["presence"][others[1]] = {"connected": False, "away_since": None, "bot": "zombie"}
    doc["seats"][others[1]] = "\x1b[31mred"
    line = table_line(doc, seat, now)
    assert line.startswith("Your clock: 25 s left, then a bot plays this decision for you")
    assert f"{doc['seats'][others[0]]} is away (2 min 10 s)" in line
    assert "a bot plays for [31mred for the rest of the game" in line and "\x1b" not in line
    assert table_line(doc, None, now).startswith("ana's clock: 25 s"), "a spectator's view"

    console, out = recorded()
    doc["clock"]["deadline"][seat] = time.time() + 30
    Screen(console, "sintra", seat, "r").draw(doc, Chooser(moves))
    drawn = out.getvalue().split("\n")
    assert len(drawn) <= 24 and "Azul" in drawn[0] and drawn[-1].startswith("Your move")
    assert any(line.startswith("Your clock: 30 s left") for line in drawn)


def test_a_larger_terminal_shows_more_moves() -> None:
    doc, moves, seat = sintra_position()
    small, small_out = recorded(80, 24)
    large, large_out = recorded(240, 80)
    Screen(small, "sintra", seat, "r").draw(doc, Chooser(moves))
    Screen(large, "sintra", seat, "r").draw(doc, Chooser(moves))
    assert not all(label in small_out.getvalue() for label in moves)  # grouped or paged
    assert all(label in large_out.getvalue() for label in moves)


def test_question_mark_legend_comes_from_the_game_folder() -> None:
    from engines.sintra.render import legend as sintra_legend

    assert render.legend_of("sintra") is sintra_legend
    assert render.legend_of("no-such-game") is None


# -- names are data ---------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["sintra", "chartered", "crystal-palace", "turn-relay"])
def test_hostile_names_never_crash_a_board_or_reach_the_terminal(engine: str) -> None:
    game = ENGINES[engine]
    players = max(game.min_players, min(game.max_players, len(HOSTILE)))
    state = game.setup(players, {"moves": 12} if engine == "turn-relay" else {}, 3)
    rnd = random.Random(3)
    for _ in range(6):
        seat = min(game.to_act(state))
        state, _ = game.apply(state, seat, rnd.choice(game.legal_actions(state, seat)))
    doc = {
        "status": "playing",
        "seats": (HOSTILE * 2)[:players],
        "to_act": sorted(game.to_act(state)),
        "game": game.view(state, 0),
    }
    console, out = recorded(width=200, height=60)
    render.render(console, engine, doc, 0)
    assert "\x1b" not in out.getvalue() and "\x07" not in out.getvalue()


def test_names_reach_a_renderer_printable_and_print_as_typed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def plain(doc: dict[str, Any], seat: int | None) -> RenderableType:
        return Group(*(Text(name) for name in doc["seats"]))

    monkeypatch.setattr(render, "renderer", {"plain": plain}.get)
    doc = {"status": "playing", "seats": HOSTILE, "to_act": [], "game": {}}
    console, out = recorded()
    render.render(console, "plain", doc, 0)
    assert out.getvalue().splitlines()[1:] == ["[/]", "[bold]x", "[31mred[0m", "]0;ownedtab"]


def test_a_renderer_that_reads_names_as_markup_cannot_crash_the_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def careless(doc: dict[str, Any], seat: int | None) -> RenderableType:
        return Group(*(f"[bold]{name}[/bold]" for name in doc["seats"]))

    monkeypatch.setattr(render, "renderer", {"careless": careless}.get)
    doc = {"status": "playing", "seats": HOSTILE, "to_act": [], "game": {}}
    console, out = recorded()
    Screen(console, "careless", 0, "r").draw(doc)
    assert out.getvalue().splitlines()[1:3] == ["[/]", "[bold]x"]


def test_hostile_names_in_the_waiting_room_the_log_and_the_result() -> None:
    doc = {"status": "waiting", "seats": [*HOSTILE[:3], None], "to_act": [], "game": None}
    console, out = recorded()
    screen = Screen(console, "sintra", 3, "r")
    client = RoomClient("ws://127.0.0.1:1", "r")
    client.events.put_nowait({"type": "seat", "text": "[/] takes seat 1"})
    client.events.put_nowait({"type": "seat", "text": "\x1b[31mred\x1b[0m takes seat 3"})
    screen.events(client)
    screen.draw(doc)
    result = {"scores": [3, 2, 1, 0], "ranks": [1, 2, 3, 4], "winners": [0], "details": []}
    console.print(result_table(result, doc["seats"], 3))
    text = out.getvalue()
    assert "\x1b" not in text
    assert "[/] takes seat 1" in text and "[bold]x" in text and "[/] wins." in text
    assert safe_name("\x1b[31mred").plain == "[31mred"


def test_the_last_chat_lines_show_as_typed_under_the_board() -> None:
    doc, moves, seat = sintra_position()
    console, out = recorded()
    screen = Screen(console, "sintra", seat, "room1")
    client = RoomClient("ws://127.0.0.1:1", "r")
    lines = [("bo", "hello " * 50), (HOSTILE[0], "[red]gg[/red]"), (HOSTILE[2], "\x1b[2Jwiped?")]
    client.session.chat = [
        {"seat": 1, "name": name, "text": text, "at": 0.0}
        for name, text in [("old", "scrolled away"), *lines]
    ]
    screen.events(client)
    screen.draw(doc, Chooser(moves))
    drawn = out.getvalue()
    assert "\x1b" not in drawn and "scrolled away" not in drawn
    assert "bo: hello hello" in drawn and "…" in drawn  # a long line: one row, cut
    assert "[/]: [red]gg[/red]" in drawn
    assert "[31mred[0m: [2Jwiped?" in drawn
    assert len(drawn.split("\n")) <= 24 and drawn.split("\n")[-1].startswith("Your move")


# -- the result -------------------------------------------------------------------------


def test_the_result_ranks_names_counts_from_one_and_says_the_details_in_words() -> None:
    result = {
        "scores": [7070, 10040, 7070],
        "ranks": [2, 1, 2],
        "winners": [1],
        "details": [
            {"cash": 6130, "hand_penalty": -60, "total": 7070, "loan_values": []},
            {"cash": 6560, "flags": 2000, "total": 10040},
            {"cash": 7070, "total": 7070},
        ],
    }
    console, out = recorded()
    console.print(result_table(result, ["ana", "bo", None], 0))
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("bo wins.") and "You finished 2nd (tied) of 3." in lines[0]
    rows = [line.split() for line in lines[2:5]]
    assert [row[:2] for row in rows] == [["1st", "bo"], ["2nd", "ana"], ["2nd", "seat"]]
    assert "hand penalty -60" in out.getvalue()
    assert "total" not in out.getvalue() and "loan" not in out.getvalue()


def test_the_come_back_command_is_one_line_even_in_a_narrow_terminal() -> None:
    from clients.terminal import _print_come_back

    console, out = recorded(width=40)
    command = come_back("http://127.0.0.1:8000", "-Ab3", "-x" * 22, "http://127.0.0.1:8000")
    assert command == f"tablewire play --room=-Ab3 --token={'-x' * 22}"
    _print_come_back(console, command)
    assert command in out.getvalue().splitlines()[0]
