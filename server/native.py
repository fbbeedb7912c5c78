"""Which modules run compiled, and which compiled ones are older than their source.

``setup.py`` compiles the modules a move runs through with mypyc wherever it can
(``make`` does): each becomes an extension module beside its ``.py`` file. Python
loads the extension first, so after an edit of the source the old compiled code
would go on running until the next build. :func:`stale` finds such modules in a
source checkout: the test suite refuses to run with one, and ``tablewire serve``
says so in its log. (An installed package has no source to edit: nothing there is
ever stale.)
"""

from __future__ import annotations

import importlib.machinery
from pathlib import Path

PACKAGES = ("server", "protocol", "engines")
"""The packages that may hold compiled modules."""

ROOT = Path(__file__).resolve().parent.parent
"""Where the packages are: a source checkout (with ``setup.py``) or site-packages."""


def _extensions(root: Path) -> list[Path]:
    return [
        extension
        for package in PACKAGES
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
        for extension in (root / package).rglob(f"*{suffix}")
    ]


def compiled(root: Path = ROOT) -> list[Path]:
    """The source files whose module runs compiled (an extension module beside them)."""
    found = set()
    for extension in _extensions(root):
        stem = extension.name.split(".", 1)[0]
        source = extension.with_name(stem + ".py")
        if source.exists():
            found.add(source)
    return sorted(found)


def stale(root: Path = ROOT) -> list[Path]:
    """The source files of a checkout edited since its last build.

    The build's time is that of its newest extension module: the modules are
    compiled together, into one library, and ``make`` touches them all once built
    (a build may leave an unchanged module's file as it was).
    """
    if not (root / "setup.py").exists():
        return []
    extensions = _extensions(root)
    if not extensions:
        return []
    built = max(extension.stat().st_mtime for extension in extensions)
    return [source for source in compiled(root) if source.stat().st_mtime > built]
