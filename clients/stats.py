"""Measurement helpers shared by ``tablewire loadtest`` and ``benchmarks/``.

Percentiles are nearest-rank (bench/turn-relay.md §5): sort ascending, take
element ``ceil(p/100 · n) − 1``. Process CPU and peak RSS are read from
``/proc`` and summed over a process tree, as the workload's rules ask.
"""

from __future__ import annotations

import asyncio
import math
import os
import platform
import time
from collections.abc import Sequence
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of a non-empty sample."""
    if not values:
        raise ValueError("percentile of an empty sample")
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def machine() -> str:
    """nproc, CPU model and Python, for the record next to the figures."""
    return f"{os.cpu_count()} cores, {cpu_model()}, Python {platform.python_version()}"


def process_tree(pid: int) -> list[int]:
    """``pid`` and all its descendants alive now (from /proc/<pid>/task/*/children)."""
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                todo += [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
    return tree


def tree_cpu_seconds(pid: int) -> float:
    """utime + stime (fields 14 and 15 of /proc/<pid>/stat) summed over the tree."""
    total = 0
    for each in process_tree(pid):
        try:
            stat = Path(f"/proc/{each}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)": field 3 is fields[0]
        total += int(fields[11]) + int(fields[12])
    return total / CLK_TCK


def tree_rss_mib(pid: int, field: str = "VmHWM") -> float:
    """A /proc/<pid>/status memory field (VmHWM: peak RSS) summed over the tree, in MiB."""
    kib = 0
    for each in process_tree(pid):
        try:
            for line in Path(f"/proc/{each}/status").read_text().splitlines():
                if line.startswith(field + ":"):
                    kib += int(line.split()[1])
        except OSError:
            continue
    return kib / 1024


class LoopDelay:
    """Samples the event loop's delay: a task that sleeps ``interval`` and measures lateness."""

    def __init__(self, interval: float = 0.01) -> None:
        self.interval = interval
        self.samples_ms: list[float] = []
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(self.interval)
            self.samples_ms.append(max(0.0, (time.monotonic() - before - self.interval) * 1000))

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
