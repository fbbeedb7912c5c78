"""Chartered's rules through the engine (rules/chartered.md), with the spec's
acceptance scenarios T1–T7 and the seed's rules as cases."""

from __future__ import annotations

from typing import Any

import pytest
from chartered_positions import build, company, level_card, play, plot_card, table

from engines.base import IllegalAction, State
from engines.chartered import ENGINE as chartered
from engines.chartered.state import cards, company_ids


def event_card(event: str) -> int:
    return next(i for i, c in enumerate(cards()) if c.get("id") == event)


def builds(state: State, seat: int = 0) -> list[dict[str, Any]]:
    return [a for a in chartered.legal_actions(state, seat) if a["type"] == "build"]


DONE = {"type": "done"}


# -- founding (§9.1), T1, T2 ------------------------------------------------------


def test_founding_places_hq_and_two_warehouses_pays_30_and_gives_a_share():
    state = table()
    state["hands"][0] = [plot_card(1)]
    cash, supply = state["cash"][0], state["supply"]
    state = play(state, 0, build(plot_card(1)), {"type": "company", "company": "gold"})
    layouts = [a["plots"] for a in chartered.legal_actions(state, 0)]
    assert [2, 9] in layouts and [2, 3] in layouts and [2, 10] in layouts and [9, 10] in layouts
    assert [3, 9] not in layouts and [2, 11] not in layouts
    state = play(state, 0, {"type": "layout", "plots": [2, 9]})
    assert state["plots"][1] == ["gold", 2] and state["plots"][2] == state["plots"][9] == [
        "gold",
        1,
    ]
    assert state["companies"]["gold"]["value"] == 30
    assert state["shares"][0]["gold"] == [1, 0]
    assert state["cash"][0] == cash + 30
    assert state["supply"] == supply - 3
    assert state["pending"]["step"] == "trade"


def test_t1_plots_in_the_buffer_zone_cannot_found():
    state = table()
    company(state, "gold", 29, [30, 28], 30)
    state["hands"][0] = [plot_card(25), plot_card(17), plot_card(1)]
    assert builds(state) == [build(plot_card(1))]


def test_no_founding_when_all_nine_companies_are_on_the_board():
    """Plot 77 is far from every company (it could found with eight of them on the
    board), but no company is left to found."""
    state = table(players=4)
    hqs = [1, 4, 7, 17, 20, 23, 33, 36, 40]
    for name, hq in zip(company_ids()[:8], hqs, strict=False):
        company(state, name, hq, [], 30)
    state["hands"][0] = [plot_card(77)]
    assert builds(state) == [build(plot_card(77))], "foundable while a company is free"
    company(state, company_ids()[8], hqs[8], [], 30)
    assert builds(state) == []


# -- expansion, stacking, levels (§9.2–§9.3), T3 -------------------------------------


def test_expanding_adds_10_and_pays_the_new_value():
    state = table()
    company(state, "gold", 29, [30, 28], 30)
    state["hands"][0] = [plot_card(31)]
    cash = state["cash"][0]
    state = play(state, 0, build(plot_card(31)))
    assert state["plots"][31] == ["gold", 1]
    assert state["companies"]["gold"]["value"] == 40
    assert state["cash"][0] == cash + 40


def test_t3_stacking_then_a_level_3_on_height_2():
    state = table()
    company(state, "gold", 29, [30, 28], 30)
    state["hands"][0] = [plot_card(30), level_card(3), level_card(2)]
    state = play(state, 0, build(plot_card(30)), DONE)
    assert state["plots"][30] == ["gold", 2] and state["companies"]["gold"]["value"] == 40
    state["turn"] = 0
    targets = {a.get("plot") for a in builds(state) if a["card"] == level_card(3)}
    assert targets == {29, 30}, "height 2: the stacked plot and the HQ"
    assert {a.get("plot") for a in builds(state) if a["card"] == level_card(2)} == {28}
    state = play(state, 0, build(level_card(3), 29))
    assert state["plots"][29] == ["gold", 3]
    assert state["companies"]["gold"]["value"] == 70


