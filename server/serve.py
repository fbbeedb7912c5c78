"""``tablewire serve``: run the app under uvicorn with the websockets (sans-I/O)
implementation and the bounded HTTP protocol of :mod:`server.transport`."""

from __future__ import annotations

import asyncio
import gc

import uvicorn

from server import logs
from server.app import create_app
from server.settings import Settings
from server.transport import BoundedWebSocket, guarded

WS_MAX_SIZE = 1024 * 1024
"""Frames above this are refused by the WebSocket layer (close 1009); frames
between ``Settings.max_frame`` and this get a ``frame_too_large`` error frame."""


def tune_gc(settings: Settings) -> None:
    """Keep the garbage collector's full passes short (measured in benchmarks/README.md).

    Everything alive after startup (modules, the app) is frozen out of the
    collector's reach, so a full pass walks only what the rooms and
    connections allocated since; :func:`freeze_forever` does it again every
    ``gc_freeze_interval``. ``gc_thresholds`` can make passes rarer, at the
    cost of cyclic garbage piling up in between.
    """
    gc.collect()
    gc.freeze()
    if settings.gc_thresholds:
        first, second, third = (int(x) for x in settings.gc_thresholds.split(","))
        gc.set_threshold(first, second, third)


async def freeze_forever(interval: float) -> None:
    """Every ``interval`` seconds, move what is alive out of the collector's reach.

    A full pass walks every object the collector tracks: with a thousand
    connections that was 118 ms, the whole p99 of a busy server. Frozen
    objects are freed as usual once nothing refers to them; only a reference
    *cycle* among them would wait for :func:`gc.unfreeze`. The server's
    connections, requests and moves leave no cycles behind (tested with the
    collector's debug mode: ``tests/test_serve.py``), so what this freezes
    is what stays alive: rooms, connections, their current documents.
    """
    while True:
        await asyncio.sleep(interval)
        gc.freeze()


def run(settings: Settings) -> None:
    """Serve until interrupted."""
    logs.configure(settings.log_level)
    interval = settings.gc_freeze_interval
    app = create_app(settings, background=[freeze_forever(interval)] if interval > 0 else [])
    tune_gc(settings)
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        http=guarded(settings),
        ws=BoundedWebSocket,
        ws_max_size=max(WS_MAX_SIZE, settings.max_frame),
        timeout_keep_alive=settings.keepalive_timeout,
        limit_concurrency=settings.max_connections,
        proxy_headers=True,
        forwarded_allow_ips=settings.trusted_proxies,
        log_config=None,
        log_level=settings.log_level,
        timeout_graceful_shutdown=settings.shutdown_timeout,
    )
