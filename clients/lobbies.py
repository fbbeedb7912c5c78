"""The lobby of several servers (processes sharing one Redis), as ``tablewire bots`` asks
it: each request goes to the server that answered the last and, if that one cannot be
reached, to the next, as a bot's game connection fails over (:func:`clients.bots._join`).
When none can be reached, one :class:`~clients.client.Unreachable` names them all.

A seat request carries the same ``Idempotency-Key`` to each server it tries: one that
took the seat before its answer was lost answers the repeat with that seat.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any, Self, TypeVar

from clients.addresses import shown
from clients.client import LobbyClient, Unreachable
from clients.retry import OnWait
from server.ids import request_key

T = TypeVar("T")


class Lobbies:
    """The lobbies of ``servers`` (URLs), asked one after the other."""

    def __init__(self, servers: list[str], on_wait: OnWait | None = None) -> None:
        self.on_wait = on_wait
        self.credentials: dict[str, dict[str, str]] = {}
        """A room's credentials, whichever server created it: each lobby sends them."""
        self._lobbies = [LobbyClient(server, on_wait=on_wait) for server in servers]
        for lobby in self._lobbies:
            lobby.credentials = self.credentials
        self._at = 0

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        for lobby in self._lobbies:
            await lobby.close()

    @property
    def waits(self) -> Counter[str]:
        """The refusals waited out and sent again, by code, over every server."""
        return sum((lobby.waits for lobby in self._lobbies), Counter())

    async def _ask(self, request: Callable[[LobbyClient], Awaitable[T]]) -> T:
        lost: list[Unreachable] = []
        for _ in self._lobbies:
            try:
                return await request(self._lobbies[self._at])
            except Unreachable as exc:
                lost.append(exc)
                self._at = (self._at + 1) % len(self._lobbies)
        if len(lost) == 1:
            raise lost[0]
        reasons = {exc.reason for exc in lost}
        urls = ", ".join(shown(exc.url) for exc in lost)
        if len(reasons) == 1:
            raise Unreachable(urls, reasons.pop())
        raise Unreachable(urls, "; ".join(f"{exc.reason} at {shown(exc.url)}" for exc in lost))

    async def room(self, room_id: str) -> dict[str, Any]:
        return await self._ask(lambda lobby: lobby.room(room_id))

    async def create_room(self, engine: str, **given: Any) -> dict[str, Any]:
        """:meth:`LobbyClient.create_room` (a room made by a server whose answer was then
        lost is left to expire unplayed, as a room no one joins)."""
        return await self._ask(lambda lobby: lobby.create_room(engine, **given))

    async def reserve(self, room_id: str, name: str | None = None) -> dict[str, Any]:
        key = request_key()
        return await self._ask(lambda lobby: lobby.reserve(room_id, name=name, key=key))