# -- mergers (§9.4), T4, T5, T6 -------------------------------------------------------


def t4_board() -> State:
    state = table()
    company(state, "gold", 33, [34, 41, 35, 36], 50)
    company(state, "tea", 39, [40, 48, 38], 40)
    state["shares"][1]["tea"] = [2, 0]
    state["flags"]["tea"] = 1
    state["hands"][0] = [plot_card(37)]
    return state


def test_t4_the_higher_value_absorbs_the_lower():
    state = t4_board()
    cash0, cash1 = state["cash"][0], state["cash"][1]
    state = play(state, 0, build(plot_card(37)))
    assert [a["company"] for a in chartered.legal_actions(state, 0)] == ["gold", "tea"]
    state = play(state, 0, {"type": "boost", "company": "gold"})
    assert "tea" not in state["companies"] and "tea" not in state["flags"]
    assert state["companies"]["gold"]["value"] == 60 + 40
    assert state["cash"][1] == cash1 + 2 * 40 + 4 * 40, "shares and flag sold at the loser's value"
    assert state["shares"][1]["tea"] == [0, 0]
    assert state["plots"][39] == ["gold", 1], "the HQ comes off"
    assert all(state["plots"][p][0] == "gold" for p in (37, 38, 40, 48))
    assert state["cash"][0] == cash0 + 100, "payout: the survivor's value"


def test_t4_a_tie_is_decided_by_the_player_who_merged():
    state = play(t4_board(), 0, build(plot_card(37)), {"type": "boost", "company": "tea"})
    assert state["pending"]["step"] == "survivor"
    state = play(state, 0, {"type": "survivor", "company": "tea"})
    assert "gold" not in state["companies"] and state["companies"]["tea"]["value"] == 100


def test_t5_a_three_way_merger_in_the_order_the_player_picks():
    state = table()
    company(state, "gold", 29, [30, 28, 21, 22], 60)
    company(state, "tea", 8, [7, 16, 15], 40)
    company(state, "gems", 12, [11, 3, 13], 40)
    state["hands"][0] = [plot_card(14)]
    state = play(state, 0, build(plot_card(14)), {"type": "boost", "company": "gold"})
    pairs = [a["companies"] for a in chartered.legal_actions(state, 0)]
    assert pairs == [["gems", "gold"], ["gems", "tea"], ["gold", "tea"]]
    state = play(state, 0, {"type": "pair", "companies": ["gems", "tea"]})
    state = play(state, 0, {"type": "survivor", "company": "tea"})
    assert set(state["companies"]) == {"tea"}
    assert state["companies"]["tea"]["value"] == 40 + 40 + 70
    assert state["plots"][14] == ["tea", 1]


def test_t6_a_merger_is_capped_at_500():
    state = table()
    company(state, "gold", 33, [34, 41, 35, 36], 300)
    company(state, "tea", 39, [40, 48, 38], 280)
    state["hands"][0] = [plot_card(37)]
    state = play(state, 0, build(plot_card(37)), {"type": "boost", "company": "tea"})
    assert state["companies"]["gold"]["value"] == 500


def test_t6_values_never_fall_below_30():
    state = table(events=True)
    company(state, "gold", 29, [30, 28], 40)
    state["deck"] = [plot_card(5), event_card("E4")]
    cash = state["cash"][0]
    state = play(state, 0, {"type": "buy", "from": "deck"})
    assert state["companies"]["gold"]["value"] == 30
    assert state["hands"][0] == [plot_card(5)], "the blind buyer gets the next card"
    assert state["cash"][0] == cash - 50


# -- shares, trading window and flags (§10), T7 ----------------------------------------


