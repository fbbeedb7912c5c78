"""Chartered: The Golden Age (engine id ``chartered``), per ``rules/chartered.md``.

Under construction for issue 4: the component data (``data/components.json``)
and the board geometry (:mod:`engines.chartered.board`) are done and tested;
the engine itself is not written yet, so it is not registered in
:data:`engines.ENGINES`.
"""
