"""The credentials a room's requests carry: its owner's and its invitation.

A room's record keeps only their hashes (:func:`~server.room.hash_token`); a request
that lacks the credential it needs is refused with :class:`~server.errors.ApiError`
(403).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines import BENCHMARK
from server.errors import ApiError
from server.limits import load_test
from server.proxies import Networks
from server.room import Room, hash_token
from server.store import RoomRecord, Store


def _matches(given: Any, digest: str | None) -> bool:
    """Whether ``given`` is a string whose hash is ``digest`` (None matches nothing)."""
    return isinstance(given, str) and digest is not None and hash_token(given) == digest


def is_owner(record: RoomRecord, body: Mapping[str, Any]) -> bool:
    """Whether ``body`` holds the room's ``owner_token``."""
    return _matches(body.get("owner_token"), record.owner)


async def require_owner(record: RoomRecord, body: Mapping[str, Any], store: Store) -> None:
    """Refuse a request that needs the room's owner: ``owner_token`` must be the owner
    credential. A room without an owner (quick play's) takes a seated player's
    ``token`` (looked up in ``store``) instead, while no other person holds a seat:
    the player waiting alone may fill the room with bots (what quick play's page
    offers), and nobody fills it over another player's head."""
    if record.owner is not None:
        if is_owner(record, body):
            return
        raise ApiError(
            403,
            "owner_required",
            "only the room's creator may do this: send the owner_token "
            "the room's creation answered",
        )
    token = body.get("token")
    seat = await store.seat_of(record.id, hash_token(token)) if isinstance(token, str) else None
    if seat is None:
        raise ApiError(
            403, "owner_required", "only a player seated in this room may do this: send your token"
        )
    bots = record.bots or [None] * record.seats
    others = [s for s, name in enumerate(record.names) if name and bots[s] is None and s != seat]
    if others:
        raise ApiError(
            403,
            "owner_required",
            "another player sits in this room: only a player alone in it may fill it with bots",
        )


def require_invitation(
    room: Room, body: Mapping[str, Any], client: str | None, load_testers: Networks
) -> None:
    """Refuse a seat of a private room to a request without its invitation (or the
    owner credential). A load generator (``load_testers``, from ``load_test_clients``)
    seats itself in the private rooms of a benchmark engine without one, as the shared
    harness does."""
    record = room.record
    if record.invite is None:
        return
    if client is not None and load_test(client, room.engine.kind == BENCHMARK, load_testers):
        return
    if _matches(body.get("invite"), record.invite) or is_owner(record, body):
        return
    raise ApiError(
        403,
        "invite_required",
        "this room is private: a seat needs the invitation its creator shares "
        "(the invite of its link)",
    )