def trading(value: int = 30) -> State:
    state = table()
    company(state, "gold", 29, [30, 28], value - 10)
    state["hands"][0] = [plot_card(31)]
    return play(state, 0, build(plot_card(31)))


def test_shares_cost_at_least_50_and_sell_at_value():
    state = trading(value=40)
    cash = state["cash"][0]
    state = play(state, 0, {"type": "trade", "op": "buy", "company": "gold", "face_down": False})
    assert state["cash"][0] == cash - 50
    state = play(state, 0, {"type": "trade", "op": "sell", "company": "gold"})
    assert state["cash"][0] == cash - 50 + 40
    assert state["pending"] is None and state["turn"] == 1, "two transactions close the window"


def test_a_flag_replaces_the_window_and_costs_200_then_400():
    state = trading()
    flag = {"type": "flag", "company": "gold"}
    assert flag in chartered.legal_actions(state, 0)
    cash = state["cash"][0]
    state = play(state, 0, flag)
    assert state["flags"] == {"gold": 0} and state["cash"][0] == cash - 200
    state["turn"], state["hands"][0] = 0, [plot_card(27)]
    state = play(state, 0, build(plot_card(27)))
    assert flag not in chartered.legal_actions(state, 0), "one flag per company"


def test_t7_the_second_flag_costs_400():
    state = trading()
    state["flags_bought"][0] = 1
    cash = state["cash"][0]
    state = play(state, 0, {"type": "flag", "company": "gold"})
    assert state["cash"][0] == cash - 400
    assert state["flags_bought"][0] == 2


def test_no_flag_after_a_share_trade():
    state = trading()
    state = play(state, 0, {"type": "trade", "op": "buy", "company": "gold", "face_down": False})
    assert {"type": "flag", "company": "gold"} not in chartered.legal_actions(state, 0)


def test_t7_a_flag_on_an_absorbed_company_worth_120_pays_480():
    state = table()
    company(state, "gold", 33, [34, 41, 35, 36], 200)
    company(state, "tea", 39, [40, 48, 38], 120)
    state["flags"]["tea"] = 1
    state["hands"][0] = [plot_card(37)]
    cash1 = state["cash"][1]
    state = play(state, 0, build(plot_card(37)), {"type": "boost", "company": "gold"})
    assert state["cash"][1] == cash1 + 480


def test_face_down_shares_are_hidden_from_other_seats():
    state = table(hidden_shares=True)
    company(state, "gold", 29, [30, 28], 20)
    state["hands"][0] = [plot_card(31)]
    state = play(
        state,
        0,
        build(plot_card(31)),
        {"type": "trade", "op": "buy", "company": "gold", "face_down": True},
    )
    assert chartered.view(state, 0)["shares"][0] == {"gold": 1}
    assert chartered.view(state, 1)["shares"][0] == {}
    assert chartered.view(state, 1)["face_down"][0] == 1


def test_a_face_down_purchase_leaves_the_bank_count_others_see_unchanged():
    """Issue 10 item 18: the bank's count of exactly the bought company dropped."""
    state = table(players=3, hidden_shares=True)
    company(state, "gold", 29, [30, 28], 20)
    company(state, "tea", 8, [7, 16], 40)
    state["hands"][0] = [plot_card(31)]
    state = play(state, 0, build(plot_card(31)))
    before = [chartered.view(state, v)["bank_shares"] for v in (None, 1, 2)]
    state = play(state, 0, {"type": "trade", "op": "buy", "company": "gold", "face_down": True})
    assert [chartered.view(state, v)["bank_shares"] for v in (None, 1, 2)] == before
    assert chartered.view(state, 0)["bank_shares"] == {"gold": 8, "tea": 9}
    state = play(state, 0, {"type": "trade", "op": "buy", "company": "gold", "face_down": False})
    assert chartered.view(state, 1)["bank_shares"] == {"gold": 8, "tea": 9}, "face up shows"


