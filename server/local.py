"""Servers running on this machine: ``tablewire serve`` leaves its address where the
client commands find it, so ``tablewire play`` needs no ``--server`` for a server
started on another port.

Each running server has one small JSON file, ``{"url", "pid"}``, named by its process
id, in ``$XDG_RUNTIME_DIR/tablewire/servers`` (or ``tablewire-<uid>/servers`` under
the system's temporary folder), readable by its user only. The server removes it when
it stops; a file whose process is gone (a server killed with SIGKILL) is ignored and
removed by the next reader.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path


def folder() -> Path:
    """Where running servers leave their address."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return Path(runtime) / "tablewire" / "servers"
    return Path(tempfile.gettempdir()) / f"tablewire-{os.getuid()}" / "servers"


def _ours(where: Path) -> bool:
    """The folder is this user's alone (under /tmp, another user could have made it)."""
    found = where.stat()
    return found.st_uid == os.getuid() and not found.st_mode & 0o022


def announce(url: str) -> Path:
    """Leave this process's address for the client commands; the file written."""
    where = folder()
    where.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not _ours(where):
        raise PermissionError(f"{where} is not this user's own folder")
    path = where / f"{os.getpid()}.json"
    path.write_text(json.dumps({"url": url, "pid": os.getpid()}))
    return path


def withdraw() -> None:
    """Remove this process's address (it stops serving)."""
    with contextlib.suppress(OSError):
        (folder() / f"{os.getpid()}.json").unlink()


def running() -> list[str]:
    """The addresses of the servers running on this machine, oldest first."""
    found: list[tuple[float, str]] = []
    where = folder()
    with contextlib.suppress(OSError):
        if not _ours(where):
            return []
        for path in where.glob("*.json"):
            try:
                entry = json.loads(path.read_text())
                url, pid = str(entry["url"]), int(entry["pid"])
                alive = _alive(pid)
                stamp = path.stat().st_mtime
            except (OSError, ValueError, KeyError, TypeError):
                continue  # being written, or not ours: skipped, not removed
            if alive:
                found.append((stamp, url))
            else:
                with contextlib.suppress(OSError):
                    path.unlink()
    return [url for _, url in sorted(found)]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process holds that id: not ours to judge
    return True
