"""Sintra's own rules (rules/sintra.md), with the seed's worked examples as cases.

Colours: 0 pink, 1 orange, 2 yellow, 3 light blue, 4 dark blue. The strip
layouts and window points are the spec's [proposed] defaults (data file).
"""

from __future__ import annotations

from typing import Any

import pytest

from engines.base import IllegalAction, State
from engines.sintra import ENGINE as sintra
from engines.sintra.engine import (
    components,
    leftover_points,
    ornament_bonus,
    window_colour_bonus,
)

PINK, ORANGE, YELLOW, LIGHT, DARK = range(5)


def strip(strip_id: int, side: int, pieces: list[int | None] | None = None) -> dict[str, Any]:
    return {"id": strip_id, "side": side, "pieces": pieces or [None] * 5}


def table(players: int = 2, side: str = "A", **options: Any) -> State:
    """A fresh game with empty factories and centre, seat 0 to play."""
    state = sintra.setup(players, {"side": side, **options}, seed=7)
    state["factories"] = [[0] * 5 for _ in state["factories"]]
    state["turn"] = 0
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


def refused(state: State, action: Any, seat: int = 0) -> str:
    with pytest.raises(IllegalAction) as exc:
        sintra.apply(state, seat, action)
    return exc.value.code


# -- setup (§2) ---------------------------------------------------------------


@pytest.mark.parametrize(("players", "factories"), [(2, 5), (3, 7), (4, 9)])
def test_setup_fills_five_seven_or_nine_factories_with_four_pieces(players, factories):
    state = sintra.setup(players, {}, seed=1)
    assert [sum(f) for f in state["factories"]] == [4] * factories
    assert sum(state["bag"]) == 95 - 1 - 4 * factories
    assert sorted(state["indicator"][1:]) == [0, 1, 2, 3, 4]
    assert len(state["indicator"]) == 6


def test_setup_puts_the_wild_side_down_and_glaziers_on_the_left():
    wild = components()["wild_strip"]
    for seed in range(50):
        for board in sintra.setup(4, {}, seed)["boards"]:
            (wild_strip,) = [s for s in board["strips"] if s["id"] == wild]
            assert wild_strip["side"] != components()["wild_side"]
            assert board["glazier"] == 0
            assert (board["score"], board["track"]) == (0, 0)
            assert sorted(s["id"] for s in board["strips"]) == list(range(1, 9))


# -- taking (§3.2 A1) ---------------------------------------------------------


def test_pilar_takes_three_orange_from_the_centre_with_the_start_tile():
    """Seed: Pilar takes 3 orange from the centre, first this round: start tile and -1 step."""
    state = table()
    state["center"] = [1, 3, 0, 0, 0]
    state["boards"][0]["strips"][4] = strip(3, 1)  # O Y O L O: three orange spaces
    after, events = sintra.apply(state, 0, take(None, ORANGE, 4))
    assert after["center"] == [1, 0, 0, 0, 0]
    assert after["start"] == 0 and not after["center_tile"]
    assert after["boards"][0]["track"] == 1
    assert {"type": "start_tile", "seat": 0} in events


def test_only_the_first_taker_from_the_centre_gets_the_start_tile():
    state = table()
    state["center"] = [1, 3, 0, 0, 0]
    state, _ = sintra.apply(state, 0, take(None, ORANGE, 0))
    state, events = sintra.apply(state, 1, take(None, PINK, 0))
    assert state["start"] == 0
    assert state["boards"][1]["track"] == 0
    assert all(e["type"] != "start_tile" for e in events)


def test_taking_from_a_factory_moves_the_rest_to_the_centre():
    """Seed: Pilar takes the pink piece of a factory; the other 3 go to the centre."""
    state = table()
    state["factories"][2] = [1, 2, 0, 1, 0]
    after, _ = sintra.apply(state, 0, take(2, PINK, 0))
    assert after["factories"][2] == [0, 0, 0, 0, 0]
    assert after["center"] == [0, 2, 0, 1, 0]


# -- placing (§3.2 A2) --------------------------------------------------------


def pilars_board() -> State:
    """Seed example: glazier on the middle strip (B), strip A to its left, strip C to its right."""
    state = table()
    state["center"] = [0, 3, 0, 0, 0]
    board = state["boards"][0]
    board["glazier"] = 2
    board["strips"][0] = strip(3, 1)  # A: O Y O L O, left of the glazier
    board["strips"][2] = strip(2, 0)  # B: O L R Y D, one orange space
    board["strips"][4] = strip(3, 1)  # C: three orange spaces
    return state


