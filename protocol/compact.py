"""Protocol 2's compact frames: a key table, and patches and acks as arrays.

Protocol 1 spells every map key of a patch's paths and wraps each patch in a
map (``{"t": "patch", "from", "to", "ops"}``). Protocol 2 sends the same ops
in fewer bytes (``docs/protocol.md`` §6.2):

* ``welcome.keys`` is the room's **key table**: an array of paths, each an
  array of map keys (``["game", "turn"]``, ``["score"]``). In a path, the int
  ``-1 - i`` stands for entry ``i``'s keys, spliced in place; ints ≥ 0 are
  array indices and strings are map keys, as in protocol 1.
* A patch is the array ``[0, to, op, op, ...]`` (``from`` is always
  ``to - 1``). A *set* op is ``[...path, value]``: the path's elements, then
  the value (``[value]`` replaces the document). Every other op starts with
  nil: ``[nil, 1, ...path]`` remove, ``[nil, 2, ...path, n]`` truncate,
  ``[nil, 3, ...path, items]`` extend.
* An ack is the array ``[1, id, v]``.

The table is a function of the engine, the seat count and the options only
(:func:`key_table`), so every server process builds the same one for a room
and sends the same bytes. Keys missing from it are sent as strings: the table
only ever makes a frame shorter, never wrong.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from protocol.diff import EXTEND, REMOVE, SET, TRUNCATE, Op, PatchError

PATCH: Final = 0
ACK: Final = 1
"""The first element of protocol 2's array frames."""

Entry = list[str]


def key_table(docs: Iterable[Any], root: str = "game") -> list[Entry]:
    """The key table for documents shaped like ``docs`` (sample room documents).

    Entries, in this order: ``[root, k]`` for every key ``k`` of the ``root``
    map (where most ops of a game land), then every key of the document, then
    every other map key found at any depth, each group sorted. The first 32
    entries are one byte each in a path (msgpack's negative fixints).
    """
    pairs: set[str] = set()
    top: set[str] = set()
    deeper: set[str] = set()
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        top.update(key for key in doc if isinstance(key, str))
        sub = doc.get(root)
        if isinstance(sub, dict):
            pairs.update(key for key in sub if isinstance(key, str))
        for value in doc.values():
            _keys(value, deeper)
    return (
        [[root, key] for key in sorted(pairs)]
        + [[key] for key in sorted(top)]
        + [[key] for key in sorted(deeper - top)]
    )


def _keys(value: Any, into: set[str]) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            into.update(key for key in item if isinstance(key, str))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


Singles = dict[str, int]
"""A key table's one-key entries: ``singles[key]`` is the entry's reference."""
Pairs = dict[str, dict[str, int]]
"""A key table's two-key entries: ``pairs[first][second]`` is the entry's reference."""


def refs(table: list[Entry]) -> tuple[Singles, Pairs]:
    """The references of ``table``'s entries, as :func:`compact` takes them (of two
    entries with the same keys, the first is the one used)."""
    singles: Singles = {}
    pairs: Pairs = {}
    for i, entry in enumerate(table):
        if len(entry) == 2:
            pairs.setdefault(entry[0], {}).setdefault(entry[1], -1 - i)
        elif len(entry) == 1:
            singles.setdefault(entry[0], -1 - i)
    return singles, pairs


def compact_python(ops: list[Op], singles: Singles, pairs: Pairs, out: list[Any]) -> None:
    """Append protocol 2's ops for protocol 1 ``ops`` to ``out``: in each path, a
    leading pair of keys the table holds becomes its reference, then every map key
    it holds becomes its own.

    The reference version: :func:`compact` is the C extension's when it was built
    (``protocol/_speedups.c``, step for step the same: tests check both give the
    same ops), else this one.
    """
    for op in ops:
        kind, path = op[0], op[1]
        compact: list[Any] = [] if kind == SET else [None, kind]
        start = 0
        if len(path) >= 2 and type(path[0]) is str and type(path[1]) is str:
            seconds = pairs.get(path[0])
            ref = None if seconds is None else seconds.get(path[1])
            if ref is not None:
                compact.append(ref)
                start = 2
        for step in path[start:]:
            compact.append(singles.get(step, step) if type(step) is str else step)
        if kind != REMOVE:
            compact.append(op[2])
        out.append(compact)


try:
    from protocol._speedups import compact as compact
except ImportError:  # built without a C compiler
    compact = compact_python


class Compactor:
    """Turns protocol 1 ops into protocol 2 ops for one key table (the server's half)."""

    def __init__(self, table: list[Entry]) -> None:
        self.table = table
        self._singles, self._pairs = refs(table)

    def ops(self, ops: list[Op]) -> list[list[Any]]:
        """Protocol 2 ops for protocol 1 ``ops``."""
        out: list[list[Any]] = []
        compact(ops, self._singles, self._pairs, out)
        return out

    def patch(self, to_version: int, ops: list[Op]) -> list[Any]:
        """The patch frame's array: ``[0, to, op, ...]``."""
        frame: list[Any] = [PATCH, to_version]
        compact(ops, self._singles, self._pairs, frame)
        return frame


def ack(intent_id: Any, version: int) -> list[Any]:
    """Protocol 2's ack frame: ``[1, id, v]``."""
    return [ACK, intent_id, version]


def expand_path(table: list[Entry], path: list[Any]) -> list[str | int]:
    """A protocol 2 path with its table references spelled out (the client's half)."""
    out: list[str | int] = []
    for step in path:
        if type(step) is int and step < 0:
            index = -1 - step
            if index >= len(table):
                raise PatchError(f"key table reference {step} of {len(table)} entries")
            out.extend(table[index])
        elif type(step) in (int, str):
            out.append(step)
        else:
            raise PatchError(f"path element {step!r} is not a key, an index or a reference")
    return out


def expand(table: list[Entry], ops: list[Any]) -> list[Op]:
    """Protocol 1 ops for protocol 2 ``ops`` (then :func:`protocol.diff.apply_patch`)."""
    out: list[Op] = []
    for op in ops:
        if not isinstance(op, list) or not op:
            raise PatchError(f"op {op!r} is not a non-empty array")
        if op[0] is not None or len(op) == 1:
            out.append([SET, expand_path(table, op[:-1]), op[-1]])
            continue
        kind = op[1] if len(op) > 1 else None
        if kind == REMOVE and len(op) > 2:
            out.append([REMOVE, expand_path(table, op[2:])])
        elif kind in (TRUNCATE, EXTEND) and len(op) > 2:
            out.append([kind, expand_path(table, op[2:-1]), op[-1]])
        else:
            raise PatchError(f"op {op!r} has no known kind")
    return out


def read(frame: Any) -> dict[str, Any]:
    """A decoded server frame as a map: protocol 2's arrays become
    ``{"t": "patch", "from", "to", "ops"}`` (``ops`` still compact: expand them
    with :func:`expand`, as :meth:`protocol.mirror.Mirror.patch` does given
    the key table) and ``{"t": "ack", "id", "v"}``. An array of no known shape
    (a later version's) is ``{"t": "unknown"}``, for the client to ignore.
    """
    if isinstance(frame, dict):
        return frame
    if isinstance(frame, list) and frame:
        if frame[0] == PATCH and len(frame) >= 2 and type(frame[1]) is int:
            return {"t": "patch", "from": frame[1] - 1, "to": frame[1], "ops": frame[2:]}
        if frame[0] == ACK and len(frame) == 3:
            return {"t": "ack", "id": frame[1], "v": frame[2]}
    return {"t": "unknown"}
