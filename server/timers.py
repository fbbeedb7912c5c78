"""Time for rooms: the wall clock in production, a hand-driven one in tests.

Clocks, bot pacing, grace periods and abandonment all read :meth:`Timers.now`
(epoch seconds, what the log records) and wake up through
:meth:`Timers.call_at`. A room keeps at most one pending wake-up (its next due
time), so an idle room with a running clock costs one timer handle, not a
polling loop. Tests use :class:`ManualTimers` and move time forward with
:meth:`ManualTimers.advance`; nothing waits for a real timeout.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Protocol


class Handle(Protocol):
    def cancel(self) -> None: ...


class Timers(Protocol):
    """Epoch time and one-shot wake-ups at an epoch time."""

    def now(self) -> float: ...

    def call_at(self, when: float, callback: Callable[[], None]) -> Handle: ...


class WallTimers:
    """The real clock: ``time.time`` and the running loop's ``call_later``."""

    def now(self) -> float:
        return time.time()

    def call_at(self, when: float, callback: Callable[[], None]) -> Handle:
        return asyncio.get_running_loop().call_later(max(0.0, when - time.time()), callback)


class _Pending:
    def __init__(self, callback: Callable[[], None]) -> None:
        self.callback: Callable[[], None] | None = callback

    def cancel(self) -> None:
        self.callback = None


class ManualTimers:
    """A clock that moves only when told to (tests, simulations)."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.time = start
        self._heap: list[tuple[float, int, _Pending]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self.time

    def __call__(self) -> float:
        """The clock as a plain callable (what the lobby's sweep reads)."""
        return self.time

    def call_at(self, when: float, callback: Callable[[], None]) -> Handle:
        pending = _Pending(callback)
        heapq.heappush(self._heap, (when, next(self._order), pending))
        return pending

    def advance(self, seconds: float) -> None:
        """Move time forward, running every callback due on the way, in time order."""
        target = self.time + seconds
        while self._heap and self._heap[0][0] <= target:
            when, _, pending = heapq.heappop(self._heap)
            self.time = max(self.time, when)
            if pending.callback is not None:
                pending.callback()
        self.time = target
