"""Types of the C extension built from ``protocol/_speedups.c``."""

from typing import Any

WHOLE_LIST: int

def diff(old: Any, new: Any, /) -> list[list[Any]]: ...