def test_an_empty_bank_shows_0_to_everyone():
    """That a company's bank is empty is public (the engine's rules decisions): seat 0's
    legal moves show it, as an empty stack does at the table. While the bank has shares,
    how many is hidden; once the last one is bought, even face down, all see 0."""
    state = table(players=3, hidden_shares=True)
    company(state, "gold", 29, [30, 28], 20)
    company(state, "tea", 8, [7, 16], 40)
    state["shares"][1]["gold"] = [0, 7]
    state["hands"][0] = [plot_card(31)]
    state = play(state, 0, build(plot_card(31)))
    assert chartered.view(state, 2)["bank_shares"]["gold"] == 9, "seat 1's 7 may be anywhere"
    state = play(state, 0, {"type": "trade", "op": "buy", "company": "gold", "face_down": True})
    seen = [chartered.view(state, v)["bank_shares"]["gold"] for v in (None, 0, 1, 2)]
    assert seen == [9, 8, 2, 9], "1 left: each counts the face-down shares it cannot see"
    state = play(state, 0, {"type": "trade", "op": "buy", "company": "gold", "face_down": True})
    for viewer in (None, 0, 1, 2):
        assert chartered.view(state, viewer)["bank_shares"] == {"gold": 0, "tea": 9}


# -- buying and the forced sale (§8.1, §8.3) --------------------------------------------


def test_buying_from_the_market_refills_the_slot():
    state = table()
    market = list(state["market"])
    state = play(state, 0, {"type": "buy", "from": 1})
    assert market[1] in state["hands"][0]
    assert len(state["market"]) == len(market)


def test_a_refresh_costs_50_more_and_then_the_seat_buys():
    state = table()
    cash = state["cash"][0]
    state = play(state, 0, {"type": "refresh"})
    assert state["pending"]["step"] == "buy" and state["cash"][0] == cash - 50
    state = play(state, 0, {"type": "buy", "from": "deck"})
    assert state["cash"][0] == cash - 100 and len(state["hands"][0]) == 1


def test_option_3_sell_shares_until_a_card_can_be_bought():
    state = table()
    company(state, "gold", 29, [30, 28], 30)
    state["cash"][0], state["shares"][0]["gold"] = 20, [2, 0]
    assert chartered.legal_actions(state, 0) == [{"type": "sell", "company": "gold"}]
    state = play(state, 0, {"type": "sell", "company": "gold"})
    assert state["cash"][0] == 50 and state["pending"]["step"] == "forced"
    state = play(state, 0, {"type": "buy", "from": "deck"})
    assert state["cash"][0] == 0 and state["turn"] == 1


def test_option_3_may_sell_more_than_one_share_then_refresh_and_buy():
    """Issue 10 item 17: the seed says "at least one" share, and §8.3 step 2 allows
    the refresh when the seat can pay for it."""
    state = table()
    company(state, "gold", 29, [30, 28], 60)
    state["cash"][0], state["shares"][0]["gold"] = 0, [3, 0]
    sell = {"type": "sell", "company": "gold"}
    state = play(state, 0, sell)
    assert state["cash"][0] == 60
    legal = chartered.legal_actions(state, 0)
    assert sell in legal and {"type": "buy", "from": "deck"} in legal
    assert {"type": "refresh"} not in legal, "ƒ60 cannot pay ƒ100"
    state = play(state, 0, sell)
    assert {"type": "refresh"} in chartered.legal_actions(state, 0)
    state = play(state, 0, {"type": "refresh"}, {"type": "buy", "from": 0})
    assert state["cash"][0] == 20 and state["shares"][0]["gold"] == [1, 0]
    assert len(state["hands"][0]) == 1 and state["turn"] == 1


