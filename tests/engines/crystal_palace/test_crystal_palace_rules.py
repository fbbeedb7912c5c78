"""Crystal Palace's rules through the engine (rules/crystal_palace.md): the seed's
worked examples, then phases 1–3 and each location (phases 4–7 and the end of the game are
in tests/engines/crystal_palace/test_crystal_palace_rounds.py)."""

from __future__ import annotations

import pytest

from engines.base import IllegalAction
from engines.crystal_palace import ENGINE as cp
from engines.crystal_palace.data import characters, components, layout, research_tiles, shares
from support import (
    commit,
    game,
    kinds,
    pay_nothing,
    placement_turn,
    play,
    resolve,
)

# -- the seed's worked examples ------------------------------------------------------------


def test_first_player_tie_14_14_goes_to_the_second_highest_die() -> None:
    """Seed: red and blue both total 14 with a 6; blue's second die (5) is higher."""
    state, events = commit(game(2), [[6, 4, 2, 2], [6, 5, 2, 1]])
    assert state["order"] == [1, 0]
    reveal = next(e for e in events if e["type"] == "reveal")
    assert reveal["first"] == 1 and reveal["dice"] == [[6, 4, 2, 2], [6, 5, 2, 1]]
    assert [p["money"] for p in state["seats"]] == [40 - 14, 40 - 14]


def test_the_lowest_total_gets_a_newspaper_and_ties_share() -> None:
    state, _ = commit(game(3), [[3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 2, 3]])
    assert [p["newspapers"] for p in state["seats"]] == [0, 1, 1]


def test_all_totals_equal_everyone_but_the_first_player_gets_a_newspaper() -> None:
    state, _ = commit(game(3), [[4, 3, 2, 1], [4, 3, 2, 1], [4, 4, 1, 1]])
    assert state["order"][0] == 2  # same totals: the highest single die wins
    assert [p["newspapers"] for p in state["seats"]] == [1, 1, 0]


def test_all_dice_equal_in_a_later_round_the_earlier_player_starts() -> None:
    state = game(3)
    state["round"], state["order"] = 1, [2, 0, 1]
    state, _ = commit(state, [[3, 3, 3, 3], [3, 3, 3, 3], [3, 3, 3, 3]])
    assert state["order"] == [2, 0, 1]


def test_westminster_example_plus_one_pound_then_the_two_pound_step_bonus() -> None:
    """Seed: blue and yellow both have a 6 at Westminster; blue's die is further left,
    takes the leftmost action space (+£1), moves one step and gains the £2 bonus;
    then yellow takes the next action space."""
    state = pay_nothing(game(3))
    blue, yellow = 0, 2
    money = [p["money"] for p in state["seats"]]
    later = {"port": [(3, blue, 1)]}  # keeps phase 3 going after Westminster
    state = resolve(state, {"westminster": [(2, yellow, 6)], **later}, (blue, "westminster", 1, 6))
    assert cp.to_act(state) == {blue}
    state = play(state, blue, {"type": "act"})
    assert state["seats"][blue]["money"] == money[blue] + 1 + 2
    assert state["seats"][blue]["westminster"] == 1
    assert state["board"]["westminster"]["acted"][0] == [blue, 6]
    assert cp.to_act(state) == {yellow}
    state = play(state, yellow, {"type": "act"})
    assert state["seats"][yellow]["money"] == money[yellow] + 2  # the plain space: no +£1
    assert state["board"]["westminster"]["acted"][1] == [yellow, 6]


def test_die_placement_example_assistant_symbol_and_the_two_pound_fee() -> None:
    """Seed: red's 5 on a space showing 3 with an assistant symbol may take an
    assistant action; blue's 1 must go on the space with the £2 fee and pays it."""
    spaces = layout("westminster", 4)["placement"]
    assert spaces[2] == {"min": 3, "assistant": True, "fee": 0}
    assert spaces[4] == {"min": 1, "assistant": False, "fee": 2}
    red, blue = 0, 1
    state = placement_turn(4, red, [5])
    state = play(state, red, {"type": "place", "location": "westminster", "space": 2, "value": 5})
    assert state["step"] == {"kind": "assistant", "seat": red}
    assert {"type": "market"} in cp.legal_actions(state, red)
    state = play(state, red, {"type": "skip"})
    assert state["turn"] == blue
    money = state["seats"][blue]["money"]
    with pytest.raises(IllegalAction):  # a 1 fits only on a space with minimum 1
        cp.apply(state, blue, {"type": "place", "location": "westminster", "space": 3, "value": 1})
    state = play(state, blue, {"type": "place", "location": "westminster", "space": 4, "value": 1})
    assert state["seats"][blue]["money"] == money - 2


