"""Start and stop ``tablewire serve`` and throwaway ``redis-server`` processes
(benchmarks, tests, load tests).

The server's stderr is read continuously (a full pipe would stall it) and
kept in :attr:`SpawnedServer.log`; :meth:`SpawnedServer.start` returns once
uvicorn says it is listening, and :meth:`SpawnedServer.logged` once a given line is
written (a test that acts when a server reaches a step of its stop).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Self

from clients.addresses import ws_url

TABLEWIRE = str(Path(sys.executable).with_name("tablewire"))
LOG_LINE = 16 * 2**20
"""The longest log line read from a server (one naming thousands of rooms is long); a
longer one would end the reader, and a server whose stderr nobody reads stalls."""


UNLIMITED: dict[str, object] = {
    "address_factor": 0,
    "intent_rate": 0,
    "query_rate": 0,
    "ping_rate": 0,
    "http_rate": 0,
    "connect_rate": 0,
    "address_connections": 0,
    "room_rate": 0,
    "max_rooms": 1_000_000,
    "max_benchmark_rooms": 1_000_000,
}
"""Settings that turn the per-connection and per-address rate limits off and raise the
cap on rooms: load generators run thousands of clients from one address
(docs/operations.md)."""


LISTENING_PORTS: Final = (10000, 32768)
"""Where :func:`free_port` looks first: below Linux's default range of ports for outgoing
connections (``ip_local_port_range``, 32768-60999), so a server started again on its port
cannot find it held by some client's connection."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now. Taken outside the range the kernel gives
    outgoing connections (:data:`LISTENING_PORTS`): a port the kernel picks for us would be
    in it, and a test that stops a server and starts it again on the same port could
    find it taken meanwhile by one of the thousands of connections other tests open."""
    first, last = LISTENING_PORTS
    top = min(last, _outgoing_low())
    for _ in range(50 if top > first else 0):
        port = random.randrange(first, top)
        if _bindable(port):
            return port
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        chosen: int = sock.getsockname()[1]
        return chosen


def _outgoing_low() -> int:
    """The lowest local port the kernel gives outgoing connections (Linux's default where
    it cannot be read)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


class SpawnedServer:
    """``tablewire serve`` on 127.0.0.1; ``settings`` become ``TABLEWIRE_<NAME>`` variables,
    on top of :data:`UNLIMITED` if ``unlimited``."""

    def __init__(
        self,
        port: int | None = None,
        cpus: str | None = None,
        unlimited: bool = False,
        **settings: object,
    ) -> None:
        if str(settings.get("log_level", "info")) not in ("debug", "info"):
            raise ValueError("readiness is read from the info log: use log_level info or debug")
        if unlimited:  # a load generator: the rate limits off (explicit settings still win)
            settings = {**UNLIMITED, **settings}
        self.port = port or free_port()
        self.cpus = cpus
        """With ``taskset`` available: the CPU list the server is pinned to (``"0"``)."""
        self.settings = settings
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws = ws_url(self.url)
        self.log: list[str] = []
        self.process: asyncio.subprocess.Process | None = None
        self._drain: asyncio.Task[None] | None = None
        self._awaited: list[tuple[str, asyncio.Future[str]]] = []
        """:meth:`logged`'s waits not answered yet: the text awaited, and its line."""

    async def start(self, within: float = 30.0) -> Self:
        env = {**os.environ, **{f"TABLEWIRE_{k.upper()}": str(v) for k, v in self.settings.items()}}
        pin = ["taskset", "-c", self.cpus] if self.cpus and shutil.which("taskset") else []
        self.process = await asyncio.create_subprocess_exec(
            *pin,
            TABLEWIRE,
            "serve",
            "--port",
            str(self.port),
            env=env,
            stdout=asyncio.subprocess.DEVNULL,  # its "open … in a browser" is not ours to print
            stderr=asyncio.subprocess.PIPE,
            limit=LOG_LINE,
        )
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._drain = asyncio.create_task(self._read(ready))
        try:
            async with asyncio.timeout(within):
                await ready
        except BaseException:
            await self.stop(signal.SIGKILL)
            raise
        return self

    async def _read(self, ready: asyncio.Future[None]) -> None:
        assert self.process is not None and self.process.stderr is not None
        async for line in self.process.stderr:
            self.log.append(line.decode())
            if b"Uvicorn running" in line and not ready.done():
                ready.set_result(None)
            if self._awaited:
                self._answer(self.log[-1])
        if not ready.done():
            ready.set_exception(RuntimeError("tablewire serve exited:\n" + "".join(self.log)))
        for text, future in self._awaited:
            if not future.done():
                why = f"tablewire serve ended without logging {text!r}"
                future.set_exception(RuntimeError(why))
        self._awaited.clear()

    def _answer(self, line: str) -> None:
        """Resolve the :meth:`logged` waits that ``line`` answers."""
        waiting = []
        for text, future in self._awaited:
            if text not in line:
                waiting.append((text, future))
            elif not future.done():
                future.set_result(line)
        self._awaited = waiting

    async def logged(self, text: str) -> str:
        """The first line of the server's log that holds ``text``, once it is written (at
        once if it is already); an error if the server's log ends without one."""
        if found := next((line for line in self.log if text in line), None):
            return found
        if self._drain is None or self._drain.done():
            raise RuntimeError(f"tablewire serve is not running and never logged {text!r}")
        line: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._awaited.append((text, line))
        return await line

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    async def stop(self, sig: int = signal.SIGTERM, within: float = 60.0) -> None:
        """Send ``sig`` (SIGKILL for a crash) and wait for the process to end. One still
        running ``within`` seconds later is killed, and that is an error showing its log
        (a server ends itself 10 s after its ``shutdown_timeout``: server/serve.py)."""
        if not await ended(self.process, sig, within):
            if self._drain is not None:
                await self._drain
            raise RuntimeError(
                f"tablewire serve was still running {within:g} s after signal {sig}:\n"
                + "".join(self.log[-40:])
            )
        if self._drain is not None:
            await self._drain


