"""Shared helpers of the benchmark scripts: the machine, percentiles, a load-test run,
the shared turn-relay harness (../shared/peers/colyseus).

Importing it puts ``tests/`` on the path, so a benchmark takes the doubles the tests
use from ``tests/doubles.py`` (``from doubles import ...`` after ``from common import
...``) instead of writing them again."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from clients.stats import machine, percentile

__all__ = [
    "REDIS_ARGS",
    "RUN_PHASE",
    "commit",
    "harness",
    "loadtest",
    "machine",
    "percentile",
    "record",
]

TABLEWIRE = str(Path(sys.executable).with_name("tablewire"))
ROOT = Path(__file__).resolve().parent.parent
# The root before tests/: the tests' folders (tests/server, ...) have no __init__.py, and
# the packages of the root must be found first.
sys.path.extend(str(path) for path in (ROOT, ROOT / "tests") if str(path) not in sys.path)
SHARED = Path(os.environ.get("SHARED_PEERS", ROOT.parent / "shared" / "peers" / "colyseus"))
PEERS = Path(os.environ.get("PEERS", "/tmp/tablewire-peers-redis"))
RUN_PHASE = b"run phase:"
"""loadgen.js's stderr line when its measured window starts."""
REDIS_ARGS = ("--save", "", "--appendonly", "yes", "--appendfsync", "always")
"""redis-server as docker-compose.yml runs it (append-only file, fsync every write)."""


def record(out: Path, result: dict[str, Any]) -> None:
    """Print ``result`` as a JSON line and append the line to ``out`` (benchmarks/results),
    with the commit it ran (``commit``) unless it names one."""
    line = json.dumps({"commit": commit(), **result})
    print(line, flush=True)
    with out.open("a") as f:
        f.write(line + "\n")


def commit() -> str:
    """The short hash of the checked-out commit, for the JSON lines ("unknown" outside git)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return done.stdout.strip()


def harness(install: bool = False) -> Path:
    """A writable copy of the shared harness (made once, in ``$PEERS``); with
    ``install``, its pinned packages installed as its run.sh installs them (``npm ci``
    once, with run.sh's stamp), for running its loadgen.js without run.sh."""
    copy = PEERS / "colyseus"
    if not copy.exists():
        PEERS.mkdir(parents=True, exist_ok=True)
        shutil.copytree(SHARED, copy)
    stamp = copy / "node_modules" / ".turn-relay-lock.sha256"
    want = hashlib.sha256((copy / "package-lock.json").read_bytes()).hexdigest()
    if install and (not stamp.exists() or stamp.read_text().strip() != want):
        npm = ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"]
        subprocess.run(npm, cwd=copy, check=True, stdout=sys.stderr)
        stamp.write_text(want + "\n")
    return copy


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
