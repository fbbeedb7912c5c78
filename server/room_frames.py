"""A room's frames: for each view group, the document it mirrors, its last patches and
its snapshot, built once per version and encoded once per protocol for every
connection of the group (the publishing half of :class:`~server.room.Room`).

**View versions.** In a game whose seats see different things
(``Engine.seat_views_differ``), each view group numbers its own versions: a change
counts for a group unless it is a decision that told no event and left the group's
document as it was (Crystal Palace's secret dice: the other seats' and spectators'
versions stay, and they are sent nothing), so no one can count the decisions hidden
from them. Every other entry counts for every group. The counts go into the room's
snapshots (:meth:`Views.dump`), so every process that folds the log numbers alike.
In a game whose seats all see the same, a group's version is the room's.
``event`` frames carry the spectators' version, the *public* one (which the game's
record uses too)."""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable
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

Ack = Callable[[], None] | None
"""Sends a decision's ``ack``, once its seat's version is known (:meth:`Views.publish`)."""

UNCHANGED: Final[Frames] = {-1: b""}
"""What :meth:`Views.publish` has for a group whose view a quiet entry left as it was."""

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
        self.counts = [0] * (record.seats + 1) if engine.seat_views_differ else None
        """Each group's version (spectators first, then the seats), in a game whose seats
        see different things; None when every group's version is the room's."""

    def version(self, room: Room, group: Group) -> int:
        """The version of ``group``'s document (the room's in a game whose seats see alike)."""
        counts = self.counts
        if counts is None:
            return room.version
        return counts[0 if group is None else group + 1]

    def seen_by(self, room: Room, seat: int | None) -> int:
        """The version of the document a connection of ``seat`` (None: a spectator) holds."""
        return self.version(room, self.group(seat))

    def dump(self) -> list[int] | None:
        """The groups' versions, for the room's snapshot (:meth:`restore` takes them)."""
        return None if self.counts is None else list(self.counts)

    def restore(self, room: Room, counts: list[int] | None) -> None:
        """The groups' versions at the snapshot just restored (``counts``; None from a
        snapshot taken before there were view versions: then each was the room's), and
        every group's document there, so that the entries after it are counted."""
        if self.counts is None:
            return
        if counts is None or len(counts) != len(self.counts):
            counts = [room.version] * len(self.counts)
        self.counts = list(counts)
        for group in (None, *range(self.record.seats)):
            self._start(room, group)

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
        frame = encode(messages.legal(self.version(room, seat), seat, actions, labels))
        self.answers[seat] = (version, state, frame)
        return frame

    def catch_up(self, room: Room, conn: Connection, since: int | None) -> None:
        """Send the patches after ``since`` if they are still kept (none if ``since``
        is the current version), else a snapshot."""
        group = self.group(conn.seat)
        current = self.version(room, group)
        if since == current:
            return
        history = self.history.get(group)
        if since is not None and history and since < current:
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
        version = self.version(room, group)
        cached = self.snapshots.get(group)
        if cached and cached[0] == version:
            return cached[1]
        doc = self.docs.get(group)
        if doc is None or doc[0] != version:
            doc = self._start(room, group)
        frame = encode(messages.snapshot(version, doc[1]))
        self.snapshots[group] = (version, frame)
        return frame

    def _start(self, room: Room, group: Group) -> tuple[int, Any]:
        """``group``'s document now, from which its patches start again."""
        doc = self.docs[group] = (self.version(room, group), self.doc(room, group))
        self.history[group] = deque(maxlen=self.settings.history)
        return doc

    def _advance(self, room: Room, group: Group, quiet: bool) -> Frames | None:
        """The patch that brings ``group`` to its next version, in each protocol its
        connections have spoken; None when the group needs a snapshot instead;
        :data:`UNCHANGED` when the entry is ``quiet`` (it may be hidden) and left the
        group's document as it was: then its version stays."""
        counts = self.counts
        since = room.version - 1 if counts is None else counts[0 if group is None else group + 1]
        previous = self.docs.get(group)
        if previous is None or previous[0] != since:
            if counts is not None:
                counts[0 if group is None else group + 1] = since + 1
            self.snapshot(room, group)  # the group starts again from this version
            return None
        doc = self.doc(room, group)
        for key in SHARED:  # unchanged parts become the previous version's: the diff skips them
            if doc[key] == previous[1][key]:
                doc[key] = previous[1][key]
        ops = diff(previous[1], doc)
        if quiet and not ops:
            return UNCHANGED
        if counts is not None:
            counts[0 if group is None else group + 1] = since + 1
        frames = self._encode_patch(room, since + 1, ops, self.spoken[group])
        self.docs[group] = (since + 1, doc)
        self.history[group].append((since, frames))
        return frames

    def _encode_patch(self, room: Room, to: int, ops: list[Op], protocols: set[int]) -> Frames:
        frames = {}
        if 2 in protocols:
            frames[2] = encode(self.compactor(room).patch(to, ops))
        if 1 in protocols:
            frames[1] = encode(messages.patch(to - 1, to, ops))
        return frames

    def _names(self) -> list[str]:
        return [name or f"seat {i + 1}" for i, name in enumerate(self.record.names)]

    def publish(
        self,
        room: Room,
        events: list[dict[str, Any]],
        result: Result | None,
        intent: bool = False,
        ack: Ack = None,
    ) -> None:
        """Send the room's new version to its connections; ``intent``: the entry was a
        decision (which may be hidden from some groups); ``ack`` sends the decision's ``ack``
        once the groups' versions are known, before any patch is sent."""
        counts = self.counts
        self.snapshots.clear()  # cached snapshots are of the previous version
        frames: dict[Group, Frames | None] = {}
        if (
            counts is None
        ):  # every group seen here advances, connected or not: its history stays whole
            groups: set[Group] = set(self.docs)
            if room.conns:
                groups.add(None)
            for group in groups:
                frames[group] = self._advance(room, group, False)
            self.record.updated = room.clock()
        else:  # every group advances, to keep its count
            public = counts[0]
            quiet = intent and not events
            frames[None] = self._advance(room, None, quiet)
            for seat in range(self.record.seats):
                frames[seat] = self._advance(room, seat, quiet)
            if counts[0] != public:  # the lobby's "last changed" (not a hidden change)
                self.record.updated = room.clock()
        if ack is not None:
            ack()
        extra = []
        if events:
            told = narrate(self.engine, self._names(), events)
            extra.append(encode(messages.event(self.version(room, None), told)))
        results: dict[Group, bytes] | None = None if result is None else {}
        for conn in list(room.conns):
            group = conn.seat if counts is not None else None
            patch = frames[group]
            if patch is UNCHANGED:
                continue
            conn.send((patch and patch.get(conn.protocol)) or self.snapshot(room, group))
            for frame in extra:
                conn.send(frame)
            if results is not None and result is not None:
                if group not in results:
                    version = self.version(room, group)
                    results[group] = encode(messages.result(version, dict(result)))
                conn.send(results[group])
