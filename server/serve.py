"""``tablewire serve``: run the app under uvicorn with the websockets (sans-I/O) implementation."""

from __future__ import annotations

import uvicorn

from server import logs
from server.app import create_app
from server.settings import Settings

WS_MAX_SIZE = 1024 * 1024
"""Frames above this are refused by the WebSocket layer (close 1009); frames
between ``Settings.max_frame`` and this get a ``frame_too_large`` error frame."""


def run(settings: Settings) -> None:
    """Serve until interrupted."""
    logs.configure(settings.log_level)
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        ws="websockets-sansio",
        ws_max_size=max(WS_MAX_SIZE, settings.max_frame),
        log_config=None,
        log_level=settings.log_level,
        timeout_graceful_shutdown=settings.shutdown_timeout,
    )
