"""Bot kinds over HTTP: ``GET /api/games`` lists each game's kinds with their strength,
bots default to the strongest, and ``bad_bot_kind`` names the kinds the game has."""

from __future__ import annotations

import httpx

from server.errors import spoken


async def test_games_list_their_bot_kinds_and_bots_default_to_the_strongest(
    http: httpx.AsyncClient,
) -> None:
    for game in (await http.get("/api/games")).json():
        kinds = [b["kind"] for b in game["bots"]]
        assert kinds[-1] == "random" and set(kinds) <= {"greedy", "random"}
        assert all(b["strength"] for b in game["bots"])
        room = (
            await http.post("/api/rooms", json={"engine": game["id"], "seats": 2, "bots": {}})
        ).json()
        assert room["bots"] == [kinds[0], kinds[0]], "the strongest kind, listed first"
        bad = await http.post("/api/rooms", json={"engine": game["id"], "bots": {"kind": "clever"}})
        assert (bad.status_code, bad.json()["error"]["code"]) == (400, "bad_bot_kind")
        assert bad.json()["error"]["message"] == (
            f"{game['id']} has {spoken(kinds, 'and')} bots, not 'clever'"
        )
