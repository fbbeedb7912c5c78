"""Game engines and their registry, discovered from the game folders.

A game is one folder: a package that exports ``ENGINE`` (an
:class:`engines.base.Engine`) and holds everything else about the game under
the same file names in every game (``bot.py``, ``words.py``, ``render.py``,
``web/``, ``rules.md``; docs/architecture.md, "How to add a game"). The
registry finds the packages directly under ``engines/`` and, from the
``TABLEWIRE_GAMES`` environment variable (folders separated by ``:``), game
folders kept elsewhere; nothing outside a game's folder names the game.

``ENGINES`` maps an engine id (the value of ``engine`` in the lobby API) to its
engine object; ``GAMES`` holds the ones offered to players (``kind == "game"``),
leaving out engines such as ``turn-relay`` that exist for load tests
(``kind == "benchmark"``); ``PACKAGES`` maps an engine id to its folder's package.
The game a client command plays when given none is the one whose folder says
``DEFAULT = True`` (:func:`default_game`), so no client names a game either.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import re
import sys
from pathlib import Path
from types import ModuleType

from engines.base import Engine

GAME, BENCHMARK = "game", "benchmark"
"""The kinds of engine (``Engine.kind``)."""

PATH_VARIABLE = "TABLEWIRE_GAMES"
"""The environment variable naming game folders outside ``engines/`` (``:``-separated)."""

ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
"""What an engine id is: it names the game in URLs (``/games/<id>/``) and commands."""

ENGINES: dict[str, Engine] = {}
GAMES: dict[str, Engine] = {}
PACKAGES: dict[str, ModuleType] = {}


class GameFolderError(ImportError):
    """A game folder the registry cannot take: no package, no ``ENGINE``, a taken id."""


def _outside(folder: Path) -> ModuleType:
    """The game package in ``folder`` (outside ``engines/``), imported as ``engines.<name>``."""
    if not folder.is_dir():
        raise GameFolderError(f"{folder}: no such folder")
    name = f"{__name__}.{folder.name}"
    if name in sys.modules:
        taken = sys.modules[name]
        first = Path(next(iter(getattr(taken, "__path__", ["?"]))))
        if first.resolve() != folder.resolve():  # a package's name is its folder's
            raise GameFolderError(
                f"{folder}: its folder name {folder.name!r} is taken by {first}: rename it"
            )
        return taken
    spec = importlib.util.spec_from_file_location(
        name, folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    if spec is None or spec.loader is None or not (folder / "__init__.py").is_file():
        raise GameFolderError(f"{folder}: a game folder is a package (it needs __init__.py)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # its code fails: one line naming the folder, no traceback
        del sys.modules[name]
        raise GameFolderError(
            f"{folder}: its __init__.py fails: {type(exc).__name__}: {exc}"
        ) from exc
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _inside(name: str) -> ModuleType:
    """The package ``engines.<name>``: one that fails to import is a :class:`GameFolderError`
    naming its folder, as for a folder of ``TABLEWIRE_GAMES``."""
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except Exception as exc:  # its code fails: one line naming the folder, no traceback
        folder = Path(__file__).parent / name
        raise GameFolderError(
            f"{folder}: its __init__.py fails: {type(exc).__name__}: {exc}"
        ) from exc


def _packages(extra: list[Path], lenient: bool = False) -> list[ModuleType]:
    """The game packages: those under ``engines/`` exporting ``ENGINE``, then ``extra``.
    ``lenient``: one under ``engines/`` that cannot be taken is left out, not refused."""
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.ispkg:
            try:
                module = _inside(info.name)
                if hasattr(module, "ENGINE"):
                    _check_bot(module)
                    found.append(module)
            except GameFolderError:
                if not lenient:
                    raise
    for folder in extra:
        module = _outside(folder)
        if not hasattr(module, "ENGINE"):
            raise GameFolderError(f"{folder}: a game folder exports ENGINE from its __init__.py")
        _check_bot(module)
        found.append(module)
    return found


def _check_bot(module: ModuleType) -> None:
    """Refuse a game folder whose ``bot.py`` is missing, fails, or does not declare
    ``GREEDY`` (a bot class, or None): found here, at start, not as a failed lobby."""
    where = f"{next(iter(module.__path__))} ({module.ENGINE.id})"
    name = f"{module.__name__}.bot"
    if importlib.util.find_spec(name) is None:
        raise GameFolderError(f"{where}: a game folder needs bot.py declaring GREEDY (or None)")
    try:
        bot = importlib.import_module(name)
    except Exception as exc:  # its code fails: one line naming the folder, no traceback
        raise GameFolderError(f"{where}: its bot.py fails: {type(exc).__name__}: {exc}") from exc
    if not hasattr(bot, "GREEDY"):
        raise GameFolderError(f"{where}: its bot.py must declare GREEDY (a bot class, or None)")


def folders_from(value: str | None) -> list[Path]:
    """The game folders named by a ``TABLEWIRE_GAMES`` value (empty parts ignored)."""
    return [Path(part).resolve() for part in (value or "").split(os.pathsep) if part]


def discover(extra: list[Path] | None = None, lenient: bool = False) -> None:
    """Fill ``ENGINES``, ``GAMES`` and ``PACKAGES`` (in place: importers keep the same
    dicts) from ``engines/`` and ``extra`` (by default the folders of ``TABLEWIRE_GAMES``).
    ``lenient``: a package under ``engines/`` that cannot be taken is left out."""
    folders = folders_from(os.environ.get(PATH_VARIABLE)) if extra is None else extra
    packages: dict[str, ModuleType] = {}
    for module in _packages(folders, lenient):
        engine: Engine = module.ENGINE
        where = next(iter(module.__path__))
        if not isinstance(engine.id, str) or not ID.fullmatch(engine.id):
            raise GameFolderError(
                f"{where}: its engine id {engine.id!r} is not lowercase letters and digits "
                "joined by single hyphens (it names the game in URLs and commands)"
            )
        if engine.kind not in (GAME, BENCHMARK):
            raise GameFolderError(
                f"{where} ({engine.id}): its kind {engine.kind!r} is neither {GAME!r} nor "
                f"{BENCHMARK!r}"
            )
        if engine.id in packages:
            raise GameFolderError(
                f"{where}: engine id {engine.id!r} is taken by "
                f"{next(iter(packages[engine.id].__path__))}"
            )
        packages[engine.id] = module
    for registry in (ENGINES, GAMES, PACKAGES):
        registry.clear()
    PACKAGES.update(packages)
    ENGINES.update((id_, module.ENGINE) for id_, module in packages.items())
    GAMES.update((id_, e) for id_, e in ENGINES.items() if e.kind == GAME)


def part(engine_id: str, name: str) -> ModuleType | None:
    """The module ``name`` (``"bot"``, ``"render"``, ...) of a game's folder, or None if absent."""
    package = PACKAGES[engine_id]
    if importlib.util.find_spec(f"{package.__name__}.{name}") is None:
        return None
    return importlib.import_module(f"{package.__name__}.{name}")


