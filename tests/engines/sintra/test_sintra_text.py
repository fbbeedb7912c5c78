"""What Sintra says to people: move labels (describe), the game log (narrate)
and the terminal screen (engines/sintra/render.py).

Colours: 0 pink, 1 orange, 2 yellow, 3 light blue, 4 dark blue. Strip layouts,
window points and track values are the data file's [proposed] defaults.
"""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from rich.console import Console
from rich.text import Text

from clients.render import render
from engines.base import STEP, Event, State
from engines.sintra import ENGINE as sintra
from engines.sintra.engine import components
from engines.sintra.render import legend as game_legend
from engines.sintra.render import render as render_sintra
from support import playout

PINK, ORANGE, YELLOW, LIGHT, DARK = range(5)
COLOR_NAMES = [c["name"] for c in components()["colors"]]
NAMES = ["Ana", "Bo", "Cy", "Di"]


def strip(strip_id: int, side: int, pieces: list[int | None] | None = None) -> dict[str, Any]:
    return {"id": strip_id, "side": side, "pieces": pieces or [None] * 5}


def table(players: int = 2, **options: Any) -> State:
    """A fresh game with empty factories and centre, seat 0 to play, strips 1..8
    on their first side in slots 1..8, pink the round colour."""
    state = sintra.setup(players, options, seed=7)
    state["factories"] = [[0] * 5 for _ in state["factories"]]
    state["turn"] = 0
    state["indicator"][0] = PINK
    for board in state["boards"]:
        board["strips"] = [strip(i + 1, 0) for i in range(8)]
    return state


def take(factory: int | None, color: int, slot: int | None, wild: int = 0, keep: Any = None):
    return {
        "type": "take",
        "factory": factory,
        "color": color,
        "strip": slot,
        "wild": wild,
        "keep": keep,
    }


def labels(state: State, seat: int = 0) -> list[str]:
    return [sintra.describe(state, seat, a) for a in sintra.legal_actions(state, seat)]


# -- describe -----------------------------------------------------------------


def test_a_factory_take_names_the_factory_the_pieces_and_the_strip() -> None:
    state = table()
    state["factories"][2] = [2, 0, 0, 0, 0]
    state["boards"][0]["strips"][3] = strip(2, 1)  # R O R Y R: three pink spaces
    assert sintra.describe(state, 0, take(2, PINK, 3)) == "factory 3: 2 pink → strip 4: 2 placed"


def test_the_first_centre_take_prices_the_start_tile_and_the_broken_pieces() -> None:
    """Seed: 3 orange from the centre onto a strip with one orange space."""
    state = table()
    state["center"] = [0, 3, 0, 0, 0]
    state["boards"][0]["strips"][1] = strip(2, 0)  # O L R Y D: one orange space
    # Growing track: the start tile goes to −1; two broken pieces to −3, costing 2 more.
    assert sintra.describe(state, 0, take(None, ORANGE, 1)) == (
        "centre: 3 orange + start tile −1 → strip 2: 1 placed, 2 broken −2"
    )
    state["center_tile"] = False
    assert sintra.describe(state, 0, take(None, ORANGE, 1)) == (
        "centre: 3 orange → strip 2: 1 placed, 2 broken −2"
    )


def test_broken_glass_is_priced_by_the_track_in_play() -> None:
    state = table(track="linear")
    state["boards"][0]["track"] = 8  # −8 on the linear track, −10 on the growing one
    state["factories"][0] = [3, 0, 0, 0, 0]
    state["boards"][0]["strips"] = [None] * 8
    state["boards"][0]["strips"][7] = strip(2, 0)
    assert sintra.describe(state, 0, take(0, PINK, 7)) == (
        "factory 1: 3 pink → strip 8: 1 placed, 2 broken −2"
    )
    state["options"]["track"] = "growing"
    assert sintra.describe(state, 0, take(0, PINK, 7)) == (
        "factory 1: 3 pink → strip 8: 1 placed, 2 broken −4"
    )


