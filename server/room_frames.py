"""A room's frames: for each view group, the document it mirrors, its last patches and
its snapshot, built once per version and encoded once per protocol for every
connection of the group (the publishing half of :class:`~server.room.Room`)."""

from __future__ import annotations

from collections import defaultdict, deque
from typing import TYPE_CHECKING, Any, Final

from engines.base import Engine, Event, Result, State
from protocol import compact, messages
from protocol.codec import encode
from protocol.diff import Op, diff
from server.store import RoomRecord

if TYPE_CHECKING:
    from server.room import Room
    from server.room_parts import Connection
    from server.settings import Settings

SHARED: Final = ("seats", "to_act", "presence", "clock")
"""Parts of the document rebuilt on every version but seldom changed: an unchanged one is
replaced by the previous version's object, which the diff skips without walking it."""

Group = int | None
Frames = dict[int, bytes]
"""One patch encoded for each protocol version a connection of its group speaks."""

_COMPACTORS: Final[dict[bytes, compact.Compactor]] = {}
"""Key tables by the room's shape (:attr:`Room.keys`): rooms of one shape share one."""

_TOLD: Final = {
    "expelled": "{who} timed out too often: a bot plays the seat for the rest of the game.",
    "abandoned": "The game is abandoned: every player left.",
    "rematch": "A rematch is open: room {room}.",
    "move_limit": "The game stops: it reached the server's limit of moves, with no ranking.",
}
"""Sentences of the room's own events (the engines narrate the game's), written as the
engines write theirs: a capital (or a player's name) first, a full stop last."""


def narrate(engine: Engine, names: list[str], events: list[Event]) -> list[Event]:
    """The events with their sentence for the game log (``text``); ``names`` per seat."""
    told = []
    for event in events:
        kind = event.get("type")
        if kind == "seat":
            text = f"{names[event['seat']]} takes seat {event['seat'] + 1}."
        elif kind == "start":
            text = "The game starts."
        elif kind in _TOLD:
            text = _TOLD[kind].format(
                who=names[event["seat"]] if "seat" in event else "", room=event.get("room")
            )
        else:
            text = engine.narrate(event, names)
            if event.get("by") == "zombie" and "seat" in event:  # inside the sentence
                said = f" (a bot played for {names[event['seat']]})"
                text = f"{text[:-1]}{said}." if text.endswith(".") else text + said
        told.append({**event, "text": text})
    return told