def benchmark() -> tuple[Engine, ModuleType]:
    """The load-test workload: the engine of kind ``"benchmark"`` and its rules module,
    whose ``client_move(view)`` and ``simulate(seed, moves)`` the load generators use."""
    found = [engine for engine in ENGINES.values() if engine.kind == BENCHMARK]
    if len(found) != 1:
        raise LookupError(f"one benchmark engine expected, found {[e.id for e in found]}")
    rules = part(found[0].id, "engine")
    if rules is None:
        raise LookupError(f"{found[0].id}: a benchmark's folder needs engine.py")
    return found[0], rules


def default_game() -> str:
    """The id of the game played when none is named: the one whose package sets
    ``DEFAULT = True``, else the first game found. Two such games are a
    :class:`GameFolderError`; no game at all is a :class:`LookupError`."""
    chosen = [id_ for id_ in GAMES if getattr(PACKAGES[id_], "DEFAULT", False) is True]
    if len(chosen) > 1:
        raise GameFolderError(f"only one game folder may say DEFAULT = True: {chosen}")
    if chosen:
        return chosen[0]
    if not GAMES:
        raise LookupError("no game folder found")
    return next(iter(GAMES))


def folder(engine_id: str) -> Path:
    """The folder of a game."""
    return Path(next(iter(PACKAGES[engine_id].__path__)))


def check() -> None:
    """Raise the :class:`GameFolderError` that kept the folders of ``TABLEWIRE_GAMES``
    out when this package was imported (:data:`FOLDER_ERROR`), or that of two folders
    saying ``DEFAULT = True``. The command line and the server ask it first, so a
    wrong folder is one line and a refusal to start, not a traceback in an import."""
    if FOLDER_ERROR is not None:
        raise FOLDER_ERROR
    default_game()


FOLDER_ERROR: GameFolderError | None = None
"""Why the game folders could not be taken at import; the registry then holds the
games of ``engines/`` that can be taken, and :func:`check` raises it."""
try:
    discover()
except GameFolderError as exc:
    FOLDER_ERROR = exc
    discover([], lenient=True)

__all__ = [
    "BENCHMARK",
    "ENGINES",
    "GAME",
    "GAMES",
    "PACKAGES",
    "Engine",
    "GameFolderError",
    "benchmark",
    "check",
    "default_game",
    "discover",
    "folder",
    "part",
]
