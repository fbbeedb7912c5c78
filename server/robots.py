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
from engines.bots import KINDS, make_bot
from engines.bots import kinds as bot_kinds
from server.errors import spoken

ZOMBIE = "zombie"
"""The seat of an expelled player: played by the engine's best bot for the rest of the game."""


def kinds(engine: Engine) -> dict[str, str]:
    """The bot kinds ``engine`` has, strongest first, each with one line on its strength."""
    return bot_kinds(engine.id)


def default_kind(engine: Engine) -> str:
    """The engine's strongest bot kind: greedy where it has a greedy bot, else random."""
    return next(iter(kinds(engine)))


def check_kind(engine: Engine, kind: str) -> str | None:
    """Why ``kind`` cannot play ``engine`` (None when it can)."""
    offered = list(kinds(engine))
    if kind not in offered:
        return f"{engine.id} has {spoken(offered, 'and')} bots, not {kind!r}"
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