# -- phase 1 -------------------------------------------------------------------------------


def test_dice_are_set_simultaneously_and_nothing_shows_before_the_reveal() -> None:
    state = game(3)
    assert cp.to_act(state) == {0, 1, 2}
    before = [cp.view(state, v) for v in (None, 1, 2)]
    events = []
    for value in (6, 6, 5, 1):
        state, more = cp.apply(state, 0, {"type": "die", "value": value})
        events += more
    assert cp.to_act(state) == {1, 2}
    assert cp.view(state, 0)["seats"][0]["secret"] == [6, 6, 5, 1]
    for viewer, old in zip((None, 1, 2), before, strict=True):
        seats = cp.view(state, viewer)["seats"]
        assert "secret" not in seats[0] and seats[0]["ready"] is True
        assert {k: v for k, v in seats[0].items() if k != "ready"} == {
            k: v for k, v in old["seats"][0].items() if k != "ready"
        }
    assert events == [{"type": "ready", "seat": 0}]
    with pytest.raises(IllegalAction) as refused:  # a ready seat cannot change its dice
        cp.apply(state, 0, {"type": "die", "value": 1})
    assert refused.value.code == "not_your_turn"


def test_dice_must_be_paid_with_forced_loans() -> None:
    state = game(2)
    state["seats"][0]["money"] = 5
    state, events = commit(state, [[6, 6, 6, 6], [1, 1, 1, 1]])
    assert len(state["seats"][0]["loans"]) == 2  # 5 + 20 - 24 = 1
    assert state["seats"][0]["money"] == 1
    assert [e for e in events if e["type"] == "loan"] == [
        {"type": "loan", "seat": 0, "forced": True}
    ] * 2


def test_four_newspapers_buy_a_die_that_is_set_this_round_before_the_reveal() -> None:
    state = game(2)
    state["seats"][0]["newspapers"] = 5
    state = play(state, 0, {"type": "die", "value": 3}, {"type": "exchange", "for": "die"})
    assert state["seats"][0]["dice"] == 5 and state["seats"][0]["newspapers"] == 1
    state = play(state, 0, *[{"type": "die", "value": 2}] * 3)
    assert cp.to_act(state) == {0, 1}  # five values to set now
    state = play(state, 0, {"type": "die", "value": 1})
    state = play(state, 1, *[{"type": "die", "value": 2}] * 4)
    assert state["seats"][0]["rolled"] == [3, 2, 2, 2, 1]


def test_a_die_bought_after_the_reveal_is_used_from_the_next_round() -> None:
    state, _ = commit(game(2), [[3, 3, 3, 3], [2, 2, 2, 2]])
    seat = state["turn"]
    state["seats"][seat]["newspapers"] = 4
    state = play(state, seat, {"type": "exchange", "for": "die"})
    assert state["seats"][seat]["dice"] == 5 and len(state["seats"][seat]["unplaced"]) == 4


def test_lord_rosse_makes_the_dice_cheaper_but_never_below_one_per_die() -> None:
    state = game(2)
    state["seats"][0]["characters"] = ["C29"]
    state, _ = commit(state, [[6, 4, 1, 1], [1, 1, 1, 1]])
    assert state["seats"][0]["money"] == 40 - (12 - 2)
    state = game(2)
    state["seats"][0]["characters"] = ["C29"]
    state, _ = commit(state, [[1, 1, 1, 1], [2, 2, 2, 2]])
    assert state["seats"][0]["money"] == 40 - 4


# -- newspapers and loans ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("what", "cost", "field", "gain"),
    [("income", 3, "income", 1), ("gear", 2, "gears", 1), ("money", 1, "money", 1)],
)
def test_newspaper_exchange_rates(what: str, cost: int, field: str, gain: int) -> None:
    state = game(2)
    state["seats"][0]["newspapers"] = 7
    before = state["seats"][0][field]
    state = play(state, 0, {"type": "exchange", "for": what})
    assert state["seats"][0]["newspapers"] == 7 - cost
    assert state["seats"][0][field] == before + gain


