"""The terminal client's keyboard: where a seat's answers come from, one line at a time.

:class:`StdinKeyboard` reads standard input without a thread, so cancelling a read
(Ctrl-C) takes effect at once.
"""

from __future__ import annotations

import asyncio
import os
import sys
import termios
from typing import Protocol


class Keyboard(Protocol):
    """Where the player's answers come from, one line at a time."""

    echoes: bool
    """True when the terminal shows what is typed; else the client prints each answer."""

    def discard(self) -> None:
        """Forget what was typed ahead on a terminal: a turn's answers come after its board."""

    async def line(self) -> str | None:
        """The next line without its newline; None at the end of input."""

    async def ended(self) -> None:
        """Return once the input has ended with no line left to read (lines that come
        meanwhile are kept for :meth:`line`); never, while lines are left."""


class StdinKeyboard:
    """Lines from a file descriptor (standard input), read when the event loop says it is
    readable. No thread blocks on it, so cancelling a read (Ctrl-C) takes effect at once.
    A regular file or ``/dev/null``, which the loop cannot watch, is read directly: it
    never blocks."""

    def __init__(self, fd: int | None = None) -> None:
        self.fd = sys.stdin.fileno() if fd is None else fd
        self.echoes = os.isatty(self.fd)
        self._buffer = b""
        self._eof = False

    @classmethod
    def of_stdin(cls) -> StdinKeyboard | None:
        """The keyboard of standard input; None when there is none (closed: ``<&-``)."""
        if sys.stdin is None:
            return None
        try:
            return cls(sys.stdin.fileno())
        except (OSError, ValueError):
            return None

    async def _read(self) -> None:
        await self._readable()
        chunk = os.read(self.fd, 65536)
        self._eof = not chunk
        self._buffer += chunk

    async def line(self) -> str | None:
        while b"\n" not in self._buffer and not self._eof:
            await self._read()
        if not self._buffer:
            return None
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode(errors="replace").rstrip("\r")

    async def ended(self) -> None:
        while not self._eof:
            await self._read()
        if self._buffer:
            await asyncio.Future()  # lines left for the prompts

    def discard(self) -> None:
        if self.echoes:
            termios.tcflush(self.fd, termios.TCIFLUSH)
            self._buffer = b""

    async def _readable(self) -> None:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            if not ready.done():
                ready.set_result(None)

        try:
            loop.add_reader(self.fd, wake)
        except (OSError, ValueError):
            return  # not pollable (a regular file): a read returns at once
        try:
            await ready
        finally:
            loop.remove_reader(self.fd)