def test_option_3_keeps_selling_while_the_seat_cannot_pay():
    state = table()
    company(state, "gold", 29, [30, 28], 30)
    state["cash"][0], state["shares"][0]["gold"] = 0, [2, 0]
    state = play(state, 0, {"type": "sell", "company": "gold"})
    assert chartered.legal_actions(state, 0) == [{"type": "sell", "company": "gold"}]
    state = play(state, 0, {"type": "sell", "company": "gold"})
    assert state["cash"][0] == 60 and {"type": "buy", "from": "deck"} in chartered.legal_actions(
        state, 0
    )


def test_a_forced_sale_that_cannot_raise_the_card_price_passes_with_a_pass_event():
    """§8.3: the seat sells its last share and is still short of ƒ50, so the engine
    passes for it; the log says so (a ``pass`` event with its reason)."""
    state = table()
    company(state, "gold", 29, [30, 28], 30)
    state["cash"][0], state["shares"][0]["gold"] = 10, [1, 0]
    state, events = chartered.apply(state, 0, {"type": "sell", "company": "gold"})
    assert [e["type"] for e in events] == ["sell", "pass"]
    assert events[1] == {"type": "pass", "seat": 0, "reason": "forced_sale_failed"}
    assert chartered.narrate(events[1], ["ana", "bob"]) == (
        "ana passed: after selling every share they still cannot pay ƒ50 for a card."
    )
    assert state["cash"][0] == 40 and state["turn"] == 1 and state["passes"] == 1
    assert state["pending"] is None


def test_a_seat_that_can_do_nothing_passes_and_everyone_passing_ends_the_game():
    state = table()
    state["cash"] = [10, 10]
    assert chartered.legal_actions(state, 0) == [{"type": "pass"}]
    state = play(state, 0, {"type": "pass"})
    state = play(state, 1, {"type": "pass"})
    assert state["finished"]


# -- events (§11) ------------------------------------------------------------------


def test_sell_share_events_go_round_from_the_trigger_player():
    state = table(players=3, events=True)
    company(state, "gold", 29, [30, 28], 60)
    company(state, "tea", 8, [7, 16], 40)
    state["turn"] = 1
    state["shares"][0]["gold"], state["shares"][0]["tea"] = [1, 0], [1, 0]
    state["shares"][1]["gold"] = [3, 0]
    state["shares"][2]["tea"], state["shares"][2]["gold"] = [1, 0], [1, 0]
    state["deck"] = [plot_card(5), event_card("E5")]
    state, events = chartered.apply(state, 1, {"type": "buy", "from": "deck"})
    assert state["shares"][1]["gold"] == [2, 0], "the trigger player sold first (forced)"
    assert {"type": "sell", "seat": 1, "company": "gold", "price": 60} in events, (
        "an automatic sale is told"
    )
    assert chartered.to_act(state) == frozenset({2}), "then clockwise: seat 2 chooses"
    state = play(state, 2, {"type": "sell", "company": "tea"})
    assert chartered.to_act(state) == frozenset({0})
    state = play(state, 0, {"type": "sell", "company": "gold"})
    assert state["hands"][1] == [plot_card(5)] and state["turn"] == 2


def test_a_blind_buy_of_the_decks_last_card_as_an_event_takes_a_market_card_paid():
    """Issue 10 item 19: the buyer paid ƒ50 and got nothing though the market had cards."""
    state = table(events=True)
    state["deck"] = [event_card("E3")]
    market = list(state["market"])
    cash = state["cash"][0]
    state = play(state, 0, {"type": "buy", "from": "deck"})
    assert state["pending"] == {"step": "buy", "seat": 0, "paid": True}
    assert chartered.legal_actions(state, 0) == [
        {"type": "buy", "from": i} for i in range(len(market))
    ]
    state, events = chartered.apply(state, 0, {"type": "buy", "from": 2})
    assert state["hands"][0] == [market[2]] and state["cash"][0] == cash - 50
    assert events[0]["price"] == 0 and state["turn"] == 1