def test_pilar_places_one_orange_and_breaks_two():
    state = pilars_board()
    after, events = sintra.apply(state, 0, take(None, ORANGE, 2))
    board = after["boards"][0]
    assert board["strips"][2]["pieces"] == [ORANGE, None, None, None, None]
    assert board["track"] == 1 + 2  # start tile, then two broken pieces
    assert after["tower"][ORANGE] == 2
    assert {"type": "break", "seat": 0, "color": ORANGE, "count": 2} in events


def test_pilar_places_all_three_on_the_strip_to_the_right_and_the_glazier_follows():
    after, _ = sintra.apply(pilars_board(), 0, take(None, ORANGE, 4))
    board = after["boards"][0]
    assert board["strips"][4]["pieces"] == [ORANGE, None, ORANGE, None, ORANGE]
    assert board["glazier"] == 4
    assert board["track"] == 1


def test_strips_left_of_the_glazier_are_out_of_reach():
    assert refused(pilars_board(), take(None, ORANGE, 0)) == "strip_left_of_glazier"


def test_breaking_everything_is_refused_while_a_reachable_strip_fits():
    assert refused(pilars_board(), take(None, ORANGE, None)) == "must_place"


def test_a_strip_that_cannot_take_the_colour_is_refused():
    state = pilars_board()
    state["boards"][0]["strips"][6] = strip(2, 1)  # R O R Y R: its one orange space is full
    state["boards"][0]["strips"][6]["pieces"][1] = ORANGE
    assert refused(state, take(None, ORANGE, 6)) == "strip_cannot_take"


def test_when_nothing_fits_everything_breaks_and_the_glazier_stays():
    state = table()
    state["factories"][0] = [0, 0, 0, 0, 3]
    board = state["boards"][0]
    board["glazier"] = 6
    board["strips"][6] = strip(7, 0)  # O L O L R: no dark blue
    board["strips"][7] = strip(3, 0, [YELLOW, PINK, LIGHT, ORANGE, DARK])
    assert sintra.legal_actions(state, 0)[-1] == take(0, DARK, None)
    after, _ = sintra.apply(state, 0, take(0, DARK, None))
    assert after["boards"][0]["glazier"] == 6
    assert after["boards"][0]["track"] == 3


def test_wild_spaces_take_any_colour_and_the_player_chooses_how_many():
    state = table()
    state["factories"][0] = [0, 0, 1, 0, 0]
    state["boards"][0]["strips"][0] = strip(1, 1)  # Y W L W D
    choices = [a for a in sintra.legal_actions(state, 0) if a["strip"] == 0]
    assert [a["wild"] for a in choices] == [0, 1]
    after, _ = sintra.apply(state, 0, take(0, YELLOW, 0, wild=1))
    assert after["boards"][0]["strips"][0]["pieces"] == [None, YELLOW, None, None, None]
    assert refused(state, take(0, YELLOW, 0, wild=2)) == "bad_wild_count"


def test_placement_fills_as_many_spaces_as_possible():
    state = table()
    state["factories"][0] = [0, 0, 3, 0, 0]
    state["boards"][0]["strips"][0] = strip(1, 1)  # Y W L W D: 1 yellow + 2 wild
    choices = [a for a in sintra.legal_actions(state, 0) if a["strip"] == 0]
    assert [a["wild"] for a in choices] == [2]
    after, _ = sintra.apply(state, 0, choices[0])
    assert after["boards"][0]["strips"][0]["pieces"] == [YELLOW, YELLOW, None, YELLOW, None]


# -- completion (§3.2 A3) -----------------------------------------------------


def nearly_complete(state: State, slot: int) -> None:
    """Strip 6 side b (R Y R Y D) with everything but the dark-blue space filled."""
    state["boards"][0]["strips"][slot] = strip(6, 1, [PINK, YELLOW, PINK, YELLOW, None])
    state["factories"][0] = [0, 0, 0, 0, 1]
    state["center"] = [0, 0, 0, 1, 0]  # keeps the round going


def test_colour_bonus_counts_pieces_of_the_round_colour():
    """Seed: round 3, the indicator shows yellow, the strip has 2 yellow: +2 points."""
    state = table()
    state["round"], state["indicator"] = 3, [PINK, ORANGE, YELLOW, LIGHT, DARK, PINK]
    nearly_complete(state, 3)
    after, events = sintra.apply(state, 0, take(0, DARK, 3, keep=YELLOW))
    (done,) = [e for e in events if e["type"] == "complete"]
    assert done["bonus"] == 2
    assert after["boards"][0]["score"] == 2 + 2  # bonus + window 4's printed 2


