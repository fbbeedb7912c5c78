"""A simple greedy Crystal Palace bot: stay out of debt, build prototypes, fill the mat.

It reads only its seat's view and the legal actions:

* phase 1: dice it can pay for without a loan, highest first (6, 5, 4, 3, …,
  lowered until the total fits its money less a reserve);
* phase 2: each die, highest first, on the location it values most now
  (patents while it has few, gears and energy for the patents it holds, shares
  early, research tiles, characters when rich), avoiding fees and locations
  already full of higher dice;
* assistant actions: the goal track when it can, else a Black Market space it
  can afford;
* phase 3: always acts, with the best card, tile, share or option; uses
  tickets; declines only a space whose cost it cannot pay;
* phase 5: builds the most valuable prototype, aiming a harmful effect at the
  leader and a helpful one at itself;
* phase 4: newspapers into £ when that spares a salary loan; abilities that
  cost before those that give; a last newspaper into £ before an ability or a
  prototype's effect takes it;
* newspapers: income while rounds remain, else money; gears when a build turn
  needs them; never a voluntary loan; at the end it turns newspapers into £
  while that repays one more loan, and repays every loan it can.
"""

from __future__ import annotations

import random
from typing import Any

from engines.base import Action
from engines.crystal_palace.data import (
    characters,
    components,
    layout,
    patents,
    publishers,
    research_tiles,
    shares,
)

RESERVE = 4


def _worth(effect: dict[str, Any]) -> float:
    """A rough value in £ of an effect map (computed amounts count as 2)."""
    rates = {
        "money": 1,
        "gears": 3,
        "energy": 3,
        "newspapers": 1,
        "income": 2,
        "buzz": 1,
        "vp": 1.5,
    }
    rates |= {"westminster": 2, "dice": 0, "ticket": 3}
    total = 0.0
    for key, raw in effect.items():
        amount = raw if isinstance(raw, int) else 2
        total += rates.get(key, 2) * amount
    return total


