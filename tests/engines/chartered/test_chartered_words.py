"""What Chartered says to people: move labels (describe) and log sentences (narrate).

Labels name the effect and the price of every legal move with company names,
never ids or raw data, and depend only on what the deciding seat may see.
"""

from __future__ import annotations

import random
import re

from chartered_positions import build, company, level_card, play, plot_card, table

from engines.base import STEP, Event, State
from engines.chartered import ENGINE as chartered
from engines.chartered.hidden import scramble
from engines.chartered.state import cards, company_ids
from engines.chartered.words import card_effect, company_name

EVENT_TYPES = {
    "buy",
    "refresh",
    "found",
    "expand",
    "stack",
    "level",
    "merge",
    "trade",
    "flag",
    "sell",
    "pass",
    "event",
    "refund",
    "game_end",
}
COMPANY_ID = re.compile(r"\b(" + "|".join(company_ids()) + r")\b")
NAMES = ["Ana", "[/]bo[bold]", "Cy", "Di", "Ed", "Flo"]


def games(count: int) -> list[tuple[State, int, list[Event]]]:
    """(state, seat to act, events that led here) over random games of every size."""
    seen = []
    for seed in range(count):
        rnd = random.Random(seed)
        players = 2 + seed % 5
        options = {"events": True, "hidden_shares": seed % 2 == 0}
        state = chartered.setup(players, options, seed)
        events: list[Event] = []
        while not state["finished"]:
            seat = min(chartered.to_act(state))
            seen.append((state, seat, events))
            state, events = chartered.apply(
                state, seat, rnd.choice(chartered.legal_actions(state, seat))
            )
        seen.append((state, -1, events))
    return seen


def test_every_label_names_its_effect_and_price_without_ids() -> None:
    for state, seat, _ in games(8):
        if seat < 0:
            continue
        for action in chartered.legal_actions(state, seat):
            label = chartered.describe(state, seat, action)
            assert label and "{" not in label and "'" not in label, label
            if action["type"] != "company":  # "found Goud (gold)" names the commodity
                assert not COMPANY_ID.search(label), label
            kind = action["type"]
            if kind == "build":
                assert label.startswith("build ") and STEP in label
                assert "you receive ƒ" in label or "you receive the value" in label, label
            if kind == "buy":
                assert "ƒ" in label or "already paid" in label, label
                assert ("blind" in label) == (action["from"] == "deck"), label
                assert re.search(r"(plot|level) \d+", label) or "blind" in label, label
            if kind in ("trade", "flag", "sell", "refresh"):
                assert re.search(r"ƒ\d+", label), label
            if "company" in action:
                assert company_name(action["company"]) in label, label


def test_labels_depend_only_on_what_the_seat_may_see() -> None:
    rnd = random.Random(5)
    for state, seat, _ in games(4):
        if seat < 0:
            continue
        scrambled = scramble(state, seat, rnd)
        for action in chartered.legal_actions(state, seat):
            assert chartered.describe(scrambled, seat, action) == chartered.describe(
                state, seat, action
            )


def test_build_labels_say_found_expand_stack_or_merge_with_the_payout() -> None:
    state = table()
    company(state, "gold", 33, [34, 41, 35, 36], 50)
    company(state, "tea", 39, [40, 48, 38], 40)
    state["hands"][0] = [plot_card(37), plot_card(34), plot_card(42), plot_card(1)]
    labels = {
        a["card"]: chartered.describe(state, 0, a)
        for a in chartered.legal_actions(state, 0)
        if a["type"] == "build"
    }
    assert labels[plot_card(37)] == (
        f"build plot 37{STEP}merge Goud ƒ50 + Thee ƒ40: the higher absorbs the lower (its "
        "shares are sold at its value), together ƒ100; you receive ƒ100"
    )
    assert labels[plot_card(34)] == (
        f"build plot 34{STEP}stack on Goud (height 1→2): Goud ƒ50→ƒ60, you receive ƒ60"
    )
    assert labels[plot_card(42)] == f"build plot 42{STEP}expand Goud: Goud ƒ50→ƒ60, you receive ƒ60"
    assert labels[plot_card(1)].startswith(f"build plot 1{STEP}found a company")


def test_market_buys_name_the_card_and_what_it_would_do() -> None:
    state = table()
    company(state, "gold", 29, [30, 28], 30)
    state["market"] = [plot_card(31), plot_card(25)]
    labels = [chartered.describe(state, 0, a) for a in chartered.legal_actions(state, 0)]
    assert f"buy a card for ƒ50{STEP}market 1: plot 31 (would expand Goud, +ƒ10)" in labels
    assert f"buy a card for ƒ50{STEP}market 2: plot 25 (cannot be built now)" in labels