def test_window_scoring_counts_occupied_windows_to_the_right():
    """Seed: 2 printed under the window + 3 from an occupied window to its right = 5."""
    state = table()
    state["round"], state["indicator"] = 1, [ORANGE, PINK, YELLOW, LIGHT, DARK, PINK]
    nearly_complete(state, 3)
    board = state["boards"][0]
    board["windows"][5] = [PINK, None]  # right, worth 3
    board["windows"][1] = [PINK, PINK]  # left: never counts
    after, events = sintra.apply(state, 0, take(0, DARK, 3, keep=PINK))
    (done,) = [e for e in events if e["type"] == "complete"]
    assert (done["bonus"], done["window_points"]) == (0, 5)
    assert after["boards"][0]["score"] == 5


def test_first_completion_fills_the_upper_space_and_flips_the_strip():
    state = table()
    nearly_complete(state, 3)
    after, _ = sintra.apply(state, 0, take(0, DARK, 3, keep=YELLOW))
    board = after["boards"][0]
    assert board["windows"][3] == [YELLOW, None]
    assert board["strips"][3] == strip(6, 0)
    assert board["glazier"] == 3
    assert after["tower"][PINK] == 2 and after["tower"][DARK] == 1 and after["tower"][YELLOW] == 1


def test_second_completion_fills_the_lower_space_and_removes_the_strip():
    state = table()
    nearly_complete(state, 3)
    state["boards"][0]["windows"][3] = [ORANGE, None]
    after, events = sintra.apply(state, 0, take(0, DARK, 3, keep=PINK))
    board = after["boards"][0]
    assert board["windows"][3] == [ORANGE, PINK]
    assert board["strips"][3] is None
    assert board["glazier"] == 3
    assert [e["removed"] for e in events if e["type"] == "complete"] == [True]


def test_keep_must_be_a_colour_of_the_completed_strip():
    state = table()
    nearly_complete(state, 3)
    assert refused(state, take(0, DARK, 3, keep=ORANGE)) == "bad_keep"
    assert refused(state, take(0, DARK, 3, keep=None)) == "bad_keep"
    nearly_complete(state, 3)
    state["boards"][0]["strips"][3]["pieces"][0] = None
    assert refused(state, take(0, DARK, 3, keep=PINK)) == "bad_keep"


# -- the glazier (§3.2 B) -----------------------------------------------------


def test_reset_moves_the_glazier_to_the_leftmost_strip():
    state = table()
    state["factories"][0] = [1, 0, 0, 0, 0]
    state["boards"][0]["glazier"] = 5
    after, _ = sintra.apply(state, 0, {"type": "reset"})
    assert after["boards"][0]["glazier"] == 0
    assert after["turn"] == 1


def test_reset_is_illegal_on_the_leftmost_strip():
    state = table()
    state["factories"][0] = [1, 0, 0, 0, 0]
    assert refused(state, {"type": "reset"}) == "reset_not_allowed"
    assert {"type": "reset"} not in sintra.legal_actions(state, 0)


def test_reset_from_an_empty_slot_left_of_every_strip_moves_right():
    """FAQ: slot 1's strip was removed under the glazier; reset is a pass that moves right."""
    state = table()
    state["factories"][0] = [1, 0, 0, 0, 0]
    board = state["boards"][0]
    board["strips"][0] = board["strips"][1] = None
    after, _ = sintra.apply(state, 0, {"type": "reset"})
    assert after["boards"][0]["glazier"] == 2


# -- broken glass (§6) --------------------------------------------------------


def breaking(state: State, pieces: int) -> State:
    """Seat 0 breaks ``pieces`` dark-blue pieces (no strip takes dark blue)."""
    state["factories"][0] = [0, 0, 0, 0, pieces]
    state["center"] = [1, 0, 0, 0, 0]
    board = state["boards"][0]
    board["strips"] = [strip(7, 0)] + [None] * 7  # O L O L R
    return sintra.apply(state, 0, take(0, DARK, None))[0]


def test_reaching_the_bottom_costs_18_at_once_and_wraps_to_the_top():
    state = table()
    state["boards"][0].update(track=11, score=20)
    board = breaking(state, 3)["boards"][0]
    assert board["score"] == 2
    assert board["track"] == 2
    assert board["wraps"] == 1


def test_scores_do_not_go_below_zero_by_default():
    state = table()
    state["boards"][0].update(track=11, score=5)
    assert breaking(state, 1)["boards"][0]["score"] == 0


def test_negative_scores_when_the_option_allows_them():
    state = table(negative_scores=True)
    state["boards"][0].update(track=11, score=5)
    assert breaking(state, 1)["boards"][0]["score"] == -13


