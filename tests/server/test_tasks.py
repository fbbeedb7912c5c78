"""Stopping tasks that do not stop at the first cancellation (server/tasks.py)."""

from __future__ import annotations

import asyncio

from server.tasks import finish


async def test_a_task_that_swallows_a_cancellation_is_cancelled_again_until_it_ends() -> None:
    swallowed = 0

    async def stubborn() -> None:
        nonlocal swallowed
        while True:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                swallowed += 1
                if swallowed == 3:
                    raise

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)  # it starts waiting
    async with asyncio.timeout(10):
        await finish([task], patience=0.01)
    assert task.cancelled() and swallowed == 3


async def test_tasks_already_ended_are_left_as_they_are() -> None:
    async def done() -> str:
        return "result"

    task = asyncio.create_task(done())
    await task
    await finish([task])
    assert task.result() == "result"