class Views:
    """The frame caches of one room. It keeps no reference to its room (which holds it):
    the methods that read the room's state are given the room."""

    def __init__(self, engine: Engine, record: RoomRecord, settings: Settings) -> None:
        self.engine = engine
        self.record = record
        self.settings = settings
        self.docs: dict[Group, tuple[int, Any]] = {}
        self.history: dict[Group, deque[tuple[int, Frames]]] = {}
        self.spoken: defaultdict[Group, set[int]] = defaultdict(set)
        """The protocol versions each group's connections have spoken here (its patches'
        encodings)."""
        self.snapshots: dict[Group, tuple[int, bytes]] = {}
        self._compacting: compact.Compactor | None = None
        """:meth:`compactor` once made."""
        self.answers: dict[int, tuple[int, State | None, bytes]] = {}
        """Each seat's last ``legal`` answer, with the version and state it was made at."""

    def compactor(self, room: Room) -> compact.Compactor:
        """The room's key table depends only on the engine, the seat count and the
        options, so every process builds the same one for a room (and replicas the
        same bytes): it is read from sample documents of a game set up with seed 0,
        as each viewer would see it. Made on first use, then kept (an attribute, not
        ``functools.cached_property``: a compiled Room has no ``__dict__`` to keep it
        in, and would build the shape's key every time)."""
        if self._compacting is None:
            self._compacting = self._key_table(room)
        return self._compacting

    def _key_table(self, room: Room) -> compact.Compactor:
        record = self.record
        shape = encode(
            {"e": self.engine.id, "s": record.seats, "o": record.options, "r": record.room_options}
        )
        compactor = _COMPACTORS.get(shape)
        if compactor is None:
            state = self.engine.setup(record.seats, record.options, 0)
            viewers = range(record.seats) if self.engine.seat_views_differ else []
            docs = [self.doc_of(room, state, viewer) for viewer in (None, *viewers)]
            compactor = _COMPACTORS[shape] = compact.Compactor(compact.key_table(docs))
        return compactor

    def clear(self) -> None:
        """Drop every cache (a client that comes back gets a snapshot)."""
        self.answers.clear()
        self.docs.clear()
        self.history.clear()
        self.snapshots.clear()
        self.spoken.clear()

    def legal(self, room: Room, seat: int) -> bytes:
        """The ``legal`` answer of ``seat`` now: its legal actions and their labels,
        computed once per version and state (every connection of the seat, each asking
        its free ``legal`` requests, gets the same bytes; a Chartered answer can take
        milliseconds to compute)."""
        state, version = room.state, room.version
        made = self.answers.get(seat)
        if made is not None and made[0] == version and made[1] is state:
            return made[2]
        actions = self.engine.legal_actions(state, seat) if state else []
        labels = [self.engine.describe(state, seat, a) for a in actions] if state else []
        frame = encode(messages.legal(version, seat, actions, labels))
        self.answers[seat] = (version, state, frame)
        return frame

    def catch_up(self, room: Room, conn: Connection, since: int | None) -> None:
        """Send the patches after ``since`` if they are still kept (none if ``since``
        is the current version), else a snapshot."""
        if since == room.version:
            return
        group = self.group(conn.seat)
        history = self.history.get(group)
        if since is not None and history and since < room.version:
            froms = [frm for frm, _ in history]
            if since in froms:
                missed = list(history)[froms.index(since) :]
                if all(conn.protocol in frames for _, frames in missed):
                    for _, frames in missed:
                        conn.send(frames[conn.protocol])
                    return
        conn.send(self.snapshot(room, group))

    # -- publishing ----------------------------------------------------------

    def group(self, seat: int | None) -> Group:
        return seat if self.engine.seat_views_differ else None

    def doc(self, room: Room, group: Group) -> dict[str, Any]:
        return self.doc_of(room, room.state, group)

    def doc_of(self, room: Room, state: State | None, group: Group) -> dict[str, Any]:
        return {
            "status": self.record.status,
            "seats": self.record.names.copy(),
            "to_act": sorted(room._to_act(state)),
            "game": self.engine.view(state, group) if state else None,
            "presence": room.table.presence_doc(),
            "clock": room.table.clock_doc(),
            "rematch": self.record.rematch,
        }

    def snapshot(self, room: Room, group: Group) -> bytes:
        cached = self.snapshots.get(group)
        if cached and cached[0] == room.version:
            return cached[1]
        doc = self.docs.get(group)
        if doc is None or doc[0] != room.version:
            doc = (room.version, self.doc(room, group))
            self.docs[group] = doc
            self.history[group] = deque(maxlen=self.settings.history)
        frame = encode(messages.snapshot(room.version, doc[1]))
        self.snapshots[group] = (room.version, frame)
        return frame

    def _advance(self, room: Room, group: Group, protocols: set[int]) -> Frames | None:
        """The patch that brings ``group`` to the current version, in each of
        ``protocols``; None when the group needs a snapshot instead."""
        previous = self.docs.get(group)
        if previous is None or previous[0] != room.version - 1:
            self.snapshot(room, group)  # the group starts again from this version
            return None
        doc = self.doc(room, group)
        for key in SHARED:  # unchanged parts become the previous version's: the diff skips them
            if doc[key] == previous[1][key]:
                doc[key] = previous[1][key]
        frames = self._encode_patch(room, diff(previous[1], doc), protocols)
        self.docs[group] = (room.version, doc)
        self.history[group].append((room.version - 1, frames))
        return frames

    def _encode_patch(self, room: Room, ops: list[Op], protocols: set[int]) -> Frames:
        frames = {}
        if 2 in protocols:
            frames[2] = encode(self.compactor(room).patch(room.version, ops))
        if 1 in protocols:
            frames[1] = encode(messages.patch(room.version - 1, room.version, ops))
        return frames

    def _names(self) -> list[str]:
        return [name or f"seat {i + 1}" for i, name in enumerate(self.record.names)]

    def publish(self, room: Room, events: list[dict[str, Any]], result: Result | None) -> None:
        # Every group seen here advances, connected or not, in every protocol its
        # connections have spoken: its history stays whole.
        views_differ = self.engine.seat_views_differ
        groups: set[Group] = set(self.docs)
        if views_differ:
            groups.update([conn.seat for conn in room.conns])
        elif room.conns:
            groups.add(None)
        self.snapshots.clear()  # cached snapshots are of the previous version
        frames = {group: self._advance(room, group, self.spoken[group]) for group in groups}
        extra = []
        if events:
            told = narrate(self.engine, self._names(), events)
            extra.append(encode(messages.event(room.version, told)))
        if result is not None:
            extra.append(encode(messages.result(room.version, dict(result))))
        for conn in list(room.conns):
            group = conn.seat if views_differ else None
            patch = frames[group]
            conn.send((patch and patch.get(conn.protocol)) or self.snapshot(room, group))
            for frame in extra:
                conn.send(frame)
