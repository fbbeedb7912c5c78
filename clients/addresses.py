"""Server addresses as users type them, and the WebSocket address of a server.

Plain string handling with no network library, so that ``tablewire serve`` can check
its command line without loading the clients' HTTP stack."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_USERINFO = re.compile(r"(^|//)[^/?#]*@")
"""A ``user:password@``: from the start of an address, or after its scheme's ``//``, to
its last ``@`` (a password may hold a comma, so a list of addresses loses a host
rather than show part of a password)."""
_QUERY = re.compile(r"[?#].*?(?=,[A-Za-z][A-Za-z0-9+.-]*://|$)")
"""A query or fragment, up to the next address of a comma-separated list."""


def server_url(text: str) -> str:
    """A server address as a user may type it → ``http(s)://host:port``.

    ``host:port`` and ``host`` mean ``http://``, ``:port`` means this machine; ``ws://``
    and ``wss://`` are read as ``http://`` and ``https://``. Raises ``ValueError``
    saying what is wrong.
    """
    text = text.strip()
    if any(c.isspace() or not c.isprintable() for c in text):  # urlsplit drops tabs
        raise ValueError("an address may not hold spaces or control characters")
    if text.startswith(":"):
        text = "127.0.0.1" + text
    if "://" not in text:
        text = "http://" + text
    parts = urlsplit(text)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme.lower(), parts.scheme.lower())
    if scheme not in ("http", "https"):
        raise ValueError(f"{parts.scheme}:// is not a server address; use host:port or http://")
    if not parts.hostname:
        raise ValueError("the address has no host name")
    try:
        parts.port  # noqa: B018  (reading it checks it)
    except ValueError:
        raise ValueError("the port must be a number from 1 to 65535") from None
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError("give only the host and port, no path")
    return f"{scheme}://{parts.netloc}"


def ws_url(http_url: str) -> str:
    """``http://host:port`` → ``ws://host:port`` (and https → wss)."""
    if http_url.startswith("https://"):
        return "wss://" + http_url[len("https://") :]
    return "ws://" + http_url.removeprefix("http://")


def http_base(url: str) -> str:
    """``http(s)://host:port`` of a URL (``ws`` → ``http``)."""
    parts = urlsplit(url)
    return f"{ {'ws': 'http', 'wss': 'https'}.get(parts.scheme, parts.scheme) }://{parts.netloc}"


def shown(text: str) -> str:
    """An address (or comma-separated addresses) as the clients print it, in a hint or
    an error: without what may be a secret, a ``user:password@`` and a query or
    fragment (``http://ana:pw@host:8000/?token=t`` → ``http://host:8000/``), so stderr,
    which ends up in logs and chats, holds none. The address itself keeps them."""
    return _USERINFO.sub(r"\1", _QUERY.sub("", text))
