"""Crystal Palace for people: move labels, log sentences, the terminal screen and its
legend (issue 10 items 13 and 14)."""

from __future__ import annotations

import io
import random
import re
from typing import Any

from rich.console import Console

from clients.render import render
from engines.base import Event, State
from engines.crystal_palace import ENGINE as cp
from engines.crystal_palace.data import components
from engines.crystal_palace.hidden import scramble
from engines.crystal_palace.render import COLUMNS
from engines.crystal_palace.render import legend as game_legend
from support import game, play, playout, random_options, resolve

BARE_ID = re.compile(r"\b(?:[PCGBO]\d\d|S[1-5][a-c]|[WP][1-4]|[1-4][AB])\b")
NAMES = ["ana", "[/]bob", "cy", "dee", "eve"]
EVENTS = {
    "ready", "reveal", "place", "pass", "goal", "market", "act", "ticket", "decline",
    "compensation", "research", "loan", "exchange", "salary", "ability", "build", "phase",
    "repay", "game_end",
}  # fmt: skip


def games(count: int) -> list[tuple[int, State, int, dict[str, Any], list[Event]]]:
    """(players, state before, seat, action, events) along random playouts of 2–5 players."""
    steps = []
    for seed in range(count):
        rnd = random.Random(seed)
        players = 2 + seed % 4
        options = random_options(cp, rnd)
        for state, seat, action in playout(cp, seed, players, options, rnd):
            _, events = cp.apply(state, seat, action)
            steps.append((players, state, seat, action, events))
    return steps


STEPS = games(16)


def readable(text: str) -> None:
    assert text and not BARE_ID.search(text), text
    assert "_" not in text and "None" not in text and "{" not in text, text


def test_every_label_names_things_and_the_labels_of_a_seat_differ() -> None:
    for _, state, seat, _, _ in STEPS:
        labels = [cp.describe(state, seat, a) for a in cp.legal_actions(state, seat)]
        for label in labels:
            readable(label)
        assert len(set(labels)) == len(labels), labels


def test_labels_use_only_what_the_seat_may_see() -> None:
    rnd = random.Random(1)
    for _, state, seat, _, _ in STEPS[::11]:
        scrambled = scramble(state, seat, rnd)
        for action in cp.legal_actions(state, seat):
            assert cp.describe(state, seat, action) == cp.describe(scrambled, seat, action)


def test_every_event_has_a_sentence_with_names() -> None:
    seen = set()
    for players, _, _, _, events in STEPS:
        for event in events:
            seen.add(event["type"])
            sentence = cp.narrate(event, NAMES[:players])
            readable(sentence.replace("[/]bob", "bob"))
            if "seat" in event:
                assert NAMES[event["seat"]] in sentence
    assert seen <= EVENTS, seen - EVENTS


def test_the_rare_events_have_sentences_too() -> None:
    rare: list[Event] = [
        {"type": "goal", "seat": 0, "level": 2},
        {"type": "ticket", "seat": 1, "location": "port", "option": "P1"},
        {"type": "ticket", "seat": 1, "location": "london_times", "publisher": "1A", "choice": 1},
        {"type": "compensation", "seat": 0, "location": "bank"},
        {"type": "ability", "seat": 0, "card": "C25"},
        {"type": "salary", "seat": 1, "amount": 4},
        {"type": "repay", "seat": 1, "count": 2},
        {"type": "exchange", "seat": 0, "for": "die"},
        {"type": "market", "seat": 0, "space": 4, "from": 1},
    ]
    played = {event["type"] for *_, events in STEPS for event in events}
    assert played | {e["type"] for e in rare} == EVENTS  # every event type has a sentence
    for event in rare:
        sentence = cp.narrate(event, NAMES)
        readable(sentence.replace("[/]bob", "bob"))
        assert NAMES[event["seat"]] in sentence
    times = cp.narrate(rare[2], NAMES)
    assert "The Times" in times and "pay 1 energy: +4 buzz" in times


