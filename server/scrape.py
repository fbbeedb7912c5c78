"""What ``GET /metrics`` serves: one app's registry over the process's metrics
(:mod:`server.metrics`) and a collector that reads its live rooms and connections at
scrape time.

Apart from :mod:`server.metrics` so that the hot-path counters, which the room and the
connection import, do not depend on the lobby that holds the rooms.
"""

from __future__ import annotations

from collections import Counter as Tally
from collections.abc import Iterable
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, ProcessCollector
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from server.metrics import (
    ABORTS,
    CLOSES,
    COUNTS,
    ERRORS,
    HTTP_CUTOFFS,
    INTENT_LATENCY,
    LEASES,
    LOOP_LAG,
    LOOP_LAG_LAST,
    RATE_LIMITED,
    REJECTS,
    SLOW_CLOSES,
    STORE_APPEND,
    STORE_ERRORS,
    STORE_REDIRECTS,
)

if TYPE_CHECKING:
    from server.limits import Gate
    from server.lobby import Lobby


class LiveCollector(Collector):
    """Rooms by engine and status, connections, and the hot-path tallies, read at scrape."""

    def __init__(self, lobby: Lobby, gate: Gate) -> None:
        self.lobby = lobby
        self.gate = gate

    def collect(self) -> Iterable[Metric]:
        rooms = GaugeMetricFamily(
            "tablewire_rooms",
            "Rooms loaded in this process, by engine, status and owned (yes: this process owns it)",
            labels=["engine", "status", "owned"],
        )
        tally = Tally(
            (room.engine.id, room.record.status, "yes" if room.lease else "no")
            for room in self.lobby.rooms.values()
        )
        for (engine, status, owned), count in sorted(tally.items()):
            rooms.add_metric([engine, status, owned], count)
        yield rooms
        yield GaugeMetricFamily(
            "tablewire_connections", "WebSocket connections open", value=self.gate.open
        )
        yield GaugeMetricFamily(
            "tablewire_room_connections",
            "Connections joined to a room (a subset of tablewire_connections)",
            value=sum(len(room.conns) for room in self.lobby.rooms.values()),
        )
        for name, help_text, value in (
            ("tablewire_intents", "Intents received by the rooms", COUNTS.intents),
            ("tablewire_frames_in", "Client frames received after hello", COUNTS.frames_in),
            ("tablewire_frames_out", "Frames sent to clients", COUNTS.frames_out),
            ("tablewire_bytes_out", "Bytes of frames sent to clients", COUNTS.bytes_out),
        ):
            yield CounterMetricFamily(name, help_text, value=value)
        yield INTENT_LATENCY.family()
        yield STORE_APPEND.family()


def registry(lobby: Lobby, gate: Gate) -> CollectorRegistry:
    """A registry of the process's metrics and this app's rooms and connections."""
    built = CollectorRegistry(auto_describe=True)
    for metric in (
        REJECTS,
        ERRORS,
        RATE_LIMITED,
        SLOW_CLOSES,
        ABORTS,
        CLOSES,
        HTTP_CUTOFFS,
        STORE_ERRORS,
        STORE_REDIRECTS,
        LEASES,
        LOOP_LAG,
        LOOP_LAG_LAST,
    ):
        built.register(metric)
    built.register(LiveCollector(lobby, gate))
    ProcessCollector(registry=built)
    return built
