"""How-to-play pages: ``GET /rules/{engine}``, one HTML page per game, built from the game
folder's ``rules.md`` and its option metadata, with nothing else to edit for a new game.

``rules.md`` is CommonMark rendered here with markdown-it-py, raw HTML off: whatever
markup the file holds is shown as text, never run. Level-2 and level-3 headings get ids
from their words (``## A round`` → ``#a-round``), which the in-room help links to
(``web/help.json``). A paragraph that is only a board marker, ``[board]`` or
``[board N]`` with an optional caption after it (``[board 20] Strips filling up.``),
becomes a picture drawn by the game's own board module (``web/board.js``, as in a room):
the spectator's view of a game of :data:`SEED` with default options after ``N`` moves
(none: a fresh game), each seat played by the game's strongest bot, so only what a
spectator may see is in the page. The room options follow as named house rules, one line
each, from ``GET /api/games``'s metadata (``name``, ``description``).

The views ride in each picture's ``data-example`` attribute (JSON); ``static/rules.js``
draws them. A game without a board module gets no pictures (the marker is dropped).
"""

from __future__ import annotations

import html
import itertools
import json
import re
from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

import engines
from engines.base import Engine
from server import robots

SEED = 20260101
"""The seed of every example position (fixed: a page shows the same pictures each time)."""

NAMES = ("Ada", "Ben", "Cleo", "Dev", "Eve", "Finn")
"""The players' names in example positions."""

MARKER = re.compile(r"\[board(?: (?P<moves>\d{1,4}))?\](?:\s+(?P<caption>.+))?", re.DOTALL)
"""A paragraph drawn as an example position: ``[board]``, ``[board N] caption``."""


def slug(words: str) -> str:
    """A heading's id: its words in lower case, joined by hyphens (``A round`` → ``a-round``)."""
    return re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-") or "section"


def players(engine: Engine) -> int:
    """The seats of an example game: three where the game allows it."""
    return min(max(3, engine.min_players), engine.max_players)


@cache
def example(engine_id: str, moves: int) -> dict[str, Any]:
    """A room document (as a board is given one) of an example game after ``moves`` moves,
    as a spectator sees it: the strongest bot plays the seat to act (the lowest first
    when several are), from :data:`SEED` with the default options."""
    engine = engines.ENGINES[engine_id]
    count = players(engine)
    state = engine.setup(count, {}, SEED)
    kind = robots.default_kind(engine)
    for version in range(moves):
        to_act = engine.to_act(state)
        if not to_act:
            break
        seat = min(to_act)
        action = robots.decide(engine, state, seat, kind, SEED, version)
        state, _ = engine.apply(state, seat, action)
    return {
        "status": "finished" if engine.result(state) is not None else "playing",
        "seats": list(NAMES[:count]),
        "to_act": sorted(engine.to_act(state)),
        "game": engine.view(state, None),
    }


def _caption(moves: int, count: int) -> str:
    if moves == 0:
        return f"A new game for {count}, as a spectator sees it."
    return f"The same game after {moves} moves."


