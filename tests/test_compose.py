"""docker-compose.yml and the Dockerfile, checked without a Docker engine.

No Docker engine runs on these machines, so ``docker-compose config`` (Debian's
docker-compose, which validates against the Compose schema without a daemon)
checks the file, and the Dockerfile's COPY sources are checked to exist. In CI
a missing docker-compose is a failure, never a silent skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def compose(*args: str) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("docker-compose")
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("docker-compose is missing: .ci/run installs it")
        pytest.skip("docker-compose is not installed (apt-get install docker-compose)")
    return subprocess.run(
        [binary, "-f", str(ROOT / "docker-compose.yml"), *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_compose_file_is_valid() -> None:
    checked = compose("config", "-q")
    assert checked.returncode == 0, checked.stderr


def test_compose_runs_the_server_beside_redis() -> None:
    services = compose("config", "--services").stdout.split()
    assert sorted(services) == ["redis", "tablewire"]


def test_dockerfile_copies_what_exists_and_serves() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    for line in dockerfile.splitlines():
        if line.startswith("COPY "):
            for source in line.split()[1:-1]:
                assert (ROOT / source).exists(), f"the Dockerfile copies a missing {source}"
    assert 'CMD ["tablewire", "serve"]' in dockerfile
