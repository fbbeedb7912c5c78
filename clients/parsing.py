"""argparse as the ``tablewire`` command uses it: one-line usage errors, the exit-status
table kept as written, and help that says when it cannot be written.

argparse passes over a print that fails (``tablewire --help > /dev/full`` was status 0,
the help lost unseen); here help and version end as any command's output that cannot
be written does (:func:`~clients.exits.unwritten`), and a usage error is status 2
whatever becomes of its line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import IO, NoReturn

from clients.exits import CLOSED, EXIT_STATUSES, Status, say, unwritten


class Formatter(argparse.HelpFormatter):
    """Descriptions wrapped to the terminal; the exit-status table kept as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text == EXIT_STATUSES:
            return text
        return super()._fill_text(text, width, indent)


class Parser(argparse.ArgumentParser):
    """Command-line mistakes in one line, pointing at the help."""

    def error(self, message: str) -> NoReturn:
        """The one line, with what the user typed shown as Python shows it in a string
        (``\\x1b``, ``\\n``): an argument not taken is echoed as it came, and its escape
        sequence would reach the terminal, its line break make two lines."""
        shown = "".join(
            c if c.isprintable() else c.encode("unicode_escape").decode() for c in message
        )
        say(f"{self.prog}: {shown}. See `{self.prog} --help`.")
        self.exit(Status.USAGE)

    def _print_message(  # type: ignore[override]  # argparse gives it sys.stdout
        self, message: str, file: IO[str] | None = None
    ) -> None:
        """Help and version, on standard output (None when it is closed): argparse's
        only prints besides :meth:`error`'s."""
        if not message:
            return
        if file is None:
            print(CLOSED, file=sys.stderr)
            sys.exit(Status.FAILED)
        try:
            file.write(message)
            file.flush()
        except OSError as exc:
            sys.exit(unwritten(exc))


class CommandParser(Parser):
    """A command's parser: what it does not take is refused naming the command
    (``tablewire serve: unrecognized arguments``), not the top-level ``tablewire``."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras
