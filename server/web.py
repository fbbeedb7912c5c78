"""The browser client, served by the server itself (same origin, no build step).

``/`` is the lobby page, ``/rooms/{room_id}`` a room's page (the link to share),
``/static/...`` the ES modules, styles and vendored libraries of
``clients/web/static`` (installed with the package), and ``/games/<id>/...``
each game's own web folder (``engines/<game>/web/``: its board module, style
sheet and data, :func:`game_urls`). Pages carry a Content Security Policy that
lets them reach this server only.

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
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

import engines


def _static() -> Path:
    """``clients/web/static``, found without importing the clients package."""
    spec = importlib.util.find_spec("clients")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the clients package (the browser client's files) is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "web" / "static"


STATIC = _static()
"""The browser client's files (``clients/web/static``)."""

GAME_FILES = {"board": "board.js", "style": "board.css", "words": "words.js"}
"""What ``GET /api/games`` links for each game, from its web folder, when present."""

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
    """The URLs of a game's board module, style sheet and option words (None: absent,
    or an engine registered by hand, without a folder)."""
    folder = game_folder(engine_id) if engine_id in engines.PACKAGES else None
    return {
        key: f"/games/{engine_id}/{name}" if folder and (folder / name).is_file() else None
        for key, name in GAME_FILES.items()
    }


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


def routes(frame_origins: list[str]) -> list[BaseRoute]:
    """The pages, ``/static`` and ``/games/<id>`` for every game with a web folder;
    ``frame_origins`` may embed the pages in a frame."""
    policy = content_security_policy(frame_origins)

    def page(name: str, path: str) -> Route:
        async def endpoint(request: Request) -> Response:
            headers = {
                "cache-control": REVALIDATE,
                "content-security-policy": policy,
                "x-content-type-options": "nosniff",
                "referrer-policy": "same-origin",
            }
            return FileResponse(STATIC / name, media_type="text/html", headers=headers)

        return Route(path, endpoint, methods=["GET", "HEAD"])

    return [
        page("index.html", "/"),
        page("room.html", "/rooms/{room_id}"),
        page("replay.html", "/rooms/{room_id}/replay"),
        page("replay.html", "/replay"),
        Mount("/static", app=Assets(directory=STATIC), name="static"),
        *(
            Mount(f"/games/{engine_id}", app=Assets(directory=game_folder(engine_id)))
            for engine_id in engines.PACKAGES
            if game_folder(engine_id).is_dir()
        ),
    ]