def test_newspapers_never_exceed_seven_and_cannot_be_overspent() -> None:
    state = game(2)
    state["seats"][0]["newspapers"] = 7
    state, _ = commit(state, [[1, 1, 1, 1], [2, 2, 2, 2]])  # lowest total: +1, lost
    assert state["seats"][0]["newspapers"] == 7
    state = game(2)
    with pytest.raises(IllegalAction) as refused:
        cp.apply(state, 0, {"type": "exchange", "for": "gear"})
    assert refused.value.code == "not_enough_newspapers"
    # A refusal is a player's sentence: never the action's dict.
    assert refused.value.message == "you do not have enough newspapers for that exchange"


def test_a_voluntary_loan_is_ten_pounds_and_its_value_is_seen_only_by_its_owner() -> None:
    state = play(game(3), 1, {"type": "loan"})
    assert state["seats"][1]["money"] == 50
    value = state["seats"][1]["loans"][0]
    assert -10 <= value <= -7
    assert cp.view(state, 1)["seats"][1]["loan_values"] == [value]
    for viewer in (None, 0, 2):
        seat = cp.view(state, viewer)["seats"][1]
        assert seat["loans"] == 1 and "loan_values" not in seat


def test_after_the_last_tile_loans_are_forced_at_the_empty_stack_value() -> None:
    state = game(2)
    state["loans"] = []
    assert {"type": "loan"} not in cp.legal_actions(state, 0)
    with pytest.raises(IllegalAction) as refused:
        cp.apply(state, 0, {"type": "loan"})
    assert refused.value.code == "no_loans_left"
    state["seats"][0]["money"] = 0
    state, _ = commit(state, [[2, 1, 1, 1], [1, 1, 1, 1]])
    assert state["seats"][0]["loans"] == [components()["loans"]["when_stack_empty"]]


# -- phase 2 -------------------------------------------------------------------------------


def test_one_die_per_space_and_the_minimum_value_holds() -> None:
    state = placement_turn(2, 0, [4, 2])
    with pytest.raises(IllegalAction):
        cp.apply(state, 0, {"type": "place", "location": "bank", "space": 0, "value": 4})  # min 5
    state = play(state, 0, {"type": "place", "location": "bank", "space": 1, "value": 4})
    state = play(state, 1, {"type": "place", "location": "bank", "space": 2, "value": 1})
    assert state["turn"] == 0
    with pytest.raises(IllegalAction):
        cp.apply(state, 0, {"type": "place", "location": "bank", "space": 1, "value": 2})


def test_placement_goes_round_skipping_players_without_dice_and_passing_ends_it() -> None:
    state = placement_turn(3, 0, [3, 3, 3])
    state = play(state, 0, {"type": "place", "location": "port", "space": 1, "value": 3})
    state = play(state, 1, {"type": "place", "location": "port", "space": 3, "value": 1})
    state = play(state, 2, {"type": "pass"})
    assert state["turn"] == 0  # seat 1 has no dice left, seat 2 passed
    state = play(state, 0, {"type": "place", "location": "port", "space": 2, "value": 3})
    assert state["turn"] == 0
    state = play(state, 0, {"type": "pass"})
    assert state["phase"] == 3 or state["step"]["kind"] != "place"
    assert state["seats"][0]["unplaced"] == [3]  # not refunded


def test_assistant_goal_track_needs_the_next_level_requirement() -> None:
    """Seed: a nation whose next level needs at least two character cards (France L2)."""
    state = placement_turn(2, 0, [5])
    state["seats"][0].update(nation="france", goal=1, characters=["C02"])
    state = play(state, 0, {"type": "place", "location": "bank", "space": 0, "value": 5})
    assert {"type": "goal"} not in cp.legal_actions(state, 0)
    with pytest.raises(IllegalAction) as refused:
        cp.apply(state, 0, {"type": "goal"})
    assert refused.value.code == "goal_not_met"
    state["seats"][0]["characters"] = ["C02", "C10"]
    state = play(state, 0, {"type": "goal"})
    assert state["seats"][0]["goal"] == 2


