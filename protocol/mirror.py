"""A client's local copy of its view, kept up to date from snapshots and patches.

This is the client half of principle 5 of the design: a snapshot sets the
document and its version; a patch ``from -> to`` applies only when ``from`` is
the version held. Anything else (a gap, a patch that does not fit) leaves the
mirror *stale*, and the client asks for a ``resync``.
"""

from __future__ import annotations

from typing import Any

from protocol.compact import Entry, expand
from protocol.diff import PatchError, apply_patch


class Mirror:
    """The last known version of a document, or ``None`` before the first snapshot."""

    def __init__(self) -> None:
        self.version: int | None = None
        self.doc: Any = None
        self.stale = False
        self.keys: list[Entry] | None = None
        """Protocol 2: the key table of ``welcome.keys``, and patches' ops are compact."""

    def snapshot(self, version: int, doc: Any) -> None:
        """Replace the document with a snapshot."""
        self.version, self.doc, self.stale = version, doc, False

    def patch(self, from_version: int, to_version: int, ops: list[Any]) -> bool:
        """Apply a patch; False (and ``stale``) when it does not follow the held version.

        A patch older than the held version is a duplicate and is ignored.
        """
        if self.version is not None and to_version <= self.version:
            return True
        if self.version != from_version or self.stale:
            self.stale = True
            return False
        try:
            keys = self.keys
            self.doc = apply_patch(self.doc, ops if keys is None else expand(keys, ops))
        except PatchError:
            # The document may be half-patched now; stale until the next snapshot.
            self.stale = True
            return False
        self.version = to_version
        return True
