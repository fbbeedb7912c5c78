"""Crystal Palace's rules through the engine (rules/crystal_palace.md), the end of a
round and of the game: phases 4–7 (salaries, abilities, building, income and buzz, the
refill for the next season), then the last round's repayment and final scoring."""

from __future__ import annotations

from engines.crystal_palace import ENGINE as cp
from engines.crystal_palace.data import components
from support import end_of_phase3, game, last_round, pay_nothing, play, resolve


def test_salaries_then_abilities_nightingale_lowers_the_others() -> None:
    state = game(2)
    state["seats"][0]["characters"] = ["C23", "C07"]  # salaries 1 and 3; C07: +2 gears
    state["seats"][0]["income"] = 0
    money, gears = state["seats"][0]["money"], state["seats"][0]["gears"]
    state = end_of_phase3(state)
    assert state["seats"][0]["money"] == money - 1 - (3 - 1)
    assert state["seats"][0]["gears"] == gears + 2


def test_unpaid_salaries_force_loans_and_ability_costs_never_do() -> None:
    state = game(2)
    state["seats"][0].update(characters=["C25"], money=1, income=0)  # salary 2; +2 gears −£1
    state = end_of_phase3(state)
    assert len(state["seats"][0]["loans"]) == 1
    assert state["seats"][0]["money"] == 1 + 10 - 2 - 1
    state = game(2)
    state["seats"][0].update(characters=["C25"], money=2, income=0)
    state = end_of_phase3(state)
    assert state["seats"][0]["loans"] == [] and state["seats"][0]["money"] == 0


def test_build_pays_scores_the_round_and_the_link_bonus_and_hits_the_target() -> None:
    state = game(2)
    state["seats"][0].update(patents=["P03"], characters=["C18"], gears=3, energy=3)
    state["seats"][1]["money"] = 2  # P03's target effect: −£3, only what they have
    state = end_of_phase3(state)
    assert state["step"] == {"kind": "build"} and state["turn"] == 0
    assert {"type": "build", "card": "P03", "target": 1} in cp.legal_actions(state, 0)
    vp = state["seats"][0]["vp"]
    state = play(state, 0, {"type": "build", "card": "P03", "target": 1})
    assert state["seats"][0]["prototypes"] == ["P03"]
    assert state["seats"][0]["vp"] >= vp + 8 + 4
    assert state["seats"][0]["gears"] == 2 and state["seats"][0]["energy"] == 2
    assert state["seats"][1]["loans"] == []


def test_perm_discounts_lower_the_prototype_cost() -> None:
    state = game(2)
    state["seats"][0].update(patents=["P10"], characters=["C11"], gears=2, energy=1)  # 3G → 2G
    state = end_of_phase3(state)
    assert state["turn"] == 0
    state = play(state, 0, {"type": "build", "card": "P10", "target": 0})
    assert state["seats"][0]["gears"] == 1  # 0 left, +1 gear target effect on itself


def test_phase_6_income_black_market_p6_tiles_buzz_vp_and_income_drop() -> None:
    state = game(2)
    state["market"][0] = 0  # +£1
    state["market"][5] = 0  # +2 buzz
    state["seats"][0].update(
        income=10, buzz=13, buzz_peak=13, research=["G20"], vp=0
    )  # G20-G21: P6 +£2
    assert components()["research"]["green"][8]["timing"] == "P6"
    money = state["seats"][0]["money"]
    state = end_of_phase3(state)
    player = state["seats"][0]
    assert player["money"] == money + 10 + 1 + 2
    assert player["buzz"] == 15 and player["gears"] == 1 and player["energy"] == 2  # 15: +1 energy
    assert player["newspapers"] == 1
    assert player["vp"] == 3  # buzz 15 → 3 VP
    assert player["income"] == 7


def test_phase_7_refills_next_season_shares_tickets_and_menus() -> None:
    state = pay_nothing(game(2))
    state["spent_tickets"], state["tickets"] = 1, 2
    state["patents"]["row"][1] = None
    state["menus_used"]["port"] = ["P1"]
    state = end_of_phase3(state)
    assert state["round"] == 1 and state["step"] == {"kind": "dice"}
    assert all(s.startswith("S2") for s in state["bank"]) and len(state["bank"]) == 2
    assert state["tickets"] == 3 and state["menus_used"] == {"waterloo": [], "port": []}
    assert None not in state["patents"]["row"] and len(state["patents"]["row"]) == 3
    assert cp.to_act(state) == {0, 1}


