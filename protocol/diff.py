"""State diffs: compute the ops that turn one document into another, and apply them.

A document is plain msgpack data (maps with string keys, arrays, scalars). A
patch is a list of ops; each op is an array whose first element is its kind
and whose second is a *path*: an array of map keys (strings) and array
indices (ints) from the root to the value it changes.

=====  ========================  =================================================
kind   op                        meaning
=====  ========================  =================================================
0      ``[0, path, value]``      set: replace the value at ``path`` (or add a map
                                 key); an empty path replaces the whole document
1      ``[1, path]``             remove the map key at ``path``
2      ``[2, path, length]``     truncate the array at ``path`` to ``length``
3      ``[3, path, items]``      extend the array at ``path`` with ``items``
=====  ========================  =================================================

Ops apply in order. Values are compared strictly: ``True`` is not ``1`` and
``1.0`` is not ``1``, because they encode to different msgpack bytes.

:func:`diff` runs once per move per view on the server, the largest part of a
move's cost in Python: it is compiled from ``protocol/_speedups.c`` where a C
compiler was there at install time (:func:`diff_python` otherwise).
"""

from __future__ import annotations

from typing import Any, Final

SET: Final = 0
REMOVE: Final = 1
TRUNCATE: Final = 2
EXTEND: Final = 3
WHOLE_LIST: Final = 8
"""A list this short whose items changed in more than one place is set whole."""

Op = list[Any]
Path = list[str | int]


class PatchError(ValueError):
    """A patch that does not fit the document it is applied to."""


def diff_python(old: Any, new: Any) -> list[Op]:
    """The ops that turn ``old`` into ``new`` (an empty list when they are equal).

    The reference version: :func:`diff` is the C extension's when it was built
    (``protocol/_speedups.c``, the same algorithm step for step: tests check
    that both give the same ops), else this one.
    """
    ops: list[Op] = []
    if old is not new:
        _diff(old, new, [], ops)
    return ops


try:
    from protocol._speedups import diff as diff
except ImportError:  # built without a C compiler
    diff = diff_python


def _diff(old: Any, new: Any, path: Path, ops: list[Op]) -> None:
    """Append the ops for ``old`` → ``new`` at ``path`` (``old is not new``).

    ``path`` is one list used as a stack (copied only into emitted ops), and
    children are compared in the parent's loop: an identical child (``is``,
    what an engine that shares unchanged parts gives) or an equal scalar costs
    no call and allocates nothing.
    """
    kind = type(new)
    if type(old) is not kind:
        ops.append([SET, path.copy(), new])
    elif kind is dict:
        matched = 0
        for key, value in new.items():
            if key not in old:
                ops.append([SET, [*path, key], value])
                continue
            matched += 1
            previous = old[key]
            if previous is value:
                continue
            child = type(value)
            if child is not dict and child is not list and child is type(previous):
                if previous != value:
                    ops.append([SET, [*path, key], value])
                continue
            path.append(key)
            _diff(previous, value, path, ops)
            path.pop()
        if matched < len(old):
            ops.extend([REMOVE, [*path, key]] for key in old if key not in new)
    elif kind is list:
        common = min(len(old), len(new))
        first = len(ops)
        for i in range(common):
            previous, value = old[i], new[i]
            if previous is value:
                continue
            child = type(value)
            if child is not dict and child is not list and child is type(previous):
                if previous != value:
                    ops.append([SET, [*path, i], value])
                continue
            path.append(i)
            _diff(previous, value, path, ops)
            path.pop()
        if len(ops) - first > 1 and len(new) <= WHOLE_LIST and _leaf_sets(ops, first, len(path)):
            del ops[first:]  # several items of a short list changed: one set is smaller
            ops.append([SET, path.copy(), new])
            return
        if len(old) > common:
            ops.append([TRUNCATE, path.copy(), common])
        elif len(new) > common:
            ops.append([EXTEND, path.copy(), new[common:]])
    elif old != new:
        ops.append([SET, path.copy(), new])


def _leaf_sets(ops: list[Op], first: int, depth: int) -> bool:
    """Whether ``ops[first:]`` only set direct items (paths one longer than ``depth``)."""
    depth += 1
    return all(op[0] == SET and len(op[1]) == depth for op in ops[first:])


def apply_patch(doc: Any, ops: list[Op]) -> Any:
    """Apply ``ops`` to ``doc`` and return the result.

    ``doc`` is changed in place where possible (only a root ``set`` replaces
    it), so keep the returned value. Raises :class:`PatchError` when an op
    does not fit the document.
    """
    for op in ops:
        try:
            kind, path = op[0], op[1]
            if kind == SET and not path:
                doc = op[2]
                continue
            target = doc
            for step in path[:-1] if kind in (SET, REMOVE) else path:
                target = target[step]
            if kind == SET:
                _set(target, path[-1], op[2])
            elif kind == REMOVE:
                del target[path[-1]]
            elif kind == TRUNCATE:
                del target[op[2] :]
            elif kind == EXTEND:
                target.extend(op[2])
            else:
                raise PatchError(f"unknown op kind {kind!r}")
        except (LookupError, TypeError, AttributeError) as exc:
            raise PatchError(f"op {op!r} does not fit the document: {exc}") from None
    return doc


def _set(container: Any, key: Any, value: Any) -> None:
    if isinstance(container, list) and not 0 <= key < len(container):
        raise IndexError(key)
    container[key] = value