def test_with_deck_and_market_empty_the_blind_buyer_gets_the_50_back():
    state = table(events=True)
    state["deck"], state["market"] = [event_card("E3")], []
    cash = state["cash"][0]
    state, events = chartered.apply(state, 0, {"type": "buy", "from": "deck"})
    assert state["cash"][0] == cash and state["hands"][0] == [] and state["turn"] == 1
    assert {"type": "refund", "seat": 0, "amount": 50} in events


def test_money_minus_event_takes_what_a_poor_player_has():
    state = table(events=True)
    state["cash"] = [60, 30]
    state["deck"] = [plot_card(5), event_card("E2")]
    state = play(state, 0, {"type": "buy", "from": "deck"})
    assert state["cash"] == [0, 0], "after paying for the card seat 0 has 10, and pays those"


def test_three_stocks_event_moves_only_its_triple():
    state = table(events=True)
    company(state, "gold", 29, [30, 28], 100)
    company(state, "tea", 8, [7, 16], 100)
    state["deck"] = [plot_card(5), event_card("E7")]
    state = play(state, 0, {"type": "buy", "from": "deck"})
    assert state["companies"]["gold"]["value"] == 130 and state["companies"]["tea"]["value"] == 100


# -- end of game (§12) ---------------------------------------------------------------


def test_the_last_warehouse_ends_the_game_after_the_window_and_scores():
    state = table()
    company(state, "gold", 29, [30, 28], 90)
    state["supply"] = 1
    state["hands"][0] = [plot_card(31), plot_card(2)]
    state["shares"][1]["gold"] = [2, 0]
    state["flags"]["gold"] = 1
    state = play(state, 0, build(plot_card(31)))
    assert not state["finished"] and state["pending"]["step"] == "trade"
    cash = list(state["cash"])
    state = play(state, 0, DONE)
    assert state["finished"]
    result = chartered.result(state)
    assert result["details"][0]["hand_penalty"] == -20
    assert result["scores"][1] == cash[1] + 2 * 100 + 4 * 100
    assert result["winners"] == [1]


def test_refusals_have_codes():
    state = table()
    state["hands"][0] = [plot_card(1)]
    for action, code in [
        ({"type": "teleport"}, "bad_action"),
        ({"type": "layout", "plots": [1, 2]}, "wrong_step"),
        (build(plot_card(40)), "card_not_in_hand"),
    ]:
        with pytest.raises(IllegalAction) as refused:
            chartered.apply(state, 0, action)
        assert refused.value.code == code
        # A refusal is a player's sentence: never the action's dict.
        assert "{" not in refused.value.message and "'" not in refused.value.message
    with pytest.raises(IllegalAction) as refused:
        chartered.apply(state, 0, build(plot_card(40)))
    assert refused.value.message == "that plot card is not in your hand"
    with pytest.raises(IllegalAction) as refused:
        chartered.apply(state, 1, {"type": "buy", "from": "deck"})
    assert refused.value.code == "not_your_turn"
    state["cash"][0] = 60
    with pytest.raises(IllegalAction) as refused:
        chartered.apply(state, 0, {"type": "refresh"})
    assert refused.value.code == "not_enough_money", "a refresh and a card cost ƒ100"


def test_a_face_down_purchase_does_not_name_its_company_in_the_public_events():
    state = table(hidden_shares=True)
    company(state, "gold", 29, [30, 28], 20)
    state["hands"][0] = [plot_card(31)]
    state = play(state, 0, build(plot_card(31)))
    buy = {"type": "trade", "op": "buy", "company": "gold", "face_down": True}
    _, events = chartered.apply(state, 0, buy)
    assert {"type": "trade", "seat": 0, "op": "buy", "company": None} in events
    assert "gold" not in str([e for e in events if e["type"] == "trade"])


