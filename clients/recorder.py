"""A connection to a room in the same process that keeps every frame it is sent.

What a :class:`server.room.Room` needs of a connection (``seat``, ``protocol``,
``send``, ``close``) and nothing more: the tests and the benchmarks that drive a
room without sockets (tests/server/test_room.py, benchmarks/intent_cost.py) read
its frames afterwards.
"""

from __future__ import annotations


class Recorder:
    """A connection that keeps its frames."""

    def __init__(self, seat: int | None, protocol: int = 1) -> None:
        self.seat = seat
        self.protocol = protocol
        self.frames: list[bytes] = []

    def send(self, frame: bytes) -> None:
        self.frames.append(frame)

    def close(self, code: str, message: str) -> None:
        """Nothing to close: the frames stay readable."""
