"""What the lobby accepts in a request body.

Each check raises :class:`~server.errors.ApiError` (400) on a bad value, naming it,
so that a bad request changes nothing.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from starlette.datastructures import Headers

from engines import ENGINES, GAMES, Engine
from engines.base import OptionError, resolve_options
from protocol.text import MAX_MARKS, Flaw, flaw, typed
from server import ids, robots, web
from server.chat import bot_name, look_alikes, name_refusal
from server.errors import ApiError, spoken
from server.table import split_options

MAX_NAME = 32
NAME_FLAWS: dict[Flaw, str] = {
    "empty": "name must hold a visible character: spaces and blank fillers alone show nothing",
    "too_long": f"name must be at most {MAX_NAME} characters (counted in Unicode NFC)",
    "not_shown": "name may not hold control or invisible characters, line breaks "
    f"or more than {MAX_MARKS} accents on one letter",
}
"""What a refused name's ``bad_name`` says, by its :data:`~protocol.text.Flaw`."""
PAGE_MARKS = {
    "(you)": "the pages mark your own seat so",
    "(away)": "the lobby marks a player with no page open so",
}
"""What the web pages write after a name ("ana (you)": the viewer's own seat; "bo
(away)": a player with no page open), and why: a name ending so (in any case or width,
spaced or not, or in look-alike letters: a Cyrillic ``о``) would read there as such."""
MAX_SEED = 2**63 - 1
"""Seeds are ints in 0…2⁶³−1 (they are stored as msgpack ints)."""
KINDS = ("game", "benchmark", "all")
"""``GET /api/games?kind=``: games offered to players (the default), benchmarks, or both."""


def present(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's fields but those given as null: a null field counts as absent
    (docs/protocol.md §9), whichever field it is, at any depth (``options.clock``,
    ``bots.kind``), so every check reads null as its default. :func:`json.loads` calls
    it on each object it reads (``object_pairs_hook``). An object that names a field
    twice is refused (ValueError): ``json`` alone would keep the last one silently."""
    fields: dict[str, Any] = {}
    for key, value in pairs:
        if key in fields:
            raise ValueError(f"the field {key!r} comes twice in one object")
        fields[key] = value
    return {key: value for key, value in fields.items() if value is not None}


def engine_info(engine: Engine) -> dict[str, Any]:
    """An engine as ``GET /api/games`` shows it."""
    return {
        "id": engine.id,
        "kind": engine.kind,
        "title": engine.title,
        "min_players": engine.min_players,
        "max_players": engine.max_players,
        "options": {name: dict(spec) for name, spec in engine.options.items()},
        "web": web.game_urls(engine.id),
        "bots": [{"kind": k, "strength": v} for k, v in robots.kinds(engine).items()],
    }


def engines_of(kind: str | None) -> list[Engine]:
    """``GET /api/games?kind=``: the games players are offered by default; the
    benchmark engines (``turn-relay``, for load tests) only when asked for."""
    kind = kind or "game"
    if kind not in KINDS:
        raise ApiError(400, "bad_kind", f"kind must be {spoken(KINDS)}")
    return [e for e in ENGINES.values() if kind == "all" or e.kind == kind]


ASKED_SHOWN = 40
"""The longest unknown engine id an error repeats (a longer one is not a typo)."""


def unknown_engine(asked: object = None) -> ApiError:
    """Refuse an engine id, naming the games (benchmark engines are accepted, not offered)
    and the one ``asked`` looks like, if any: a typo (``sintr``, ``SINTRA``) is told
    the game meant."""
    games = f"the games are {', '.join(sorted(GAMES))}"
    if not isinstance(asked, str):
        return ApiError(400, "unknown_engine", f"engine must name a game; {games}")
    if len(asked) > ASKED_SHOWN:
        return ApiError(400, "unknown_engine", f"no game of that name; {games}")
    near = difflib.get_close_matches(asked.lower().replace("_", "-"), sorted(GAMES), n=1)
    meant = f" (did you mean {near[0]}?)" if near else ""
    return ApiError(400, "unknown_engine", f"no game {asked!r}{meant}; {games}")


def requested_engine(body: Mapping[str, Any]) -> Engine:
    """The ``engine`` field: an engine's id."""
    engine_id = body.get("engine")
    if not isinstance(engine_id, str) or engine_id not in ENGINES:
        raise unknown_engine(engine_id)
    return ENGINES[engine_id]


def optional_int(body: Mapping[str, Any], key: str, default: int | None) -> int | None:
    """An optional int field; absent or null means ``default``."""
    value = body.get(key)
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool):
        raise ApiError(400, f"bad_{key}", f"{key} must be an integer")
    return value


