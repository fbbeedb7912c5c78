"""Chartered's end of a turn and end of the game, per ``rules/chartered.md``.

The turn passes on once the active seat is done (§8); the game ends when the
warehouse supply runs out or every seat passes in a row (§12.1, §12.2), and is
scored at the final sale (§12.3).
"""

from __future__ import annotations

from engines.base import Event, State
from engines.chartered.board import components
from engines.chartered.market import _can_buy, _draw_all
from engines.chartered.state import _held


def _advance(state: State, events: list[Event]) -> None:
    """Serve draws, then end the turn when the active seat is done."""
    _draw_all(state, events)
    pending = state["pending"]
    if pending is None or pending["step"] == "sell":
        return
    if (
        pending["step"] == "buy"
        and not pending.get("paid")
        and not _can_buy(state, pending["seat"])
    ):
        # The refresh drew nothing, or an event it revealed took the money for the card.
        state["pending"] = {"step": "end", "seat": pending["seat"]}
    if pending["step"] == "forced" and not _can_buy(state, pending["seat"]):
        if _held(state, pending["seat"]):
            return
        # §8.3: every share sold and still short of a card's price, the seat passes.
        events.append({"type": "pass", "seat": pending["seat"], "reason": "forced_sale_failed"})
        state["pending"] = {"step": "end", "seat": pending["seat"], "passed": True}
        state["passes"] += 1
    if state["pending"]["step"] != "end":
        return
    if not state["pending"].get("passed"):
        state["passes"] = 0
    state["pending"] = None
    if state["supply"] == 0 or state["passes"] >= state["players"]:  # §12.1, §12.2
        _final_scoring(state)
        events.append({"type": "game_end", "scores": [f["total"] for f in state["final"]]})
        return
    state["turn"] = (state["turn"] + 1) % state["players"]


def _final_scoring(state: State) -> None:
    """§12.3: ƒ20 per card in hand, then every share and flag sold at its value."""
    prices = components()["prices"]
    final = []
    for seat in range(state["players"]):
        penalty = prices["card_left_in_hand"] * len(state["hands"][seat])
        shares = sum(
            sum(held) * state["companies"][c]["value"]
            for c, held in state["shares"][seat].items()
            if sum(held)
        )
        flags = sum(
            prices["flag_share_equivalent"] * state["companies"][c]["value"]
            for c, owner in state["flags"].items()
            if owner == seat
        )
        cash = state["cash"][seat]
        final.append(
            {
                "cash": cash,
                "hand_penalty": -penalty,
                "shares": shares,
                "flags": flags,
                "total": cash - penalty + shares + flags,
            }
        )
    state["final"] = final
    state["finished"] = True
