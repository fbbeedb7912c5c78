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

import pytest
import yaml

from support import ROOT


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


def test_compose_runs_two_replicas_on_redis_behind_one_proxy() -> None:
    checked = compose("config")
    assert checked.returncode == 0, checked.stderr
    config = yaml.safe_load(checked.stdout)
    services = config["services"]
    assert sorted(services) == ["proxy", "redis", "tablewire-1", "tablewire-2"]
    for name in ("tablewire-1", "tablewire-2"):
        env = services[name]["environment"]
        assert env["TABLEWIRE_REDIS_URL"] == "redis://redis:6379/0"
        assert env["TABLEWIRE_NODE"] == name
        assert services[name]["depends_on"]["redis"]["condition"] == "service_healthy"
    assert "--appendfsync" in services["redis"]["command"], "acknowledged moves survive Redis"
    assert [p["published"] for p in services["proxy"]["ports"]] in ([8000], ["8000"])


def test_the_proxy_balances_both_replicas_and_passes_websockets() -> None:
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "server tablewire-1:8000" in nginx and "server tablewire-2:8000" in nginx
    assert "proxy_set_header Upgrade $http_upgrade;" in nginx
    assert "proxy_set_header Connection $connection_upgrade;" in nginx


def test_dockerfile_copies_what_exists_and_serves() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    for line in dockerfile.splitlines():
        if line.startswith("COPY "):
            for source in line.split()[1:-1]:
                assert (ROOT / source).exists(), f"the Dockerfile copies a missing {source}"
    assert 'CMD ["tablewire", "serve"]' in dockerfile
