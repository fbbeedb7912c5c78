"""Azul: Stained Glass of Sintra, per ``rules/sintra.md``.

The module reads like the rulebook: setup (§2), the two actions of a turn
(§3.2: *take* = advance a pattern, *reset* = move the glazier back), strip
completion (§3.2 A3), the broken-glass track (§6), round end (§3.3) and final
scoring (§7–§8). Component data (strips, window points, ornaments, tracks,
option defaults) is read from ``data/components.json``; no printed value is
in the code.

State (plain data, colours are ints 0..4, a strip's wild space is ``-1``)::

    players, options, rng, round, turn, start, center_tile, finished,
    bag[5], tower[5], factories[F][5], center[5], indicator[6],
    boards[seat] = {score, track, wraps, glazier, strips[8], windows[8][2], final}
    strips[slot] = None | {id, side, pieces[5]}     pieces[i] = colour | None

Actions::

    {"type": "reset"}
    {"type": "take", "factory": int | None, "color": int,
     "strip": int | None, "wild": int, "keep": int | None}

``factory`` None takes from the centre. ``strip`` is the target slot (0..7),
None only when no reachable strip can take the colour (everything breaks).
``wild`` is how many of the placed pieces go to wild spaces. ``keep`` is the
colour kept for the window when the placement completes the strip, else None.

Choices where the spec is silent or [proposed] (all from rules/sintra.md):

* The glazier stays put when every piece breaks (§3.2 A2, FAQ 3).
* Placement fills as many spaces as possible; the player picks how many wild
  spaces to use (§3.2 A2 [proposed]).
* The start-player step is applied before the broken pieces; each step that
  reaches the bottom scores -18 at once and the marker restarts from the top
  (§6 [proposed]).
* Scores cannot go below 0 unless the ``negative_scores`` option is on (§7).
* Labels (``describe``) price broken glass by what it costs at the end of the
  game: the change of the track's value plus each −18 hit, the score floor
  ignored.
* "Points lost on the broken-glass track" for the tie-break = 18 per wrap plus
  the final track value (§8 [proposed]).
* If nobody takes from the centre, the previous start player starts again
  (§3.3, FAQ 9).
* The bag's composition and the tower's are hidden: views give their sizes.
* Views carry the printed component data of the game's options (``printed``),
  so a client draws names, points and tracks without a copy of the data file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from engines.base import (
    STEP,
    Action,
    Event,
    IllegalAction,
    Result,
    State,
    View,
    copy_state,
    load_components,
    narrate_plainly,
    rank,
    resolve_options,
    seat_name,
)
from engines.rng import Rng, seed_state

WILD = -1
COLORS = 5
SLOTS = 8


def _color_id(token: str) -> int:
    return WILD if token == "W" else int(token[1:])


@cache
def components() -> dict[str, Any]:
    """The engine's component data, with colour tokens turned into ints."""
    raw = load_components(__package__)
    raw["patterns"] = {
        strip["id"]: [[_color_id(t) for t in side] for side in strip["sides"]]
        for strip in raw["strips"]
    }
    raw["wild_strip"] = next(s["id"] for s in raw["strips"] if "wild_side" in s)
    raw["wild_side"] = next(s["wild_side"] for s in raw["strips"] if "wild_side" in s)
    return raw


def pattern(strip: Mapping[str, Any]) -> list[int]:
    """The five printed spaces of a strip's up side."""
    patterns: dict[int, list[list[int]]] = components()["patterns"]
    return patterns[strip["id"]][strip["side"]]


class Sintra:
    """The ``sintra`` engine (see the module docstring)."""

    id = "sintra"
    title = "Azul: Stained Glass of Sintra"
    min_players = 2
    max_players = 4
    kind = "game"
    seat_views_differ = False

    @property
    def options(self) -> Mapping[str, Mapping[str, Any]]:
        opts: Mapping[str, Mapping[str, Any]] = components()["options"]
        return opts

    # -- setup (§2) ---------------------------------------------------------

    def setup(self, players: int, options: Mapping[str, Any], seed: int) -> State:
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"sintra takes 2-4 players, not {players}")
        data = components()
        opts = resolve_options(self, options)
        rng = Rng(seed_state(seed))
        boards = [_new_board(rng) for _ in range(players)]
        bag = [data["pieces_per_color"]] * COLORS
        later_rounds = list(range(COLORS))
        rng.shuffle(later_rounds)
        for color in later_rounds:
            bag[color] -= 1
        first_round = _draw(bag, rng)
        state: State = {
            "players": players,
            "options": opts,
            "rng": 0,
            "round": 1,
            "start": rng.below(players),
            "turn": 0,
            "center_tile": True,
            "finished": False,
            "bag": bag,
            "tower": [0] * COLORS,
            "factories": [[0] * COLORS for _ in range(data["factories_by_players"][str(players)])],
            "center": [0] * COLORS,
            "indicator": [first_round, *later_rounds],
            "boards": boards,
        }
        _refill_factories(state, rng)
        state["turn"] = state["start"]
        state["rng"] = rng.state
        return state

    # -- whose turn ---------------------------------------------------------

    def to_act(self, state: State) -> frozenset[int]:
        return frozenset() if state["finished"] else frozenset((state["turn"],))

    # -- legal actions (§11) ------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if state["finished"] or seat != state["turn"]:
            return []
        board = state["boards"][seat]
        actions: list[Action] = []
        if _can_reset(board):
            actions.append({"type": "reset"})
        fits: dict[int, dict[int, tuple[int, int]]] = {}
        for factory, counts in _sources(state):
            for color, n in enumerate(counts):
                if n:
                    if color not in fits:
                        fits[color] = _fits(board, color)
                    actions.extend(_take_actions(board, factory, color, n, fits[color]))
        return actions

    # -- apply (§3.2) -------------------------------------------------------

    def apply(self, state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
        if state["finished"]:
            raise IllegalAction("game_over", "the game is over")
        if seat != state["turn"]:
            raise IllegalAction("not_your_turn", f"it is seat {state['turn']}'s turn")
        kind = action.get("type") if isinstance(action, dict) else None
        if kind == "reset":
            _check_keys(action, {"type"})
            if not _can_reset(state["boards"][seat]):
                raise IllegalAction(
                    "reset_not_allowed", "the glazier is already on the leftmost strip"
                )
            state = copy_state(state)
            board = state["boards"][seat]
            board["glazier"] = _leftmost_strip(board)
            events: list[Event] = [{"type": "reset", "seat": seat, "slot": board["glazier"]}]
        elif kind == "take":
            _check_take_shape(action)
            _check_take(state, seat, action)
            state = copy_state(state)
            events = _take(state, seat, action)
        else:
            raise IllegalAction("bad_action", "action type must be 'take' or 'reset'")
        _end_turn(state, events)
        return state, events

    # -- views --------------------------------------------------------------

    def view(self, state: State, viewer: int | None) -> View:
        """Everything is public except the PRNG and what is in the bag and tower."""
        return {
            "players": state["players"],
            "options": state["options"],
            "round": state["round"],
            "turn": None if state["finished"] else state["turn"],
            "start": state["start"],
            "center_tile": state["center_tile"],
            "finished": state["finished"],
            "bag": sum(state["bag"]),
            "tower": sum(state["tower"]),
            "factories": state["factories"],
            "center": state["center"],
            "indicator": state["indicator"][state["round"] - 1 :] if not state["finished"] else [],
            "boards": [_board_view(b) for b in state["boards"]],
            "printed": printed(state["options"]),
        }

    def result(self, state: State) -> Result | None:
        if not state["finished"]:
            return None
        boards = state["boards"]
        scores = [b["score"] for b in boards]
        lost = [b["final"]["glass_lost"] for b in boards]
        ranks = rank([(s, -g) for s, g in zip(scores, lost, strict=True)])
        return {
            "scores": scores,
            "ranks": ranks,
            "winners": [seat for seat, r in enumerate(ranks) if r == 1],
            "details": [b["final"] for b in boards],
        }

    def narrate(self, event: Event, names: Sequence[str]) -> str:
        return narrate_event(event, names)

    def describe(self, state: State, seat: int, action: Action) -> str:
        return describe_action(state, seat, action)


# -- setup helpers ----------------------------------------------------------


def _new_board(rng: Rng) -> dict[str, Any]:
    """§2.4–2.7: strips shuffled into slots, random sides, the wild side down."""
    data = components()
    ids = [s["id"] for s in data["strips"]]
    rng.shuffle(ids)
    strips = []
    for strip_id in ids:
        side = rng.below(2)
        if strip_id == data["wild_strip"] and side == data["wild_side"]:
            side = 1 - side
        strips.append({"id": strip_id, "side": side, "pieces": [None] * 5})
    return {
        "score": 0,
        "track": 0,
        "wraps": 0,
        "glazier": 0,
        "strips": strips,
        "windows": [[None, None] for _ in range(SLOTS)],
        "final": None,
    }


def _draw(bag: list[int], rng: Rng) -> int:
    """Draw one random piece from a bag of per-colour counts."""
    r = rng.below(sum(bag))
    for color, n in enumerate(bag):
        if r < n:
            bag[color] -= 1
            return color
        r -= n
    raise AssertionError("unreachable: r < sum(bag)")


def _refill_factories(state: State, rng: Rng) -> None:
    """§2.9 and §3.3: four pieces a display; refill the bag from the tower once empty."""
    per_factory = components()["pieces_per_factory"]
    bag, tower = state["bag"], state["tower"]
    for factory in state["factories"]:
        for _ in range(per_factory):
            if not any(bag):
                bag[:] = [b + t for b, t in zip(bag, tower, strict=True)]
                tower[:] = [0] * COLORS
                if not any(bag):
                    return
            factory[_draw(bag, rng)] += 1


# -- the glazier (§3.2 B) ---------------------------------------------------


def _leftmost_strip(board: Mapping[str, Any]) -> int | None:
    return next((slot for slot, s in enumerate(board["strips"]) if s is not None), None)


def _can_reset(board: Mapping[str, Any]) -> bool:
    leftmost = _leftmost_strip(board)
    return leftmost is not None and board["glazier"] != leftmost


# -- taking and placing (§3.2 A) --------------------------------------------


def _sources(state: State) -> list[tuple[int | None, list[int]]]:
    sources: list[tuple[int | None, list[int]]] = list(enumerate(state["factories"]))
    sources.append((None, state["center"]))
    return sources


def _free_spaces(strip: Mapping[str, Any], color: int) -> tuple[int, int]:
    """(empty spaces of ``color``, empty wild spaces) on a strip."""
    matching = wild = 0
    for printed, piece in zip(pattern(strip), strip["pieces"], strict=True):
        if piece is None:
            if printed == color:
                matching += 1
            elif printed == WILD:
                wild += 1
    return matching, wild


def _fits(board: Mapping[str, Any], color: int) -> dict[int, tuple[int, int]]:
    """Reachable slots whose strip can take at least one piece of ``color`` (forced
    placement), with their free (matching, wild) spaces."""
    fits = {}
    for slot in range(board["glazier"], SLOTS):
        strip = board["strips"][slot]
        if strip is not None:
            free = _free_spaces(strip, color)
            if any(free):
                fits[slot] = free
    return fits


def _placement(free: tuple[int, int], n: int) -> tuple[int, range]:
    """Pieces placed and the valid numbers of wild spaces to use for them."""
    matching, wild = free
    placed = min(n, matching + wild)
    return placed, range(max(0, placed - matching), min(wild, placed) + 1)


def _completion_colors(strip: Mapping[str, Any], color: int, placed: int) -> list[int] | None:
    """Distinct colours on the strip if placing ``placed`` pieces completes it, else None."""
    pieces = [p for p in strip["pieces"] if p is not None]
    if len(pieces) + placed < len(strip["pieces"]):
        return None
    return sorted({*pieces, color})


def _take_actions(
    board: Mapping[str, Any],
    factory: int | None,
    color: int,
    n: int,
    fits: dict[int, tuple[int, int]],
) -> list[Action]:
    base = {"type": "take", "factory": factory, "color": color}
    if not fits:
        return [{**base, "strip": None, "wild": 0, "keep": None}]
    actions: list[Action] = []
    for slot, free in fits.items():
        strip = board["strips"][slot]
        placed, wild_choices = _placement(free, n)
        keeps: list[int | None] = [None]
        keeps = list(_completion_colors(strip, color, placed) or keeps)
        for wild in wild_choices:
            for keep in keeps:
                actions.append({**base, "strip": slot, "wild": wild, "keep": keep})
    return actions


_TAKE_KEYS = {"type", "factory", "color", "strip", "wild", "keep"}


def _check_keys(action: Mapping[str, Any], keys: set[str]) -> None:
    if set(action) != keys:
        raise IllegalAction("bad_action", f"a {action['type']} action has exactly {sorted(keys)}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_take_shape(action: Action) -> None:
    _check_keys(action, _TAKE_KEYS)
    for key in ("factory", "strip", "keep"):
        if action[key] is not None and not _is_int(action[key]):
            raise IllegalAction("bad_action", f"{key} must be an integer or nil")
    for key in ("color", "wild"):
        if not _is_int(action[key]):
            raise IllegalAction("bad_action", f"{key} must be an integer")


def _check_take(state: State, seat: int, action: Action) -> None:
    """Every rule of §3.2 A / §11 a take must satisfy, each with its own code."""
    factory, color, slot = action["factory"], action["color"], action["strip"]
    if factory is not None and not 0 <= factory < len(state["factories"]):
        raise IllegalAction("no_such_factory", f"there is no factory {factory}")
    if not 0 <= color < COLORS:
        raise IllegalAction("no_such_color", f"there is no colour {color}")
    source = state["center"] if factory is None else state["factories"][factory]
    n = source[color]
    if n == 0:
        raise IllegalAction("color_not_in_source", "that source has no piece of that colour")
    board = state["boards"][seat]
    fits = _fits(board, color)
    if slot is None:
        if fits:
            raise IllegalAction("must_place", "a reachable strip can take this colour")
        if action["wild"] != 0 or action["keep"] is not None:
            raise IllegalAction("bad_action", "breaking everything takes wild=0 and keep=nil")
        return
    if not 0 <= slot < SLOTS or board["strips"][slot] is None:
        raise IllegalAction("no_such_strip", f"there is no strip in slot {slot}")
    if slot < board["glazier"]:
        raise IllegalAction("strip_left_of_glazier", "strips left of the glazier are out of reach")
    if slot not in fits:
        raise IllegalAction("strip_cannot_take", "that strip has no free space for this colour")
    strip = board["strips"][slot]
    placed, wild_choices = _placement(fits[slot], n)
    if action["wild"] not in wild_choices:
        raise IllegalAction(
            "bad_wild_count",
            f"use between {wild_choices.start} and {wild_choices.stop - 1} wild spaces",
        )
    keeps = _completion_colors(strip, color, placed)
    if keeps is None and action["keep"] is not None:
        raise IllegalAction("bad_keep", "keep is nil unless the strip is completed")
    if keeps is not None and action["keep"] not in keeps:
        raise IllegalAction("bad_keep", f"keep one of the strip's colours {keeps}")


def _take(state: State, seat: int, action: Action) -> list[Event]:
    """Apply a checked take: A1 take, A2 place and break, A3 completion."""
    factory, color, slot = action["factory"], action["color"], action["strip"]
    board = state["boards"][seat]
    events: list[Event] = []
    source = state["center"] if factory is None else state["factories"][factory]
    n = source[color]
    source[color] = 0
    if factory is not None:
        state["center"] = [c + s for c, s in zip(state["center"], source, strict=True)]
        source[:] = [0] * COLORS
    event: Event = {"type": "take", "seat": seat, "factory": factory, "color": color, "count": n}
    events.append(event)
    if factory is None and state["center_tile"]:
        state["center_tile"] = False
        state["start"] = seat
        events.append({"type": "start_tile", "seat": seat})
        _break_glass(state, seat, 1, events)
    placed = 0
    if slot is not None:
        board["glazier"] = slot
        strip = board["strips"][slot]
        placed = _place(strip, color, n, action["wild"])
        events.append(
            {"type": "place", "seat": seat, "strip": slot, "color": color, "count": placed}
        )
    broken = n - placed
    if broken:
        state["tower"][color] += broken
        events.append({"type": "break", "seat": seat, "color": color, "count": broken})
        _break_glass(state, seat, broken, events)
    if slot is not None and all(p is not None for p in board["strips"][slot]["pieces"]):
        _complete(state, board, seat, slot, action["keep"], events)
    return events


def _place(strip: dict[str, Any], color: int, n: int, wild: int) -> int:
    """Fill ``wild`` wild spaces and matching spaces for the rest; return how many were placed."""
    placed, _ = _placement(_free_spaces(strip, color), n)
    to_wild, to_color = wild, placed - wild
    for i, printed in enumerate(pattern(strip)):
        if strip["pieces"][i] is not None:
            continue
        if printed == WILD and to_wild:
            to_wild -= 1
        elif printed == color and to_color:
            to_color -= 1
        else:
            continue
        strip["pieces"][i] = color
    return placed


def _track(state: State) -> list[int]:
    """The broken-glass track in play: the value of each space, top first."""
    track: list[int] = components()["broken_glass_tracks"][state["options"]["track"]]
    return track


def _down_the_track(track: list[int], step: int, moves: int) -> tuple[int, int]:
    """§6: the marker's step after ``moves`` spaces down from ``step``, and how
    often it reached the bottom (each time it restarts from the top)."""
    bottom = len(track) - 1
    hits = 0
    for _ in range(moves):
        step += 1
        if step == bottom:
            step, hits = 0, hits + 1
    return step, hits


def _break_glass(state: State, seat: int, steps: int, events: list[Event]) -> None:
    """§6: one space down per step; reaching the bottom costs 18 and wraps to the top."""
    track = _track(state)
    board = state["boards"][seat]
    board["track"], hits = _down_the_track(track, board["track"], steps)
    for _ in range(hits):
        board["wraps"] += 1
        _add_score(state, board, track[-1])
        events.append({"type": "track_wrap", "seat": seat, "points": track[-1]})


def _add_score(state: State, board: dict[str, Any], points: int) -> None:
    board["score"] += points
    if board["score"] < 0 and not state["options"]["negative_scores"]:
        board["score"] = 0


def _completion_points(
    state: State, board: Mapping[str, Any], slot: int, pieces: list[int]
) -> tuple[int, int]:
    """§3.2 A3: (colour bonus, window points) for completing the strip in ``slot``
    with ``pieces`` on it: the round colour's pieces, then the window's printed
    points plus those of every occupied window to its right."""
    round_color = state["indicator"][state["round"] - 1]
    points = components()["window_points"][state["options"]["side"]]
    right = range(slot + 1, SLOTS)
    occupied = sum(points[r] for r in right if board["windows"][r][0] is not None)
    return pieces.count(round_color), points[slot] + occupied


def _complete(
    state: State, board: dict[str, Any], seat: int, slot: int, keep: int, events: list[Event]
) -> None:
    """§3.2 A3: colour bonus, keep one piece for the window, flip or remove, score."""
    strip = board["strips"][slot]
    bonus, scored = _completion_points(state, board, slot, strip["pieces"])
    for piece in strip["pieces"]:
        state["tower"][piece] += 1
    state["tower"][keep] -= 1
    window = board["windows"][slot]
    if window[0] is None:
        window[0] = keep
        strip["side"] = 1 - strip["side"]
        strip["pieces"] = [None] * 5
    else:
        window[1] = keep
        board["strips"][slot] = None
    board["score"] += bonus + scored
    events.append(
        {
            "type": "complete",
            "seat": seat,
            "strip": slot,
            "bonus": bonus,
            "keep": keep,
            "window_points": scored,
            "removed": window[1] is not None,
        }
    )


# -- end of turn, round and game (§3.3, §7, §8) -----------------------------


def _end_turn(state: State, events: list[Event]) -> None:
    if any(map(any, state["factories"])) or any(state["center"]):
        state["turn"] = (state["turn"] + 1) % state["players"]
        return
    round_color = state["indicator"][state["round"] - 1]
    state["tower"][round_color] += 1
    events.append({"type": "round_end", "round": state["round"]})
    if state["round"] == components()["rounds"]:
        _final_scoring(state)
        events.append({"type": "game_end", "scores": [b["score"] for b in state["boards"]]})
        return
    state["round"] += 1
    state["center_tile"] = True
    rng = Rng(state["rng"])
    _refill_factories(state, rng)
    state["rng"] = rng.state
    state["turn"] = state["start"]


def ornament_bonus(windows: list[list[int | None]]) -> int:
    """§7.3 side A: per ornament, points by how many surrounding spaces hold a piece."""
    data = components()
    total = 0
    for ornament in data["ornaments_side_a"]:
        filled = sum(piece is not None for w in ornament for piece in windows[w])
        total += data["ornament_points"][filled]
    return total


def window_colour_bonus(windows: list[list[int | None]]) -> int:
    """§7.3 side B: completed windows x pieces of the best colour in the windows."""
    completed = sum(1 for w in windows if w[1] is not None)
    pieces = [p for w in windows for p in w if p is not None]
    return completed * max((pieces.count(c) for c in range(COLORS)), default=0)


def leftover_points(board: Mapping[str, Any]) -> int:
    """§7.1: one point per three pieces left on the strips."""
    left = sum(p is not None for s in board["strips"] if s is not None for p in s["pieces"])
    return left // 3


def _final_scoring(state: State) -> None:
    track = _track(state)
    side = state["options"]["side"]
    for board in state["boards"]:
        leftover = leftover_points(board)
        penalty = track[board["track"]]
        bonus = (
            ornament_bonus(board["windows"])
            if side == "A"
            else window_colour_bonus(board["windows"])
        )
        before = board["score"]
        _add_score(state, board, leftover)
        _add_score(state, board, penalty)
        _add_score(state, board, bonus)
        board["final"] = {
            "before_final": before,
            "leftover": leftover,
            "broken_glass": penalty,
            "palace_bonus": bonus,
            "glass_lost": 18 * board["wraps"] - penalty,
        }
    state["finished"] = True


def printed(options: Mapping[str, Any]) -> dict[str, Any]:
    """What is printed on the components for a game with ``options``, for clients
    that draw the board without the data file: colour names, rounds, the points
    under the windows, side A's ornaments and their points, the broken-glass track.
    A fresh copy each time: a view never shares lists with the data file."""
    data = components()
    side = options["side"]
    return {
        "colors": [str(c["name"]) for c in data["colors"]],
        "rounds": data["rounds"],
        "window_points": list(data["window_points"][side]),
        "ornaments": [list(o) for o in data["ornaments_side_a"]] if side == "A" else [],
        "ornament_points": list(data["ornament_points"]),
        "track": list(data["broken_glass_tracks"][options["track"]]),
    }


def _board_view(board: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "score": board["score"],
        "track": board["track"],
        "wraps": board["wraps"],
        "glazier": board["glazier"],
        "strips": [
            None
            if s is None
            else {"id": s["id"], "side": s["side"], "pattern": pattern(s), "pieces": s["pieces"]}
            for s in board["strips"]
        ],
        "windows": board["windows"],
        "final": board["final"],
    }


# -- words for people: action labels and the game log -----------------------


def color_name(color: int) -> str:
    """A colour's display name from the data file, e.g. ``"light blue"``."""
    return str(components()["colors"][color]["name"])


def _signed(points: int) -> str:
    """Points as labels show them: ``+5``, ``−2`` (a true minus sign)."""
    return f"−{-points}" if points < 0 else f"+{points}"


def _glass_cost(state: State, step: int, moves: int) -> tuple[str, int]:
    """What ``moves`` more spaces down the broken-glass track from ``step`` cost by
    the end of the game (each −18 hit included, the score floor ignored), in words,
    and the marker's step afterwards."""
    track = _track(state)
    at, hits = _down_the_track(track, step, moves)
    cost = _signed(hits * track[-1] + track[at] - track[step])
    if hits:
        cost += f" (hits {_signed(track[-1])})"
    return cost, at


def describe_action(state: State, seat: int, action: Action) -> str:
    """The label of a legal action, in choice steps joined by ``STEP``.

    A reset is one step ("reset: glazier back to strip 1"). A take is two: what
    is taken ("centre: 3 orange + start tile −1"), then where it goes ("strip
    2: 1 placed, 2 broken −3"); a third step names what is left to choose when
    that placement can be made more than one way (wild spaces used, colour kept
    for the window). Every take of one source, colour and strip has the same
    steps, so no label is the beginning of another. Strips are numbered by slot
    from 1; broken glass is priced by what it costs at the end of the game.
    """
    board = state["boards"][seat]
    if action["type"] == "reset":
        target = _leftmost_strip(board)
        assert target is not None, "a legal reset has a strip to go to"
        back = "back " if target < board["glazier"] else ""
        return f"reset: glazier {back}to strip {target + 1}"
    factory, color, slot = action["factory"], action["color"], action["strip"]
    name = color_name(color)
    count = (state["center"] if factory is None else state["factories"][factory])[color]
    step = board["track"]
    if factory is not None:
        taken = f"factory {factory + 1}: {count} {name}"
    else:
        taken = f"centre: {count} {name}"
        if state["center_tile"]:
            cost, step = _glass_cost(state, step, 1)
            taken += f" + start tile {cost}"
    if slot is None:
        return taken + STEP + f"no strip fits: {count} broken {_glass_cost(state, step, count)[0]}"
    strip = board["strips"][slot]
    placed, wild_choices = _placement(_free_spaces(strip, color), count)
    where = f"strip {slot + 1}: {placed} placed"
    if placed < count:
        where += f", {count - placed} broken {_glass_cost(state, step, count - placed)[0]}"
    keeps = _completion_colors(strip, color, placed)
    if keeps is not None:
        pieces = [p for p in strip["pieces"] if p is not None] + [color] * placed
        where += f", completes {_signed(sum(_completion_points(state, board, slot, pieces)))}"
    choices = []
    if len(wild_choices) > 1:
        wild = action["wild"]
        choices.append(f"use {wild or 'no'} wild space{'s' if wild > 1 else ''}")
    if keeps is not None and len(keeps) > 1:
        choices.append(f"keep {color_name(action['keep'])}")
    return STEP.join([taken, where, *([", ".join(choices)] if choices else [])])


def _pieces(count: int, color: int) -> str:
    return f"{count} {color_name(color)} piece{'s' if count != 1 else ''}"


def narrate_event(event: Event, names: Sequence[str]) -> str:
    """One sentence of the game log for an event ``apply`` emitted."""
    kind = event.get("type")
    who = seat_name(names, event.get("seat"))
    if kind == "take":
        factory = event["factory"]
        source = "the centre" if factory is None else f"factory {factory + 1}"
        return f"{who} takes {_pieces(event['count'], event['color'])} from {source}."
    if kind == "start_tile":
        return (
            f"{who} takes the start tile (one step down the broken-glass track)"
            " and will start the next round."
        )
    if kind == "place":
        return (
            f"{who} places {_pieces(event['count'], event['color'])} on strip {event['strip'] + 1}."
        )
    if kind == "break":
        steps = f"{event['count']} step{'s' if event['count'] != 1 else ''}"
        return (
            f"{who} breaks {_pieces(event['count'], event['color'])}: "
            f"{steps} down the broken-glass track."
        )
    if kind == "track_wrap":
        return (
            f"{who}'s broken-glass marker reaches the bottom: {_signed(event['points'])} points,"
            " and it starts again from the top."
        )
    if kind == "complete":
        slot = event["strip"] + 1
        points = event["window_points"] + event["bonus"]
        parts = f"{event['window_points']} for windows" + (
            f", {event['bonus']} colour bonus" if event["bonus"] else ""
        )
        after = (
            f"window {slot} is finished and the strip leaves the game"
            if event["removed"]
            else "the strip turns over"
        )
        return (
            f"{who} completes strip {slot} and keeps {color_name(event['keep'])} for window"
            f" {slot}: {_signed(points)} ({parts}); {after}."
        )
    if kind == "reset":
        return f"{who} resets the glazier to the leftmost strip, strip {event['slot'] + 1}."
    if kind == "round_end":
        rounds = components()["rounds"]
        then = "final scoring" if event["round"] == rounds else "the factories are refilled"
        return f"Round {event['round']} of {rounds} ends; {then}."
    if kind == "game_end":
        order = sorted(range(len(event["scores"])), key=lambda s: -event["scores"][s])
        scores = ", ".join(f"{seat_name(names, s)} {event['scores'][s]}" for s in order)
        return f"Game over. Final scores: {scores}."
    return narrate_plainly(event, names)
