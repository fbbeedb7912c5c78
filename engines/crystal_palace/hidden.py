"""Crystal Palace's hidden information, for the conformance suite: :func:`scramble` returns a
copy of a state changed only in what a viewer must not see (its view must not change)."""

from __future__ import annotations

import random

from engines.base import State, copy_state


def scramble(state: State, viewer: int | None, rnd: random.Random) -> State:
    """Hidden: other seats' secret dice values (until the reveal) and, while a seat
    is not ready, how many it has set, what other seats did in the simultaneous loan
    repayment (their money, newspapers, gears, income
    and repaid loans, until every seat is ready), other seats' loan values and the
    loan stack, the order of every face-down stack, and the face-up card stacks
    below their top card."""
    scrambled = copy_state(state)
    others = [s for s in range(scrambled["players"]) if s != viewer]
    low, high = 1, 6
    repaying = scrambled["step"]["kind"] == "repay" and not scrambled["finished"]
    setting = scrambled["step"]["kind"] == "dice"
    for seat in others:
        player = scrambled["seats"][seat]
        count = len(player["secret"])
        if setting and not player["ready"]:
            count = rnd.randrange(player["dice"])
        player["secret"] = [rnd.randint(low, high) for _ in range(count)]
        if repaying:
            for key in ("money", "newspapers", "gears", "income", "repaid"):
                scrambled["seats"][seat][key] = rnd.randint(0, 7)
    pool = scrambled["loans"] + [v for s in others for v in scrambled["seats"][s]["loans"]]
    rnd.shuffle(pool)
    for seat in others:
        size = len(scrambled["seats"][seat]["loans"])
        scrambled["seats"][seat]["loans"], pool = pool[:size], pool[size:]
    scrambled["loans"] = pool
    for stack in (scrambled["green"], *scrambled["violet"].values(), *scrambled["share_piles"]):
        rnd.shuffle(stack)
    for display in (scrambled["patents"], scrambled["characters"]):
        below = display["stack"][:-1]
        rnd.shuffle(below)
        display["stack"][:-1] = below
    scrambled["rng"] = rnd.getrandbits(64)
    return scrambled
