"""Crystal Palace: newspapers are spent at any time (rules/crystal_palace.md §8), so
the engine asks a seat before any automatic payment, loan or skip its newspapers
could change (issue 10 item 15); the end-game repayment stays secret until every
seat has decided (issue 13 item 10)."""

from __future__ import annotations

from engines.bots import make_bot
from engines.crystal_palace import ENGINE as cp
from support import end_of_phase3, game, last_round, placement_turn, play, resolve

MONEY = {"type": "exchange", "for": "money"}
GEAR = {"type": "exchange", "for": "gear"}


def test_newspapers_from_phase_4_give_a_build_turn_to_turn_them_into_a_gear() -> None:
    """(a) Dickens' +2 newspapers arrive in phase 4; the only patent needs one more gear."""
    state = game(2)
    state["seats"][0].update(characters=["C18"], patents=["P03"], gears=0, energy=1)
    state["seats"][0].update(newspapers=0, income=0)
    state = end_of_phase3(state)
    assert state["phase"] == 5 and state["step"]["kind"] == "build" and state["turn"] == 0
    assert state["seats"][0]["newspapers"] == 2
    actions = cp.legal_actions(state, 0)
    assert GEAR in actions and {"type": "done"} in actions
    assert not any(a["type"] == "build" for a in actions)
    state = play(state, 0, GEAR, {"type": "build", "card": "P03", "target": 0})
    assert state["seats"][0]["prototypes"] == ["P03"]


def test_a_seat_that_cannot_build_even_with_its_newspapers_is_not_asked() -> None:
    state = game(2)
    state["seats"][0].update(patents=["P03"], gears=0, energy=0, newspapers=7)
    state = end_of_phase3(state)
    assert state["round"] == 1 and state["phase"] == 1


def test_a_newspaper_that_makes_the_last_ten_pounds_is_asked_for_before_repayment() -> None:
    """(b) £9, a newspaper and a −7 loan: turning the newspaper into £1 repays it (−2)."""
    state = last_round()
    state["seats"][0].update(money=9, newspapers=1, loans=[-7], income=0)
    state["seats"][1]["income"] = 0
    state = end_of_phase3(state)
    assert cp.to_act(state) == {0}
    assert cp.legal_actions(state, 0) == [{"type": "repay", "count": 0}, MONEY]
    state = play(state, 0, MONEY, {"type": "repay", "count": 1})
    result = cp.result(state)
    assert result is not None and result["details"][0]["loans"] == -2


def test_a_salary_asks_first_when_newspapers_from_the_last_action_spare_a_loan() -> None:
    """(c) £1 and a newspaper, then Punch's +1 newspaper; Krupp's salary is £2."""
    state = game(2)
    state["seats"][0].update(characters=["C25"], money=1, newspapers=1, income=0)
    state = resolve(state, {}, (0, "london_times", 0, 4))
    state = play(state, 0, {"type": "act"})
    assert state["seats"][0]["newspapers"] == 2
    assert state["step"] == {"kind": "salary", "seat": 0, "due": 2}
    assert cp.to_act(state) == {0}
    assert {"type": "pay"} in cp.legal_actions(state, 0)
    state = play(state, 0, MONEY, MONEY, {"type": "pay"})
    player = state["seats"][0]
    assert player["loans"] == []
    assert player["money"] == 0 and player["gears"] == 1 + 2  # Krupp's −£1 finds nothing


def test_a_salary_that_newspapers_cannot_change_is_paid_unasked() -> None:
    state = game(2)
    state["seats"][0].update(characters=["C25"], money=0, newspapers=0, income=0)
    state = end_of_phase3(state)
    assert len(state["seats"][0]["loans"]) == 1 and state["round"] == 1


def test_repayment_stays_secret_from_the_others_until_every_seat_has_decided() -> None:
    state = last_round()
    for player in state["seats"]:
        player.update(money=20, newspapers=3, loans=[-8, -9], income=0)
    state = end_of_phase3(state)
    assert cp.to_act(state) == {0, 1}
    before = cp.view(state, 1)["seats"][0]
    state = play(state, 0, MONEY, {"type": "repay", "count": 2})
    assert cp.view(state, 0)["seats"][0]["money"] == 1
    for viewer in (1, None):
        seen = cp.view(state, viewer)["seats"][0]
        assert seen["ready"] is True
        assert {k: v for k, v in seen.items() if k != "ready"} == {
            k: v for k, v in before.items() if k != "ready"
        }
    state = play(state, 1, {"type": "repay", "count": 1})
    seen = cp.view(state, 1)["seats"][0]
    assert state["finished"] and seen["money"] == 1 and seen["repaid"] == 2


