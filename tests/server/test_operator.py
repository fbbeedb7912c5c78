"""What an operator sees of a running server: what ``tablewire serve`` logs at
``info`` as clients come and go (docs/operations.md, "How connections end": nothing
per connection or per request), and the image's health check ("Health and readiness")."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import subprocess
import sys
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from clients.client import LobbyClient, RoomClient
from clients.spawn import SpawnedServer, free_port
from conftest import running
from server import logs, metrics
from server.app import create_app
from server.settings import Settings
from server.store import MemoryStore, StoreUnavailable
from support import ROOT

BIN = Path(sys.executable).parent
"""Where this environment's ``python`` is: the image's ``python``."""

PER_CONNECTION = ('"WebSocket /ws/rooms/', "connection open", "connection closed", '"GET /')
"""uvicorn's and websockets' words for one connection or one request."""


async def _lines_of_a_visit(log_level: str) -> list[dict[str, Any]]:
    """The JSON log lines of a server that served a lobby request, a health probe and a
    spectator who came and left."""
    server = await SpawnedServer(log_level=log_level).start()
    try:
        async with LobbyClient(server.url) as lobby:
            room_id = (await lobby.create_room("sintra", seats=2))["id"]
        async with httpx.AsyncClient() as http:
            assert (await http.get(f"{server.url}/healthz")).status_code == 200
        spectator = RoomClient(server.ws, room_id)
        await spectator.connect()
        await spectator.close()
    finally:
        await server.stop(within=30)
    return [json.loads(line) for line in server.log if line.startswith("{")]


async def test_info_logs_nothing_per_connection_or_request() -> None:
    """Every WebSocket was two `info` lines of uvicorn's (`"WebSocket /ws/rooms/…"
    [accepted]`, `connection open`) and every HTTP request one (`uvicorn.access`): a
    busy server's log was mostly those, against the docs' quiet log."""
    lines = await _lines_of_a_visit("info")
    noisy = [line for line in lines if any(word in line["event"] for word in PER_CONNECTION)]
    assert noisy == []
    assert any(line["event"] == "room created" for line in lines), "the rest is still there"


async def test_debug_still_logs_each_connection_and_request() -> None:
    lines = await _lines_of_a_visit("debug")
    for word in ('"WebSocket /ws/rooms/', "connection open", '"GET /healthz'):
        seen = [line for line in lines if word in line["event"]]
        assert seen and {line["level"] for line in seen} == {"debug"}, (word, seen)


# -- the image's health check ----------------------------------------------------------------


def _healthcheck() -> str:
    """The Dockerfile's ``HEALTHCHECK`` command, as the shell form Docker runs it."""
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("HEALTHCHECK"))
    command = ""
    for line in lines[start:]:
        command += line.rstrip("\\").strip() + " "
        if not line.endswith("\\"):
            break
    return command.split(" CMD ", 1)[1].strip()


async def test_the_images_health_check_asks_the_port_the_server_listens_on() -> None:
    """The image's HEALTHCHECK asked 127.0.0.1:8000 whatever ``TABLEWIRE_PORT`` said: a
    container told to listen on another port was unhealthy for ever (and one whose port
    served nothing was reported healthy if something else answered on 8000)."""
    server = await SpawnedServer().start()
    try:
        env = {**os.environ, "TABLEWIRE_PORT": str(server.port), "PATH": f"{BIN}:/usr/bin:/bin"}
        env.pop("TABLEWIRE_HOST", None)
        healthy = await asyncio.create_subprocess_exec("sh", "-c", _healthcheck(), env=env)
        assert await healthy.wait() == 0
    finally:
        await server.stop(within=30)
    env["TABLEWIRE_PORT"] = str(free_port())  # nothing listens there
    unhealthy = await asyncio.create_subprocess_exec(
        "sh", "-c", _healthcheck(), env=env, stderr=subprocess.DEVNULL
    )
    assert await unhealthy.wait() != 0


# -- /metrics against docs/operations.md's table --------------------------------------------


def _documented_metrics() -> dict[str, tuple[str, list[str]]]:
    """docs/operations.md's metrics table: each metric's name (a counter's without
    ``_total``, as the exposition's families go), type and labels."""
    text = (ROOT / "docs" / "operations.md").read_text()
    table: dict[str, tuple[str, list[str]]] = {}
    for row in re.findall(r"^\| (`tablewire_.*?) \| (.*?) \|", text, re.MULTILINE):
        names = re.findall(r"`(tablewire_\w+)(?:\{([\w,]*)\})?`", row[0])
        kinds = [kind.strip() for kind in row[1].split(",")]
        for i, (name, labels) in enumerate(names):
            kind = kinds[min(i, len(kinds) - 1)]
            table[name.removesuffix("_total")] = (kind, labels.split(",") if labels else [])
    return table


