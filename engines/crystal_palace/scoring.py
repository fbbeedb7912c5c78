"""Crystal Palace end of game (``rules/crystal_palace.md`` §14): the secret final
repayment of loans and the final scoring."""

from __future__ import annotations

from typing import Any

from engines.base import (
    Action,
    Event,
    State,
)
from engines.crystal_palace.data import components, limit
from engines.crystal_palace.economy import measure
from engines.crystal_palace.salaries import newspaper_money

# -- end of game (§14) ----------------------------------------------------------------------


def begin_repay(state: State) -> None:
    state["phase"] = "final"
    state["turn"] = None
    state["step"] = {"kind": "repay"}
    cost = components()["loans"]["repay_cost"]
    state["shown"] = [_repay_public(player) for player in state["seats"]]
    for seat, player in enumerate(state["seats"]):
        means = player["money"] + newspaper_money(state, seat)
        player["ready"] = not (player["loans"] and means >= cost)


_REPAY_HIDES = ("money", "newspapers", "gears", "income", "repaid")
"""What a seat's repayment step may change (repay, newspaper exchanges): hidden
from the others until every seat is ready (item 13.10), as phase 1 hides dice."""


def _repay_public(player: dict[str, Any]) -> dict[str, Any]:
    return {key: player[key] for key in _REPAY_HIDES}


def repay_actions(state: State, seat: int) -> list[Action]:
    player = state["seats"][seat]
    most = min(len(player["loans"]), player["money"] // components()["loans"]["repay_cost"])
    return [{"type": "repay", "count": n} for n in range(most + 1)]


def do_repay(state: State, seat: int, action: Action, events: list[Event]) -> None:
    player = state["seats"][seat]
    player["money"] -= action["count"] * components()["loans"]["repay_cost"]
    player["repaid"] = action["count"]
    player["ready"] = True


def _majority(values: list[tuple[int, ...]], points: list[int]) -> list[int]:
    """Majority VP: higher keys rank first; tied seats share their ranks' points (rounded down).
    Seats whose first key is 0 do not rank."""
    awarded = [0] * len(values)
    ranked = sorted((v for v in values if v[0] > 0), reverse=True)
    position = 0
    while position < len(ranked) and position < len(points):
        key = ranked[position]
        tied = [s for s, v in enumerate(values) if v == key]
        share = sum(points[position : position + len(tied)]) // len(tied)
        for seat in tied:
            awarded[seat] = share
        position += len(tied)
    return awarded


def final_scoring(state: State, events: list[Event]) -> None:
    data = components()
    seats = state["seats"]
    points = data["majority_vp"][str(state["players"])]
    buzz = _majority([(p["buzz"],) for p in seats], points)
    tops = [
        max((i + 1 for i, holder in enumerate(state["market"]) if holder == s), default=0)
        for s in range(state["players"])
    ]
    market = _majority(
        [(measure(state, s, "market_assistants"), tops[s]) for s in range(state["players"])],
        points,
    )
    final = []
    for seat, player in enumerate(seats):
        worst_first = sorted(player["loans"])
        repaid, kept = worst_first[: player["repaid"]], worst_first[player["repaid"] :]
        details = {
            "play": player["vp"],
            "loans": len(repaid) * data["loans"]["repaid_vp"] + sum(kept),
            "research": (limit("research_spaces") - len(player["research"]))
            * data["empty_research_vp"],
            "goal": data["goal_vp"][player["goal"]],
            "buzz_majority": buzz[seat],
            "market_majority": market[seat],
            "tickets": player["tickets"] * data["ticket_vp"],
        }
        total = sum(details.values())
        final.append(
            {
                **details,
                "total": total,
                "money": player["money"],
                "westminster": player["westminster"],
                "loan_values": player["loans"],
            }
        )
    for seat, player in enumerate(seats):
        if player["repaid"]:
            events.append({"type": "repay", "seat": seat, "count": player["repaid"]})
    events.append({"type": "game_end", "scores": [f["total"] for f in final]})
    state["final"] = final
    state["finished"] = True
    state["turn"] = None
