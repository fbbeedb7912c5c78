"""``tablewire bots``: real WebSocket bot clients that play rooms to the end.

Each bot is a :class:`~clients.client.RoomClient` holding one seat and a pure
bot from :mod:`engines.bots`; spectators only mirror the view. The runner
either creates ``rooms`` rooms of ``players`` bots (plus spectators) each, or
fills the free seats of one existing room, and reports one JSON line.

A connection the server ends is handled as docs/protocol.md §2 (How a connection
ends) says: a code to retry (:data:`~clients.retry.RECONNECTABLE`) fails over to the
next server, after the pause a fatal ``rate_limited`` asks for; any other (``room_closed``,
``bad_token``, a close code of :data:`~clients.retry.PROTOCOL_CLOSES`) ends that
client's run: one error, and a line in ``failures`` naming the seat and the code.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

from websockets.exceptions import ConnectionClosed

from clients.addresses import ws_url
from clients.client import LobbyError, RoomClient, ServerError, Unreachable
from clients.lobbies import Lobbies
from clients.retry import RECONNECTABLE, OnWait, protocol_close, reconnect_pause
from engines import ENGINES
from engines.bots import Bot, make_bot

MAX_REJECTS_IN_A_ROW = 20
RETRYABLE = {"store_unavailable", "owner_unavailable"}
"""Reject codes after which the same intent is sent again (nothing was applied);
:class:`~clients.client.RoomClient` waits out ``rate_limited`` itself."""
RETRY_PAUSE = 0.2
rest: Callable[[float], Awaitable[None]] = asyncio.sleep
"""How a client waits before it reconnects (a test can watch the waits)."""

T = TypeVar("T")


@dataclass
class Timing:
    """Latencies (ms) and frame sizes a timed run collects (``tablewire loadtest``)."""

    ack_ms: list[float] = field(default_factory=list)
    """Players: intent sent → its ``ack``."""
    patch_ms: list[float] = field(default_factory=list)
    """Players: intent sent → the sender holds the version it made."""
    spectator_ms: list[float] = field(default_factory=list)
    """Spectators: intent sent (by any seat) → the spectator holds that version."""
    frames: Counter[str] = field(default_factory=Counter)
    bytes: Counter[str] = field(default_factory=Counter)


@dataclass
class Summary:
    """What a bot run did; ``ok`` only if every game finished without errors."""

    game: str
    rooms: int = 0
    players: int = 0
    spectators: int = 0
    games_finished: int = 0
    intents: int = 0
    rejects: int = 0
    resyncs: int = 0
    reconnects: int = 0
    reject_codes: dict[str, int] = field(default_factory=dict)
    waits: dict[str, int] = field(default_factory=dict)
    """Refusals the clients waited out and sent again, by code (``store_unavailable``
    while Redis restarts …): not rejects, since the request went through after."""
    lobby_waits: dict[str, int] = field(default_factory=dict)
    """The same for the lobby's requests (rooms created, seats taken: a seat refused
    during a failover, waited out and asked again under its Idempotency-Key)."""
    errors: int = 0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    """The first few failures, for diagnosis."""
    timing: Timing | None = None
    """Set before a run to collect latencies (not part of :meth:`as_dict`)."""

    @property
    def ok(self) -> bool:
        return self.errors == 0 and self.games_finished == self.rooms

    def refused(self) -> Counter[str]:
        """Every refusal by code: the rejects, and what the clients waited out."""
        return Counter(self.reject_codes) + Counter(self.waits)

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "timing"}


def _finished(doc: Any) -> bool:
    return bool(doc["status"] == "finished")


class Ended(Exception):
    """The server ended a client's connection for good (docs/protocol.md §2); counted."""


def _final(lost: BaseException) -> str | None:
    """What ended a connection for good, ``code: message``; None for an end to retry."""
    if isinstance(lost, ServerError):
        if lost.frame.get("fatal") and lost.code not in RECONNECTABLE:
            return f"{lost.code}: {lost.frame.get('message', '')}"
        return None
    said = protocol_close(lost)
    return None if said is None else f"protocol_error: {said}"


def _end_if_final(client: RoomClient, summary: Summary, lost: BaseException) -> None:
    """Raise :class:`Ended` if ``lost`` ended the connection for good, having counted it:
    one error, and a line among the first few ``failures``."""
    final = _final(lost)
    if final is None:
        return
    summary.errors += 1
    if len(summary.failures) < 5:
        who = "spectator" if client.seat is None else f"seat {client.seat}"
        summary.failures.append(f"{who}: the server ended its connection: {final}")
    raise Ended(final)


async def _reconnect(client: RoomClient, summary: Summary, lost: BaseException) -> None:
    """Fail over after ``lost`` (after the pause a fatal ``rate_limited`` asks for), or
    raise :class:`Ended` if it, or the servers' answer to the new connection, is final."""
    _end_if_final(client, summary, lost)
    summary.reconnects += 1
    pause = reconnect_pause(lost.frame) if isinstance(lost, ServerError) else 0.0
    if pause:
        await rest(pause)
    try:
        await client.failover()
    except ServerError as refused:  # refused for good: failover retries the others
        _end_if_final(client, summary, refused)
        raise


