"""The browser client, served by the server itself (same origin, no build step).

``/`` is the lobby page, ``/rooms/{room_id}`` a room's page (the link to share),
``/rules/{engine}`` a game's how-to-play page (server/rules.py), ``/static/...``
the ES modules, styles and vendored libraries of ``clients/web/static`` (installed
with the package), and ``/games/<id>/...`` each game's own web folder
(``engines/<game>/web/``: its board module, style sheet and data, :func:`game_urls`).
Pages carry a Content Security Policy that lets them reach this server only. A browser
opening an address that is no page gets a 404 page in words (:data:`MISSING_PAGE`);
programs, and files, keep the JSON ``not_found``.

Cache policy: pages and the app's own modules are revalidated on every load
(``no-cache``: a 304 when unchanged, so a deploy is seen at once); the vendored
libraries, pinned by version, are cached for a day.
"""

from __future__ import annotations

import importlib.util
import mimetypes
import os
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

import engines
from server import rules


def _static() -> Path:
    """``clients/web/static``, found without importing the clients package."""
    spec = importlib.util.find_spec("clients")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the clients package (the browser client's files) is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "web" / "static"


STATIC = _static()
"""The browser client's files (``clients/web/static``)."""

GAME_FILES = {"board": "board.js", "style": "board.css", "words": "words.js", "help": "help.json"}
"""What ``GET /api/games`` links for each game, from its web folder, when present (and
``rules``, its how-to-play page, when its folder has ``rules.md``)."""

REVALIDATE = "no-cache"
VENDOR_MAX_AGE = "public, max-age=86400"

# ES modules must be served as JavaScript whatever the system's mime.types says.
mimetypes.add_type("text/javascript", ".js")
mimetypes.add_type("text/javascript", ".mjs")


def content_security_policy(frame_origins: list[str]) -> str:
    """The pages' CSP: everything from this server only; framed by itself and ``frame_origins``."""
    ancestors = " ".join(["'self'", *frame_origins])
    return (
        "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
        f"object-src 'none'; base-uri 'none'; frame-ancestors {ancestors}"
    )


def game_folder(engine_id: str) -> Path:
    """A game's web folder (``engines/<game>/web``)."""
    return engines.folder(engine_id) / "web"


def game_urls(engine_id: str) -> dict[str, str | None]:
    """The URLs of a game's board module, style sheet, option words, in-room help and
    how-to-play page (None: absent, or an engine registered by hand, without a folder)."""
    folder = game_folder(engine_id) if engine_id in engines.PACKAGES else None
    urls = {
        key: f"/games/{engine_id}/{name}" if folder and (folder / name).is_file() else None
        for key, name in GAME_FILES.items()
    }
    urls["rules"] = f"/rules/{engine_id}" if rules.source(engine_id) is not None else None
    return urls


class Assets(StaticFiles):
    """``clients/web/static`` and the games' web folders with the cache policy above."""

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        vendored = scope["path"].startswith("/static/vendor/")
        response.headers["cache-control"] = VENDOR_MAX_AGE if vendored else REVALIDATE
        response.headers["x-content-type-options"] = "nosniff"
        return response


def page_headers(frame_origins: list[str]) -> dict[str, str]:
    """The headers of every page; ``frame_origins`` may embed them in a frame."""
    return {
        "cache-control": REVALIDATE,
        "content-security-policy": content_security_policy(frame_origins),
        "x-content-type-options": "nosniff",
        "referrer-policy": "same-origin",
    }


# Paths that are never a page: a 404 there stays the JSON error of docs/protocol.md §8.
NOT_PAGES = ("/api/", "/ws/", "/static/", "/games/", "/metrics")

MISSING_PAGE = rules.document(
    "No such page",
    """    <section class="card">
      <h1>No such page</h1>
      <p>This server has no page at this address: the link may be mistyped or cut short.
        A room's link is <code>/rooms/</code> and the room's id.</p>
      <p><a class="button" href="/">Back to the lobby</a></p>
    </section>""",
)
"""The 404 of a browser's page request (:func:`wants_page`): in words, with the way back."""


def wants_page(request: Request) -> bool:
    """Whether a request that found nothing is a browser opening a page (a GET of HTML,
    outside the API and the files), to answer with :data:`MISSING_PAGE`."""
    return (
        request.method in ("GET", "HEAD")
        and not request.url.path.startswith(NOT_PAGES)
        and "text/html" in request.headers.get("accept", "")
    )


def routes(headers: dict[str, str]) -> list[BaseRoute]:
    """The pages (with ``headers``: :func:`page_headers`), ``/static`` and
    ``/games/<id>`` for every game with a web folder."""

    def page(name: str, path: str) -> Route:
        async def endpoint(request: Request) -> Response:
            return FileResponse(STATIC / name, media_type="text/html", headers=headers)

        return Route(path, endpoint, methods=["GET", "HEAD"])

    def how_to_play(request: Request) -> Response:
        """A game's rules page, or a 404 page in words (a plain function: Starlette runs it
        in a thread, and the first call plays the example games)."""
        engine_id = request.path_params["engine_id"]
        found = rules.source(engine_id)
        if found is None:
            return HTMLResponse(rules.missing(engine_id), status_code=404, headers=headers)
        text = found.read_text(encoding="utf-8")
        drawn = game_urls(engine_id)["board"] is not None
        return HTMLResponse(rules.page(engine_id, text, drawn), headers=headers)

    return [
        page("index.html", "/"),
        page("room.html", "/rooms/{room_id}"),
        page("replay.html", "/rooms/{room_id}/replay"),
        page("replay.html", "/replay"),
        Route("/rules/{engine_id}", how_to_play, methods=["GET", "HEAD"]),
        Mount("/static", app=Assets(directory=STATIC), name="static"),
        *(
            Mount(f"/games/{engine_id}", app=Assets(directory=game_folder(engine_id)))
            for engine_id in engines.PACKAGES
            if game_folder(engine_id).is_dir()
        ),
    ]
