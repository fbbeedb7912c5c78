"""Fixtures: a real tablewire server (uvicorn on an ephemeral port) in the test's loop."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import uvicorn

from server.app import create_app
from server.lobby import Lobby
from server.settings import Settings
from server.store import MemoryStore


@dataclass
class Running:
    url: str
    ws: str
    lobby: Lobby


def listening_socket() -> socket.socket:
    """A socket already listening on a free port: clients can connect at once,
    the kernel queues them until the server accepts. ``IPPROTO_TCP`` matters:
    asyncio sets TCP_NODELAY only on sockets that name it, and without it
    Nagle's algorithm delays the second of two small frames by ~40 ms."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(512)
    return sock


@pytest.fixture
def settings() -> Settings:
    return Settings(max_frame=4096, history=8, hello_timeout=0.5)


@pytest.fixture
async def server(settings: Settings) -> AsyncIterator[Running]:
    app = create_app(settings, MemoryStore())
    sock = listening_socket()
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, ws="websockets-sansio", log_config=None, ws_max_size=1 << 20)
    instance = uvicorn.Server(config)
    task = asyncio.create_task(instance.serve(sockets=[sock]))
    yield Running(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}", app.state.lobby)
    instance.should_exit = True
    await task
    sock.close()