def page_size(limit: str | None, most: int) -> int:
    """``GET /api/rooms?limit=``: a positive integer, of any size, cut to ``most``
    (None: ``most``); anything else is ``bad_limit``."""
    if limit is None:
        return most
    digits = limit.lstrip("0")
    if not (limit.isascii() and limit.isdigit() and digits):
        raise ApiError(400, "bad_limit", "limit must be a positive integer")
    # More digits than ``most`` has is more than ``most``: never read as an int (Python
    # refuses one of more than 4,300 digits).
    return most if len(digits) > len(str(most)) else min(most, int(digits))


def player_name(body: Mapping[str, Any]) -> str | None:
    """The optional ``name`` field, as :func:`protocol.text.typed` keeps it (stripped,
    NFC), checked as kept (:func:`protocol.text.flaw`, the chat's check too)."""
    name = body.get("name")
    if name is None:
        return None
    if not isinstance(name, str):
        raise ApiError(400, "bad_name", f"name must be a string of 1-{MAX_NAME} characters")
    name = typed(name)
    why = flaw(name, MAX_NAME)
    if why is not None:
        raise ApiError(400, "bad_name", NAME_FLAWS[why])
    for mark, meant in PAGE_MARKS.items():
        if any(key.replace(" ", "").endswith(mark) for key in look_alikes(name)):
            raise ApiError(400, "bad_name", f"name may not end in '{mark}': {meant}")
    return name


def creator_name(
    body: Mapping[str, Any], seats: int, bots: tuple[str, list[int] | None] | None
) -> str | None:
    """``POST /api/rooms``' optional ``name``: the name its creator will sit under, in the
    new room of ``seats`` seats and these ``bots`` (kind, seats: :func:`requested_bots`).
    Checked as a seat asked for under it there, without a seat number, would be:
    :func:`player_name`; ``room_full`` when the bots leave no seat; ``name_taken`` when
    it reads or looks as another seat's player, a bot or the spectators
    (:func:`server.chat.name_refusal`), for the first free seat, the one such a request
    takes. Nothing keeps it: the creator asks for the seat afterwards."""
    name = player_name(body)
    if name is None:
        return None
    names: list[str | None] = [None] * seats
    if bots is not None:
        kind, taken = bots
        for seat in range(seats) if taken is None else taken:
            names[seat] = bot_name(kind, seat)
    if None not in names:
        raise ApiError(409, "room_full", "the room's bots take every seat: none is left for you")
    refused = name_refusal(names, name, names.index(None))
    if refused is not None:
        raise refused
    return name


def idempotency_key(headers: Headers) -> str | None:
    """The ``Idempotency-Key`` header (bare, or quoted as a structured-field string),
    or None without one: 16-128 characters of ``A-Z a-z 0-9 - _ . :``. Two of them
    are refused: a repeat sent with either one alone could take a second seat."""
    keys = headers.getlist("idempotency-key")
    if not keys:
        return None
    key = keys[0]
    if len(key) >= 2 and key[0] == key[-1] == '"':
        key = key[1:-1]
    if len(keys) > 1 or not ids.REQUEST_KEY.fullmatch(key):
        raise ApiError(
            400,
            "bad_idempotency_key",
            "Idempotency-Key must be one header of 16-128 characters of A-Z a-z 0-9 - _ . : "
            "(draw it at random: it stands for the seat it takes)",
        )
    return key


def requested_options(
    engine: Engine, body: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``options`` field: the engine's options and the room options side by side
    (:func:`server.table.split_options`), each complete, defaults filled in."""
    options = body.get("options", {})
    if not isinstance(options, dict):
        raise ApiError(400, "bad_options", "options must be an object")
    options, room_options = split_options(options)
    try:
        return resolve_options(engine, options), room_options
    except OptionError as exc:
        raise ApiError(400, "bad_options", str(exc)) from None


def requested_bots(engine: Engine, body: Any, seats: int) -> tuple[str, list[int] | None]:
    """``{"kind"?, "seats"?}`` checked: the bot kind and the seats (None: every free one;
    an empty list is ``bad_seat``, not a request for no bots)."""
    if not isinstance(body, Mapping):
        raise ApiError(400, "bad_bots", 'bots must be an object: {"seats": [...], "kind": ...}')
    kind = body.get("kind", robots.default_kind(engine))
    if not isinstance(kind, str):
        raise ApiError(400, "bad_bot_kind", "kind must be a string")
    why = robots.check_kind(engine, kind)
    if why is not None:
        raise ApiError(400, "bad_bot_kind", why)
    chosen = body.get("seats")
    if chosen is None:
        return kind, None
    if not isinstance(chosen, list) or not all(
        isinstance(s, int) and not isinstance(s, bool) and 0 <= s < seats for s in chosen
    ):
        raise ApiError(400, "bad_seat", f"bot seats must be a list of seats 0..{seats - 1}")
    if not chosen:
        raise ApiError(
            400, "bad_seat", "bot seats name no seat: leave seats out for every free seat"
        )
    if len(set(chosen)) != len(chosen):
        raise ApiError(400, "bad_seat", "a seat is named twice")
    return kind, list(chosen)