async def ended(process: asyncio.subprocess.Process | None, sig: int, within: float) -> bool:
    """Send ``sig`` to ``process`` (if started and running) and wait for its end: whether
    it ended within ``within`` seconds (if not, it is killed)."""
    if process is None or process.returncode is not None:
        return True
    process.send_signal(sig)
    try:
        async with asyncio.timeout(within):
            await process.wait()
    except TimeoutError:
        process.kill()
        await process.wait()
        return False
    return True


def bus_free_port() -> int:
    """A port free on 127.0.0.1 whose cluster bus port (10000 above it) is free too."""
    while True:
        port = random.randrange(20000, 55000)
        try:
            for each in (port, port + BUS_OFFSET):
                with socket.socket() as sock:
                    sock.bind(("127.0.0.1", each))
        except OSError:
            continue
        return port


BUS_OFFSET = 10000
"""A cluster node talks to the others on its port + 10000."""


class SpawnedRedis:
    """A ``redis-server`` of its own on a free port, in a temporary directory.

    ``extra`` are redis-server arguments (``--appendonly yes`` …). :meth:`start`
    blocks until the server says it is ready; it can be stopped and started
    again on the same port and directory (its AOF, if any, is kept). With ``cpus``
    (and ``taskset``): pinned to that CPU list.
    """

    def __init__(self, *extra: str, cpus: str | None = None, port: int | None = None) -> None:
        self.port = port or free_port()
        self.dir = tempfile.mkdtemp(prefix="tablewire-redis-")
        pin = ["taskset", "-c", cpus] if cpus and shutil.which("taskset") else []
        self.command = [*pin, "redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        self.command += ["--dir", self.dir, "--logfile", "", *extra]
        self.process: subprocess.Popen[str] | None = None
        self.output: deque[str] = deque(maxlen=200)
        """Its last lines of output (for the error when it fails to start or stop)."""
        self._reader: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, within: float = 60.0) -> None:
        """Start it; return once it says it is ready. Its output is read all along (a
        full pipe would stall it) and its last lines kept in :attr:`output`; one that
        is not ready ``within`` seconds is killed, and that is an error."""
        self.process = subprocess.Popen(
            self.command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        ready = threading.Event()
        self._reader = threading.Thread(
            target=self._read, args=(self.process, ready), daemon=True, name="redis-output"
        )
        self._reader.start()
        if ready.wait(within) and self.process.poll() is None:
            return
        self.process.kill()
        self.process.wait()
        self._reader.join()
        self.process = None
        tail = "".join(self.output)
        raise RuntimeError(
            f"redis-server was not ready within {within:g} s: {self.command}\n{tail}"
        )

    def _read(self, process: subprocess.Popen[str], ready: threading.Event) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            self.output.append(line)
            if "Ready to accept connections" in line:
                ready.set()
        if not ready.is_set():  # it ended before it was ready: no need to wait longer
            self.output.append(f"(redis-server ended with status {process.wait()})\n")
            ready.set()

    def pause(self) -> None:
        """SIGSTOP: the server keeps its connections open and answers nothing (a hung
        Redis) until :meth:`resume`."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT: a paused server answers again."""
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def stop(self, sig: int = signal.SIGTERM, within: float = 30.0) -> None:
        """Send ``sig`` (SIGKILL for a crash: only what the AOF has on disk is kept) and
        wait for the end; a paused server is resumed so that it can end. One still
        running ``within`` seconds later is killed, and that is an error showing its last
        lines. :meth:`start` starts it again on the same port and directory."""
        process, self.process = self.process, None
        if process is None:
            return
        process.send_signal(sig)
        process.send_signal(signal.SIGCONT)
        try:
            process.wait(within)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise RuntimeError(
                f"redis-server was still running {within:g} s after signal {sig}:\n"
                + "".join(self.output)
            ) from None
        finally:
            if self._reader is not None:
                self._reader.join()

    def cleanup(self) -> None:
        """Stop it and remove its directory."""
        try:
            self.stop()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


class SpawnedCluster:
    """A Redis Cluster of its own: ``masters`` × (1 + ``replicas``) ``redis-server``
    processes (:class:`SpawnedRedis`, cluster-enabled, append-only) on free ports, joined
    by ``redis-cli --cluster create`` (one master alone is given every slot by hand, for
    a benchmark's baseline). :meth:`start` returns once every node reports
    ``cluster_state:ok``; a node stopped with SIGKILL is failed over by the others after
    ``node_timeout`` milliseconds."""

    def __init__(self, masters: int = 3, replicas: int = 1, node_timeout: int = 1000) -> None:
        self.nodes: list[SpawnedRedis] = []
        for _ in range(masters * (1 + replicas)):
            node = SpawnedRedis("--save", "", "--appendonly", "yes", port=bus_free_port())
            node.command += ["--cluster-enabled", "yes", "--cluster-node-timeout"]
            node.command += [str(node_timeout), "--cluster-config-file"]
            node.command.append(str(Path(node.dir) / "nodes.conf"))
            self.nodes.append(node)
        self.replicas = replicas

    @classmethod
    def of(cls, nodes: list[SpawnedRedis], replicas: int) -> SpawnedCluster:
        """A cluster of ``nodes`` made elsewhere (cluster-enabled, joined by the caller
        rather than :meth:`start`), each master with ``replicas`` replicas."""
        cluster = cls(masters=0, replicas=replicas)
        cluster.nodes = nodes
        return cluster

    @property
    def url(self) -> str:
        """The URL of a running node (any node leads a client to the whole cluster)."""
        return next(node.url for node in self.nodes if node.process is not None)

    def start(self, within: float = 60.0) -> None:
        """Start every node and join them; a cluster that fails to start is cleaned up
        (no node left running)."""
        try:
            for node in self.nodes:
                node.start()
            addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
            create = ["redis-cli", "--cluster", "create", *addresses, "--cluster-yes"]
            if len(self.nodes) == 1:  # redis-cli creates 3 masters or more: by hand
                create = ["redis-cli", "-p", str(self.nodes[0].port), "cluster"]
                create += ["addslotsrange", "0", "16383"]
            else:
                create += ["--cluster-replicas", str(self.replicas)]
            subprocess.run(create, check=True, capture_output=True, timeout=within)
            self.wait_ok(within)
        except BaseException:
            self.cleanup()
            raise

    def info(self, node: SpawnedRedis, *command: str) -> str:
        """What ``redis-cli`` prints for ``command`` on ``node`` ('' when it is down)."""
        answer = subprocess.run(
            ["redis-cli", "-p", str(node.port), *command],
            capture_output=True,
            text=True,
            timeout=10,
        )
        return answer.stdout

    def wait_ok(self, within: float = 60.0, replicated: bool = True) -> None:
        """Poll CLUSTER INFO until every running node says ``cluster_state:ok`` with every
        slot served and (``replicated``) every master has its replicas online."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if self._ok(replicated):
                return
            time.sleep(0.1)  # polling a condition nothing can notify us of
        raise RuntimeError(f"the cluster is not ok after {within:g} s")

    def _ok(self, replicated: bool) -> bool:
        for node in [node for node in self.nodes if node.process is not None]:
            info = self.info(node, "cluster", "info")
            if "cluster_state:ok" not in info or "cluster_slots_ok:16384" not in info:
                return False
            replication = self.info(node, "info", "replication")
            online = replication.count("state=online")
            if replicated and "role:master" in replication and online < self.replicas:
                return False
        return True

    def wait_failover(self, key: str, dead: SpawnedRedis, within: float = 60.0) -> SpawnedRedis:
        """Poll until a running node other than ``dead`` is the master of ``key``'s slot
        and the cluster is ok again; that node."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            with contextlib.suppress(LookupError):
                master = self.master_of(key)
                if master is not dead and self._ok(replicated=False):
                    return master
            time.sleep(0.1)  # polling a condition nothing can notify us of
        raise RuntimeError(f"no replica took {key!r}'s slot over within {within:g} s")

    def master_of(self, key: str) -> SpawnedRedis:
        """The running node that is the master of ``key``'s slot now."""
        running = [node for node in self.nodes if node.process is not None]
        slot = int(self.info(running[0], "cluster", "keyslot", key))
        for node in running:
            role = self.info(node, "role").split("\n", 1)[0]
            if role == "master" and self._serves(node, slot):
                return node
        raise LookupError(f"no running master serves slot {slot}")

    def _serves(self, node: SpawnedRedis, slot: int) -> bool:
        for line in self.info(node, "cluster", "nodes").splitlines():
            fields = line.split()
            if "myself" not in fields[2]:
                continue
            for part in fields[8:]:
                low, _, high = part.partition("-")
                if low.isdigit() and int(low) <= slot <= int(high or low):
                    return True
        return False

    def cleanup(self) -> None:
        """Clean every node up, even after one fails to stop (the first error is raised)."""
        with contextlib.ExitStack() as stack:
            for node in self.nodes:
                stack.callback(node.cleanup)


@dataclass
class Server:
    """The server under a load test (:func:`server_under_test`)."""

    url: str
    pid: int | None
    pinned: bool
    spawned: SpawnedServer | None = None

    def died(self) -> bool:
        process = self.spawned.process if self.spawned else None
        return process is not None and process.returncode is not None


@contextlib.asynccontextmanager
async def server_under_test(
    server: str | None, server_pid: int | None, spawn: bool, store: str, pin: bool
) -> AsyncIterator[Server]:
    """The server a load test loads: the one at ``server`` (its process ``server_pid``,
    if known), or with ``spawn`` a ``tablewire serve`` started here (on the ``store``
    named, its own Redis for ``redis``; with ``pin`` and two cores, the server on CPU 0
    and this process on CPU 1)."""
    if not spawn:
        if server is None:
            raise ValueError("give --server URL or --spawn")
        yield Server(server, server_pid, pinned=False)
        return
    two_cpus = (os.cpu_count() or 1) >= 2 and shutil.which("taskset") is not None
    pinned = pin and two_cpus
    redis = SpawnedRedis() if store == "redis" else None
    cpus = "0" if pinned else None
    if redis is not None:
        redis.start()
        spawned = SpawnedServer(cpus=cpus, log_level="info", redis_url=redis.url, unlimited=True)
    else:
        spawned = SpawnedServer(cpus=cpus, log_level="info", unlimited=True)
    try:
        await spawned.start()
        if pinned:
            os.sched_setaffinity(0, {1})
        yield Server(spawned.url, spawned.pid, pinned, spawned)
    finally:
        await spawned.stop()
        if redis is not None:
            redis.stop()
            redis.cleanup()
