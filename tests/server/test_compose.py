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
from ipaddress import ip_address, ip_network
from typing import Any

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


def started(profile: str | None = None) -> dict[str, Any]:
    """The services ``docker-compose --profile PROFILE up`` starts: those of no profile,
    and those of ``profile`` (docker-compose 1.x's ``config`` lists every service)."""
    checked = compose(*(("--profile", profile) if profile else ()), "config")
    assert checked.returncode == 0, checked.stderr
    every: dict[str, Any] = yaml.safe_load(checked.stdout)["services"]
    wanted = {None, profile}
    return {
        name: service
        for name, service in every.items()
        if wanted & set(service.get("profiles", [None]))
    }


def test_compose_runs_two_replicas_on_redis_behind_one_proxy() -> None:
    services = started()
    assert sorted(services) == ["proxy", "redis", "tablewire-1", "tablewire-2"]
    for name in ("tablewire-1", "tablewire-2"):
        env = services[name]["environment"]
        assert env["TABLEWIRE_REDIS_URL"] == "redis://redis:6379/0"
        assert env["TABLEWIRE_NODE"] == name
        assert services[name]["depends_on"]["redis"]["condition"] == "service_healthy"
    assert "--appendfsync" in services["redis"]["command"], "acknowledged moves survive Redis"
    assert [p["published"] for p in services["proxy"]["ports"]] in ([8000], ["8000"])


CLUSTER_NODES = [f"redis-node-{n}" for n in range(1, 7)]


def test_the_cluster_profile_runs_six_nodes_a_create_step_and_two_servers_behind_nginx() -> None:
    services = started("cluster")
    cluster = {name: s for name, s in services.items() if "cluster" in s.get("profiles", [])}
    servers = ["tablewire-cluster-1", "tablewire-cluster-2"]
    assert sorted(cluster) == sorted(
        [*CLUSTER_NODES, "redis-cluster-create", *servers, "proxy-cluster"]
    )
    for name in CLUSTER_NODES:
        command = cluster[name]["command"]
        for flag, value in (("--cluster-enabled", "yes"), ("--appendonly", "yes")):
            assert command[command.index(flag) + 1] == value, (name, flag)
        assert command[command.index("--appendfsync") + 1] == "always", name
        assert cluster[name]["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]
        assert cluster[name]["volumes"], f"{name} keeps its AOF and nodes.conf"
    create = cluster["redis-cluster-create"]
    script = " ".join(create["command"])
    assert "--cluster create" in script and "--cluster-replicas 1 --cluster-yes" in script
    assert "cluster nodes" in script, "it creates nothing when the cluster exists"
    assert create["restart"] == "no"
    assert {n: c["condition"] for n, c in create["depends_on"].items()} == dict.fromkeys(
        CLUSTER_NODES, "service_healthy"
    )
    addresses = {cluster[n]["networks"]["cluster"]["ipv4_address"] for n in CLUSTER_NODES}
    assert all(address in script for address in addresses), "it joins all six by address"
    for n in (1, 2):
        server = cluster[f"tablewire-cluster-{n}"]
        assert server["depends_on"] == {
            "redis-cluster-create": {"condition": "service_completed_successfully"}
        }
        env = server["environment"]
        assert env["TABLEWIRE_REDIS_URL"] == "redis://redis-node-1:6379/0"
        assert env["TABLEWIRE_REDIS_DURABILITY"] == "replica"
        assert server["networks"]["cluster"]["aliases"] == [f"tablewire-{n}"], "nginx.conf's"
    proxy = cluster["proxy-cluster"]
    assert env["TABLEWIRE_TRUSTED_PROXIES"] == proxy["networks"]["cluster"]["ipv4_address"]
    assert sorted(proxy["depends_on"]) == ["tablewire-cluster-1", "tablewire-cluster-2"]
    assert [p["published"] for p in proxy["ports"]] in ([8001], ["8001"])
    assert proxy["volumes"] == services["proxy"]["volumes"], "deploy/nginx.conf"


def test_no_container_can_take_a_fixed_address_before_its_owner_starts() -> None:
    """Docker gives a container without a fixed address the lowest free one of its
    network's range: were the proxy's in that range, a server started before it could
    hold it, and the proxy would not start ("Address already in use", seen under
    Docker 20.10 with the cluster profile). Fixed addresses sit outside ``ip_range``."""
    checked = compose("--profile", "cluster", "config")
    assert checked.returncode == 0, checked.stderr
    config = yaml.safe_load(checked.stdout)
    ranges = {}
    for name, network in config["networks"].items():
        (pool,) = network["ipam"]["config"]
        subnet, dynamic = ip_network(pool["subnet"]), ip_network(pool["ip_range"])
        assert dynamic.subnet_of(subnet), name
        ranges[name] = (subnet, dynamic)
    fixed = [
        (service, network, ip_address(settings["ipv4_address"]))
        for service, spec in config["services"].items()
        for network, settings in (spec.get("networks") or {}).items()
        if settings and "ipv4_address" in settings
    ]
    assert len(fixed) == 8, "the two proxies and the six cluster nodes"
    for service, network, address in fixed:
        subnet, dynamic = ranges[network]
        assert address in subnet and address not in dynamic, (service, str(address))


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
