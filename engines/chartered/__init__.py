"""Chartered: The Golden Age (engine id ``chartered``); see :mod:`engines.chartered.engine`."""

from engines.chartered.engine import Chartered

ENGINE = Chartered()

__all__ = ["ENGINE", "Chartered"]
