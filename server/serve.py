"""``tablewire serve``: run the app under uvicorn with the websockets (sans-I/O)
implementation and the bounded HTTP protocol of :mod:`server.transport`."""

from __future__ import annotations

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
    connections allocated since. ``gc_thresholds`` can make passes rarer, at
    the cost of cyclic garbage (closed connections) piling up in between.
    """
    gc.collect()
    gc.freeze()
    if settings.gc_thresholds:
        first, second, third = (int(x) for x in settings.gc_thresholds.split(","))
        gc.set_threshold(first, second, third)


def run(settings: Settings) -> None:
    """Serve until interrupted."""
    logs.configure(settings.log_level)
    app = create_app(settings)
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
