"""Shared helpers of the benchmark scripts: the machine, percentiles, a load-test run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from clients.stats import machine, percentile

__all__ = ["loadtest", "machine", "percentile"]

TABLEWIRE = str(Path(sys.executable).with_name("tablewire"))


def loadtest(*args: str) -> dict[str, Any] | None:
    """Run ``tablewire loadtest --spawn ARGS`` (a fresh server), print its JSON line
    verbatim and return it; on failure print its stderr and return None."""
    command = [TABLEWIRE, "loadtest", "--spawn", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    if not done.stdout.strip():
        print(f"tablewire loadtest failed ({done.returncode}):\n{done.stderr[-2000:]}", flush=True)
        return None
    line = done.stdout.strip().splitlines()[-1]
    print(line, flush=True)
    result: dict[str, Any] = json.loads(line)
    return result