async def _join(client: RoomClient) -> None:
    """The client's first join, through its first server or, if that one cannot be
    reached, the next (:meth:`RoomClient.failover`): a replica down when the run starts
    is one that died before it."""
    try:
        await client.connect()
    except Unreachable:
        if len(client.urls) < 2:
            raise
        await client.failover()


async def _resilient(client: RoomClient, summary: Summary, step: Callable[[], Awaitable[T]]) -> T:
    """Run ``step``; if the connection is lost, fail over to the next server and run it
    again (:func:`_reconnect`)."""
    while True:
        try:
            return await step()
        except (ConnectionClosed, ServerError) as lost:
            await _reconnect(client, summary, lost)


async def _unless_ended(step: Awaitable[T]) -> T | Ended:
    """``step``'s outcome, or :class:`Ended` if the server ended its client's connection
    for good (counted already)."""
    try:
        return await step
    except Ended as ended:
        return ended


async def play_seat(
    client: RoomClient, bot: Bot, summary: Summary, sent: list[tuple[float, int]] | None = None
) -> bool:
    """Play one seat until the game ends, through reconnects and retryable rejects, or
    until the server ends its connection for good (counted as an error): False then.

    An intent that got no answer (the connection dropped) is sent again with
    the same id after the failover: the server applies an id only once. With
    ``summary.timing``, each acknowledged intent's send time and version are
    appended to ``sent`` and its latencies to the timing.
    """
    waited_before = Counter(client.waits)
    try:
        return not isinstance(await _unless_ended(_play(client, bot, summary, sent)), Ended)
    finally:
        for code, count in (client.waits - waited_before).items():
            summary.waits[code] = summary.waits.get(code, 0) + count


async def _play(
    client: RoomClient, bot: Bot, summary: Summary, sent: list[tuple[float, int]] | None
) -> None:
    seat = client.seat
    rejects_in_a_row = 0
    pending: tuple[int, dict[str, Any]] | None = None

    def my_turn(doc: Any) -> bool:
        return _finished(doc) or (doc["status"] == "playing" and seat in doc["to_act"])

    while True:
        try:
            if pending is None:
                doc = await client.wait_for(my_turn)
                if _finished(doc):
                    return
                read = client.version or 0
                legal = await client.legal()
                if not legal:  # the turn moved on since this document (a clock's move)
                    await client.wait_version(read + 1)
                    continue
                pending = (client.new_intent_id(), bot.choose(doc["game"], legal))
                summary.intents += 1
            started = time.monotonic()
            reply = await client.intent(pending[1], pending[0])
        except (ConnectionClosed, ServerError) as lost:
            await _reconnect(client, summary, lost)
            continue
        if reply["t"] == "ack":
            pending, rejects_in_a_row = None, 0
            acked: int = reply["v"]
            answered = time.monotonic()
            await _resilient(client, summary, functools.partial(client.wait_version, acked))
            if summary.timing is not None and client.arrivals is not None and sent is not None:
                held = client.arrivals.get(acked, time.monotonic())
                summary.timing.ack_ms.append((answered - started) * 1000)
                summary.timing.patch_ms.append((held - started) * 1000)
                sent.append((started, acked))
            continue
        summary.rejects += 1
        summary.reject_codes[reply["code"]] = summary.reject_codes.get(reply["code"], 0) + 1
        if reply["code"] in RETRYABLE:
            await asyncio.sleep(RETRY_PAUSE)
            continue
        pending = None
        rejects_in_a_row += 1
        if rejects_in_a_row >= MAX_REJECTS_IN_A_ROW:
            raise RuntimeError(f"seat {seat}: {rejects_in_a_row} rejects in a row: {reply}")


def _disagreements(clients: list[RoomClient], engine_id: str) -> list[str]:
    """Clients that share a view must have held the same document at every version,
    and every client's versions must only go up."""
    private = ENGINES[engine_id].seat_views_differ
    docs: dict[tuple[int | None, int], bytes] = {}
    problems = []
    for client in clients:
        versions = [v for v, _ in client.seen]
        if versions != sorted(set(versions)):
            problems.append(f"seat {client.seat}: versions out of order {versions[:20]}")
        group = client.seat if private else None
        for version, doc in client.seen:
            if docs.setdefault((group, version), doc) != doc:
                problems.append(f"seat {client.seat}: another document at version {version}")
    return problems


def _collect(
    timing: Timing,
    clients: list[RoomClient],
    watchers: list[RoomClient],
    sent: list[tuple[float, int]],
) -> None:
    for watcher in watchers:
        assert watcher.arrivals is not None
        timing.spectator_ms += [
            (watcher.arrivals[v] - t) * 1000 for t, v in sent if v in watcher.arrivals
        ]
    for each in clients:
        timing.frames.update(each.received)
        timing.bytes.update(each.bytes_received)