def test_a_step_that_hits_the_bottom_says_so() -> None:
    """At step 11 (−16) the start tile reaches −18: 18 now, the marker back to 0: net −2."""
    state = table()
    state["center"] = [0, 1, 0, 0, 0]
    state["boards"][0]["track"] = 11
    assert sintra.describe(state, 0, take(None, ORANGE, 0)) == (
        "centre: 1 orange + start tile −2 (hits −18) → strip 1: 1 placed"
    )


def test_when_nothing_fits_the_label_says_everything_breaks() -> None:
    state = table()
    state["factories"][0] = [2, 0, 0, 0, 0]
    state["boards"][0]["strips"] = [None] * 8
    state["boards"][0]["glazier"] = 3
    assert labels(state) == ["factory 1: 2 pink → no strip fits: 2 broken −2"]


def test_a_completing_take_gives_its_points_then_the_colour_to_keep() -> None:
    state = table()
    state["factories"][0] = [0, 0, 0, 0, 1]
    board = state["boards"][0]
    board["strips"][0] = strip(1, 0, [PINK, ORANGE, YELLOW, LIGHT, None])  # R O Y L D
    board["windows"][2][0] = ORANGE  # an occupied window to the right: its 3 points too
    # window 1 (1) + window 3 (3) + one pink piece, the round colour (1) = 5
    keeps = [sintra.describe(state, 0, take(0, DARK, 0, keep=c)) for c in range(5)]
    assert keeps == [
        f"factory 1: 1 dark blue → strip 1: 1 placed, completes +5 → keep {name}"
        for name in COLOR_NAMES
    ]


def test_the_wild_spaces_to_use_are_the_third_step() -> None:
    state = table()
    state["factories"][0] = [0, 0, 2, 0, 0]
    state["boards"][0]["strips"] = [None] * 8
    state["boards"][0]["strips"][0] = strip(1, 1)  # Y W L W D: one yellow, two wild
    assert labels(state) == [
        "factory 1: 2 yellow → strip 1: 2 placed → use 1 wild space",
        "factory 1: 2 yellow → strip 1: 2 placed → use 2 wild spaces",
    ]
    state["factories"][0] = [0, 0, 1, 0, 0]
    assert labels(state) == [
        "factory 1: 1 yellow → strip 1: 1 placed → use no wild space",
        "factory 1: 1 yellow → strip 1: 1 placed → use 1 wild space",
    ]


def test_reset_names_where_the_glazier_goes() -> None:
    state = table()
    state["factories"][0] = [1, 0, 0, 0, 0]
    state["boards"][0]["glazier"] = 5
    assert labels(state)[0] == "reset: glazier back to strip 1"
    state["boards"][0]["strips"][:4] = [None] * 4
    state["boards"][0]["glazier"] = 2  # above an empty slot left of every strip
    assert labels(state)[0] == "reset: glazier to strip 5"


def _steps(label: str) -> tuple[str, ...]:
    return tuple(label.split(STEP))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_label_names_source_colour_and_strip_in_steps(players: int) -> None:
    """Over whole random games: labels are unique, in words (no ids, no data),
    counted from 1, and step-structured: a reset is one step, a take two or
    three, takes of one source and colour share their first step, and no label
    is the beginning of another (a client can narrow step by step)."""
    rnd = random.Random(players)
    for seed in range(3):
        options = {"track": rnd.choice(["growing", "linear"]), "side": rnd.choice("AB")}
        for state, seat, _ in playout(sintra, seed, players, options, rnd):
            actions = sintra.legal_actions(state, seat)
            said = [sintra.describe(state, seat, a) for a in actions]
            assert len(set(said)) == len(said)
            steps = {_steps(label) for label in said}
            for one in steps:
                assert not any(other[: len(one)] == one for other in steps - {one})
            first: dict[tuple[Any, int], str] = {}
            for action, label in zip(actions, said, strict=True):
                assert not any(bad in label for bad in "{}[]'_") and "None" not in label
                assert "strip 0" not in label and "factory 0" not in label
                if action["type"] == "reset":
                    assert len(_steps(label)) == 1 and label.startswith("reset: glazier")
                    continue
                head, *rest = _steps(label)
                assert 1 <= len(rest) <= 2
                source = (
                    "centre:" if action["factory"] is None else f"factory {action['factory'] + 1}:"
                )
                assert head.startswith(source)
                assert COLOR_NAMES[action["color"]] in head
                assert first.setdefault((action["factory"], action["color"]), head) == head
                where = (
                    "no strip fits" if action["strip"] is None else f"strip {action['strip'] + 1}:"
                )
                assert rest[0].startswith(where)