def test_linear_track_reaches_the_bottom_after_18_steps():
    state = table(track="linear")
    state["boards"][0].update(track=17, score=30)
    assert breaking(state, 1)["boards"][0]["score"] == 12


# -- round end (§3.3) ---------------------------------------------------------


def last_pick(state: State) -> State:
    """Seat 0 takes the last piece on the table (one pink in the centre)."""
    state["center"] = [1, 0, 0, 0, 0]
    state["center_tile"] = False
    return sintra.apply(state, 0, take(None, PINK, 0))[0]


def test_round_end_refills_the_factories_and_the_start_player_begins():
    state = table(players=3)
    state["start"] = 2
    tower_before = state["tower"][state["indicator"][0]]
    after = last_pick(state)
    assert after["round"] == 2
    assert [sum(f) for f in after["factories"]] == [4] * 7
    assert after["turn"] == 2 and after["center_tile"]
    assert after["tower"][state["indicator"][0]] == tower_before + 1


def test_the_bag_is_refilled_from_the_tower_when_it_runs_out():
    state = table()
    state["bag"], state["tower"] = [1, 1, 0, 0, 0], [5, 5, 5, 5, 5]
    after = last_pick(state)
    assert sum(sum(f) for f in after["factories"]) == 20
    assert sum(after["bag"]) + sum(after["tower"]) == 2 + 25 + 1 - 20


def test_when_bag_and_tower_are_empty_the_factories_stay_part_filled():
    state = table()
    state["bag"], state["tower"] = [3, 2, 0, 0, 0], [0] * 5
    state["indicator"][0] = LIGHT
    after = last_pick(state)
    assert sum(sum(f) for f in after["factories"]) == 6  # 5 in the bag + the indicator piece


def test_round_six_ends_the_game():
    state = table()
    state["round"] = 6
    after = last_pick(state)
    assert after["finished"]
    assert sintra.to_act(after) == frozenset()
    assert sintra.result(after) is not None


# -- final scoring (§7) and winner (§8) ---------------------------------------


def test_leftover_pieces_score_one_point_per_three():
    """Seed: 7 pieces left on the strips give 2 points."""
    board = {"strips": [strip(1, 0, [PINK, ORANGE, YELLOW, None, None])] * 2 + [None] * 6}
    board["strips"][2] = strip(2, 0, [ORANGE, None, None, None, None])
    assert leftover_points(board) == 2


def test_side_a_ornaments_score_23_for_pilar():
    """Seed: two ornaments fully surrounded (2 x 10) and the last with 2 pieces (3) = 23."""
    windows = [[PINK, PINK]] * 4 + [[None, None]] * 2 + [[PINK, None], [PINK, None]]
    assert ornament_bonus(windows) == 23


def test_side_b_scores_completed_windows_times_the_best_colour():
    """Seed: 4 completed windows and 5 orange pieces in the palace: 4 x 5 = 20."""
    windows = [[ORANGE, ORANGE], [ORANGE, PINK], [ORANGE, YELLOW], [ORANGE, DARK]]
    windows += [[PINK, None], [None, None], [None, None], [None, None]]
    assert window_colour_bonus(windows) == 20


def end_of_game(side: str) -> State:
    state = table(side=side)
    state["round"] = 6
    return state


def test_final_scoring_for_pilar_on_side_a():
    """Leftover +2, broken glass on -8, side A +23, in this order."""
    state = end_of_game("A")
    board = state["boards"][0]
    board["score"], board["track"] = 10, 7
    board["windows"] = [[PINK, PINK]] * 4 + [[None, None]] * 2 + [[PINK, None]] * 2
    board["strips"] = [strip(3, 1, [ORANGE, None, ORANGE, None, ORANGE])] + [None] * 7
    board["strips"][3] = strip(2, 0, [ORANGE, LIGHT, PINK, YELLOW, None])
    board["glazier"] = 4
    board["strips"][5] = strip(7, 0)
    state["turn"] = 1
    state["center"], state["center_tile"] = [0, 1, 0, 0, 0], False
    after, _ = sintra.apply(state, 1, take(None, ORANGE, 0))
    final = after["boards"][0]["final"]
    assert final["leftover"] == 2
    assert final["broken_glass"] == -8
    assert final["palace_bonus"] == 23
    assert after["boards"][0]["score"] == 10 + 2 - 8 + 23


