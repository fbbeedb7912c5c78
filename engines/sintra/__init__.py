"""Azul: Stained Glass of Sintra (engine id ``sintra``); see :mod:`engines.sintra.engine`."""

from engines.sintra.engine import Sintra

ENGINE = Sintra()

__all__ = ["ENGINE", "Sintra"]