# -- narrate ------------------------------------------------------------------

EVENTS: list[tuple[Event, str]] = [
    (
        {"type": "take", "seat": 0, "factory": 2, "color": PINK, "count": 2},
        "Ana takes 2 pink pieces from factory 3.",
    ),
    (
        {"type": "take", "seat": 1, "factory": None, "color": LIGHT, "count": 1},
        "Bo takes 1 light blue piece from the centre.",
    ),
    (
        {"type": "start_tile", "seat": 1},
        "Bo takes the start tile (one step down the broken-glass track)"
        " and will start the next round.",
    ),
    (
        {"type": "place", "seat": 0, "strip": 3, "color": ORANGE, "count": 2},
        "Ana places 2 orange pieces on strip 4.",
    ),
    (
        {"type": "break", "seat": 2, "color": DARK, "count": 1},
        "Cy breaks 1 dark blue piece: 1 step down the broken-glass track.",
    ),
    (
        {"type": "track_wrap", "seat": 2, "points": -18},
        "Cy's broken-glass marker reaches the bottom: −18 points,"
        " and it starts again from the top.",
    ),
    (
        {
            "type": "complete",
            "seat": 3,
            "strip": 1,
            "bonus": 2,
            "keep": YELLOW,
            "window_points": 5,
            "removed": False,
        },
        "Di completes strip 2 and keeps yellow for window 2: +7 (5 for windows,"
        " 2 colour bonus); the strip turns over.",
    ),
    (
        {
            "type": "complete",
            "seat": 0,
            "strip": 7,
            "bonus": 0,
            "keep": PINK,
            "window_points": 1,
            "removed": True,
        },
        "Ana completes strip 8 and keeps pink for window 8: +1 (1 for windows);"
        " window 8 is finished and the strip leaves the game.",
    ),
    (
        {"type": "reset", "seat": 1, "slot": 0},
        "Bo resets the glazier to the leftmost strip, strip 1.",
    ),
    ({"type": "round_end", "round": 2}, "Round 2 of 6 ends; the factories are refilled."),
    ({"type": "round_end", "round": 6}, "Round 6 of 6 ends; final scoring."),
    (
        {"type": "game_end", "scores": [12, 30, 7]},
        "Game over. Final scores: Bo 30, Ana 12, Cy 7.",
    ),
]


@pytest.mark.parametrize(("event", "sentence"), EVENTS, ids=[e["type"] for e, _ in EVENTS])
def test_every_event_has_its_sentence(event: Event, sentence: str) -> None:
    assert sintra.narrate(event, NAMES) == sentence


def test_the_sentences_cover_every_event_the_engine_emits() -> None:
    """A new event type without a sentence fails here: random games must emit
    only the types above, and (over enough games) all of them."""
    emitted: set[str] = set()
    rnd = random.Random(11)
    for seed in range(12):
        players = 2 + seed % 3
        state = sintra.setup(players, {"track": "linear"}, seed)
        while sintra.result(state) is None:
            seat = state["turn"]
            state, events = sintra.apply(state, seat, rnd.choice(sintra.legal_actions(state, seat)))
            for event in events:
                emitted.add(event["type"])
                said = sintra.narrate(event, NAMES)
                assert said.endswith(".") and "_" not in said and "{" not in said
                if "seat" in event:
                    assert said.startswith(NAMES[event["seat"]])
    assert emitted == {event["type"] for event, _ in EVENTS}


# -- the terminal screen ------------------------------------------------------


def _screen(doc: dict[str, Any], seat: int | None, width: int) -> list[str]:
    out = io.StringIO()
    Console(file=out, width=width).print(render_sintra(doc, seat))
    return out.getvalue().splitlines()


