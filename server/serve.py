"""``tablewire serve``: run the app under uvicorn with the websockets (sans-I/O)
implementation and the bounded HTTP protocol of :mod:`server.transport`."""

from __future__ import annotations

import asyncio
import contextlib
import faulthandler
import gc
import logging
import os
import socket
import sys
import threading

import uvicorn

from server import local, logs, native
from server.app import create_app
from server.probe import local_url
from server.settings import Settings, shown_url, unknown_variables
from server.store import StoreUnavailable
from server.transport import BoundedWebSocket, guarded

log = logging.getLogger("tablewire.serve")

WS_MAX_SIZE = 1024 * 1024
"""Frames above this are refused by the WebSocket layer (close 1009); frames
between ``Settings.max_frame`` and this get a ``frame_too_large`` error frame."""
STOP_MARGIN = 10.0
"""Seconds a stopping server has, after ``shutdown_timeout``, to close its rooms
and give up its leases before :func:`_watchdog` ends it."""


def tune_gc(settings: Settings) -> None:
    """Keep the garbage collector's full passes short (measured in benchmarks/README.md).

    Everything alive after startup (modules, the app) is frozen out of the
    collector's reach, so a full pass walks only what the rooms and
    connections allocated since; with ``gc_freeze``,
    :func:`freeze_after_full_passes` does it again after every full pass.
    ``gc_thresholds`` (default 20000,10,10) makes the young passes rarer than
    Python's 700: most of a move's objects are gone before one runs.
    """
    gc.collect()
    gc.freeze()
    if settings.gc_thresholds:
        first, second, third = (int(x) for x in settings.gc_thresholds.split(","))
        gc.set_threshold(first, second, third)


async def freeze_after_full_passes() -> None:
    """After each full pass of the collector, move what is alive out of its reach.

    A full pass walks every object the collector tracks: with a thousand
    connections that was 118 ms, the whole p99 of a busy server. Right after
    one, every cycle of garbage is gone: what remains is alive (rooms,
    connections, their documents), and frozen it is scanned no more; the next
    full pass walks only what is newer. Frozen objects are still freed as
    usual once nothing refers to them; only a reference *cycle* formed among
    them later would wait for :func:`gc.unfreeze`, and the server's
    connections, requests and moves leave none (``tests/server/test_serve.py``).
    """

    loop = asyncio.get_running_loop()

    def after(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] == 2:
            loop.call_soon_threadsafe(gc.freeze)  # not inside the collection itself

    gc.callbacks.append(after)
    try:
        await asyncio.Event().wait()  # for as long as the server runs
    finally:
        gc.callbacks.remove(after)


class _Server(uvicorn.Server):
    """uvicorn's server, whose stopping is bounded: see :func:`_watchdog`. (Its own
    startup exits with status 3 when the address or the application cannot start.)"""

    def __init__(self, config: uvicorn.Config, settings: Settings) -> None:
        super().__init__(config)
        self.settings = settings

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """uvicorn's startup, then the metrics listener (``metrics_port``): the same
        application on a second address, closed with the first."""
        settings = self.settings
        if sockets is None:  # before it listens: once it says so, clients find it
            try:
                local.announce(local_url(settings))
            except OSError as exc:
                why = "cannot leave this server's address for tablewire play"
                log.warning(why, extra=logs.fields(error=str(exc)))
        await super().startup(sockets)
        if self.started and sockets is None:
            try:
                print(where_to_open(settings), flush=True)
            except OSError as exc:  # `> file` on a full disk: a courtesy lost, not the server
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # none left
                why = "cannot write where to open it on standard output: serving on"
                log.warning(why, extra=logs.fields(error=str(exc)))
        if not self.started or not settings.metrics_port:
            return
        config = self.config
        where = f"{settings.metrics_host}:{settings.metrics_port}"

        def protocol() -> asyncio.Protocol:
            made: asyncio.Protocol = config.http_protocol_class(  # type: ignore[call-arg]
                config=config, server_state=self.server_state, app_state=self.lifespan.state
            )
            return made

        try:
            listener = await asyncio.get_running_loop().create_server(
                protocol, host=settings.metrics_host, port=settings.metrics_port
            )
        except OSError as exc:
            log.error("cannot listen for metrics", extra=logs.fields(listen=where, error=str(exc)))
            await self.lifespan.shutdown()
            sys.exit(3)
        self.servers.append(listener)
        log.info("metrics listener", extra=logs.fields(url=f"http://{where}/metrics"))

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        _watchdog(self.settings.shutdown_timeout + STOP_MARGIN)
        local.withdraw()  # (uvicorn then raises the signal it caught again: no finally runs)
        await super().shutdown(sockets)


