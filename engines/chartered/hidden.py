"""Chartered's hidden information, for the conformance suite: :func:`scramble` returns a
copy of a state changed only in what a viewer must not see (its view must not change)."""

from __future__ import annotations

import random

from engines.base import State, copy_state
from engines.chartered.board import components
from engines.chartered.state import _bank_shares, cards


def scramble(state: State, viewer: int | None, rnd: random.Random) -> State:
    """Hidden: the deck's order, the other seats' hands (only their sizes show; a hand
    holds building cards only), which event cards the deck holds (with 2–3 players, 8
    of the 12 drawn at random: any not yet revealed) and, with hidden shares, which
    companies the other seats' face-down shares are in (only how many each seat holds
    shows): they are dealt again at random among the companies on the board, keeping
    which banks are empty (that is public)."""
    scrambled = copy_state(state)
    table = cards()
    others = [s for s in range(scrambled["players"]) if s != viewer]
    in_deck = [c for c in scrambled["deck"] if table[c]["kind"] == "event"]
    unseen = sorted(
        c
        for c, card in enumerate(table)
        if card["kind"] == "event" and c not in scrambled["discard"]
    )
    events = rnd.sample(unseen, len(in_deck))
    pool = [c for c in scrambled["deck"] if table[c]["kind"] != "event"]
    pool += [c for s in others for c in scrambled["hands"][s]]
    rnd.shuffle(pool)
    for seat in others:
        size = len(scrambled["hands"][seat])
        scrambled["hands"][seat], pool = sorted(pool[:size]), pool[size:]
    scrambled["deck"] = pool + events
    rnd.shuffle(scrambled["deck"])
    scrambled["rng"] = rnd.getrandbits(64)
    if scrambled["options"]["hidden_shares"]:
        _deal_face_down(scrambled, others, rnd)
    return scrambled


def _deal_face_down(state: State, others: list[int], rnd: random.Random) -> None:
    """Deal the ``others``' face-down shares again, each seat keeping how many it holds,
    among the companies on the board, at most nine held per company. That a company's
    bank is empty is public (rules.md, "Hidden shares"), so the missing shares of each
    empty bank are dealt first, and no other bank is left empty."""
    holdings = state["shares"]
    empty = sorted(c for c in state["companies"] if _bank_shares(state, c) == 0)
    down = [seat for seat in others for held in holdings[seat].values() for _ in range(held[1])]
    rnd.shuffle(down)
    for seat in others:
        for held in holdings[seat].values():
            held[1] = 0
    per_company = components()["shares_per_company"]
    room = {c: per_company - sum(sum(h[c]) for h in holdings) for c in state["companies"]}
    for company in empty:
        for _ in range(room[company]):
            holdings[down.pop()][company][1] += 1
        room[company] = 0
    for seat in down:
        company = rnd.choice(sorted(c for c, n in room.items() if n > 1))
        holdings[seat][company][1] += 1
        room[company] -= 1
