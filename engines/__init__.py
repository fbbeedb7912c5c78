"""Game engines and their registry.

Every engine implements :class:`engines.base.Engine`. ``ENGINES`` maps an
engine id (the value of ``engine`` in the lobby API) to its engine object.
"""

from engines.base import Engine
from engines.chartered import ENGINE as CHARTERED
from engines.crystal_palace import ENGINE as CRYSTAL_PALACE
from engines.sintra import ENGINE as SINTRA
from engines.turn_relay import ENGINE as TURN_RELAY

ENGINES: dict[str, Engine] = {
    engine.id: engine for engine in (SINTRA, CHARTERED, CRYSTAL_PALACE, TURN_RELAY)
}

__all__ = ["ENGINES", "Engine"]
