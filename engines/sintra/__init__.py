"""Azul: Stained Glass of Sintra (engine id ``sintra``); see :mod:`engines.sintra.engine`."""

from engines.sintra.engine import Sintra

ENGINE = Sintra()

DEFAULT = True
"""The game client commands play when given none (:func:`engines.default_game`)."""

__all__ = ["DEFAULT", "ENGINE", "Sintra"]
