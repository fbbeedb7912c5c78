"""Stopping asyncio tasks for good.

One ``cancel()`` is not always enough: a cancellation that lands inside a Redis
call can come out of the client as a connection error, which a loop built to
survive Redis outages catches and goes on. :func:`finish` cancels again until
every task has ended.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

PATIENCE = 1.0
"""Seconds :func:`finish` waits after each round of cancellations."""


async def finish(tasks: Iterable[asyncio.Task[Any]], patience: float = PATIENCE) -> None:
    """Cancel ``tasks`` and return once all have ended, cancelling again every
    ``patience`` seconds those that are still running."""
    pending = {task for task in tasks if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=patience)