# -- end of game ---------------------------------------------------------------------------


def test_the_game_ends_after_spring_1851_with_repayment_and_final_scoring() -> None:
    state = last_round()
    state["seats"][0].update(
        loans=[-7, -10], money=10, research=["G01"] * 3, goal=2, tickets=1, vp=0
    )
    state["seats"][1].update(loans=[-8], money=0, buzz=4, vp=0)
    state["seats"][0]["income"] = state["seats"][1]["income"] = 0
    state["market"][2] = 1
    state = end_of_phase3(state)
    assert cp.to_act(state) == {0}  # seat 1 cannot repay
    assert cp.legal_actions(state, 0)[:2] == [
        {"type": "repay", "count": 0},
        {"type": "repay", "count": 1},
    ]
    state = play(state, 0, {"type": "repay", "count": 1})
    result = cp.result(state)
    assert result is not None and cp.to_act(state) == frozenset()
    mine, theirs = result["details"]
    assert mine["loans"] == -2 - 7  # the −10 was repaid
    assert mine["research"] == -2 * 7 and mine["goal"] == 10 and mine["tickets"] == 2
    assert theirs["buzz_majority"] == 6 and mine["buzz_majority"] == 0  # 0 buzz does not rank
    assert theirs["market_majority"] == 6
    assert result["scores"] == [m["total"] for m in result["details"]]


def test_majority_ties_split_the_points_rounded_down() -> None:
    state = last_round(3)
    for player in state["seats"]:
        player.update(buzz=12, income=0)
    state["market"][0] = 0
    state["market"][1] = 1
    state = end_of_phase3(state)
    assert [d["buzz_majority"] for d in state["final"]] == [(8 + 3) // 3] * 3
    assert [d["market_majority"] for d in state["final"]] == [3, 8, 0]  # higher top space first


def test_ties_break_by_money_then_westminster_then_are_shared() -> None:
    state = last_round(3)
    for player in state["seats"]:
        player.update(vp=0, money=5, income=0)
    state["seats"][1]["money"] = 6
    state = end_of_phase3(state, seat=2)
    result = cp.result(state)
    assert result is not None and result["scores"][0] == result["scores"][1] == result["scores"][2]
    assert result["ranks"] == [2, 1, 2]
    state = last_round(3)
    for player in state["seats"]:
        player.update(vp=0, money=5, income=0)
    state["seats"][2]["westminster"] = 1
    state = end_of_phase3(state, seat=1)
    result = cp.result(state)
    assert result is not None and result["ranks"] == [2, 2, 1]
    state = last_round(2)
    for player in state["seats"]:
        player.update(vp=0, money=5, income=0)
    state = end_of_phase3(state, seat=1)
    result = cp.result(state)
    assert result is not None and result["winners"] == [0, 1]


def test_the_times_offers_its_energy_choice_only_with_energy_in_hand() -> None:
    """§13.3, 1A: +2 buzz; or pay 1 energy for +2 more."""
    state = pay_nothing(game(2, publisher="1A"))
    later = {"port": [(3, 1, 1)]}
    state["seats"][0]["energy"] = 0
    state = resolve(state, {"london_times": [(1, 0, 3)], **later}, (0, "london_times", 0, 4))
    assert [a for a in cp.legal_actions(state, 0) if a["type"] == "act"] == [
        {"type": "act", "choice": 0}
    ]
    state = play(state, 0, {"type": "act", "choice": 0})
    assert state["seats"][0]["buzz"] == 1 + 2  # the leftmost space's +1 first
    state["seats"][0]["energy"] = 1
    choices = [a for a in cp.legal_actions(state, 0) if a["type"] == "act"]
    assert choices == [{"type": "act", "choice": 0}, {"type": "act", "choice": 1}]
    state = play(state, 0, {"type": "act", "choice": 1})
    assert state["seats"][0]["buzz"] == 3 + 4 and state["seats"][0]["energy"] == 0


def test_westminster_steps_past_the_printed_track_give_three_vp() -> None:
    track = components()["westminster_track"]
    state = pay_nothing(game(2))
    state["seats"][0].update(westminster=len(track), vp=0)
    state = resolve(state, {"port": [(3, 1, 1)]}, (0, "westminster", 1, 3))
    state = play(state, 0, {"type": "act"})
    assert state["seats"][0]["westminster"] == len(track) + 1
    assert state["seats"][0]["vp"] == components()["westminster_beyond"]["vp"] == 3
