"""docker-compose.yml's ``cluster`` profile run without Docker: its six Redis nodes with
the profile's own ``redis-server`` arguments, joined by the profile's own create step
(the same shell script, its node list pointed at local ports), two ``tablewire serve``
replicas with the profile's environment, and nginx from deploy/nginx.conf in front.

No Docker engine runs on these machines (tests/server/test_compose.py checks the file
itself); this runs what the profile runs, so that `docker compose --profile cluster up`
is not the first time its parts meet. The addresses are the only change: each
container's ``host:6379`` becomes ``127.0.0.1:port``, the replicas' own port and their
metrics port are free local ones, and the proxy they trust is 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import yaml
from processes import assert_games_finished_with_every_ack, relay_games

from clients import bots
from clients.compose import Shape, compose_shape
from clients.spawn import SpawnedCluster, SpawnedRedis, bus_free_port, free_port
from conftest import nginx, redis_cluster
from server.store.redis import RedisStore
from support import ROOT

pytestmark = pytest.mark.load

NODES = [f"redis-node-{n}" for n in range(1, 7)]
NODE_LIST = re.compile(r'^nodes="([^"]*)"$', re.MULTILINE)
ROOMS = 6


def services() -> dict[str, Any]:
    """docker-compose.yml's services, YAML anchors and merge keys resolved."""
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return loaded["services"]


def unescaped(script: str) -> str:
    """A compose ``command`` as the container's shell gets it (``$$`` is a plain ``$``)."""
    return script.replace("$$", "$")


def create_step(nodes: list[SpawnedRedis]) -> list[str]:
    """The profile's ``redis-cluster-create`` command line, told the local nodes."""
    step = services()["redis-cluster-create"]
    script = unescaped(step["command"][0])
    listed = NODE_LIST.findall(script)
    assert len(listed) == 1, "the create step names its nodes on one `nodes=` line"
    assert len(listed[0].split()) == len(NODES)
    ours = " ".join(f"127.0.0.1:{node.port}" for node in nodes)
    return [*step["entrypoint"], NODE_LIST.sub(f'nodes="{ours}"', script)]


def profile_nodes() -> SpawnedCluster:
    """The six nodes as the profile starts them (not yet started)."""
    redis_cluster()  # skipped (failed in CI) without redis-server and redis-cli
    every = services()
    nodes = []
    for name in NODES:
        command = every[name]["command"]
        assert command[0] == "redis-server"
        nodes.append(SpawnedRedis(*command[1:], port=bus_free_port()))
    return SpawnedCluster.of(nodes, replicas=1)


def replica_settings(name: str, cluster: SpawnedCluster) -> dict[str, object]:
    """The profile's environment for replica ``name`` as ``SpawnedServer`` settings,
    pointed at the local nodes, its metrics on a free port, nginx trusted on 127.0.0.1."""
    env = dict(services()[name]["environment"])
    host, port = env["TABLEWIRE_REDIS_URL"].removeprefix("redis://").split("/")[0].split(":")
    assert (host, port) == ("redis-node-1", "6379"), env["TABLEWIRE_REDIS_URL"]
    env["TABLEWIRE_REDIS_URL"] = cluster.nodes[0].url
    env["TABLEWIRE_METRICS_HOST"] = "127.0.0.1"
    env["TABLEWIRE_METRICS_PORT"] = str(free_port())
    env["TABLEWIRE_TRUSTED_PROXIES"] = "127.0.0.1"
    for local in ("TABLEWIRE_HOST", "TABLEWIRE_PORT"):  # SpawnedServer gives its own
        env.pop(local)
    # turn-relay games (the benchmark engine) for the failover check, from 127.0.0.1
    env["TABLEWIRE_LOAD_TEST_CLIENTS"] = "127.0.0.1"
    env["TABLEWIRE_MAX_BENCHMARK_ROOMS"] = str(ROOMS)
    return {key.removeprefix("TABLEWIRE_").lower(): value for key, value in env.items()}


