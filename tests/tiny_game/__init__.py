"""Tiny Nim (engine id ``tiny-nim``): the smallest game folder, the template of a new game.

docs/architecture.md ("How to add a game") walks through it;
tests/engines/test_a_game_is_one_folder.py copies it elsewhere and finds it in the
lobby, the conformance suite, the bots, the terminal and the web page.
"""

from .engine import TinyNim

ENGINE = TinyNim()

__all__ = ["ENGINE", "TinyNim"]