def test_greedy_bots_spend_newspapers_on_the_new_decisions() -> None:
    state = game(2)
    state["seats"][0].update(characters=["C25"], money=1, newspapers=1, income=0)
    state = resolve(state, {}, (0, "london_times", 0, 4))
    state = play(state, 0, {"type": "act"})
    bot = make_bot("greedy", cp.id, 0, 0)
    while state["step"]["kind"] == "salary":
        state = play(state, 0, bot.choose(cp.view(state, 0), cp.legal_actions(state, 0)))
    assert state["seats"][0]["loans"] == []
    state = last_round()
    state["seats"][0].update(money=9, newspapers=1, loans=[-7], income=0)
    state = end_of_phase3(state)
    while not state["finished"]:
        state = play(state, 0, bot.choose(cp.view(state, 0), cp.legal_actions(state, 0)))
    assert state["seats"][0]["repaid"] == 1


def test_a_die_bought_with_newspapers_can_open_waterloos_sale_so_the_seat_is_asked() -> None:
    """4 dice keep Waterloo's "sell a die" shut; 4 newspapers buy a fifth at any time."""
    state = game(2)
    state["menus_used"]["waterloo"] = ["W1", "W2"]
    state["seats"][0].update(newspapers=4, characters=[])
    state = resolve(state, {"port": [(3, 1, 1)]}, (0, "waterloo", 1, 3))
    assert cp.to_act(state) == {0}
    assert {"type": "decline"} in cp.legal_actions(state, 0)
    state = play(state, 0, {"type": "exchange", "for": "die"})
    assert {"type": "act", "option": "W3"} in cp.legal_actions(state, 0)
    vp = state["seats"][0]["vp"]
    state = play(state, 0, {"type": "act", "option": "W3"})
    assert state["seats"][0]["vp"] == vp + 8 and state["seats"][0]["dice"] == 4


def test_the_target_of_a_prototype_that_takes_a_newspaper_may_spend_it_first() -> None:
    """Voting Machine: −1 newspaper to a chosen player."""
    state = game(2)
    state["seats"][0].update(patents=["P21"], gears=1, energy=1)
    state["seats"][1].update(newspapers=1, income=0)
    state = end_of_phase3(state)
    state = play(state, 0, {"type": "build", "card": "P21", "target": 1})
    assert state["step"] == {"kind": "target", "seat": 1, "card": "P21"}
    assert cp.to_act(state) == {1}
    money = state["seats"][1]["money"]
    state = play(state, 1, MONEY, {"type": "accept"})
    assert state["seats"][1]["money"] == money + 1 and state["seats"][1]["newspapers"] == 0
    assert state["round"] == 1  # seat 0 had nothing more to build


def test_jenny_lind_asks_first_when_she_would_take_the_last_newspaper() -> None:
    state = game(2)
    state["seats"][0].update(characters=["C28"], newspapers=1, income=0)
    state = end_of_phase3(state)
    assert state["step"] == {"kind": "abilities", "seat": 0, "left": ["C28"]}
    money = state["seats"][0]["money"]
    state = play(state, 0, MONEY)  # nothing left to lose: Jenny Lind's ability runs
    assert state["seats"][0]["money"] == money + 1 and state["seats"][0]["buzz"] == 3
    assert state["round"] == 1


def test_an_assistant_action_is_offered_when_newspapers_would_meet_the_goal() -> None:
    """Prussia's level 1 needs 4 gears and energy: 3 held, and 2 newspapers make a gear."""
    state = placement_turn(2, 0, [5])
    state["seats"][0].update(nation="prussia", gears=2, energy=1, newspapers=2, assistants=0)
    state = play(state, 0, {"type": "place", "location": "bank", "space": 0, "value": 5})
    assert state["step"] == {"kind": "assistant", "seat": 0}
    assert {"type": "goal"} not in cp.legal_actions(state, 0)
    state = play(state, 0, GEAR, {"type": "goal"})
    assert state["seats"][0]["goal"] == 1
