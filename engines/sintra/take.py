"""The *take* action (§3.2 A, §11): which strips a colour fits, every legal take, the
checks a take must pass (each with its own reject code), and applying one: A1 take
from a factory or the centre, A2 place and break, A3 complete a strip."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.base import Action, Event, IllegalAction, State
from engines.sintra.data import COLORS, SLOTS, WILD, components, pattern
from engines.sintra.glass import break_glass


def free_spaces(strip: Mapping[str, Any], color: int) -> tuple[int, int]:
    """(empty spaces of ``color``, empty wild spaces) on a strip."""
    matching = wild = 0
    for printed, piece in zip(pattern(strip), strip["pieces"], strict=True):
        if piece is None:
            if printed == color:
                matching += 1
            elif printed == WILD:
                wild += 1
    return matching, wild


def fitting_strips(board: Mapping[str, Any], color: int) -> dict[int, tuple[int, int]]:
    """Reachable slots whose strip can take at least one piece of ``color`` (forced
    placement), with their free (matching, wild) spaces."""
    fits = {}
    for slot in range(board["glazier"], SLOTS):
        strip = board["strips"][slot]
        if strip is not None:
            free = free_spaces(strip, color)
            if any(free):
                fits[slot] = free
    return fits


def placement(free: tuple[int, int], n: int) -> tuple[int, range]:
    """Pieces placed and the valid numbers of wild spaces to use for them."""
    matching, wild = free
    placed = min(n, matching + wild)
    return placed, range(max(0, placed - matching), min(wild, placed) + 1)


def completion_colors(strip: Mapping[str, Any], color: int, placed: int) -> list[int] | None:
    """Distinct colours on the strip if placing ``placed`` pieces completes it, else None."""
    pieces = [p for p in strip["pieces"] if p is not None]
    if len(pieces) + placed < len(strip["pieces"]):
        return None
    return sorted({*pieces, color})


def take_actions(
    board: Mapping[str, Any],
    factory: int | None,
    color: int,
    n: int,
    fits: dict[int, tuple[int, int]],
) -> list[Action]:
    """Every legal take of ``n`` pieces of ``color`` from ``factory``, given the strips it fits."""
    base = {"type": "take", "factory": factory, "color": color}
    if not fits:
        return [{**base, "strip": None, "wild": 0, "keep": None}]
    actions: list[Action] = []
    for slot, free in fits.items():
        strip = board["strips"][slot]
        placed, wild_choices = placement(free, n)
        keeps: list[int | None] = [None]
        keeps = list(completion_colors(strip, color, placed) or keeps)
        for wild in wild_choices:
            for keep in keeps:
                actions.append({**base, "strip": slot, "wild": wild, "keep": keep})
    return actions


_TAKE_KEYS = {"type", "factory", "color", "strip", "wild", "keep"}


def check_keys(action: Mapping[str, Any], keys: set[str]) -> None:
    """A ``bad_action`` unless the action has exactly ``keys``."""
    if set(action) != keys:
        raise IllegalAction(
            "bad_action", f"a {action['type']} move has exactly: {', '.join(sorted(keys))}"
        )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_take_shape(action: Action) -> None:
    """A ``bad_action`` unless a take has its keys, each an int (or None where allowed)."""
    check_keys(action, _TAKE_KEYS)
    for key in ("factory", "strip", "keep"):
        if action[key] is not None and not _is_int(action[key]):
            raise IllegalAction("bad_action", f"{key} must be a whole number or none")
    for key in ("color", "wild"):
        if not _is_int(action[key]):
            raise IllegalAction("bad_action", f"{key} must be a whole number")


def check_take(state: State, seat: int, action: Action) -> None:
    """Every rule of §3.2 A / §11 a take must satisfy, each with its own code."""
    factory, color, slot = action["factory"], action["color"], action["strip"]
    if factory is not None and not 0 <= factory < len(state["factories"]):
        raise IllegalAction("no_such_factory", "there is no such factory")
    if not 0 <= color < COLORS:
        raise IllegalAction("no_such_color", "there is no such colour")
    source = state["center"] if factory is None else state["factories"][factory]
    n = source[color]
    if n == 0:
        raise IllegalAction("color_not_in_source", "that source has no piece of that colour")
    board = state["boards"][seat]
    fits = fitting_strips(board, color)
    if slot is None:
        if fits:
            raise IllegalAction("must_place", "a reachable strip can take this colour")
        if action["wild"] != 0 or action["keep"] is not None:
            raise IllegalAction(
                "bad_action", "breaking every piece takes no wild space and keeps no colour"
            )
        return
    if not 0 <= slot < SLOTS or board["strips"][slot] is None:
        raise IllegalAction("no_such_strip", "there is no such strip")
    if slot < board["glazier"]:
        raise IllegalAction("strip_left_of_glazier", "strips left of the glazier are out of reach")
    if slot not in fits:
        raise IllegalAction("strip_cannot_take", "that strip has no free space for this colour")
    strip = board["strips"][slot]
    placed, wild_choices = placement(fits[slot], n)
    if action["wild"] not in wild_choices:
        raise IllegalAction(
            "bad_wild_count",
            f"use between {wild_choices.start} and {wild_choices.stop - 1} wild spaces",
        )
    keeps = completion_colors(strip, color, placed)
    if keeps is None and action["keep"] is not None:
        raise IllegalAction("bad_keep", "you keep a colour only when you complete a strip")
    if keeps is not None and action["keep"] not in keeps:
        raise IllegalAction("bad_keep", "keep one of the colours of the strip you complete")


def take(state: State, seat: int, action: Action) -> list[Event]:
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
        break_glass(state, seat, 1, events)
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
        break_glass(state, seat, broken, events)
    if slot is not None and all(p is not None for p in board["strips"][slot]["pieces"]):
        _complete(state, board, seat, slot, action["keep"], events)
    return events


def _place(strip: dict[str, Any], color: int, n: int, wild: int) -> int:
    """Fill ``wild`` wild spaces and matching spaces for the rest; return how many were placed."""
    placed, _ = placement(free_spaces(strip, color), n)
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


def completion_points(
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
    bonus, scored = completion_points(state, board, slot, strip["pieces"])
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
