"""Which web pages may use this server: the cross-origin policy (docs/protocol.md §9).

A browser sends a page's origin with every cross-origin request and every
WebSocket handshake, and can send a ``text/plain`` POST to any site without
asking first. So, by default, only pages of this server itself may change
anything:

* an HTTP request that is not ``GET``/``HEAD``/``OPTIONS`` from another origin
  (its ``Origin`` header, or ``Sec-Fetch-Site: cross-site``/``same-site`` when
  no ``Origin`` is sent) is refused with 403 ``cross_origin``;
* a WebSocket handshake whose ``Origin`` is another origin is refused (HTTP 403);
* CORS headers are sent only to the origins listed in ``allowed_origins``,
  which may also do all of the above (``*``: any origin).

Requests without ``Origin`` (the CLI, bots, any non-browser client) are not
affected. "Same origin" means the ``Origin``'s host and port are the request's
``Host`` header: a reverse proxy must pass the ``Host`` the browser sent.
"""

from __future__ import annotations

import json
import logging
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.logs import fields

log = logging.getLogger("tablewire.origins")

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
POLICY_VIOLATION = 1008
PREFLIGHT_MAX_AGE = "600"


def parse_origins(text: str) -> tuple[str, ...]:
    """``allowed_origins`` (comma-separated ``scheme://host[:port]`` or ``*``) as a tuple."""
    origins = []
    for item in text.split(","):
        origin = item.strip().rstrip("/").lower()
        if not origin:
            continue
        parts = urlsplit(origin)
        if origin != "*" and (
            parts.scheme not in ("http", "https") or not parts.netloc or parts.path
        ):
            raise ValueError(f"allowed_origins: {item.strip()!r} is not scheme://host[:port] or *")
        origins.append(origin)
    return tuple(origins)


class OriginPolicy:
    """ASGI middleware applying the policy above to every HTTP request and WebSocket."""

    def __init__(self, app: ASGIApp, allowed: tuple[str, ...]) -> None:
        self.app = app
        self.allowed = allowed

    def same_origin(self, origin: str, headers: Headers) -> bool:
        """Whether ``origin`` is this request's host; an origin no URL parser reads
        (``http://[::1``) is another site's."""
        host = headers.get("host", "").lower()
        try:
            return bool(host) and urlsplit(origin).netloc == host
        except ValueError:
            return False

    def listed(self, origin: str) -> bool:
        return "*" in self.allowed or origin in self.allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin", "").rstrip("/").lower()
        same = bool(origin) and self.same_origin(origin, headers)
        foreign = bool(origin) and not same
        if scope["type"] == "websocket":
            if foreign and not self.listed(origin):
                log.info("websocket refused", extra=fields(origin=origin, path=scope["path"]))
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": POLICY_VIOLATION})
                return
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        if headers.get("access-control-request-method") and method == "OPTIONS":
            await self.preflight(origin, foreign, send)
            return
        cross_site = headers.get("sec-fetch-site") in ("cross-site", "same-site")
        if method not in SAFE_METHODS and (
            (foreign and not self.listed(origin)) or (not origin and cross_site)
        ):
            log.info("request refused", extra=fields(origin=origin, path=scope["path"]))
            await refuse(send, "requests from other sites are not allowed (allowed_origins)")
            return
        if not (foreign and self.listed(origin)):
            await self.app(scope, receive, send)
            return

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                response_headers = MutableHeaders(scope=message)
                response_headers["access-control-allow-origin"] = origin
                response_headers.add_vary_header("Origin")
            await send(message)

        await self.app(scope, receive, send_with_cors)

    async def preflight(self, origin: str, foreign: bool, send: Send) -> None:
        """A CORS preflight: allowed for listed origins, refused for every other one."""
        if not (foreign and self.listed(origin)):
            await refuse(send, "this origin may not call the lobby (allowed_origins)")
            return
        headers = [
            (b"access-control-allow-origin", origin.encode()),
            (b"access-control-allow-methods", b"GET, POST"),
            (b"access-control-allow-headers", b"content-type"),
            (b"access-control-max-age", PREFLIGHT_MAX_AGE.encode()),
            (b"vary", b"Origin"),
        ]
        await send({"type": "http.response.start", "status": 204, "headers": headers})
        await send({"type": "http.response.body", "body": b""})


async def refuse(send: Send, message: str) -> None:
    """403 with the lobby's JSON error body, code ``cross_origin``."""
    body = json.dumps({"error": {"code": "cross_origin", "message": message}}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"vary", b"Origin"),
    ]
    await send({"type": "http.response.start", "status": 403, "headers": headers})
    await send({"type": "http.response.body", "body": body})
