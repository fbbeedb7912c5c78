"""docker-compose.yml's shape run without Docker: nginx from deploy/nginx.conf in front
of ``tablewire serve`` replicas sharing one redis-server, every client through nginx
(tests/server/test_compose_shape.py, benchmarks/replicas.py).

The nginx configuration run is deploy/nginx.conf with its upstream ``server`` lines
replaced by one line for each replica's port (the same options) and its ``listen``
pointed at a free port; nothing else of the file changes, except, for a load
generator that is one client address (``one_address``), the caps per client
address raised out of its way (``limit_conn`` to nginx's largest, the lobby's
``limit_req`` rate), as the replicas' ``load_test_clients`` does for theirs. Paths
of the run's own (pid, logs, temporary files) are given on nginx's command line and
at the top of the ``http`` block, so that nothing is written outside its directory.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from clients.spawn import SpawnedServer, ended, free_port

UPSTREAM = re.compile(r"^ *server tablewire-\d:8000\b.*\n", re.MULTILINE)
LISTEN = "listen 80;"
ADDRESS_CAP = re.compile(r"limit_conn per_address \d+;")
LOBBY_RATE = re.compile(r"rate=\d+r/s;")


def nginx_binary() -> str | None:
    """nginx's path, or None when it is not installed."""
    return shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")


def nginx_conf(
    source: Path,
    binary: str,
    directory: Path,
    port: int,
    upstreams: list[int],
    one_address: bool = False,
) -> Path:
    """``source`` (deploy/nginx.conf) serving 127.0.0.1:``port`` in front of the replicas
    on 127.0.0.1:``upstreams``, its logs and temporary files in ``directory``."""
    text = source.read_text()
    lines = list(UPSTREAM.finditer(text))
    if not lines or text.count(LISTEN) != 1:
        raise ValueError(f"{source}: no `server tablewire-N:8000` lines or not one `{LISTEN}`")
    block = text[lines[0].start() : lines[-1].end()]
    if block != "".join(m[0] for m in lines):
        raise ValueError(f"{source}: the `server tablewire-N:8000` lines are not together")
    ours = "".join(
        re.sub(r"tablewire-\d:8000", f"127.0.0.1:{p}", lines[0][0], count=1) for p in upstreams
    )
    text = text.replace(block, ours).replace(LISTEN, f"listen 127.0.0.1:{port};")
    if one_address:
        if not (ADDRESS_CAP.search(text) and LOBBY_RATE.search(text)):
            raise ValueError(f"{source}: no `limit_conn per_address N;` or lobby `rate=Nr/s;`")
        text = ADDRESS_CAP.sub("limit_conn per_address 65535;", text)
        text = LOBBY_RATE.sub("rate=100000r/s;", text)
    built = subprocess.run([binary, "-V"], capture_output=True, text=True, check=True).stderr
    temps = [
        f"{kind}_temp_path {directory / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        if f"--without-http_{kind}_module" not in built
    ]
    local = "\n    ".join([f"access_log {directory / 'access.log'};", *temps])
    conf = directory / "nginx.conf"
    conf.write_text(text.replace("http {\n", f"http {{\n    {local}\n", 1))
    return conf


class SpawnedNginx:
    """nginx in the foreground with ``conf``; :meth:`start` returns once its workers run.
    With ``cpus`` (and ``taskset``): pinned to that CPU list, workers included."""

    def __init__(self, binary: str, conf: Path, directory: Path, cpus: str | None = None) -> None:
        pin = ["taskset", "-c", cpus] if cpus and shutil.which("taskset") else []
        self.command = [*pin, binary, "-p", str(directory), "-c", str(conf), "-e", "stderr"]
        self.command += [
            "-g",
            f"daemon off; pid {directory / 'nginx.pid'}; error_log stderr notice;",
        ]
        self.log: list[str] = []
        self.process: asyncio.subprocess.Process | None = None
        self._drain: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            *self.command, stderr=asyncio.subprocess.PIPE
        )
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._drain = asyncio.create_task(self._read(ready))
        async with asyncio.timeout(30):
            await ready

    async def _read(self, ready: asyncio.Future[None]) -> None:
        assert self.process is not None and self.process.stderr is not None
        async for line in self.process.stderr:
            self.log.append(line.decode())
            if b"start worker process" in line and not ready.done():
                ready.set_result(None)
        if not ready.done():
            ready.set_exception(RuntimeError("nginx exited:\n" + "".join(self.log)))

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    async def stop(self, within: float = 30.0) -> None:
        """SIGTERM (nginx's fast shutdown); one still running ``within`` seconds later is
        killed, and that is an error showing its log."""
        if not await ended(self.process, signal.SIGTERM, within):
            raise RuntimeError(
                f"nginx was still running {within:g} s after SIGTERM:\n" + "".join(self.log)
            )
        if self._drain is not None:
            await self._drain


class RedisSide(Protocol):
    """What the replicas are told to use: a :class:`SpawnedRedis`, or a cluster's nodes
    started together (tests/server/test_compose_cluster.py)."""

    @property
    def url(self) -> str: ...

    def start(self) -> None: ...

    def cleanup(self) -> None: ...


@dataclass
class Shape:
    """The deployment: nginx's URL is the only one clients use."""

    url: str
    ws: str
    port: int
    replicas: list[SpawnedServer]
    redis: RedisSide
    nginx: SpawnedNginx


@asynccontextmanager
async def compose_shape(
    source: Path,
    binary: str,
    redis: RedisSide,
    replicas: int = 2,
    one_address: bool = False,
    replica_cpus: list[str] | None = None,
    nginx_cpus: str | None = None,
    each: list[dict[str, object]] | None = None,
    **settings: object,
) -> AsyncIterator[Shape]:
    """Start ``redis`` (not yet started), ``replicas`` replicas on it (nodes
    ``tablewire-1`` …, ``settings`` on each, then ``each[i]`` on replica i, when
    given; replica i pinned to ``replica_cpus[i % len]``) and nginx from ``source``
    in front; stop them all (the replicas killed) and remove nginx's directory on the
    way out (each of them, whichever fails to stop)."""
    servers = [
        SpawnedServer(
            None,
            replica_cpus[n % len(replica_cpus)] if replica_cpus else None,
            False,
            **{
                "redis_url": redis.url,
                "node": f"tablewire-{n + 1}",
                **settings,
                **(each[n] if each else {}),
            },
        )
        for n in range(replicas)
    ]
    directory = Path(tempfile.mkdtemp(prefix="tablewire-nginx-"))
    port = free_port()
    conf = nginx_conf(source, binary, directory, port, [s.port for s in servers], one_address)
    nginx = SpawnedNginx(binary, conf, directory, nginx_cpus)
    async with contextlib.AsyncExitStack() as stack:  # undone last first: nginx first
        stack.callback(shutil.rmtree, directory, ignore_errors=True)
        stack.callback(redis.cleanup)
        stack.push_async_callback(_killed, servers)
        stack.push_async_callback(nginx.stop)
        redis.start()
        await asyncio.gather(*(s.start() for s in servers))
        await nginx.start()
        url = f"http://127.0.0.1:{port}"
        yield Shape(url, f"ws://127.0.0.1:{port}", port, servers, redis, nginx)


async def _killed(servers: list[SpawnedServer]) -> None:
    """Kill every replica (all of them, even when one fails to end; its error is raised)."""
    ended = await asyncio.gather(*(s.stop(signal.SIGKILL) for s in servers), return_exceptions=True)
    for error in ended:
        if isinstance(error, BaseException):
            raise error
