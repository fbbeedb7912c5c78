"""The ``tablewire`` command run as a user runs it: a subprocess, its exit status and
its output, and the one line a failing command must print."""

from __future__ import annotations

import asyncio
import os
import subprocess

from clients.spawn import TABLEWIRE


async def run(
    *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        TABLEWIRE,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "COLUMNS": "80", "LINES": "24", **(env or {})},
    )
    out, err = await process.communicate(stdin)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def started(*args: str) -> asyncio.subprocess.Process:
    """``tablewire ARGS`` left running (``bots`` playing a room), its input and output
    piped."""
    pipe = asyncio.subprocess.PIPE
    return await asyncio.create_subprocess_exec(
        TABLEWIRE, *args, stdin=pipe, stdout=pipe, stderr=pipe
    )


def run_redirected(command: str, redirect: str) -> subprocess.CompletedProcess[str]:
    """``tablewire COMMAND`` with its output sent where the shell's ``redirect`` says
    (``> /dev/full``, a full disk; ``>&-`` or ``2>&-``, closed), its output and status."""
    return subprocess.run(
        ["sh", "-c", f'exec "$0" {command} {redirect}', TABLEWIRE],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def one_line(err: str) -> str:
    """The one line a failed command prints; never a traceback."""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]
