"""What the lobby accepts in a request body (server/requests.py), over real HTTP:
a field given as null counts as absent (docs/protocol.md §9), every field, at any depth."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

from server.table import DEFAULTS
from support import error_code

SHOWN = ("seats", "options", "room_options", "private", "seed_chosen", "bots", "names", "seat")
"""The fields of an answer that tell what a request made (not its fresh ids and secrets)."""

ROOM = {
    "engine": "sintra",
    "seats": 3,
    "options": {
        "side": "B",
        "clock": "move:30",
        "bot_delay": 0,
        "grace": 5,
        "expel_after": 2,
        "abandon_after": 20,
        "idle": 40,
        "confirm": False,
        "spectator_chat": True,
    },
    "private": True,
    "seed": 7,
    "bots": {"kind": "random", "seats": [2]},
}
"""``POST /api/rooms`` with every field given."""

FIELDS: list[tuple[str, tuple[str, ...]]] = [
    *[("rooms", (name,)) for name in ROOM],
    ("rooms", ("options", "side")),
    *[("rooms", ("options", name)) for name in DEFAULTS],
    ("rooms", ("bots", "kind")),
    ("rooms", ("bots", "seats")),
    ("seats", ("name",)),
    ("seats", ("seat",)),
    ("seats", ("invite",)),
    ("bots", ("owner_token",)),
    ("bots", ("kind",)),
    ("bots", ("seats",)),
    ("rematch", ("token",)),
    ("quickplay", ("engine",)),
    ("quickplay", ("name",)),
    ("quickplay", ("seats",)),
]
"""Each request and a field of its body (a path into nested objects)."""


async def request(http: httpx.AsyncClient, kind: str) -> tuple[str, dict[str, Any]]:
    """The path and the body with every field of a ``kind`` request, in a new room."""
    if kind == "rooms":
        return "/api/rooms", copy.deepcopy(ROOM)
    if kind == "quickplay":
        return "/api/quickplay", {"engine": "sintra", "name": "ana", "seats": 2}
    room = (await http.post("/api/rooms", json={"engine": "sintra", "private": True})).json()
    path = f"/api/rooms/{room['id']}/{kind}"
    if kind == "seats":
        return path, {"name": "ana", "seat": 1, "invite": room["invite"]}
    if kind == "bots":
        return path, {"owner_token": room["owner_token"], "kind": "random", "seats": [1, 3]}
    return path, {"token": "not a seat's"}


async def shown(http: httpx.AsyncClient, answer: httpx.Response) -> tuple[int, Any]:
    """The status and what the answer tells: its error code, or what was made (a seat's
    room too, whose other seats are then taken: quick play opens the next room)."""
    if answer.status_code >= 400:
        return answer.status_code, error_code(answer)
    made = answer.json()
    if "room" in made:
        seats = f"/api/rooms/{made['room']}/seats"
        while (await http.post(seats, json={})).status_code == 201:
            pass
        made["names"] = (await http.get(f"/api/rooms/{made['room']}")).json()["names"]
    return answer.status_code, {key: made[key] for key in SHOWN if key in made}


@pytest.mark.parametrize(
    ("kind", "field"), FIELDS, ids=lambda v: v if isinstance(v, str) else ".".join(v)
)
async def test_a_field_given_as_null_counts_as_absent(
    http: httpx.AsyncClient, kind: str, field: tuple[str, ...]
) -> None:
    answers = []
    for null in (False, True):
        path, body = await request(http, kind)
        *outer, name = field
        fields = body
        for key in outer:
            fields = fields[key]
        if null:
            fields[name] = None
        else:
            del fields[name]
        answers.append(await shown(http, await http.post(path, json=body)))
    absent, null = answers
    assert null == absent


@pytest.mark.parametrize(
    ("asked", "meant"),
    [("sintr", "sintra"), ("SINTRA", "sintra"), ("crystal_palace", "crystal-palace")],
)
async def test_a_misspelt_game_is_refused_with_the_game_meant(
    http: httpx.AsyncClient, asked: str, meant: str
) -> None:
    """A newcomer's typo (``--game sintr``) is told which game it looks like, and the
    games there are, in words (no Python list)."""
    for answer in (
        await http.post("/api/rooms", json={"engine": asked}),
        await http.post("/api/quickplay", json={"engine": asked}),
        await http.get("/api/rooms", params={"engine": asked}),
    ):
        assert (answer.status_code, error_code(answer)) == (400, "unknown_engine")
        message = answer.json()["error"]["message"]
        assert f"no game {asked!r} (did you mean {meant}?)" in message
        assert "the games are chartered, crystal-palace, sintra" in message
        assert "[" not in message
    assert (await http.get("/api/rooms")).json() == []


async def test_an_unknown_game_far_from_any_is_refused_naming_the_games(
    http: httpx.AsyncClient,
) -> None:
    for body in ({"engine": "chess"}, {"engine": "x" * 5000}, {}, {"engine": 7}):
        answer = await http.post("/api/rooms", json=body)
        assert (answer.status_code, error_code(answer)) == (400, "unknown_engine")
        message = answer.json()["error"]["message"]
        assert "did you mean" not in message and "x" * 100 not in message
        assert message.endswith("the games are chartered, crystal-palace, sintra")


@pytest.mark.parametrize(
    ("engine", "option", "given", "said"),
    [
        ("chartered", "events", "True", "false, true"),
        ("chartered", "buffer", 5, "3, 2"),
        ("sintra", "side", "C", "A, B"),
    ],
)
async def test_a_bad_option_value_names_the_values_as_they_are_typed(
    http: httpx.AsyncClient, engine: str, option: str, given: object, said: str
) -> None:
    """The values as `--option name=value` and JSON take them: "[False, True]" sent a
    newcomer to type events=True, refused again."""
    answer = await http.post("/api/rooms", json={"engine": engine, "options": {option: given}})
    assert (answer.status_code, error_code(answer)) == (400, "bad_options")
    assert answer.json()["error"]["message"] == f"option {option!r} must be one of {said}"
    assert (await http.get("/api/rooms")).json() == []


async def test_a_move_clock_out_of_range_says_so_in_plain_words(http: httpx.AsyncClient) -> None:
    """`--option clock=move:3` was told "move seconds must be 5-86400 seconds"."""
    answer = await http.post(
        "/api/rooms", json={"engine": "sintra", "options": {"clock": "move:3"}}
    )
    assert (answer.status_code, error_code(answer)) == (400, "bad_clock")
    assert answer.json()["error"]["message"] == "the time for a move must be 5-86400 seconds"


@pytest.mark.parametrize(
    ("method", "path", "request_fields", "code", "said"),
    [
        (
            "GET",
            "/api/rooms",
            {"params": {"status": "lost"}},
            "bad_status",
            "status must be waiting, playing or finished",
        ),
        (
            "GET",
            "/api/games",
            {"params": {"kind": "toys"}},
            "bad_kind",
            "kind must be game, benchmark or all",
        ),
        (
            "POST",
            "/api/rooms",
            {"json": {"engine": "sintra", "bots": {"kind": "clever"}}},
            "bad_bot_kind",
            "sintra has greedy and random bots, not 'clever'",
        ),
    ],
)
async def test_a_value_outside_its_choices_names_them_in_words(
    http: httpx.AsyncClient,
    method: str,
    path: str,
    request_fields: dict[str, Any],
    code: str,
    said: str,
) -> None:
    """The choices as a sentence says them, never a Python list (['waiting', ...])."""
    answer = await http.request(method, path, **request_fields)
    assert (answer.status_code, error_code(answer)) == (400, code)
    assert answer.json()["error"]["message"] == said
