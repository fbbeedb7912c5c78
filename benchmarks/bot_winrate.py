"""How often a greedy bot beats random bots, or every bot kind every kind, in-process.

    python benchmarks/bot_winrate.py [--game chartered] [--games 200] [--players 4]
    python benchmarks/bot_winrate.py --matrix [--game all] [--games 200]

Plays ``--games`` seeded games: one greedy seat (rotating over the seats from
game to game) against random bots. A shared win counts as a fraction. Prints
the greedy bot's win rate next to what a random bot would get (1/players).

With ``--matrix``, plays every ordered pair of the game's bot kinds
(``engines.bots.kinds``), a kind against itself included as the 1/2 baseline,
in ``--games`` 2-player games each, the row kind's seat alternating; prints a
table of the row kind's win rate against the column kind (``--game all``: every
game, one table) and appends one JSON line per pair to
benchmarks/results/bot-matrix-DATE.jsonl.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from pathlib import Path
from typing import Any

from common import commit, machine, record

from engines import ENGINES, GAMES
from engines.bots import kinds, make_bot

ROOT = Path(__file__).resolve().parent.parent


def play(game: str, seat_kinds: list[str], options: dict[str, Any], seed: int) -> list[int]:
    """Play one seeded game to its end with a bot of ``seat_kinds[seat]`` in each seat;
    the winning seats."""
    engine = ENGINES[game]
    bots = [make_bot(kind, game, seat, seed * 10 + seat) for seat, kind in enumerate(seat_kinds)]
    state = engine.setup(len(seat_kinds), options, seed)
    while (result := engine.result(state)) is None:
        seat = min(engine.to_act(state))
        action = bots[seat].choose(engine.view(state, seat), engine.legal_actions(state, seat))
        state, _ = engine.apply(state, seat, action)
    winners: list[int] = result["winners"]
    return winners


def greedy_against_random(game: str, games: int, players: int, options: dict[str, Any]) -> None:
    """The first mode: one greedy seat, rotating, against random bots."""
    wins = 0.0
    started = time.perf_counter()
    for seed in range(games):
        greedy = seed % players
        winners = play(
            game, ["greedy" if s == greedy else "random" for s in range(players)], options, seed
        )
        if greedy in winners:
            wins += 1 / len(winners)
    print(
        f"{game}, {players} players, options {options or 'default'}: greedy won "
        f"{wins:.1f} of {games} games = {wins / games:.1%} "
        f"(a random bot: {1 / players:.1%}); {time.perf_counter() - started:.1f} s"
    )


def pair(game: str, row: str, column: str, games: int, options: dict[str, Any]) -> dict[str, Any]:
    """``games`` 2-player games of ``row`` against ``column``, ``row`` in seat 0 in even
    games and seat 1 in odd ones; the row kind's wins (shared wins as fractions)."""
    wins = 0.0
    started = time.perf_counter()
    for seed in range(games):
        seat = seed % 2
        winners = play(game, [row, column] if seat == 0 else [column, row], options, seed)
        if seat in winners:
            wins += 1 / len(winners)
    return {
        "benchmark": "bot_matrix",
        "game": game,
        "players": 2,
        "games": games,
        "options": options,
        "row": row,
        "column": column,
        "row_wins": wins,
        "win_rate": wins / games,
        "seconds": round(time.perf_counter() - started, 1),
    }


def table(results: list[dict[str, Any]]) -> str:
    """One markdown table of every game's matrix: the row kind's win rate against each
    column kind (blank where a game lacks the kind)."""
    order = list(dict.fromkeys(r["row"] for r in results))
    rate = {(r["game"], r["row"], r["column"]): r["win_rate"] for r in results}
    lines = [
        "| game | row kind, against: | " + " | ".join(order) + " |",
        "| --- | --- |" + " ---: |" * len(order),
    ]
    for game, row in dict.fromkeys((r["game"], r["row"]) for r in results):
        cells = [rate.get((game, row, column)) for column in order]
        shown = " | ".join("" if c is None else f"{c:.1%}".replace("%", " %") for c in cells)
        lines.append(f"| {game} | {row} | {shown} |")
    return "\n".join(lines)


def matrix(games: list[str], count: int, options: dict[str, Any]) -> None:
    """Every ordered pair of every game's bot kinds; the JSON lines, then one table a game."""
    out = ROOT / "benchmarks" / "results" / f"bot-matrix-{datetime.date.today().isoformat()}.jsonl"
    head = commit()
    results = []
    for game in games:
        for row in kinds(game):
            for column in kinds(game):
                result = pair(game, row, column, count, options) | {"commit": head}
                record(out, result)
                results.append(result)
    print(table(results))
    print(f"JSON lines: {out}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="chartered", help="an engine id, or all (--matrix)")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--option", action="append", default=[], metavar="NAME=true|false")
    parser.add_argument(
        "--matrix", action="store_true", help="every bot kind against every kind, 2 players"
    )
    args = parser.parse_args()
    options = {k: v == "true" for k, v in (o.split("=") for o in args.option)}
    print(machine())
    if args.matrix:
        matrix(list(GAMES) if args.game == "all" else [args.game], args.games, options)
    else:
        greedy_against_random(args.game, args.games, args.players, options)


if __name__ == "__main__":
    main()
