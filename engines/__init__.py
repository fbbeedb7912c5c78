"""Game engines and their registry.

Every engine implements :class:`engines.base.Engine`. ``ENGINES`` maps an
engine id (the value of ``engine`` in the lobby API) to its engine object;
``GAMES`` holds the ones offered to players (``kind == "game"``), leaving out
engines such as ``turn-relay`` that exist for load tests (``kind == "benchmark"``).
"""

from engines.base import Engine
from engines.chartered import ENGINE as CHARTERED
from engines.crystal_palace import ENGINE as CRYSTAL_PALACE
from engines.sintra import ENGINE as SINTRA
from engines.turn_relay import ENGINE as TURN_RELAY

ENGINES: dict[str, Engine] = {
    engine.id: engine for engine in (SINTRA, CHARTERED, CRYSTAL_PALACE, TURN_RELAY)
}

GAME, BENCHMARK = "game", "benchmark"
"""The kinds of engine (``Engine.kind``)."""

GAMES: dict[str, Engine] = {id_: engine for id_, engine in ENGINES.items() if engine.kind == GAME}

__all__ = ["BENCHMARK", "ENGINES", "GAME", "GAMES", "Engine"]