class GreedyBot:
    """Greedy play for one seat (see the module docstring)."""

    def __init__(self, seat: int, seed: int | None = None) -> None:
        self.seat = seat
        self._random = random.Random(seed)

    def choose(self, view: Any, actions: list[Action]) -> Action:
        me = view["seats"][self.seat]
        by_kind: dict[str, list[Action]] = {}
        for action in actions:
            by_kind.setdefault(action["type"], []).append(action)
        offers = {a["for"]: a for a in by_kind.get("exchange", [])}
        if "repay" in by_kind:
            return self._repay(me, by_kind["repay"], offers)
        if "pay" in by_kind:
            due = view["step"]["due"]
            return offers["money"] if me["money"] < due and "money" in offers else by_kind["pay"][0]
        losing = "accept" in by_kind or any(
            characters()[a["card"]]["ability"].get("newspapers", 0) < 0
            for a in by_kind.get("ability", [])
        )
        if losing and me["newspapers"] == 1 and "money" in offers:
            return offers["money"]  # spend the newspaper an effect would take
        if "accept" in by_kind:
            return by_kind["accept"][0]
        if "ability" in by_kind:
            return min(by_kind["ability"], key=lambda a: self._ability_order(me, a["card"]))
        if "build" not in by_kind and "done" in by_kind and "gear" in offers:
            return offers["gear"]  # a build turn given for newspapers: turn them into gears
        if by_kind.keys() & {"goal", "market"} == set() and "skip" in by_kind:
            for kind in ("gear", "die"):  # asked because newspapers could meet the goal
                if kind in offers:
                    return offers[kind]
        exchange = self._exchange(view, me, list(offers.values()))
        if exchange is not None:
            return exchange
        if "die" in by_kind:
            return self._die(me)
        if "place" in by_kind:
            return max(by_kind["place"], key=lambda a: self._placement(view, me, a))
        if "goal" in by_kind:
            return by_kind["goal"][0]
        if "market" in by_kind:
            return self._market(view, me, by_kind)
        if "act" in by_kind or "ticket" in by_kind:
            return self._act(view, me, by_kind)
        if "build" in by_kind:
            return max(by_kind["build"], key=lambda a: self._build(view, a))
        for kind in ("done", "skip", "compensation", "pass", "decline"):
            if kind in by_kind:
                return by_kind[kind][0]
        return self._random.choice([a for a in actions if a["type"] != "loan"] or actions)

    # -- decisions ---------------------------------------------------------------------

    def _repay(self, me: dict[str, Any], repays: list[Action], offers: dict[str, Action]) -> Action:
        """Turn newspapers into £ while that repays one more loan, then repay all it can."""
        cost = components()["loans"]["repay_cost"]
        most = max(a["count"] for a in repays)
        short = cost - me["money"] % cost
        if most < me["loans"] and "money" in offers and me["newspapers"] >= short:
            return offers["money"]
        return next(a for a in repays if a["count"] == most)

    def _ability_order(self, me: dict[str, Any], card: str) -> tuple[int, str]:
        """Abilities that cost first while money is short (they take only what there is),
        newspaper losses before newspaper gains; otherwise card order."""
        ability = characters()[card]["ability"]
        cost_first = 0 if ability.get("money", 0) < 0 or ability.get("newspapers", 0) < 0 else 1
        return cost_first, card

    def _exchange(self, view: Any, me: dict[str, Any], offers: list[Action]) -> Action | None:
        wanted = "income" if view["round"] < len(components()["rounds"]) - 1 else "money"
        return next((a for a in offers if a["for"] == wanted), None)

    def _die(self, me: dict[str, Any]) -> Action:
        values = [6, 5, 4, 3, 3, 3][: me["dice"]]
        while sum(values) > me["money"] - RESERVE and max(values) > 1:
            values[values.index(max(values))] -= 1
        chosen = me["secret"]
        return {"type": "die", "value": values[len(chosen)]}

    def _needs(self, view: Any, me: dict[str, Any]) -> dict[str, int]:
        gears = sum(patents()[p]["cost"]["gears"] for p in me["patents"])
        energy = sum(patents()[p]["cost"]["energy"] for p in me["patents"])
        return {"gears": max(0, gears - me["gears"]), "energy": max(0, energy - me["energy"])}

    def _location_value(self, view: Any, me: dict[str, Any], location: str) -> float:
        needs = self._needs(view, me)
        late = view["round"] >= len(components()["rounds"]) - 1
        research = 10 - len(me["research"]) > 0
        values = {
            "patent_office": 9 if len(me["patents"]) < 2 and not late else 1,
            "british_museum": 6 if research else 0,
            "bank": 7 if view["round"] < 3 else 5,
            "westminster": 3,
            "reform_club": 6 if me["money"] >= 14 else 1,
            "london_times": 4,
            "waterloo": 4 + 3 * min(2, needs["energy"]),
            "port": 4 + 3 * min(2, needs["gears"]),
        }
        return values[location]

    def _placement(self, view: Any, me: dict[str, Any], action: Action) -> float:
        location, value = action["location"], action["value"]
        space = layout(location, view["players"])["placement"][action["space"]]
        board = view["board"][location]
        slots = len(board["acted"])
        ahead = sum(1 for held in board["placed"] if held is not None and held[1] >= value)
        crowded = 6 if ahead >= slots else 0
        score = self._location_value(view, me, location) - crowded - space["fee"] * 2
        return float(score * 10 + value + (1 if space["assistant"] else 0))

    def _market(self, view: Any, me: dict[str, Any], by_kind: dict[str, list[Action]]) -> Action:
        lowest = next((i for i, h in enumerate(view["market"]) if h is None), None)
        market = components()["black_market"]["spaces"]
        new = next((a for a in by_kind["market"] if "from" not in a), None)
        if (
            new is not None
            and lowest is not None
            and me["money"] >= market[lowest]["cost"] + RESERVE + 4
        ):
            return new
        return by_kind.get("skip", by_kind["market"])[0]

    def _act(self, view: Any, me: dict[str, Any], by_kind: dict[str, list[Action]]) -> Action:
        options = by_kind.get("ticket") or by_kind["act"]
        best = max(options, key=lambda a: self._act_value(view, me, a))
        if self._act_value(view, me, best) < -5 and "decline" in by_kind:
            return by_kind["decline"][0]
        return best

    def _act_value(self, view: Any, me: dict[str, Any], action: Action) -> float:
        round_ = view["round"]
        money = me["money"]
        if "card" in action and action["card"] in patents():
            card = patents()[action["card"]]
            return float(card["vp"][min(4, round_ + 1)] - sum(card["cost"].values()))
        if "card" in action:
            card = characters()[action["card"]]
            cost = card["cost"] + card["salary"] * (4 - round_)
            return float(card["vp"][round_] - cost / 2 - (20 if cost > money else 0))
        if "tile" in action:
            tile = research_tiles()[action["tile"]]
            return 2 + _worth(tile.get("effect", {})) + (3 if tile["timing"] == "P6" else 0)
        if "share" in action:
            share = shares()[action["share"]]
            turns = 4 - round_
            gain = share["gain"]
            value = gain.get("income", 0) * min(turns, 3) + gain.get("vp", 0) * 1.5
            return float(value - share["price"] - (20 if share["price"] > money else 0))
        if "option" in action:
            effect = components()["menu_options"][action["option"]]["effect"]
            needs = self._needs(view, me)
            bonus = 3 * min(needs["gears"], effect.get("gears", 0)) + 3 * min(
                needs["energy"], effect.get("energy", 0)
            )
            if effect.get("dice", 0) > 0:
                bonus -= 6
            return float(_worth(effect) + bonus - (20 if -effect.get("money", 0) > money else 0))
        if "choice" in action:
            choice = publishers()[view["publisher"]]["choices"][action["choice"]]
            return _worth(choice)
        return 3

    def _build(self, view: Any, action: Action) -> float:
        card = patents()[action["card"]]
        helpful = _worth(card["target"]) >= 0
        leader = max(
            (s for s in range(view["players"]) if s != self.seat),
            key=lambda s: view["seats"][s]["vp"],
        )
        aim = self.seat if helpful else leader
        return float(card["vp"][view["round"]] * 10 + (5 if action["target"] == aim else 0))


GREEDY = GreedyBot
"""This game's greedy bot (engines/bots.py finds it here)."""

STRENGTH = "plays the best move now and stays out of debt; beats random in 100 of 100 games"
"""One line on how strong ``GREEDY`` is (benchmarks/bot_winrate.py, 2 players)."""