def test_the_times_choices_name_the_publisher_and_the_effect() -> None:
    state = game(2, publisher="1A")
    state = resolve(state, {"port": [(3, 1, 1)]}, (0, "london_times", 0, 4))
    labels = [cp.describe(state, 0, a) for a in cp.legal_actions(state, 0) if a["type"] == "act"]
    assert labels == [
        "London Times (action space 1: +1 buzz first) → The Times: +2 buzz",
        "London Times (action space 1: +1 buzz first) → The Times: pay 1 energy: +4 buzz",
    ]


def test_phase_4_and_research_labels_name_cards_and_tiles() -> None:
    state = game(2)
    state["seats"][0].update(characters=["C02", "C25"], money=3, income=0)
    state = resolve(state, {}, (0, "westminster", 1, 3))
    state = play(state, 0, {"type": "decline"})
    labels = [cp.describe(state, 0, a) for a in cp.legal_actions(state, 0)]
    assert "use Alfred Krupp next: lose up to £1: +2 gears" in labels
    assert "use Levi Strauss next: +£2" in labels
    state = game(2)
    state = resolve(state, {"port": [(3, 1, 1)]}, (0, "british_museum", 1, 2))
    tile = state["museum"][0]
    label = cp.describe(state, 0, {"type": "act", "tile": tile})
    readable(label)
    assert "take research tile 1 of " in label and tile not in label


def screens(players: int, viewer: int | None) -> list[str]:
    rnd = random.Random(players)
    names = NAMES[:players]
    out = []
    for step, (state, _, _) in enumerate(playout(cp, 3, players, random_options(cp, rnd), rnd)):
        if step % 5:
            continue
        doc = {
            "status": "playing",
            "seats": names,
            "to_act": sorted(cp.to_act(state)),
            "game": cp.view(state, viewer),
        }
        text = io.StringIO()
        render(Console(file=text, width=80, color_system=None), cp.id, doc, viewer)
        out.append(text.getvalue())
    return out


def test_the_screen_fits_15_lines_of_80_columns_for_5_players() -> None:
    for viewer in (0, None):
        for screen in screens(5, viewer):
            lines = screen.rstrip("\n").split("\n")[1:]  # below the client's title rule
            assert len(lines) <= 15, screen
            assert all(len(line) <= 80 for line in lines)
            assert "[/]" in screen  # a name is data, never markup
            assert not BARE_ID.search(screen), screen


def test_the_legend_explains_every_column() -> None:
    text = io.StringIO()
    Console(file=text, width=80, color_system=None).print(game_legend())
    legend = " ".join(text.getvalue().split())
    for header in COLUMNS:
        assert header in legend, header
    for location in components()["locations"].values():
        assert location["name"] in legend
    assert "B5 = player B's die showing 5" in legend


def test_labels_say_effect_and_price_in_choice_steps() -> None:
    state = game(4)
    state["phase"], state["step"], state["turn"] = 2, {"kind": "place"}, 0
    state["seats"][0]["unplaced"] = [1]
    place = {"type": "place", "location": "westminster", "space": 4, "value": 1}
    assert cp.describe(state, 0, place) == (
        "Westminster: +1 Westminster step and its bonus → placement space 5 (needs 1+, fee £2)"
        " → place your 1"
    )
    state = game(2)
    state["seats"][0].update(patents=["P03"], gears=1, energy=1)
    state = resolve(state, {}, (0, "westminster", 1, 3))
    state = play(state, 0, {"type": "decline"})
    build = {"type": "build", "card": "P03", "target": 1}
    assert cp.describe(state, 0, build) == (
        "build Beer Glass Counter for 1 gear, 1 energy (+8 VP) → effect on seat 2: lose £3"
    )


def test_server_bots_are_told_apart_in_the_seats_table() -> None:
    """Every server bot's name starts alike ("greedy bot 2"): cut to five letters they all
    read "greed"; they show as "bot N"."""
    state = game(3)
    doc = {
        "status": "playing",
        "seats": ["ana", "greedy bot 2", "random bot 3"],
        "to_act": [0],
        "game": cp.view(state, 0),
    }
    text = io.StringIO()
    render(Console(file=text, width=80, color_system=None), cp.id, doc, 0)
    screen = text.getvalue()
    assert "bot 2" in screen and "bot 3" in screen and "greed" not in screen
