"""turn-relay (engine id ``turn-relay``): the side-by-side benchmark workload; see
:mod:`engines.turn_relay.engine`."""

from engines.turn_relay.engine import TurnRelay

ENGINE = TurnRelay()

__all__ = ["ENGINE", "TurnRelay"]
