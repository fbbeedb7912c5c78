"""Crystal Palace (engine id ``crystal-palace``); see :mod:`engines.crystal_palace.engine`."""

from engines.crystal_palace.engine import CrystalPalace

ENGINE = CrystalPalace()

__all__ = ["ENGINE", "CrystalPalace"]
