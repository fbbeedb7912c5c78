"""The compiled modules (setup.py's NATIVE, mypyc): what is compiled, what is stale."""

from __future__ import annotations

import ast
import os
import re
import shutil
import sysconfig
import tomllib
from pathlib import Path

import pytest

from server import native

SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")


def _tree(tmp_path: Path, *files: str) -> Path:
    for name in ("setup.py", *files):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    return tmp_path


def _age(path: Path, seconds: float) -> None:
    stat = path.stat()
    os.utime(path, (stat.st_atime - seconds, stat.st_mtime - seconds))


def test_a_module_with_an_extension_beside_it_is_compiled(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        "server/room.py",
        f"server/room{SUFFIX}",
        "server/lobby.py",
        f"server/_native__mypyc{SUFFIX}",  # the library, with no source of its own
        f"protocol/_speedups{SUFFIX}",  # C, with no Python source
    )
    assert native.compiled(root) == [root / "server/room.py"]


def test_a_source_edited_after_the_build_is_stale(tmp_path: Path) -> None:
    root = _tree(tmp_path, "server/room.py", f"server/room{SUFFIX}", "server/table.py")
    (root / f"server/table{SUFFIX}").write_text("")
    for built in (f"server/room{SUFFIX}", f"server/table{SUFFIX}"):
        _age(root / built, 60)
    _age(root / "server/table.py", 120)  # table.py was built from; room.py edited since
    assert native.stale(root) == [root / "server/room.py"]


def test_the_build_is_dated_by_its_newest_extension(tmp_path: Path) -> None:
    """A build can leave an unchanged module's file as it was: only a source newer than
    the whole build is stale."""
    root = _tree(tmp_path, "server/room.py", f"server/room{SUFFIX}")
    (root / f"server/_native__mypyc{SUFFIX}").write_text("")
    _age(root / f"server/room{SUFFIX}", 120)
    _age(root / "server/room.py", 60)
    assert native.stale(root) == []


def test_an_installed_package_is_never_stale(tmp_path: Path) -> None:
    root = _tree(tmp_path, "server/room.py", f"server/room{SUFFIX}")
    (root / "setup.py").unlink()  # site-packages: no source checkout
    _age(root / f"server/room{SUFFIX}", 60)
    assert native.stale(root) == []


def _listed() -> list[str]:
    """pyproject.toml's list of compiled modules ([tool.tablewire] native)."""
    config = tomllib.loads((native.ROOT / "pyproject.toml").read_text())
    listed: list[str] = config["tool"]["tablewire"]["native"]
    return listed


def test_make_compiles_every_module_setup_py_lists() -> None:
    if not (native.ROOT / "setup.py").exists():
        pytest.skip("an installed package: its build is not this checkout's")
    compiler = sysconfig.get_config_var("CC")
    if not compiler or shutil.which(compiler.split()[0]) is None:
        pytest.skip("no C compiler here: the Python source runs")
    if not native.compiled() and not os.environ.get("CI"):
        pytest.skip("nothing compiled (make pure, or an install without mypy)")
    compiled = [str(source.relative_to(native.ROOT)) for source in native.compiled()]
    assert compiled == sorted(_listed())


CONSTANT = re.compile(r"_?[A-Z][A-Z0-9_]*")
"""A module-level name spelled as a constant (``MASK``, ``_PACKERS``)."""


def _unfinal_constants(source: str) -> list[str]:
    """The constants a module assigns at its top level without annotating them Final."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            targets = [t for target in node.targets for t in ast.walk(target)]
            found += [t.id for t in targets if isinstance(t, ast.Name) and CONSTANT.fullmatch(t.id)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            final = "Final" in ast.unparse(node.annotation)
            if CONSTANT.fullmatch(node.target.id) and not final:
                found.append(node.target.id)
    return found


def test_a_compiled_modules_constants_are_final() -> None:
    """mypyc reads a Final module constant directly; any other it looks up in the
    module's dict at every use (turn-relay's MASK alone cost 2,000 instructions a
    move that way)."""
    unfinal = {name: _unfinal_constants((native.ROOT / name).read_text()) for name in _listed()}
    assert {name: found for name, found in unfinal.items() if found} == {}


def test_the_constant_check_sees_plain_annotated_and_tuple_assignments() -> None:
    source = "A = 1\nB: int = 2\nC: Final = 3\nD, _E = 4, 5\nAlias = list[int]\nx = 1\n"
    assert _unfinal_constants(source) == ["A", "B", "D", "_E"]