class ProfileRedis:
    """The profile's Redis side, started the way compose starts it: the nodes, then the
    create step (for :func:`compose_shape`, which starts it and cleans it up)."""

    def __init__(self, cluster: SpawnedCluster) -> None:
        self.cluster = cluster
        self.created: list[str] = []

    @property
    def url(self) -> str:
        return self.cluster.nodes[0].url

    def start(self) -> None:
        try:
            for node in self.cluster.nodes:
                node.start()
            self.created.append(self.create())
        except BaseException:
            self.cleanup()
            raise

    def create(self) -> str:
        """Run the create step; what it printed."""
        done = subprocess.run(
            create_step(self.cluster.nodes), capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def cleanup(self) -> None:
        self.cluster.cleanup()


@contextlib.contextmanager
def said_on_failure(shape: Shape, redis: ProfileRedis) -> Iterator[None]:
    """On a failure, the last lines of every process, on stderr (shown with the failure:
    CI's output may be all there is to go by)."""
    try:
        yield
    except BaseException:
        parts = [(f"replica {n + 1}", r.log[-40:]) for n, r in enumerate(shape.replicas)]
        parts += [(f"redis :{node.port}", list(node.output)[-20:]) for node in redis.cluster.nodes]
        parts.append(("nginx", shape.nginx.log[-20:]))
        for name, lines in parts:
            sys.stderr.write(f"--- {name}, last lines\n{''.join(lines)}")
        raise


@pytest.fixture
async def profile() -> AsyncIterator[tuple[Shape, ProfileRedis]]:
    binary = nginx()
    if shutil.which("sh") is None:
        pytest.skip("no sh to run the create step")
    cluster = profile_nodes()
    redis = ProfileRedis(cluster)
    names = ["tablewire-cluster-1", "tablewire-cluster-2"]
    each = [replica_settings(name, cluster) for name in names]
    assert [s["node"] for s in each] == names
    assert all(s["redis_durability"] == "replica" for s in each), "no acked move lost"
    async with compose_shape(
        ROOT / "deploy" / "nginx.conf", binary, redis, replicas=len(each), each=each
    ) as shape:
        yield shape, redis


async def test_the_cluster_profile_plays_through_nginx_and_survives_a_master_killed(
    profile: tuple[Shape, ProfileRedis],
) -> None:
    shape, redis = profile
    with said_on_failure(shape, redis):
        assert "[OK] All 16384 slots covered" in redis.created[0]
        again = redis.create()  # a restarted profile: the nodes know each other already
        assert again == "", "the second create step creates nothing (and prints nothing)"

        summary = await bots.run(
            shape.url, "sintra", 2, 4, check=True, time_limit=120, bot="random"
        )
        assert summary.ok and summary.games_finished == 2, summary.failures

        tables, _, plays = await relay_games([shape], ROOMS)
        games = asyncio.gather(*plays)
        try:
            store = RedisStore.connect(redis.url)
            first = store.key(tables[0][0])
            await store.close()
            dying = redis.cluster.master_of(first)
            async with asyncio.timeout(120):
                await tables[0][1][0].wait_version(40)
            dying.stop(signal.SIGKILL)
            promoted = await asyncio.to_thread(redis.cluster.wait_failover, first, dying)
            await asyncio.to_thread(dying.start)  # restart: unless-stopped
            async with asyncio.timeout(240):
                await games
            assert redis.cluster.master_of(first) is promoted, "the replica kept the slot"
        finally:
            games.cancel()  # a failure leaves no client playing on
        await assert_games_finished_with_every_ack(redis.url, tables)


def test_the_node_list_is_the_only_address_the_create_step_names() -> None:
    script = unescaped(services()["redis-cluster-create"]["command"][0])
    without = NODE_LIST.sub("", script)
    assert not re.search(r"\d+\.\d+\.\d+\.\d+|:6379", without), without
