"""The browser SDK's own tests (tests/web/*.test.js) under Node's test runner, against a
real ``tablewire serve`` that they spawn; part of ``make test``. Skipped without Node 20+."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT

TEST_FILES = ["tests/web/sdk.test.js", "tests/web/ends.test.js"]
"""The SDK's test files, run by Node's test runner."""


def node_command() -> list[str]:
    """``node``, with the flag that gives Node 20 its global WebSocket when it needs one."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the browser SDK's tests (tests/web) cannot run")
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
    if int(version.lstrip("v").split(".")[0]) < 20:
        pytest.skip(f"node {version.strip()} is too old for the SDK's tests (Node 20+)")
    has_socket = subprocess.run(
        [node, "-e", "process.exit(typeof WebSocket === 'function' ? 0 : 1)"]
    )
    return [node] if has_socket.returncode == 0 else [node, "--experimental-websocket"]


def test_the_browser_sdk_passes_its_node_tests() -> None:
    env = {
        **os.environ,
        "TABLEWIRE_BIN": str(Path(sys.executable).with_name("tablewire")),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    run = subprocess.run(
        [*node_command(), "--test", "--test-reporter=spec", *TEST_FILES],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
