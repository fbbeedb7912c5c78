"""Server-side bots: the decision a bot (or a zombie, for a person) makes for a seat.

The owner of a room decides, logs the chosen action, and every replica folds
the logged action: a bot is never asked twice for the same decision. The bot
sees only its seat's view and legal actions (engines/bots.py), and its
randomness is seeded from the room's seed, the version and the seat, so the
same room makes the same choice wherever it is decided.
"""

from __future__ import annotations

import hashlib

from engines.base import Action, Engine, State
from engines.bots import KINDS, has_greedy, make_bot

ZOMBIE = "zombie"
"""The seat of an expelled player: played by the engine's best bot for the rest of the game."""


def default_kind(engine: Engine) -> str:
    """Greedy where the engine has a greedy bot, else random."""
    return "greedy" if has_greedy(engine.id) else "random"


def check_kind(engine: Engine, kind: str) -> str | None:
    """Why ``kind`` cannot play ``engine`` (None when it can)."""
    if kind not in KINDS:
        return f"bot kind must be one of {list(KINDS)}"
    if kind == "greedy" and not has_greedy(engine.id):
        return f"{engine.id} has no greedy bot; use random"
    return None


def bot_seed(room_seed: int, version: int, seat: int) -> int:
    digest = hashlib.sha256(f"{room_seed}:{version}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def decide(
    engine: Engine, state: State, seat: int, kind: str, room_seed: int, version: int
) -> Action:
    """The action a ``kind`` bot (or ``zombie``) picks for ``seat`` at ``version``."""
    if kind == ZOMBIE or kind not in KINDS:
        kind = default_kind(engine)
    bot = make_bot(kind, engine.id, seat, bot_seed(room_seed, version, seat))
    return bot.choose(engine.view(state, seat), engine.legal_actions(state, seat))
