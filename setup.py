"""Build hooks for the optional compiled parts (everything else is in pyproject.toml).

* ``protocol._speedups``: the state diff and protocol 2's compaction in C
  (protocol/_speedups.c).
* The modules of :data:`NATIVE` (pyproject.toml's one list, ``[tool.tablewire]
  native``), compiled with mypyc: the same Python source, turned
  into C extension modules that run a move in about two thirds of the instructions
  (benchmarks/README.md). mypyc comes with mypy, so this happens where mypy is
  importable at build time: ``make`` installs with ``--no-build-isolation`` from a
  ``.venv`` that has it, and so does the Docker image. Anywhere else (a plain
  ``pip install .``), or with ``TABLEWIRE_PURE=1``, the package is plain Python.

Both are optional: without a C compiler the build goes on and the package runs its
Python source. A compiled module takes the place of its ``.py`` file (Python loads an
extension module first), so after editing one of :data:`NATIVE` run ``make`` again
(it rebuilds), or ``make pure`` to run the source; ``server.native`` warns of a
compiled module older than its source.
"""

import os
import tomllib
from pathlib import Path

from setuptools import Extension, setup

CONFIG = tomllib.loads(Path(__file__).with_name("pyproject.toml").read_text())
NATIVE: list[str] = CONFIG["tool"]["tablewire"]["native"]
"""The modules to compile (paths from the repository's root)."""


def native() -> list[Extension]:
    if os.environ.get("TABLEWIRE_PURE"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    modules: list[Extension] = mypycify(NATIVE, opt_level="3", group_name="server._native")
    for module in modules:
        module.optional = True  # no compiler: the Python source runs instead
    return modules


setup(
    ext_modules=[
        Extension("protocol._speedups", sources=["protocol/_speedups.c"], optional=True),
        *native(),
    ]
)