def test_black_market_new_assistant_lowest_space_then_move_to_the_next_free_one() -> None:
    """Seed: a new assistant pays the cost of the lowest free space (£1); one already
    there moves to the next free space above and pays that space's cost (£3)."""
    state = placement_turn(2, 0, [5, 5])
    state["market"][:4] = [1, 1, 1, 1]  # spaces 1-4 taken by seat 1
    state["market"][0] = None
    money = state["seats"][0]["money"]
    state = play(
        state, 0, {"type": "place", "location": "bank", "space": 0, "value": 5}, {"type": "market"}
    )
    assert state["market"][0] == 0 and state["seats"][0]["money"] == money - 1
    assert state["seats"][0]["assistants"] == 4
    state = play(state, 1, {"type": "pass"})
    state = play(state, 0, {"type": "place", "location": "port", "space": 0, "value": 5})
    state = play(state, 0, {"type": "market", "from": 0})
    assert state["market"][:5] == [None, 1, 1, 1, 0]
    assert state["seats"][0]["money"] == money - 1 - 3


def test_entering_a_gear_space_takes_its_gear() -> None:
    state = placement_turn(2, 0, [5])
    state["market"][:3] = [1, 1, 1]
    gears = state["seats"][0]["gears"]
    state = play(
        state, 0, {"type": "place", "location": "bank", "space": 0, "value": 5}, {"type": "market"}
    )
    assert state["market"][3] == 0 and state["seats"][0]["gears"] == gears + 1
    assert 3 not in state["market_gears"]


# -- phase 3 -------------------------------------------------------------------------------


def test_resolution_goes_by_location_then_value_then_leftmost_space() -> None:
    state = pay_nothing(game(2))
    state = resolve(
        state,
        {"westminster": [(0, 1, 4), (1, 0, 5)], "patent_office": [(2, 1, 2)]},
        (0, "patent_office", 0, 5),
    )
    assert state["queue"] == [
        ["patent_office", 0],
        ["patent_office", 2],
        ["westminster", 1],
        ["westminster", 0],
    ]


def test_the_violet_bonus_comes_before_the_patent_and_a_decline_leaves_the_space_free() -> None:
    state = pay_nothing(game(2))
    state = resolve(state, {"patent_office": [(1, 1, 3)]}, (0, "patent_office", 0, 5))
    card = state["patents"]["row"][0]
    tile = state["violet"]["blue"][-1]
    assert set(kinds(state, 0)) >= {"act", "decline"}
    state = play(state, 0, {"type": "decline"})
    assert state["board"]["patent_office"]["acted"] == [None, None]
    assert state["seats"][0]["patents"] == [] and state["seats"][0]["research"] == []
    state = play(state, 1, {"type": "act", "card": card})
    assert state["board"]["patent_office"]["acted"][0] == [1, 3]  # the leftmost is still free
    assert state["seats"][1]["patents"] == [card]
    assert state["seats"][1]["research"] == [tile]


def test_a_negative_action_space_is_paid_before_the_action() -> None:
    state = pay_nothing(game(4))
    state = resolve(
        state,
        {"british_museum": [(0, 1, 6), (1, 2, 5)], "port": [(5, 0, 1)]},
        (3, "british_museum", 2, 4),
    )
    state = play(state, 1, {"type": "act", "tile": state["museum"][0]})
    state = play(state, 2, {"type": "act", "tile": state["museum"][0]})
    money, tile = state["seats"][3]["money"], state["museum"][0]
    effect = research_tiles()[tile]
    paid_back = effect["effect"].get("money", 0) if effect["timing"] == "IMM" else 0
    state = play(state, 3, {"type": "act", "tile": tile})
    assert state["board"]["british_museum"]["acted"][2] == [3, 4]
    assert state["seats"][3]["research"] == [tile]
    assert state["seats"][3]["money"] == money - 1 + paid_back


def test_no_action_space_left_pays_one_pound_compensation() -> None:
    state = pay_nothing(game(2))
    later = {"port": [(3, 0, 1)]}  # keeps phase 3 going after the London Times
    dice = {"london_times": [(0, 0, 6), (1, 1, 5)], **later}
    state = resolve(state, dice, (1, "london_times", 2, 2))
    money = state["seats"][1]["money"]
    state = play(state, 0, {"type": "act"})
    state, events = cp.apply(state, 1, {"type": "act"})
    assert state["seats"][0]["buzz"] == 1 + 2  # leftmost +1 buzz, then Punch's +2
    assert state["seats"][1]["buzz"] == 2  # the plain space
    assert state["seats"][1]["money"] == money + 1  # its 2 found no space: £1, unasked
    assert {"type": "compensation", "seat": 1, "location": "london_times"} in events
    assert state["queue"] == [["port", 3]]