async def test_metrics_are_named_typed_labelled_and_described_as_the_docs_say() -> None:
    """The help texts said what the docs do not: ``tablewire_rate_limited_total``
    left out the kinds the docs name (now it names them, the lobby's too), the
    loop lag was "sampled every lag_interval" (no such setting: every 0.5 s), and
    ``tablewire_rooms`` was "by engine and status" (and ``owned``)."""
    app = create_app(Settings())
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
        assert (await http.post("/api/rooms", json={"engine": "sintra"})).status_code == 201
        page = (await http.get("/metrics")).text
    families = {family.name: family for family in text_string_to_metric_families(page)}
    documented = _documented_metrics()
    assert len(documented) == 21, documented
    for name, (kind, labels) in documented.items():
        family = families[name]
        assert family.type == kind, name
        for sample in family.samples:
            assert set(sample.labels) - {"le"} == set(labels), (name, sample)
    kinds = ("intent", "query", "ping", "chat", "refused", "room_chat", "http", "rooms")
    assert all(kind in families["tablewire_rate_limited"].documentation for kind in kinds)
    assert "0.5 s" in families["tablewire_event_loop_lag_seconds"].documentation
    assert "owned" in families["tablewire_rooms"].documentation
    settings = {field.name for field in fields(Settings)}
    for family in families.values():  # a setting a help text names is one
        for word in re.findall(
            r"\b[a-z]+_(?:interval|timeout|buffer|rate|ttl)\b", family.documentation
        ):
            assert word in settings, (family.name, word)


def test_every_flag_of_serve_is_a_setting_the_docs_name_as_a_flag() -> None:
    """docs/operations.md said ``tablewire serve`` takes ``--host``, ``--port`` and
    ``--log-level``; it takes ``--redis-url`` and ``--allowed-origins`` too (which win
    over their variables, as the others do)."""
    from clients.cli import _parser

    commands = next(
        action for action in _parser()._actions if isinstance(action, argparse._SubParsersAction)
    )
    flags = [
        option
        for action in commands.choices["serve"]._actions
        for option in action.option_strings
        if option.startswith("--") and option != "--help"
    ]
    settings = {field.name for field in fields(Settings)}
    opening = (ROOT / "docs" / "operations.md").read_text().split("\n\n")[1]
    for flag in flags:
        assert flag[2:].replace("-", "_") in settings, flag
        assert f"`{flag}`" in opening, flag


class DownStore(MemoryStore):
    """The memory store, as a Redis that went away: every lobby listing fails."""

    async def page(self, *args: Any, **kwargs: Any) -> Any:
        raise StoreUnavailable("redis: Connection refused")