def _doc(state: State, names: list[str], viewer: int | None) -> dict[str, Any]:
    return {
        "status": "finished" if state["finished"] else "playing",
        "seats": names,
        "to_act": sorted(sintra.to_act(state)),
        "game": sintra.view(state, viewer),
    }


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_board_fits_80_columns_and_15_rows_at_every_position(players: int) -> None:
    """Whole random games, long and wide names included: at width 80 the board
    never takes more than 15 lines, and no line needs more than 80 columns
    (measured on a wider console, where nothing wraps)."""
    names = ["Maximiliana Fortunata", "名前がとても長いプレイヤー", "[bold]x", "Bo"][:players]
    rnd = random.Random(100 + players)
    for seed in range(2):
        options = {"track": rnd.choice(["growing", "linear"]), "side": rnd.choice("AB")}
        state = sintra.setup(players, options, seed)
        positions = [state]
        for before, seat, action in playout(sintra, seed, players, options, rnd):
            positions.append(sintra.apply(before, seat, action)[0])
        assert positions[-1]["finished"]
        for state in positions:
            for viewer in (0, None):
                doc = _doc(state, names, viewer)
                assert len(_screen(doc, viewer, 80)) <= 15
                wide = _screen(doc, viewer, 200)
                assert max(Text(line).cell_len for line in wide) <= 80


def test_names_are_printed_literally_never_as_markup() -> None:
    names = ["[/]", "[bold]x", "[red]z[/red]", "a\nb"]
    state = sintra.setup(4, {}, seed=3)
    out = io.StringIO()
    render(Console(file=out, width=80), "sintra", _doc(state, names, 1), 1)
    text = out.getvalue()
    for name in names[:3]:
        assert name in text
    waiting = {"status": "waiting", "seats": ["[/]", "[bold]x"], "to_act": [], "game": None}
    out = io.StringIO()
    render(Console(file=out, width=80), "sintra", waiting, None)
    assert "[/]" in out.getvalue() and "[bold]x" in out.getvalue()


def test_the_screen_shows_what_a_player_decides_with() -> None:
    state = table(players=2)
    state["factories"][1] = [2, 1, 0, 0, 1]
    state["center"] = [0, 0, 3, 0, 0]
    state["turn"] = 1
    board = state["boards"][1]
    board.update(score=17, track=3, glazier=2)
    board["strips"][0] = None
    board["windows"][0] = [PINK, ORANGE]
    board["strips"][2]["pieces"] = [YELLOW, None, None, None, None]  # strip 3: Y R L O D
    board["windows"][2][0] = LIGHT
    lines = _screen(_doc(state, ["Ana", "Bo"], 1), 1, 80)
    text = "\n".join(lines)
    assert lines[0].startswith("Round 1 of 6 · colour bonus: R pink")
    assert "R pink  O orange  Y yellow  L light blue  D dark blue" in text
    assert "factories  2 RROD" in text  # empty factories left out
    assert "centre     YYY + start tile" in text
    bo = next(i for i, line in enumerate(lines) if "Bo (you)" in line)
    assert lines[bo].startswith("▶Bo (you)") and "17 pt" in lines[bo]
    assert " done " in lines[bo] and "▼Yrlod" in lines[bo]
    assert lines[bo + 1].startswith("  glass 3/12 −3")
    assert " RO " in lines[bo + 1] and " L· " in lines[bo + 1]


def test_the_legend_explains_every_mark_the_board_uses() -> None:
    out = io.StringIO()
    Console(file=out, width=80).print(game_legend())
    legend = out.getvalue()
    for mark in [
        "▼",
        "▶",
        "(you)",
        "·",
        "done",
        "w ",
        "lower case",
        "upper case",
        "×",
        "1st",
        "glass 3/12",
        "#3 2pt",
        "+ start tile",
        "colour bonus",
        "next rounds",
        "side A",
        "side B",
        "bag",
        "tower",
    ]:
        assert mark in legend, mark
    for letter, name in zip("ROYLD", COLOR_NAMES, strict=True):
        assert letter in legend and name in legend