def _markers(tokens: list[Token], drawn: bool) -> list[Token]:
    """``tokens`` with each marker paragraph replaced by one ``board_example`` token (its
    ``meta``: ``moves``, ``caption``), or dropped when the game has no board to draw it."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        found = None
        if tokens[i].type == "paragraph_open" and i + 2 < len(tokens):
            found = MARKER.fullmatch(tokens[i + 1].content.strip())
        if found is None:
            out.append(tokens[i])
            i += 1
            continue
        if drawn:
            token = Token("board_example", "figure", 0)
            token.meta = {"moves": int(found["moves"] or 0), "caption": found["caption"]}
            out.append(token)
        i += 3
    return out


def _heading_ids(tokens: list[Token]) -> None:
    """Give level-2 and level-3 headings an id from their words (unique in the page)."""
    taken: set[str] = {"house-rules"}
    for opening, inline in itertools.pairwise(tokens):
        if opening.type == "heading_open" and opening.tag in ("h2", "h3"):
            base = name = slug(inline.content)
            n = 2
            while name in taken:
                name, n = f"{base}-{n}", n + 1
            taken.add(name)
            opening.attrSet("id", name)


def _parser(engine: Engine) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False})

    def figure(
        self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        moves = int(tokens[idx].meta["moves"])
        doc = json.dumps(example(engine.id, moves), separators=(",", ":"))
        caption = tokens[idx].meta["caption"] or _caption(moves, players(engine))
        return (
            f'<figure class="rules-board">'
            f'<div class="rules-picture" data-board="{html.escape(engine.id)}" '
            f'data-example="{html.escape(doc)}"></div>'
            f"<figcaption>{html.escape(caption.strip())}</figcaption></figure>\n"
        )

    md.add_render_rule("board_example", figure)
    return md


def body(engine: Engine, text: str, drawn: bool) -> str:
    """``rules.md``'s ``text`` as HTML: headings with ids, markers as pictures (``drawn``:
    the game has a board module), raw HTML escaped."""
    md = _parser(engine)
    tokens = _markers(md.parse(text), drawn)
    _heading_ids(tokens)
    rendered: str = md.renderer.render(tokens, md.options, {})
    return rendered


def house_rules(options: Mapping[str, Mapping[str, Any]]) -> str:
    """The room options as named house rules, one line each (HTML)."""
    if not options:
        return ""
    lines = "".join(
        f"<li><strong>{html.escape(spec.get('name') or key.replace('_', ' ').capitalize())}."
        f"</strong> {html.escape(str(spec.get('description', '')))}</li>"
        for key, spec in options.items()
    )
    return (
        '<section aria-labelledby="house-rules"><h2 id="house-rules">House rules</h2>'
        "<p>Whoever creates a room may change these before the game starts; "
        "left alone, the game is played as described above.</p>"
        f'<ul class="house-rules">{lines}</ul></section>'
    )


def document(title: str, main: str, main_class: str = "", head: str = "") -> str:
    """A whole server-rendered page (the rules, their 404, :data:`server.web.MISSING_PAGE`):
    ``title`` (HTML) before " · tablewire", ``main`` the inside of its ``<main>``, ``head``
    more of its ``<head>``."""
    classes = f' class="{main_class}"' if main_class else ""
    return f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{title} · tablewire</title>
  <link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/static/style.css">{head}
</head>
<body>
  <main{classes}>
{main}
  </main>
</body>
</html>
"""


@lru_cache(maxsize=32)
def page(engine_id: str, text: str, drawn: bool) -> str:
    """The whole how-to-play page of a game from its ``rules.md`` ``text``, rendered
    once per text (a request reads the file; an edited file is rendered again)."""
    engine = engines.ENGINES[engine_id]
    title = html.escape(engine.title)
    main = f"""    <p><a href="/">← lobby</a></p>
    <article class="card rules-text">
{body(engine, text, drawn)}{house_rules(engine.options)}
    </article>
    <p class="row actions"><a class="button" href="/">Play {title} in the lobby</a></p>"""
    script = '\n  <script type="module" src="/static/rules.js"></script>'
    return document(f"How to play {title}", main, "rules-page", script)


def missing(engine_id: str) -> str:
    """The page for an unknown game (or one without ``rules.md``): what there is instead."""
    games = "".join(
        f'<li><a href="/rules/{html.escape(id_)}">{html.escape(game.title)}</a></li>'
        for id_, game in engines.GAMES.items()
        if source(id_) is not None
    )
    main = f"""    <section class="card">
      <h1>No such game</h1>
      <p>This server has no game called “{html.escape(engine_id)}”, so there are no rules
        to show. The games it has:</p>
      <ul>{games}</ul>
      <p><a class="button" href="/">Back to the lobby</a></p>
    </section>"""
    return document("No such game", main, "rules-page")


def source(engine_id: str) -> Path | None:
    """A game's ``rules.md``, or None: no such engine, or its folder has none."""
    if engine_id not in engines.PACKAGES:
        return None
    path = engines.folder(engine_id) / "rules.md"
    return path if path.is_file() else None
