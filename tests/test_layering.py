"""The floors of the code, read from the source (no import, no network).

The project's import graph is built with :mod:`ast` over server/, protocol/, engines/
and clients/: every ``import`` counts, those inside functions and under
``TYPE_CHECKING`` too. On it: no import cycles; server/, protocol/ and engines/ import
nothing from clients/; engines/ and protocol/ import nothing from server/ and no I/O
module. And no module is over :data:`MAX_LINES` lines, Python or JavaScript.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("server", "protocol", "engines", "clients")

TYPE_ONLY_BACK_EDGES = {
    # The room's parts name the Room they are given, for mypy only: the room, split
    # into small parts that are given what they change (issue 25), drops these.
    ("server.room_commands", "server.room"),
    ("server.room_frames", "server.room"),
    ("server.room_parts", "server.room"),
    # The address parser names the settings it reads for mypy; the settings use it to
    # check their addresses when they are made.
    ("server.proxies", "server.settings"),
}
"""Edges left out of the cycle check while every import along them is under
``TYPE_CHECKING`` (imported for annotations only, never at run time)."""

IO_MODULES = {
    "asyncio",
    "ctypes",
    "http",
    "httpx",
    "multiprocessing",
    "prometheus_client",
    "redis",
    "selectors",
    "signal",
    "socket",
    "ssl",
    "starlette",
    "subprocess",
    "urllib",
    "uvicorn",
    "uvloop",
    "websockets",
}
"""Top-level modules that do I/O (network, processes, signals, the event loop)."""

MAX_LINES = 600
LINE_COUNTED = {
    "*.py": ("server", "protocol", "engines", "clients", "benchmarks", "tests"),
    "*.js": ("clients/web/static",),
}
VENDORED = "vendor"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for pkg in PACKAGES for path in (ROOT / pkg).rglob("*.py")}


def _project_module(name: str) -> str | None:
    """The project module ``name`` is or is in (a package's ``__init__`` for a name
    it defines), or None for a module from outside the project."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _type_only(tree: ast.Module) -> set[ast.AST]:
    """The import statements under ``if TYPE_CHECKING:``."""
    found: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            found.update(n for statement in node.body for n in ast.walk(statement))
    return found


def _imports(module: str) -> Iterator[tuple[str, bool]]:
    """Every module name ``module`` imports, absolute (each ``from`` name that is a
    module itself as that module), and whether it is imported for annotations only."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(), str(path))
    type_only = _type_only(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((alias.name, node in type_only) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, *([base] if base else [])])
            for alias in node.names:
                whole = f"{base}.{alias.name}"
                yield (whole if whole in MODULES else base), node in type_only


def _imported(module: str) -> Iterator[str]:
    """Every module name ``module`` imports (:func:`_imports`)."""
    return (name for name, _ in _imports(module))


def _graph(leave_out: set[tuple[str, str]] | None = None) -> dict[str, set[str]]:
    """The project's modules and the project modules each imports; an edge of
    ``leave_out`` is left out while every import along it is for annotations only."""
    graph: dict[str, set[str]] = {}
    for module in MODULES:
        runtime: set[str] = set()
        type_only: set[str] = set()
        for name, annotations_only in _imports(module):
            target = _project_module(name)
            if target is not None and target != module:
                (type_only if annotations_only else runtime).add(target)
        graph[module] = runtime | {
            target for target in type_only - runtime if (module, target) not in (leave_out or ())
        }
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as the modules along it (the first again at the end), or None."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path = [start]
        on_path = {start}
        todo = [iter(sorted(graph[start]))]
        while todo:
            following = next(todo[-1], None)
            if following is None:
                todo.pop()
                done.add(path[-1])
                on_path.discard(path.pop())
            elif following in on_path:
                return [*path[path.index(following) :], following]
            elif following not in done:
                path.append(following)
                on_path.add(following)
                todo.append(iter(sorted(graph[following])))
    return None


def _floor(module: str) -> str:
    return module.split(".", 1)[0]


def test_the_graph_sees_every_kind_of_import() -> None:
    graph = _graph()
    assert "engines.sintra.engine" in graph["engines.sintra"]  # from a package, a module
    assert "clients.commands" in graph["clients.cli"]  # inside a function
    assert "server.lobby" in graph["server.scrape"]  # under TYPE_CHECKING
    assert "server.room" in graph["server.room_frames"]
    assert "server.room" not in _graph(leave_out=TYPE_ONLY_BACK_EDGES)["server.room_frames"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_import_cycles() -> None:
    cycle = _cycle(_graph(leave_out=TYPE_ONLY_BACK_EDGES))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_server_protocol_and_engines_import_nothing_from_clients() -> None:
    offenders = sorted(
        (module, target)
        for module, targets in _graph().items()
        if _floor(module) != "clients"
        for target in targets
        if _floor(target) == "clients"
    )
    assert offenders == []


def test_engines_and_protocol_import_no_server_and_no_io() -> None:
    offenders = []
    for module in MODULES:
        if _floor(module) not in ("engines", "protocol"):
            continue
        for name in _imported(module):
            target = _project_module(name)
            if target is None and name.split(".")[0] in IO_MODULES:
                offenders.append((module, name))
            elif target is not None and _floor(target) in ("server", "clients"):
                offenders.append((module, target))
    assert not offenders, "server/, clients/ or I/O: " + ", ".join(map(" -> ".join, offenders))


def test_no_module_over_the_line_limit() -> None:
    offenders = []
    for pattern, folders in LINE_COUNTED.items():
        for folder in folders:
            for path in (ROOT / folder).rglob(pattern):
                relative = path.relative_to(ROOT)
                if VENDORED in relative.parts or ".venv" in relative.parts:
                    continue
                lines = len(path.read_text().splitlines())
                if lines > MAX_LINES:
                    offenders.append(f"{relative}: {lines} lines")
    assert not offenders, f"over {MAX_LINES} lines: " + ", ".join(sorted(offenders))
