"""The image's health check (Dockerfile ``HEALTHCHECK``: ``python -m server.probe``):
``GET /healthz`` of the server the environment's settings describe, on this machine.

Exit status 0 if it answers 200; else 1 and one line on stderr. It reads
``TABLEWIRE_HOST`` and ``TABLEWIRE_PORT`` as ``tablewire serve`` does, so a container
told to listen elsewhere than 8000 is asked there, not on a port nobody serves.
"""

from __future__ import annotations

import sys
import urllib.request

from server.settings import Settings

TIMEOUT = 2.0
"""Seconds the probe waits for the answer (the Dockerfile gives the check 3)."""


def local_url(settings: Settings) -> str:
    """The address a client on this machine reaches the server at."""
    host = settings.host
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"  # every address: this machine's is one of them
    elif host == "::":
        host = "::1"  # every IPv6 address (only: asyncio binds it IPv6-only)
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{settings.port}"


def main() -> int:
    url = ""
    try:
        url = local_url(Settings.from_env()) + "/healthz"
        with urllib.request.urlopen(url, timeout=TIMEOUT) as answer:
            status = answer.status
    except (OSError, ValueError) as exc:  # refused, timed out, an HTTP error, a setting
        print(f"tablewire probe: {url or 'settings'}: {exc}", file=sys.stderr)
        return 1
    return 0 if status == 200 else 1


if __name__ == "__main__":
    sys.exit(main())