def test_compensation_is_automatic_without_a_ticket_and_a_choice_with_one() -> None:
    dice = {"westminster": [(0, 0, 6), (1, 0, 5)], "port": [(3, 0, 1)]}
    for tickets, expected in ((0, 1), (1, 0)):
        state = pay_nothing(game(2))
        state["seats"][1]["tickets"] = tickets
        state = resolve(state, dice, (1, "westminster", 2, 1))  # a 1: the £2-fee space
        state["seats"][1]["money"] = 0
        state = play(state, 0, {"type": "act"}, {"type": "act"})
        assert state["seats"][1]["money"] == expected
        assert cp.to_act(state) == ({0} if not tickets else {1})


def test_a_ticket_performs_the_action_without_a_space() -> None:
    state = pay_nothing(game(2))
    state["seats"][1]["tickets"] = 1
    state = resolve(
        state,
        {"westminster": [(0, 0, 6), (1, 0, 5)], "port": [(3, 0, 1)]},
        (1, "westminster", 2, 1),
    )
    state = play(state, 0, {"type": "act"}, {"type": "act"})
    assert kinds(state, 1) >= {"ticket", "compensation"}
    state = play(state, 1, {"type": "ticket"})
    assert state["seats"][1]["westminster"] == 1 and state["seats"][1]["tickets"] == 0
    assert state["spent_tickets"] == 1


def test_menu_options_are_used_once_per_round() -> None:
    state = pay_nothing(game(2))
    state = resolve(state, {"port": [(0, 0, 6), (1, 1, 5)]}, (0, "port", 2, 2))
    state = play(state, 0, {"type": "act", "option": "P1"})
    assert {"type": "act", "option": "P1"} not in cp.legal_actions(state, 1)
    state = play(state, 1, {"type": "act", "option": "P3"})
    assert state["seats"][1]["tickets"] == 1 and state["tickets"] == 2
    options = [a.get("option") for a in cp.legal_actions(state, 0) if a["type"] == "act"]
    assert options == ["P2"]


def test_port_buys_a_die_for_next_round_and_waterloo_sells_one_for_vp() -> None:
    state = pay_nothing(game(2))
    state = resolve(state, {"port": [(0, 0, 6)], "waterloo": [(0, 1, 6)]}, (0, "waterloo", 1, 3))
    money = state["seats"][0]["money"]
    state = play(state, 1, {"type": "act", "option": "W1"})
    assert {"type": "act", "option": "W3"} not in cp.legal_actions(state, 0)  # 4 dice: keep them
    state = play(state, 0, {"type": "act", "option": "W2"}, {"type": "act", "option": "P2"})
    assert state["seats"][0]["dice"] == 5
    assert state["seats"][0]["money"] >= money - 5


def test_bank_share_pays_its_price_and_raises_income() -> None:
    state = pay_nothing(game(2))
    state = resolve(state, {"port": [(3, 1, 1)]}, (0, "bank", 0, 5))
    share = state["bank"][0]
    assert share.startswith("S1")  # a Spring 1849 share in the first round
    info = shares()[share]
    money, income = state["seats"][0]["money"], state["seats"][0]["income"]
    state = play(state, 0, {"type": "act", "share": share})
    assert state["seats"][0]["shares"] == [share] and share not in state["bank"]
    assert state["seats"][0]["income"] == income + info["gain"]["income"]
    assert state["seats"][0]["money"] == money + 1 - info["price"]  # +£1 space, then the price


def test_reform_club_recruit_pays_the_cost_and_scores_the_rounds_vp() -> None:
    state = pay_nothing(game(2))
    state = resolve(state, {"port": [(3, 1, 1)]}, (0, "reform_club", 1, 4))
    card = state["characters"]["row"][0]
    info = characters()[card]
    money, vp = state["seats"][0]["money"], state["seats"][0]["vp"]
    state = play(state, 0, {"type": "act", "card": card})
    assert state["seats"][0]["characters"] == [card]
    assert state["seats"][0]["vp"] == vp + info["vp"][0]  # round 1's VP, at once
    assert state["seats"][0]["money"] == money - info["cost"]  # the salary comes in phase 4