def test_a_refresh_that_reveals_a_money_event_can_leave_nothing_to_buy_with():
    state = table(events=True, market_refresh="discard")  # keeps the deck's order
    state["cash"][0] = 100
    state["deck"] = [plot_card(5), plot_card(6), plot_card(7), plot_card(8), event_card("E2")]
    state = play(state, 0, {"type": "refresh"})
    assert state["cash"][0] == 0, "ƒ50 for the refresh, ƒ50 to the event"
    assert state["pending"] is None and state["turn"] == 1, "no card bought, the turn ends"


# -- the ambiguity register's alternatives (§13) -------------------------------------


def test_a3_boosted_payout_pays_the_value_of_the_boosted_company():
    state = t4_board()
    state["options"]["merger_payout"] = "boosted"
    cash = state["cash"][0]
    state = play(state, 0, build(plot_card(37)), {"type": "boost", "company": "gold"})
    assert state["cash"][0] == cash + 100, "gold was boosted and survived: its final value"
    state = t4_board()
    state["options"]["merger_payout"] = "boosted"
    state["companies"]["gold"]["value"] = 80
    state = play(state, 0, build(plot_card(37)), {"type": "boost", "company": "tea"})
    assert "tea" not in state["companies"]
    assert state["cash"][0] == cash + 80 + 50, "the boosted company was absorbed: the survivor pays"


def test_a5_a_stack_cap_makes_a_full_plot_unplayable():
    state = table(stack_cap=4)
    company(state, "gold", 29, [30, 28], 30)
    state["plots"][30] = ["gold", 4]
    state["hands"][0] = [plot_card(30)]
    assert builds(state) == []
    state["options"]["stack_cap"] = 0
    assert builds(state) == [build(plot_card(30))]


def test_a8_events_dealt_into_the_first_market_are_set_aside_or_resolved():
    for seed in range(40):
        state = chartered.setup(2, {"events": True}, seed)
        assert all(cards()[c]["kind"] != "event" for c in state["market"])
        resolved = chartered.setup(2, {"events": True, "initial_market_events": "resolve"}, seed)
        assert all(cards()[c]["kind"] != "event" for c in resolved["market"])
        assert len(resolved["market"]) == len(state["market"]) == 5
    differing = [
        s
        for s in range(40)
        if chartered.setup(2, {"events": True, "initial_market_events": "resolve"}, s)["cash"]
        != [600, 600]
    ]
    assert differing, "some seed deals a money event into the first market, and it takes effect"


def test_a10_immediate_end_skips_the_last_trading_window():
    state = table(last_turn="immediate")
    company(state, "gold", 29, [30, 28], 90)
    state["supply"] = 1
    state["hands"][0] = [plot_card(31)]
    state = play(state, 0, build(plot_card(31)))
    assert state["finished"], "no trading after the last warehouse"


def test_a2_a_refresh_can_discard_the_old_market_instead_of_shuffling_it_in():
    for mode, to_discard in (("shuffle", 0), ("discard", 5)):
        state = table(market_refresh=mode)
        old, deck = list(state["market"]), len(state["deck"])
        state = play(state, 0, {"type": "refresh"})
        assert len(state["discard"]) == to_discard
        assert (set(old) <= set(state["discard"])) == (mode == "discard")
        assert len(state["deck"]) == deck - 5 + (5 if mode == "shuffle" else 0)


def test_a4_no_flag_after_a_level_build_when_the_option_is_off():
    for allowed in (True, False):
        state = table(level_flag=allowed)
        company(state, "gold", 29, [30, 28], 30)
        state["hands"][0] = [level_card(2)]
        state = play(state, 0, build(level_card(2), 28))
        offered = {"type": "flag", "company": "gold"} in chartered.legal_actions(state, 0)
        assert offered == allowed


def test_a9_three_stocks_events_can_move_50():
    state = table(events=True, three_stocks_amount=50)
    company(state, "gold", 29, [30, 28], 100)
    state["deck"] = [plot_card(5), event_card("E10")]
    state = play(state, 0, {"type": "buy", "from": "deck"})
    assert state["companies"]["gold"]["value"] == 50