async def _run_room(
    lobby: Lobbies,
    servers: list[str],
    room_id: str,
    spectators: int,
    seed: int,
    summary: Summary,
    check: bool,
    bot: str,
) -> None:
    room = await lobby.room(room_id)
    if room["status"] == "finished":  # its seats are not free, nor to be had: over
        raise LobbyError(409, "game_over", "the game in this room is over")
    if None not in room["names"]:
        raise LobbyError(409, "room_full", f"room {room_id} has no free seat for a bot")
    seats = [
        await lobby.reserve(room_id, name=f"bot {seat + 1}")
        for seat, name in enumerate(room["names"])
        if name is None
    ]

    def client(i: int, token: str | None) -> RoomClient:
        """Client ``i`` starts on server ``i`` (round robin) and fails over to the others."""
        rotated = servers[i % len(servers) :] + servers[: i % len(servers)]
        timed = summary.timing is not None
        return RoomClient(
            ",".join(ws_url(s) for s in rotated),
            room_id,
            token,
            record=check,
            timed=timed,
            on_wait=lobby.on_wait,
        )

    players = [client(i, s["token"]) for i, s in enumerate(seats)]
    watchers = [client(len(players) + i, None) for i in range(spectators)]
    clients = players + watchers
    sent: list[tuple[float, int]] = []
    try:
        for each in clients:
            await _join(each)
        went_on = await asyncio.gather(
            *(
                play_seat(
                    c, make_bot(bot, room["engine"], c.seat or 0, seed * 100 + i), summary, sent
                )
                for i, c in enumerate(players)
            ),
            *(
                _unless_ended(_resilient(w, summary, functools.partial(w.wait_for, _finished)))
                for w in watchers
            ),
        )
        if any(o is False or isinstance(o, Ended) for o in went_on):
            return  # the server ended a client for good (counted): the room is not played
        results = await asyncio.gather(
            *(_unless_ended(_resilient(c, summary, c.wait_result)) for c in clients)
        )
        if (
            not any(isinstance(r, Ended) for r in results)
            and all(r == results[0] for r in results)
            and all(_finished(c.doc) for c in clients)
        ):
            summary.games_finished += 1
        if summary.timing is not None:
            _collect(summary.timing, clients, watchers, sent)
        problems = _disagreements(clients, room["engine"]) if check else []
        summary.errors += len(problems)
        summary.failures += problems[:5]
    finally:
        summary.resyncs += sum(c.resyncs for c in clients)
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)


async def run(
    server: str,
    game: str,
    rooms: int,
    players: int,
    spectators: int = 0,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
    room_id: str | None = None,
    time_limit: float = 600.0,
    check: bool = False,
    bot: str = "greedy",
    summary: Summary | None = None,
    on_wait: OnWait | None = None,
    invite: str | None = None,
) -> Summary:
    """Create ``rooms`` rooms (or fill ``room_id``) and play them all to the end.

    ``server`` is one URL or several, comma-separated (processes sharing one
    Redis): the lobby is asked through the first, clients are spread over all;
    both fail over to the others (:class:`~clients.lobbies.Lobbies`). With ``check``,
    every client records the versions it held and clients sharing a view must agree
    at each version.
    With a ``seed``, room ``i`` gets the seed ``seed + i`` (and is private, protocol
    §9); without, the rooms are public with seeds of the server's choice.
    A request refused by one of the server's limits is sent again once the wait
    the server gives is over (:mod:`clients.retry`); ``on_wait`` is told of each.
    ``invite``: a private ``room_id``'s invitation.
    """
    summary = summary or Summary(game=game)
    summary.spectators = spectators
    started = time.perf_counter()
    servers = server.split(",")
    async with Lobbies(servers, on_wait=on_wait) as lobby:
        if room_id is not None:
            if invite is not None:
                lobby.credentials[room_id] = {"invite": invite}
            room = await lobby.room(room_id)
            room_ids = [room_id]
            summary.game, players = room["engine"], room["seats"]
        else:
            room_ids = [
                (
                    await lobby.create_room(
                        game,
                        seats=players,
                        options=options,
                        seed=None if seed is None else seed + i,
                    )
                )["id"]
                for i in range(rooms)
            ]
        summary.rooms = len(room_ids)
        summary.players = players
        try:
            async with asyncio.timeout(time_limit):
                outcomes = await asyncio.gather(
                    *(
                        _run_room(
                            lobby, servers, rid, spectators, (seed or 0) + i, summary, check, bot
                        )
                        for i, rid in enumerate(room_ids)
                    ),
                    return_exceptions=True,
                )
        except TimeoutError:
            outcomes = [TimeoutError(f"not finished within {time_limit} s")]
        for code, count in lobby.waits.items():
            summary.lobby_waits[code] = summary.lobby_waits.get(code, 0) + count
    if room_id is not None and isinstance(outcomes[0], LobbyError):
        raise outcomes[0]  # the room asked for refused its seats: the command's refusal
    failures = [o for o in outcomes if isinstance(o, BaseException)]
    summary.errors += len(failures)
    summary.failures += [f"{type(f).__name__}: {f or 'no answer in time'}" for f in failures[:5]]
    summary.seconds = round(time.perf_counter() - started, 3)
    return summary