def _watchdog(seconds: float) -> None:
    """End the process ``seconds`` from now if it is still stopping then.

    A server told to stop waits up to ``shutdown_timeout`` for its connections,
    then closes its rooms and gives up its leases; whatever it might wait on
    after that (a task that does not end, a store that does not answer), an
    operator's SIGTERM ends it. What was still running is logged first.
    """
    loop = asyncio.get_running_loop()

    def stuck() -> None:
        running: list[str] = []
        with contextlib.suppress(RuntimeError):  # the loop's set of tasks changed meanwhile
            running = [repr(task) for task in asyncio.all_tasks(loop)]
        why = f"still stopping after {seconds:g} s: exiting now"
        log.error(why, extra=logs.fields(tasks=running))
        faulthandler.dump_traceback(all_threads=True)
        logging.shutdown()
        os._exit(1)

    timer = threading.Timer(seconds, stuck)
    timer.daemon = True
    timer.start()


INTERRUPTED = 130
"""``tablewire serve``'s exit status once stopped by Ctrl-C (SIGINT), as a shell gives
a command interrupted so; SIGTERM ends it as killed by that signal (143 in a shell)."""


def run(settings: Settings) -> int:
    """Serve until interrupted; the exit status (:data:`INTERRUPTED` after Ctrl-C). A Redis
    of ``settings.redis_url`` that cannot be used ends it at once with one line on stderr:
    status 3 if it cannot be reached (or is not Redis), 2 if it refuses the URL."""
    logs.configure(settings.log_level)
    background = [freeze_after_full_passes()] if settings.gc_freeze else []
    try:
        app = create_app(settings, background=background)
    except (StoreUnavailable, ValueError) as exc:  # the Redis of --redis-url, or a setting
        for work in background:
            work.close()  # never started: no "never awaited" warning on the way out
        why, status = str(exc), 2
        if isinstance(exc, StoreUnavailable):
            status = 3
            if shown_url(settings.redis_url) not in why:
                why = f"cannot reach Redis at {shown_url(settings.redis_url)}: {why}"
        print(f"tablewire serve: {why}", file=sys.stderr, flush=True)
        return status
    compiled = [str(source.relative_to(native.ROOT)) for source in native.compiled()]
    log.info("code", extra=logs.fields(compiled=compiled))
    for source in native.stale():
        where = str(source.relative_to(native.ROOT))
        log.warning(
            "edited since it was compiled: the compiled module runs; `make serve` rebuilds it",
            extra=logs.fields(source=where),
        )
    for name, like in unknown_variables():
        why = f"{name} is no setting: ignored" + (f" (did you mean {like}?)" if like else "")
        log.warning(why, extra=logs.fields(variable=name, closest=like))
    tune_gc(settings)
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        http=guarded(settings),
        ws=BoundedWebSocket,
        ws_max_size=max(WS_MAX_SIZE, settings.max_frame),
        ws_ping_interval=settings.ws_ping_interval or None,
        ws_ping_timeout=settings.ws_ping_timeout or None,
        timeout_keep_alive=settings.keepalive_timeout,
        limit_concurrency=settings.max_connections,
        proxy_headers=False,  # the app reads X-Forwarded-For itself (server/proxies.py)
        log_config=None,
        log_level=settings.log_level,
        timeout_graceful_shutdown=settings.shutdown_timeout,
    )
    _warn_of_exposure(settings)
    try:
        _Server(config, settings).run()
    except KeyboardInterrupt:  # Ctrl-C: uvicorn raises it once stopped
        return INTERRUPTED
    finally:
        local.withdraw()
    return 0


def where_to_open(settings: Settings) -> str:
    """The line ``tablewire serve`` prints on standard output once it listens: the page to
    open, and the command that plays against it (which finds this server by itself
    while it is the only one here: server/local.py)."""
    url = local_url(settings)
    play = "tablewire play"  # its default server is this one's default address
    if url != local_url(Settings()):
        play += f" --server {url}"
    return f"tablewire is serving: open {url}/ in a browser, or in another terminal: {play}"


def _warn_of_exposure(settings: Settings) -> None:
    """Log the settings that leave the limits or the host check open."""
    if "*" in (part.strip() for part in settings.trusted_proxies.split(",")):
        log.warning(
            "trusted_proxies is *: every client can choose its address in X-Forwarded-For "
            "and escape the limits per address; name the proxy's address or network instead"
        )
    if settings.host in ("0.0.0.0", "::") and not settings.allowed_hosts:
        log.warning(
            "listening on every address, but only requests for localhost are served: set "
            "allowed_hosts to the names clients use (TABLEWIRE_ALLOWED_HOSTS)"
        )