async def test_a_store_outage_is_logged_once_a_while_not_once_a_request(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While Redis was away every lobby request refused with ``store_unavailable`` logged
    a warning: 145 in 5 s for 20 rooms of bots, thousands a second for a busy server,
    as its clients retry every 0.5 s. The first is logged; the next ones within
    ``logs.EVERY`` are counted, and the first after says how many it stands for."""
    times = iter([100.0] * 50 + [100.0 + logs.EVERY])
    monkeypatch.setattr(logs, "clock", lambda: next(times))
    app = create_app(Settings(http_rate=0), DownStore())
    transport = httpx.ASGITransport(app=app)
    with caplog.at_level(logging.WARNING, logger="tablewire"):
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
            for _ in range(51):
                assert (await http.get("/api/rooms")).status_code == 503
    lines = [r for r in caplog.records if r.getMessage() == "store unavailable"]
    assert len(lines) == 2, [r.__dict__.get("fields") for r in lines]
    assert lines[0].__dict__["fields"].get("more", 0) == 0
    assert lines[1].__dict__["fields"]["more"] == 49, "the 49 not logged, counted"


async def test_replica_durability_on_a_redis_without_replica_is_warned_of_at_start(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """``redis_durability=replica`` on a Redis with no replica online refuses every seat and
    move (``store_unavailable``: no replica confirmed), and the server started without a
    word, ready by ``/readyz``: the first sign was the players' refusals."""
    settings = Settings(redis_url=redis_url, redis_durability="replica", redis_prefix="tw-dur")
    with caplog.at_level(logging.INFO, logger="tablewire"):
        async with running(settings):
            pass
        async with running(replace(settings, redis_durability="master")):
            pass
    warned = [r for r in caplog.records if "no replica" in r.getMessage()]
    assert len(warned) == 1 and warned[0].levelno == logging.WARNING, warned
    assert "redis_durability" in warned[0].getMessage()


async def test_a_server_at_max_connections_still_answers_its_health_probes() -> None:
    """``max_connections`` is uvicorn's ``limit_concurrency`` too: a process holding its
    10,000 WebSockets answered every HTTP request 503, its health probes among them, so an
    orchestrator's liveness check restarted a full, healthy process and dropped its
    players. The probes answer; the lobby still gets 503 above the cap."""
    server = await SpawnedServer(max_connections=3).start()
    spectators: list[RoomClient] = []
    try:
        async with LobbyClient(server.url) as lobby:
            room_id = (await lobby.create_room("sintra", seats=2))["id"]
        for _ in range(3):
            spectators.append(RoomClient(server.ws, room_id))
            await spectators[-1].connect()
        async with httpx.AsyncClient(base_url=server.url) as http:
            assert (await http.get("/api/games")).status_code == 503, "the cap holds"
            assert (await http.get("/healthz")).status_code == 200
            assert (await http.get("/readyz?full=1")).json()["store"] == "ok"
    finally:
        for spectator in spectators:
            await spectator.close()
        await server.stop(within=30)


def test_uvicorns_refusals_at_the_cap_are_logged_once_a_while(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """At ``max_connections`` uvicorn logs ``Exceeded concurrency limit.`` (a warning) for
    every request it refuses: a full server's clients retrying filled its log. The first
    is logged, then one every ``logs.EVERY`` with ``more``, as ``store unavailable``."""
    times = iter([100.0] * 30 + [100.0 + logs.EVERY])
    monkeypatch.setattr(logs, "clock", lambda: next(times))
    logs.configure("info")
    try:
        for _ in range(31):
            logging.getLogger("uvicorn.error").warning("Exceeded concurrency limit.")
    finally:
        for name in ("tablewire", "uvicorn", "uvicorn.error", "uvicorn.access"):
            logging.getLogger(name).handlers.clear()
            logging.getLogger(name).propagate = True
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert [line.get("more", 0) for line in lines] == [0, 29], lines


async def test_lobby_requests_and_rooms_refused_by_the_rate_limits_are_counted() -> None:
    """An operator sees the lobby's 429s in ``tablewire_rate_limited_total`` as the
    frames': ``http`` (``http_rate``) and ``rooms`` (``room_rate``)."""
    counted = metrics.RATE_LIMITED.labels
    before = {kind: counted(kind)._value.get() for kind in ("http", "rooms")}
    app = create_app(Settings(http_rate=0.001, http_burst=3, room_rate=0.001, room_burst=1))
    transport = httpx.ASGITransport(app=app, client=("203.0.113.19", 1234))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        made = [(await client.post("/api/rooms", json={"engine": "sintra"})).status_code]
        made.append((await client.post("/api/rooms", json={"engine": "sintra"})).status_code)
        made += [(await client.get("/api/games")).status_code for _ in range(2)]
    assert made == [201, 429, 200, 429]
    after = {kind: counted(kind)._value.get() for kind in ("http", "rooms")}
    assert after == {"http": before["http"] + 1, "rooms": before["rooms"] + 1}
