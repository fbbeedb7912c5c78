"""``GET /api/rooms/{id}/record``: a game's record replayed from its log (server/history.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

import httpx
import pytest

from clients.client import RoomClient
from conftest import Running
from engines import ENGINES
from server.history import TrimmedLog, game_record
from server.store import LogEntry, RoomRecord


async def record_of(server: Running, room_id: str, query: str = "") -> tuple[int, dict[str, Any]]:
    async with httpx.AsyncClient(base_url=server.url) as http:
        answer = await http.get(f"/api/rooms/{room_id}/record{query}")
    return answer.status_code, answer.json()


@pytest.mark.parametrize("engine", ["sintra", "chartered"])
async def test_a_game_against_a_bot_is_recorded_move_by_move_and_replays(
    server: Running, engine: str
) -> None:
    name = "<b>Ana</b> & co"
    async with httpx.AsyncClient(base_url=server.url) as http:
        body = {"engine": engine, "seats": 2, "options": {"bot_delay": 0}, "bots": {"seats": [1]}}
        room = (await http.post("/api/rooms", json=body)).json()
        seat = (await http.post(f"/api/rooms/{room['id']}/seats", json={"name": name})).json()
    told: list[str] = []
    async with RoomClient(server.ws, room["id"], seat["token"]) as me:
        first = True
        while True:
            doc = await me.wait_for(lambda d: 0 in d["to_act"] or not d["to_act"])
            if not doc["to_act"]:
                break
            ack = await me.intent((await me.legal())[0])
            assert ack["t"] == "ack", ack
            if first:  # mid-game: the moves so far, but no action, label or seed yet
                first = False
                status, early = await record_of(server, room["id"])
                assert status == 200 and early["status"] == "playing"
                assert "seed" not in early and early["moves"]
                assert not any("action" in move or "label" in move for move in early["moves"])
        result = await me.wait_result()
        while not me.events.empty():
            told.append(me.events.get_nowait()["text"])
    status, record = await record_of(server, room["id"])
    assert status == 200
    assert (record["engine"], record["status"], record["result"]) == (engine, "finished", result)
    assert record["players"][0]["name"] == name
    assert [p["bot"] for p in record["players"]] == room["bots"] and room["bots"][1]
    log = [line["text"] for line in record["log"]]
    assert log[: len(log) - len(told)] and log[len(log) - len(told) :] == told, (
        "the record's log ends with every sentence the player was told live"
    )
    bot = record["players"][1]["name"]
    assert log[:3] == [f"{bot} takes seat 2.", f"{name} takes seat 1.", "The game starts."]
    moves = record["moves"]
    assert [move["n"] for move in moves] == list(range(1, len(moves) + 1))
    assert {move.get("by") for move in moves} == {None, "bot"}
    assert all(move["label"] for move in moves)
    assert any(move["text"] for move in moves), "moves carry the sentences they caused"
    game = ENGINES[engine]  # the finished record replays to the same result from its seed
    state = game.setup(2, record["options"], record["seed"])
    seen = [game.view(state, None)]
    for move in moves:
        state, _ = game.apply(state, move["seat"], move["action"])
        seen.append(game.view(state, None))
    assert game.result(state) == result
    status, viewed = await record_of(server, room["id"], "?views=1")
    assert status == 200 and [doc["game"] for doc in viewed["views"]] == seen
    assert viewed["views"][-1]["status"] == "finished" and viewed["views"][-1]["to_act"] == []
    assert viewed["views"][0]["seats"] == [name, record["players"][1]["name"]]


async def test_a_waiting_room_has_an_empty_record_and_unknown_rooms_are_404(
    server: Running,
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as http:
        room = (await http.post("/api/rooms", json={"engine": "sintra", "seats": 3})).json()
    status, record = await record_of(server, room["id"])
    assert status == 200
    assert (record["status"], record["moves"], record["log"], record["version"]) == (
        "waiting",
        [],
        [],
        0,
    )
    assert [p["name"] for p in record["players"]] == [None, None, None]
    for room_id in ["nope", "x" * 65, "<script>"]:
        status, answer = await record_of(server, room_id)
        assert (status, answer["error"]["code"]) == (404, "no_such_room")


def test_a_log_that_no_longer_starts_at_version_1_cannot_be_replayed() -> None:
    record = RoomRecord("r", "sintra", 2, {}, False, 1, 0.0, 0.0, names=[None, None])
    with pytest.raises(TrimmedLog, match="starts at version 3"):
        game_record(ENGINES["sintra"], record, [(3, {"k": "presence", "seat": 0})])


def test_during_a_game_a_secret_move_is_neither_listed_nor_counted() -> None:
    """Crystal Palace's dice are set in secret, one silent intent each: the record of a
    game under way does not list one nor count it in its version (the spectators'), so
    nobody can count the dice a seat set; the finished game's lists it, with its seat."""
    entries: list[tuple[int, LogEntry]] = [
        (1, {"k": "seat", "seat": 0, "name": "ana"}),
        (2, {"k": "seat", "seat": 1, "name": "bo"}),
        (3, {"k": "intent", "seat": 1, "id": 1, "action": {"type": "die", "value": 6}}),
    ]
    playing = RoomRecord(
        "r", "crystal-palace", 2, {}, False, 7, 0.0, 0.0, names=["ana", "bo"], status="playing"
    )
    engine = ENGINES["crystal-palace"]
    during = game_record(engine, playing, entries)
    assert (during["moves"], during["version"]) == ([], 2)
    assert [line["v"] for line in during["log"]] == [1, 2, 2]
    finished = dataclasses.replace(playing, status="finished")
    [move] = game_record(engine, finished, entries)["moves"]
    assert move["seat"] == 1 and move["action"] == {"type": "die", "value": 6}
