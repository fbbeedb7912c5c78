"""The result's table in Chromium writes scores as the boards do: a negative score with
a true minus sign (U+2212), never a hyphen, and no word after a score, which may be
money (Chartered's ƒ), read aloud or not. The finished games are played by server bots
alone in private rooms with a chosen seed: Crystal Palace's random bots end in debt."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from browser import Served, Watched

MINUS = "\N{MINUS SIGN}"
# Each row of the result's table: its score cell's whole text (read aloud or not) and the
# row's.
ROWS = """() => [...document.querySelectorAll(".o-result .ranking tbody tr")].map((row) => ({
  score: row.querySelector(".score").textContent,
  row: row.textContent,
}))"""


def finished(served: Served, open_page: Callable[..., Watched], engine: str, seed: int) -> Any:
    """A spectator's page of a finished 2-seat game of two random server bots, and the
    scores of its result by rank."""
    room = served.bots_room(engine, 2, [0, 1], private=True, seed=seed)
    watcher = open_page()
    watcher.page.goto(served.url + room["invite_url"])
    watcher.page.wait_for_selector(".o-result .ranking", timeout=30_000)
    result = watcher.result()
    order = sorted(range(2), key=lambda seat: result["ranks"][seat])
    return watcher, [result["scores"][seat] for seat in order]


def test_a_negative_score_is_written_with_a_true_minus_sign(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    watcher, scores = finished(served, open_page, "crystal-palace", seed=1)
    assert all(score < 0 for score in scores), scores
    rows = watcher.page.evaluate(ROWS)
    assert [row["score"] for row in rows] == [f"{MINUS}{-score}" for score in scores]
    assert not any("-" in row["score"] for row in rows)


def test_a_money_score_is_not_called_points(
    served: Served, open_page: Callable[..., Watched]
) -> None:
    watcher, scores = finished(served, open_page, "chartered", seed=1)
    rows = watcher.page.evaluate(ROWS)
    assert [row["score"] for row in rows] == [str(score) for score in scores]
    assert not any("point" in row["row"] for row in rows), rows
