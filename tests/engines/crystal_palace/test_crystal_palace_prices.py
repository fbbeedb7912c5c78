"""Crystal Palace's labels and log quote the £ the engine charges, permanent
modifiers included: a recruiting discount (research tile O05), Lord Rosse's
cheaper dice (C29), and the Bank's shares."""

from __future__ import annotations

import copy
import random
import re
from typing import Any

from engines.base import Event, State
from engines.crystal_palace import ENGINE as cp
from engines.crystal_palace.data import characters, research_tiles
from support import game, pay_nothing, play, playout, random_options, resolve

NAMES = ["ana", "bob"]
DISCOUNT = "O05"  # orange box, PERM: recruiting costs £2 less
NO_DISCOUNT = "O03"  # orange box, PERM: +2 VP for each character you recruit


def pounds(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"£(\d+)", text)]


def charged(state: State, seat: int, action: dict[str, Any]) -> tuple[int, list[Event], State]:
    """(£ deducted from the seat, the events, the state after) for one action."""
    before = state["seats"][seat]["money"]
    after, events = cp.apply(copy.deepcopy(state), seat, action)
    loans = sum(1 for e in events if e["type"] == "loan")
    return before + 10 * loans - after["seats"][seat]["money"], events, after


def reform_club(**seat0: Any) -> State:
    """Seat 0's die is next at the Reform Club, on the plain action space 2."""
    state = pay_nothing(game(2))
    state["seats"][0].update(seat0)
    state["board"]["reform_club"]["acted"][0] = [1, 5]
    return resolve(state, {"port": [(3, 1, 1)]}, (0, "reform_club", 1, 4))


def test_the_data_behind_these_tests() -> None:
    assert research_tiles()[DISCOUNT]["perm"] == {"recruit_cost": -2}
    assert "recruit_cost" not in research_tiles()[NO_DISCOUNT]["perm"]
    assert characters()["C29"]["perm"] == {"dice_cost": -2}


def test_a_recruit_label_and_its_log_line_quote_the_discounted_price() -> None:
    state = reform_club(research=[DISCOUNT])
    acts = [a for a in cp.legal_actions(state, 0) if a["type"] == "act"]
    assert acts and all("card" in a for a in acts)
    for action in acts:
        label = cp.describe(state, 0, action)
        quoted = pounds(label.split("recruit ", 1)[1])[0]
        paid, events, _ = charged(state, 0, action)
        printed = characters()[action["card"]]["cost"]
        assert quoted == paid == max(0, printed - 2), label
        act = next(e for e in events if e["type"] == "act")
        assert act["price"] == paid
        assert cp.narrate(act, NAMES).endswith(f"for £{paid}."), cp.narrate(act, NAMES)


def test_a_recruit_after_a_violet_draw_quotes_both_prices_and_charges_one() -> None:
    state = pay_nothing(game(2))
    state = resolve(state, {"port": [(3, 1, 1)]}, (0, "reform_club", 1, 4))  # space 1: violet
    card = state["characters"]["row"][0]
    printed = characters()[card]["cost"]
    label = cp.describe(state, 0, {"type": "act", "card": card})
    assert f"recruit £{printed}, or £{max(0, printed - 2)} if the violet tile" in label, label
    for top, price in ((DISCOUNT, max(0, printed - 2)), (NO_DISCOUNT, printed)):
        drawn = copy.deepcopy(state)
        stack = drawn["violet"]["orange"]
        stack.remove(top)
        stack.append(top)  # the next tile drawn
        _, events, _ = charged(drawn, 0, {"type": "act", "card": card})
        act = next(e for e in events if e["type"] == "act")
        assert act["price"] == price
        assert f"for £{price}." in cp.narrate(act, NAMES)


def test_a_ticket_recruit_quotes_the_discounted_price() -> None:
    state = reform_club(research=[DISCOUNT], tickets=1)
    state["board"]["reform_club"]["acted"] = [[1, 5], [1, 5]]  # no action space left
    tickets = [a for a in cp.legal_actions(state, 0) if a["type"] == "ticket"]
    assert tickets
    for action in tickets:
        quoted = pounds(cp.describe(state, 0, action).split("recruit ", 1)[1])[0]
        paid, events, _ = charged(state, 0, action)
        assert quoted == paid
        ticket = next(e for e in events if e["type"] == "ticket")
        assert ticket["price"] == paid and f"for £{paid}." in cp.narrate(ticket, NAMES)


def test_a_share_label_and_its_log_line_quote_what_is_paid() -> None:
    state = pay_nothing(game(2))
    state["board"]["bank"]["acted"][0] = [1, 5]  # space 2: no bonus
    state = resolve(state, {"port": [(3, 1, 1)]}, (0, "bank", 1, 4))
    acts = [a for a in cp.legal_actions(state, 0) if a["type"] == "act"]
    assert acts and all("share" in a for a in acts)
    for action in acts:
        quoted = pounds(cp.describe(state, 0, action).split("a share: pay ", 1)[1])[0]
        paid, events, _ = charged(state, 0, action)
        act = next(e for e in events if e["type"] == "act")
        assert quoted == paid == act["price"]
        assert f"buys a share for £{paid}:" in cp.narrate(act, NAMES)


def test_lord_rosse_the_last_die_label_and_the_reveal_quote_the_cheaper_dice() -> None:
    state = game(2)
    state["seats"][0]["characters"] = ["C29"]
    state["seats"][0]["dice"] = 2
    state = play(state, 1, *[{"type": "die", "value": 1}] * 4)
    state = play(state, 0, {"type": "die", "value": 6})
    assert cp.describe(state, 0, {"type": "die", "value": 6}) != ""
    for value in range(1, 7):
        action = {"type": "die", "value": value}
        label = cp.describe(state, 0, action)
        paid, events, _ = charged(state, 0, action)
        assert paid == max(2, 6 + value - 2)
        assert label.endswith(f"(your dice cost £{paid} in all)"), label
        reveal = next(e for e in events if e["type"] == "reveal")
        assert reveal["paid"] == [paid, 4]
        sentence = cp.narrate(reveal, NAMES)
        assert f"ana 6 {value} (£{paid})" in sentence or f"ana {value} 6 (£{paid})" in sentence


def test_random_playouts_label_and_log_the_same_price_as_charged() -> None:
    """Along random games, every recruit, share and last die quotes what the
    engine's event says was charged."""
    checked = 0
    for seed in range(6):
        rnd = random.Random(seed)
        dice_labels: dict[int, int] = {}
        for state, seat, action in playout(cp, seed, 2 + seed % 4, random_options(cp, rnd), rnd):
            label = cp.describe(state, seat, action)
            _, events = cp.apply(state, seat, action)
            if action["type"] == "die" and "in all" in label:
                dice_labels[seat] = pounds(label)[-1]
            for event in events:
                if event["type"] == "reveal":
                    assert event["paid"] == [dice_labels[s] for s in range(len(event["paid"]))]
                    dice_labels.clear()
                    checked += 1
                elif event["type"] in ("act", "ticket") and "price" in event:
                    quoted = label.split("(recruit " if "card" in event else "a share: pay ", 1)[1]
                    prices = re.match(r"£(\d+)(?:, or £(\d+) if the violet tile)?", quoted)
                    assert prices, label
                    assert str(event["price"]) in prices.groups(), label
                    assert f"for £{event['price']}" in cp.narrate(event, NAMES[:1] * 5)
                    checked += 1
    assert checked > 50, checked