def test_final_scoring_on_side_b():
    state = end_of_game("B")
    board = state["boards"][0]
    board["windows"] = [[ORANGE, ORANGE], [ORANGE, PINK], [ORANGE, YELLOW], [ORANGE, DARK]]
    board["windows"] += [[PINK, None], [None, None], [None, None], [None, None]]
    after = last_pick(state)
    assert after["boards"][0]["final"]["palace_bonus"] == 20


def finished(scores: list[int], lost: list[int]) -> State:
    state = table(players=len(scores))
    state["finished"] = True
    for board, score, glass in zip(state["boards"], scores, lost, strict=True):
        board["score"] = score
        board["final"] = {"glass_lost": glass}
    return state


def test_a_tie_goes_to_the_player_who_lost_less_glass():
    result = sintra.result(finished([30, 30, 12], [8, 5, 0]))
    assert result["winners"] == [1]
    assert result["ranks"] == [2, 1, 3]


def test_a_full_tie_shares_the_victory():
    result = sintra.result(finished([30, 30], [4, 4]))
    assert result["winners"] == [0, 1]
    assert result["ranks"] == [1, 1]


def test_glass_lost_counts_every_wrap_and_the_final_track_value():
    state = end_of_game("A")
    state["boards"][0].update(wraps=2, track=7)
    after = last_pick(state)
    assert after["boards"][0]["final"]["glass_lost"] == 36 + 8


# -- turn order and refusals --------------------------------------------------


def test_out_of_turn_and_malformed_actions_are_refused():
    state = table()
    state["factories"][0] = [1, 0, 0, 0, 0]
    assert refused(state, take(0, PINK, 0), seat=1) == "not_your_turn"
    # Seats are named as players see them, from 1; a refusal shows no action's repr.
    with pytest.raises(IllegalAction) as exc:
        sintra.apply(state, 1, take(0, PINK, 0))
    assert exc.value.message == "it is not your turn: seat 1 plays now"
    with pytest.raises(IllegalAction) as exc:
        sintra.apply(state, 0, {"type": "reset", "x": 1})
    assert "[" not in exc.value.message and "'" not in exc.value.message
    assert refused(state, {"type": "fly"}) == "bad_action"
    assert refused(state, take(0, ORANGE, 0)) == "color_not_in_source"
    assert refused(state, take(42, PINK, 0)) == "no_such_factory"
    assert refused(state, take(0, 9, 0)) == "no_such_color"
    assert refused(state, take(0, PINK, 11)) == "no_such_strip"
    assert refused(state, {**take(0, PINK, 0), "strip": "0"}) == "bad_action"


def test_views_show_bag_and_tower_sizes_only():
    state = sintra.setup(3, {}, seed=3)
    view = sintra.view(state, None)
    assert view["bag"] == sum(state["bag"]) and view["tower"] == 0
    assert "rng" not in view
    assert view == sintra.view(state, 0)
    assert view["printed"]["window_points"] == components()["window_points"]["A"]
    assert view["printed"]["colors"] == [c["name"] for c in components()["colors"]]


# -- FAQ edge cases (§10) -----------------------------------------------------


def test_when_nobody_takes_from_the_centre_the_previous_start_player_starts_again():
    """FAQ 9: the tile stays in the centre; the player who put it there starts."""
    state = table(players=3)
    state["start"], state["turn"] = 1, 0
    state["factories"][0] = [1, 0, 0, 0, 0]
    after, _ = sintra.apply(state, 0, take(0, PINK, 0))
    assert after["round"] == 2
    assert after["start"] == 1 and after["turn"] == 1


def test_the_start_tile_step_can_reach_the_bottom():
    """FAQ 8: the start-player step that reaches -18 costs 18 and wraps like a broken piece."""
    state = table()
    state["center"] = [0, 1, 0, 0, 0]
    state["factories"][0] = [1, 0, 0, 0, 0]
    state["boards"][0].update(track=11, score=25)
    after, events = sintra.apply(state, 0, take(None, ORANGE, 0))
    board = after["boards"][0]
    assert (board["score"], board["track"], board["wraps"]) == (7, 0, 1)
    assert {"type": "track_wrap", "seat": 0, "points": -18} in events


def test_with_every_strip_removed_only_breaking_is_left():
    """FAQ 6: no strip remains, so reset is impossible and every piece breaks."""
    state = table()
    state["factories"][0] = [2, 0, 0, 0, 0]
    state["boards"][0]["strips"] = [None] * 8
    state["boards"][0]["glazier"] = 3
    assert sintra.legal_actions(state, 0) == [take(0, PINK, None)]
    after, _ = sintra.apply(state, 0, take(0, PINK, None))
    assert after["boards"][0]["track"] == 2
