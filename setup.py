"""Build hooks for the optional compiled parts (everything else is in pyproject.toml).

* ``protocol._speedups``: the state diff in C (protocol/_speedups.c).
* The modules of :data:`NATIVE`, compiled with mypyc: the same Python source, turned
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

from setuptools import Extension, setup

NATIVE = [
    "protocol/codec.py",
    "protocol/compact.py",
    "protocol/diff.py",
    "protocol/errors.py",
    "protocol/messages.py",
    "server/connection.py",
    "server/limits.py",
    "server/metrics.py",
    "server/room.py",
    "server/room_commands.py",
    "server/room_frames.py",
    "server/room_parts.py",
    "server/store/base.py",
    "server/table.py",
    "server/timers.py",
    "server/transport.py",
    "engines/turn_relay/engine.py",
]
"""What a move runs through: the frame's way in and out, the room, the protocol, and
the benchmark engine. (Not the stores: tests and deployments subclass them, which a
compiled class does not allow.)"""


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
