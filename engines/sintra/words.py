"""Sintra in words for people: the labels of legal actions (``describe``, broken
glass priced by what it costs at the end of the game) and the game log's sentences
(``narrate``)."""

from __future__ import annotations

from collections.abc import Sequence

from engines.base import STEP, Action, Event, State, narrate_plainly, seat_name
from engines.sintra.board import leftmost_strip
from engines.sintra.data import components
from engines.sintra.glass import down_the_track, glass_track
from engines.sintra.take import completion_colors, completion_points, free_spaces, placement


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
    track = glass_track(state)
    at, hits = down_the_track(track, step, moves)
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
        target = leftmost_strip(board)
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
    placed, wild_choices = placement(free_spaces(strip, color), count)
    where = f"strip {slot + 1}: {placed} placed"
    if placed < count:
        where += f", {count - placed} broken {_glass_cost(state, step, count - placed)[0]}"
    keeps = completion_colors(strip, color, placed)
    if keeps is not None:
        pieces = [p for p in strip["pieces"] if p is not None] + [color] * placed
        where += f", completes {_signed(sum(completion_points(state, board, slot, pieces)))}"
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
