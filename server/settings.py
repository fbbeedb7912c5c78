"""Server settings, from defaults, ``TABLEWIRE_*`` environment variables and flags."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class Settings:
    """Every tunable of the server; each can be set by ``TABLEWIRE_<NAME>``."""

    host: str = "127.0.0.1"
    port: int = 8000
    finished_ttl: float = 600.0
    """Seconds a finished room (and its result) is kept."""
    waiting_ttl: float = 3600.0
    """Seconds a room may wait for its seats to fill before it is removed."""
    sweep_interval: float = 30.0
    """Seconds between clean-up passes."""
    max_frame: int = 64 * 1024
    """Largest client frame in bytes; larger ones get ``frame_too_large``."""
    hello_timeout: float = 10.0
    """Seconds a new connection has to send ``hello``."""
    send_queue: int = 512
    """Frames queued for one connection before it is dropped as ``too_slow`` (queued path)."""
    send_buffer: int = 1024 * 1024
    """Bytes unsent to one connection before it is dropped as ``too_slow`` (direct path)."""
    history: int = 64
    """Patches kept per view for resyncing a client that fell behind."""
    log_level: str = "info"
    redis_url: str = ""
    """Empty: the embedded in-memory store. ``redis://host:port/db``: the Redis store."""
    redis_prefix: str = "tw"
    """Namespace of every Redis key and channel of this service."""
    gc_thresholds: str = ""
    """Garbage-collector thresholds ``"g0,g1,g2"`` (``gc.set_threshold``); empty keeps
    Python's. Higher ones cut pauses but let cyclic garbage pile up (benchmarks/README.md)."""
    shutdown_timeout: int = 10
    """Seconds a stopping server waits for its connections to end before closing them."""
    lease_ttl: float = 5.0
    """Seconds a room's owner lease lasts without renewal (renewed every third of it)."""
    snapshot_every: int = 50
    """The owner stores a snapshot of the state every this many versions."""
    token_ttl: float = 7 * 86400.0
    """Seconds a seat token stays valid (Redis store)."""
    forward_timeout: float = 5.0
    """Seconds a replica waits for the owner's answer to a forwarded intent or seat request."""
    node: str = ""
    """This process's name in leases and channels; empty: a random one."""
    allowed_origins: str = ""
    """Other web origins (``https://host[:port]``, comma-separated; ``*``: any) whose pages
    may use the lobby and the WebSocket and frame the pages; empty: this server's only."""

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides: Any) -> Settings:
        """Defaults, then ``TABLEWIRE_*`` variables, then the given overrides (None skipped)."""
        environ = dict(os.environ if environ is None else environ)
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = environ.get(f"TABLEWIRE_{f.name.upper()}")
            if raw is not None:
                values[f.name] = type(getattr(cls, f.name))(raw)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return replace(cls(), **values)
