"""Types of the C extension built from ``protocol/_speedups.c``."""

from typing import Any

WHOLE_LIST: int

def diff(old: Any, new: Any, /) -> list[list[Any]]: ...
def compact(
    ops: list[list[Any]],
    singles: dict[str, int],
    pairs: dict[str, dict[str, int]],
    out: list[Any],
    /,
) -> None: ...
