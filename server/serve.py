"""``tablewire serve``: run the app under uvicorn with the websockets (sans-I/O) implementation."""

from __future__ import annotations

import gc

import uvicorn

from server import logs
from server.app import create_app
from server.settings import Settings

WS_MAX_SIZE = 1024 * 1024
"""Frames above this are refused by the WebSocket layer (close 1009); frames
between ``Settings.max_frame`` and this get a ``frame_too_large`` error frame."""


def tune_gc(settings: Settings) -> None:
    """Fewer, cheaper garbage collections (measured in benchmarks/README.md).

    The service allocates mostly acyclic data that reference counting frees;
    with Python's default thresholds the cyclic collector still runs hundreds
    of times a minute and every full pass walks the whole heap (118 ms at
    1,000 connections). Objects alive after startup are frozen out of the
    collector's reach, and the thresholds are raised.
    """
    if settings.gc_thresholds:
        gc.collect()
        gc.freeze()
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
        ws="websockets-sansio",
        ws_max_size=max(WS_MAX_SIZE, settings.max_frame),
        log_config=None,
        log_level=settings.log_level,
        timeout_graceful_shutdown=settings.shutdown_timeout,
    )