def test_trade_labels_give_prices() -> None:
    state = table(hidden_shares=True)
    company(state, "gold", 29, [30, 28], 60)
    state["hands"][0] = [plot_card(31)]
    state = play(state, 0, build(plot_card(31)))
    labels = [chartered.describe(state, 0, a) for a in chartered.legal_actions(state, 0)]
    assert f"buy a share{STEP}Goud face down for ƒ70" in labels
    assert "buy a flag in Goud for ƒ200 (counts as 4 shares; no share trades then)" in labels


def sample_events() -> list[Event]:
    gold = {"company": "gold"}
    return [
        {"type": "buy", "seat": 0, "from": "deck", "price": 50},
        {"type": "buy", "seat": 0, "from": 1, "price": 50, "card": {"kind": "plot", "plot": 3}},
        {"type": "buy", "seat": 0, "from": 0, "price": 0, "card": {"kind": "level", "level": 2}},
        {"type": "refresh", "seat": 1},
        {"type": "found", "seat": 1, **gold, "plots": [1, 2, 9], "value": 30},
        {"type": "expand", "seat": 1, **gold, "plot": 3, "value": 40},
        {"type": "stack", "seat": 1, **gold, "plot": 3, "value": 50},
        {"type": "level", "seat": 1, **gold, "plot": 3, "level": 3, "value": 80},
        {"type": "merge", "seat": 1, "survivor": "gold", "absorbed": "tea", "value": 40},
        {"type": "trade", "seat": 1, "op": "buy", "company": None},
        {"type": "trade", "seat": 1, "op": "buy", **gold, "price": 50},
        {"type": "trade", "seat": 1, "op": "sell", **gold, "price": 50},
        {"type": "flag", "seat": 1, **gold, "price": 200},
        {"type": "sell", "seat": 1, **gold, "price": 40},
        {"type": "pass", "seat": 1},
        {"type": "event", "seat": 1, "event": "E1", "kind": "money", "amount": 50},
        {"type": "event", "seat": 1, "event": "E6", "kind": "sell_shares", "count": 2},
        {
            "type": "event",
            "seat": 1,
            "event": "E10",
            "kind": "three_stocks",
            "amount": -30,
            "companies": ["gold", "silver"],
        },
        {"type": "refund", "seat": 1, "amount": 50},
        {"type": "game_end", "scores": [900, 800]},
    ]


def test_every_event_type_is_one_sentence_with_names() -> None:
    events = sample_events()
    assert {e["type"] for e in events} == EVENT_TYPES
    for event in events:
        text = chartered.narrate(event, NAMES)
        assert text.endswith(".") and "{" not in text, text
        assert not COMPANY_ID.search(text), text
        who = NAMES[event.get("seat", 1)]
        assert who in text, text
    assert chartered.narrate(events[10], NAMES) == "[/]bo[bold] bought a share of Goud for ƒ50."
    assert (
        chartered.narrate(events[17], NAMES)
        == "[/]bo[bold] revealed an event card: Goud and Silver lose ƒ30 in value."
    )


def test_every_event_a_game_produces_is_narrated_and_a_face_down_buy_names_nothing() -> None:
    kinds: set[str] = set()
    for _, _, events in games(8):
        for event in events:
            kinds.add(event["type"])
            text = chartered.narrate(event, NAMES)
            assert not COMPANY_ID.search(text), text
            if event["type"] == "trade" and event["company"] is None:
                assert not any(company_name(c) in text for c in company_ids())
                assert "ƒ" not in text, "a price could single the company out"
    assert kinds <= EVENT_TYPES
    assert kinds >= EVENT_TYPES - {"refund", "pass", "flag"}


def test_after_the_end_a_plot_card_says_it_was_not_built_and_a_level_card_what_it_does() -> None:
    state = table()
    company(state, "gold", 29, [30, 28], 30)
    plot, level = cards()[plot_card(31)], cards()[level_card(2)]
    assert card_effect(state, plot) == "plot 31 (would expand Goud, +ƒ10)"
    state["finished"] = True
    assert card_effect(state, plot) == "plot 31 (not built: the game is over)"
    assert card_effect(state, level) == "level 2 (+ƒ20 to a company, on a height-1 plot)"
