"""Types of the C extension built from ``protocol/_speedups.c``."""

from typing import Any

def diff(old: Any, new: Any, /) -> list[list[Any]]: ...
