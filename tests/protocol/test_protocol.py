"""The sans-I/O protocol: codec validation, message parsing, diff/patch, mirror."""

from __future__ import annotations

import shutil
import sysconfig
from enum import IntEnum
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import compact, messages
from protocol.codec import MAX_DEPTH, decode, encode
from protocol.diff import WHOLE_LIST, PatchError, apply_patch, diff, diff_python
from protocol.errors import Code, ProtocolError
from protocol.messages import Hello, Intent, Legal, Ping, Resync, parse
from protocol.mirror import Mirror
from support import canonical, packed


def code_of(frame: bytes, max_size: int = 1024) -> Code:
    with pytest.raises(ProtocolError) as exc:
        parse(decode(frame, max_size))
    return exc.value.code


# -- codec --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (b"", Code.MALFORMED_FRAME),
        (b"\xc1", Code.MALFORMED_FRAME),  # the one never-used msgpack byte
        (b"\x82\xa1t", Code.MALFORMED_FRAME),  # truncated map
        (packed({"t": "ping"}) + b"\x00", Code.MALFORMED_FRAME),  # trailing bytes
        (msgpack.packb(msgpack.ExtType(1, b"x")), Code.MALFORMED_FRAME),
        (packed({1: "int key"}), Code.MALFORMED_FRAME),
        (packed({b"t": "ping"}), Code.MALFORMED_FRAME),  # a bin key is no string
        (b"\x82\xa1t\xa4ping\xa1t\xa6intent", Code.MALFORMED_FRAME),  # "t" twice
        (b"\x83\xa1t\xa6intent\xa2id\x09\xa1t\xa4ping", Code.MALFORMED_FRAME),
        (b"\xde\x00\x02\xa1t\xa4ping\xa1t\xa4ping", Code.MALFORMED_FRAME),  # map 16
        (b"\xdf\x00\x00\x00\x02\xa1t\xa4ping\xa1t\xa4ping", Code.MALFORMED_FRAME),  # map 32
        (b"\x91" * 2000 + b"\x90", Code.FRAME_TOO_LARGE),
        (packed([1, 2]), Code.NOT_A_MAP),
        (packed("hello"), Code.NOT_A_MAP),
        (packed({}), Code.UNKNOWN_TYPE),
        (packed({"t": "teleport"}), Code.UNKNOWN_TYPE),
        (packed({"t": 7}), Code.UNKNOWN_TYPE),
        (packed({"t": "hello"}), Code.BAD_FIELD),
        (packed({"t": "hello", "protocol": "1"}), Code.BAD_FIELD),
        (packed({"t": "hello", "protocol": 1, "token": 5}), Code.BAD_FIELD),
        (packed({"t": "hello", "protocol": 1, "since": -1}), Code.BAD_FIELD),
        (packed({"t": "hello", "protocol": 1, "since": True}), Code.BAD_FIELD),
        (packed({"t": "intent", "action": {}}), Code.BAD_FIELD),
        (packed({"t": "intent", "id": None, "action": {}}), Code.BAD_FIELD),
        (packed({"t": "intent", "id": [1], "action": {}}), Code.BAD_FIELD),
        (packed({"t": "intent", "id": "", "action": {}}), Code.BAD_INTENT_ID),
        (packed({"t": "intent", "id": "x" * 65, "action": {}}), Code.BAD_INTENT_ID),
        (packed({"t": "intent", "id": -3, "action": {}}), Code.BAD_INTENT_ID),
        (packed({"t": "intent", "id": 1.5, "action": {}}), Code.BAD_INTENT_ID),
        (packed({"t": "intent", "id": True, "action": {}}), Code.BAD_INTENT_ID),
        (packed({"t": "intent", "id": 1, "action": [1]}), Code.BAD_FIELD),
        (packed({"t": "resync", "since": "3"}), Code.BAD_FIELD),
    ],
)
def test_malformed_frames_get_a_stable_code(frame: bytes, code: Code) -> None:
    assert code_of(frame) == code


@pytest.mark.parametrize(
    ("frame", "said"),
    [
        ({}, "a frame needs `t`, its type: hello, intent, legal, ping, resync or say"),
        ({"t": None}, "a frame needs `t`, its type: hello, intent, legal, ping, resync or say"),
        ({"t": "teleport"}, 'unknown message type "teleport"; the types are hello, intent,'),
        ({"t": 7}, "unknown message type 7; the types are"),
        ({"t": True}, "unknown message type true; the types are"),
        ({"t": b"hello"}, "unknown message type (a binary string); the types are"),
        ({"t": [1]}, "unknown message type (a list); the types are"),
    ],
)
def test_a_frame_of_no_known_type_is_told_the_types(frame: dict[str, Any], said: str) -> None:
    """The message names the types a client may send, in the protocol's words (never
    Python's ``None`` or ``list``)."""
    with pytest.raises(ProtocolError) as exc:
        parse(frame)
    assert exc.value.code == Code.UNKNOWN_TYPE
    assert exc.value.message.startswith(said), exc.value.message


@pytest.mark.parametrize(
    ("frame", "said"),
    [
        (
            {"t": "hello", "protocol": 2, "since": -1},
            "hello.since must be nil or an int >= 0 (got -1)",
        ),
        ({"t": "hello", "protocol": None}, "hello.protocol must be an int (got null)"),
        ({"t": "hello"}, "hello.protocol must be an int (got missing)"),
        ({"t": "resync", "since": 1.5}, "resync.since must be nil or an int >= 0 (got 1.5)"),
        ({"t": "resync", "since": [3]}, "resync.since must be nil or an int >= 0 (got (a list))"),
        ({"t": "hello", "protocol": 2, "token": 5}, "hello.token must be nil or a string (got 5)"),
    ],
)
def test_a_bad_field_is_shown_in_the_protocols_words(frame: dict[str, Any], said: str) -> None:
    """A refused field showed Python's type (``(got int)`` for a since of -1, ``NoneType``
    for nil): it shows the value as sent, or its kind."""
    with pytest.raises(ProtocolError) as exc:
        parse(frame)
    assert exc.value.code == Code.BAD_FIELD
    assert exc.value.message == said


def test_the_types_a_refusal_names_are_the_types_parsed() -> None:
    *first, last = sorted(messages._PARSERS)
    assert f"{', '.join(first)} or {last}" == messages.TYPES_SAID


def test_deep_nesting_is_refused_not_crashing() -> None:
    assert code_of(b"\x91" * 100_000 + b"\x90", max_size=1 << 20) == Code.MALFORMED_FRAME


def nested(depth: int, leaf: Any = 0) -> Any:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


@pytest.mark.parametrize(
    "message",
    [
        {"t": nested(1000)},
        {"t": "intent", "id": 1, "action": {"type": nested(1000)}},
        {"t": "ping", "data": {"a": nested(MAX_DEPTH)}},
    ],
    ids=["t", "action", "data"],
)
def test_nesting_deeper_than_the_limit_is_a_malformed_frame(message: dict[str, Any]) -> None:
    assert code_of(packed(message), max_size=1 << 20) == Code.MALFORMED_FRAME


def test_nesting_up_to_the_limit_is_accepted() -> None:
    data = nested(MAX_DEPTH - 2)  # the frame's map is one level, the list holding it another
    assert parse(decode(packed({"t": "ping", "data": [data]}))) == Ping([data])
    one_more = {"t": "ping", "data": [[data]]}
    assert code_of(packed(one_more)) == Code.MALFORMED_FRAME
    deepest_map = [nested(MAX_DEPTH - 3, {"a": 1.5})]  # the map inside at the limit
    assert decode(packed({"t": "ping", "data": deepest_map}))["data"] == deepest_map


@pytest.mark.parametrize(
    "ext",
    [
        packed(msgpack.Timestamp(1, 0)),  # fixext 4, type -1
        b"\xd7\xff" + bytes(8),  # the 64-bit timestamp
        b"\xc7\x0c\xff" + bytes(12),  # the 96-bit timestamp
        packed(msgpack.ExtType(5, b"x")),
    ],
    ids=["timestamp32", "timestamp64", "timestamp96", "ext-5"],
)
def test_every_extension_type_is_refused_the_timestamp_too(ext: bytes) -> None:
    frame = b"\x82\xa1t\xa4ping\xa4data" + ext  # {"t": "ping", "data": ext}
    assert code_of(frame) == Code.MALFORMED_FRAME


def refused(frame: bytes) -> ProtocolError:
    with pytest.raises(ProtocolError) as exc:
        parse(decode(frame, max_size=1 << 20))
    return exc.value


@pytest.mark.parametrize(
    ("intent_id", "action"),
    [
        (2.0**32, {"type": "reset"}),  # a JavaScript client's 2^32, sent as a float64
        (-1, {"type": "reset"}),
        (2**64 - 1, {"type": "reset"}),
        ("x" * 65, {"type": "reset"}),
        ("", {"type": "reset"}),
        (False, {"type": "reset"}),
        (b"\x01", {"type": "reset"}),
        (7, "reset"),
        (7, None),
        (7, {"type": nested(100)}),
    ],
)
def test_a_refused_intent_carries_its_scalar_id(intent_id: Any, action: Any) -> None:
    message = {"t": "intent", "id": intent_id}
    if action is not None:
        message["action"] = action
    assert refused(packed(message)).intent_id == intent_id


@pytest.mark.parametrize(
    "frame",
    [
        {"t": "intent", "action": {"type": "reset"}},
        {"t": "intent", "id": None, "action": {"type": "reset"}},
        {"t": "intent", "id": {"n": 1}, "action": {"type": "reset"}},
        {"t": "hello", "id": 3},
        {"t": nested(100), "id": 3},
    ],
)
def test_a_refused_frame_without_a_scalar_intent_id_carries_none(frame: dict[str, Any]) -> None:
    assert refused(packed(frame)).intent_id is None


def bad_utf8(message: dict[str, Any]) -> bytes:
    """``message`` packed with its string "\u00a7" (2 bytes) made invalid UTF-8."""
    frame = packed(message)
    assert frame.count("\u00a7".encode()) == 1
    return frame.replace("\u00a7".encode(), b"\xff\xfe")


FIXEXT_RESERVED = b"\xd4\xfb\x00"
"""An extension value of the reserved type -5 (msgpack.ExtType cannot make one)."""


def with_raw(message: dict[str, Any], marker: str, raw: bytes) -> bytes:
    """``message`` packed, the packed string ``marker`` swapped for the bytes ``raw``."""
    frame = packed(message)
    assert frame.count(packed(marker)) == 1
    return frame.replace(packed(marker), raw)


@pytest.mark.parametrize(
    ("frame", "intent_id"),
    [
        (packed({"t": "intent", "id": 7, "action": {"type": msgpack.ExtType(5, b"x")}}), 7),
        (packed({"t": "intent", "id": "a", "action": {"k": [[msgpack.Timestamp(1, 0)]]}}), "a"),
        (with_raw({"t": "intent", "id": 7, "action": {"k": "EXT"}}, "EXT", FIXEXT_RESERVED), 7),
        (packed({"t": "intent", "id": 7, "action": {msgpack.ExtType(5, b"x"): 1}}), 7),
        (packed({"t": "intent", "id": 7, "action": {"type": "reset", 1: 2}}), 7),
        (packed({"t": "intent", "id": 7, "action": {b"type": "reset"}}), 7),
        (b"\x83\xa1t\xa6intent\xa2id\x07\xa6action\x81\x91\x01\x02", 7),  # {[1]: 2}
        (b"\x83\xa1t\xa6intent\xa2id\x07\xa6action\x81\x80\x02", 7),  # {{}: 2}
        (b"\x83\xa1t\xa6intent\xa2id\x07\xa6action" + b"\x91" * 2000 + b"\x00", 7),
        (b"\x83\xa1t\xa6intent\xa2id\x07\xa6action\x81", 7),  # cut short
        (bad_utf8({"t": "intent", "id": 7, "action": {"type": "\u00a7"}}), 7),
        (packed({"t": "intent", "id": 7, "action": {"type": "reset"}}) + b"\x00", 7),
        (packed({"t": "intent", "id": 1.5, "action": {"type": msgpack.ExtType(5, b"")}}), 1.5),
    ],
    ids=[
        *["ext", "timestamp", "reserved-ext", "ext-key", "int-key", "bin-key", "array-key"],
        *["map-key", "past-msgpack-stack", "cut-short", "utf8", "trailing", "bad-id"],
    ],
)
def test_an_intent_refused_for_its_bytes_carries_its_id(frame: bytes, intent_id: Any) -> None:
    exc = refused(frame)
    assert (exc.code, exc.intent_id, exc.of) == (Code.MALFORMED_FRAME, intent_id, None)
    assert type(exc.intent_id) is type(intent_id)


@pytest.mark.parametrize("frame", [b"\xc1", b"", b"\x92\x01"])
def test_a_malformed_frame_says_why(frame: bytes) -> None:
    """msgpack words some failures with nothing (0xc1, a byte no value starts with):
    the message still names one."""
    message = refused(frame).message
    assert message.startswith("not valid msgpack: ") and message != "not valid msgpack: "


def test_an_intent_id_that_is_not_utf8_is_not_echoed() -> None:
    """It could not be sent back as the client sent it: the frame gets an error."""
    exc = refused(bad_utf8({"t": "intent", "id": "\u00a7", "action": {"type": "reset"}}))
    assert (exc.code, exc.intent_id) == (Code.MALFORMED_FRAME, None)


@pytest.mark.parametrize(
    ("frame", "of", "code"),
    [
        (packed({"t": "resync", "since": "3"}), "resync", Code.BAD_FIELD),
        (packed({"t": "resync", "since": -1}), "resync", Code.BAD_FIELD),
        (packed({"t": "ping", "data": nested(MAX_DEPTH)}), "ping", Code.MALFORMED_FRAME),
        (packed({"t": "ping", "data": msgpack.ExtType(5, b"x")}), "ping", Code.MALFORMED_FRAME),
        (packed({"t": "ping", "data": {1: 2}}), "ping", Code.MALFORMED_FRAME),
        (packed({"t": "ping", "data": {b"k": 2}}), "ping", Code.MALFORMED_FRAME),
        (packed({"t": "ping", b"k": 2}), "ping", Code.MALFORMED_FRAME),
        (b"\x82\xa1t\xa4ping\x91\x01\x02", "ping", Code.MALFORMED_FRAME),  # {[1]: 2}
        (b"\x82\xa1t\xa4ping\xa4data" + b"\x91" * 2000 + b"\x00", "ping", Code.MALFORMED_FRAME),
        (bad_utf8({"t": "ping", "data": "\u00a7"}), "ping", Code.MALFORMED_FRAME),
        (packed({"t": "ping", "data": 1}) + b"\x00", "ping", Code.MALFORMED_FRAME),
        (packed({"t": "legal", "x": msgpack.ExtType(5, b"x")}), "legal", Code.MALFORMED_FRAME),
        (packed({"t": "resync", "since": 1, "x": nested(99)}), "resync", Code.MALFORMED_FRAME),
        (packed({"t": "say", "text": msgpack.ExtType(5, b"x")}), "say", Code.MALFORMED_FRAME),
    ],
    ids=[
        *["since-str", "since-negative", "deep", "ext", "int-key", "bin-key", "bin-key-top"],
        "array-key",
        "past-msgpack-stack",
        "utf8",
        "trailing",
        *["legal", "resync-deep", "say"],
    ],
)
def test_a_refused_request_names_itself_in_of(frame: bytes, of: str, code: Code) -> None:
    exc = refused(frame)
    assert (exc.code, exc.of, exc.intent_id) == (code, of, None)


@pytest.mark.parametrize(
    "frame",
    [
        packed({"t": "hello", "protocol": 1, "x": msgpack.ExtType(5, b"x")}),
        packed({"t": "teleport", "x": msgpack.ExtType(5, b"x")}),
        packed({1: "intent", "id": 7}),
        packed([{"t": "ping"}]),
        b"\xc1",
    ],
)
def test_a_refused_frame_that_is_no_request_names_none(frame: bytes) -> None:
    exc = refused(frame)
    assert (exc.of, exc.intent_id) == (None, None)


@given(st.binary(max_size=200))
def test_any_bytes_parse_or_raise_a_protocol_error(frame: bytes) -> None:
    try:
        parse(decode(frame))
    except ProtocolError as exc:
        assert exc.code in set(Code)


def test_client_messages_parse() -> None:
    assert parse(decode(packed({"t": "hello", "protocol": 1}))) == Hello(1, None, None)
    assert parse(decode(packed({"t": "hello", "protocol": 1, "token": "k", "since": 4}))) == Hello(
        1, "k", 4
    )
    assert parse({"t": "intent", "id": "a1", "action": {"type": "reset"}}) == Intent(
        "a1", {"type": "reset"}
    )
    assert parse({"t": "resync", "since": None}) == Resync(None)
    assert parse({"t": "legal", "extra": "ignored"}) == Legal()
    assert parse({"t": "ping", "data": [1]}) == Ping([1])


def test_encode_is_msgpack_with_binary_type() -> None:
    assert encode({"t": "pong", "data": None}) == b"\x82\xa1t\xa4pong\xa4data\xc0"


class Seat(IntEnum):
    FIRST = 0


def test_encode_packs_subclasses_and_tuples_as_msgpack_does() -> None:
    """The strict packer hands anything not exactly a plain type to a hook: the bytes
    are still those of msgpack's own packing."""
    odd = {
        "code": Code.GAME_OVER,
        "seat": Seat.FIRST,
        "path": ("board", 3, ("x",)),
        "raw": bytearray(b"\x01"),
        "view": memoryview(b"\x02"),
        "ok": True,
    }
    assert encode(odd) == msgpack.packb(odd, use_bin_type=True)
    with pytest.raises(TypeError):
        encode({"x": object()})
    assert encode({"t": "pong"}) == msgpack.packb({"t": "pong"})  # the packer is intact after


# -- diff and patch -------------------------------------------------------------

scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=5)
scalars |= st.floats(allow_nan=False) | st.binary(max_size=4)
documents = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=3), inner, max_size=5)
    ),
    max_leaves=30,
)


@given(documents)
def test_encode_is_msgpack_for_any_document(document: Any) -> None:
    assert encode([document]) == msgpack.packb([document], use_bin_type=True)


@settings(max_examples=500)
@given(documents, documents)
def test_patch_of_diff_turns_a_into_b(a: Any, b: Any) -> None:
    original = packed(a)
    ops = diff(a, b)
    assert packed(a) == original, "diff must not modify its inputs"
    patched = apply_patch(msgpack.unpackb(original), msgpack.unpackb(packed(ops)))
    assert canonical(patched) == canonical(b)


@given(documents)
def test_equal_documents_have_an_empty_diff(a: Any) -> None:
    assert diff(a, msgpack.unpackb(packed(a))) == []


any_floats = st.floats(allow_nan=True)
loose = st.recursive(
    scalars | any_floats,
    lambda inner: (
        st.lists(inner, max_size=10) | st.dictionaries(st.text(max_size=2), inner, max_size=5)
    ),
    max_leaves=40,
)


@settings(max_examples=1000)
@given(loose, loose, st.lists(st.sampled_from("ab"), min_size=1, max_size=6))
def test_the_compiled_diff_gives_the_python_diffs_ops(a: Any, b: Any, shape: list[str]) -> None:
    """Same ops, in the same order, for any two documents: with and without shared
    parts (the identity shortcut), NaN, bool against int, any list lengths."""
    if diff is diff_python:
        pytest.skip("protocol._speedups was not built (no C compiler at install)")
    both = {"a": a, "b": b}
    old = [both[k] for k in shape]  # shares a and b between the two documents
    new = [both["b" if k == "a" else "a"] for k in shape]
    for x, y in ((a, b), (b, a), (old, new), ({"x": old}, {"x": new, "y": a}), (a, a)):
        assert diff(x, y) == diff_python(x, y)
        twin = msgpack.unpackb(packed(y))  # equal, nothing shared
        assert diff(x, twin) == diff_python(x, twin)


def test_diff_is_the_compiled_one_where_a_compiler_was_there() -> None:
    compiler = sysconfig.get_config_var("CC")
    if not compiler or shutil.which(compiler.split()[0]) is None:
        pytest.skip("no C compiler here: the Python diff is the one in use")
    assert diff is not diff_python, "make test installs protocol._speedups (setup.py)"
    from protocol import _speedups

    assert _speedups.WHOLE_LIST == WHOLE_LIST, "short lists are set whole at the same length"


def test_diff_ops_are_small_and_typed() -> None:
    old = {"round": 1, "center": [0, 3, 0], "log": ["a"], "gone": True, "flag": 1}
    new = {"round": 2, "center": [0, 0, 0], "log": ["a", "b", "c"], "flag": True}
    assert diff(old, new) == [
        [0, ["round"], 2],
        [0, ["center", 1], 0],
        [3, ["log"], ["b", "c"]],
        [0, ["flag"], True],
        [1, ["gone"]],
    ]
    assert diff([1, 2, 3], [1]) == [[2, [], 1]]
    assert diff({"a": 1}, [1]) == [[0, [], [1]]]


@pytest.mark.parametrize(
    "ops",
    [
        [[0, ["missing", "deeper"], 1]],
        [[1, ["nope"]]],
        [[2, ["a"], 0]],
        [[0, ["list", 5], 1]],
        [[9, [], 1]],
        [["x"]],
    ],
)
def test_a_patch_that_does_not_fit_raises_patch_error(ops: list[Any]) -> None:
    with pytest.raises(PatchError):
        apply_patch({"a": 1, "list": [1]}, ops)


# -- mirror ---------------------------------------------------------------------


def test_mirror_applies_patches_in_sequence_and_detects_gaps() -> None:
    mirror = Mirror()
    assert not mirror.patch(0, 1, [])
    assert mirror.stale
    mirror.snapshot(3, {"n": 3})
    assert mirror.patch(3, 4, [[0, ["n"], 4]])
    assert mirror.doc == {"n": 4} and mirror.version == 4
    assert mirror.patch(2, 3, [[0, ["n"], 99]]), "an old patch is a harmless duplicate"
    assert mirror.doc == {"n": 4}
    assert not mirror.patch(5, 6, [[0, ["n"], 6]])
    assert mirror.stale and mirror.version == 4
    mirror.snapshot(6, {"n": 6})
    assert not mirror.stale


def test_mirror_is_stale_after_a_patch_that_does_not_fit() -> None:
    mirror = Mirror()
    mirror.snapshot(1, {"n": 1})
    assert not mirror.patch(1, 2, [[1, ["absent"]]])
    assert mirror.stale


# -- protocol 2: compact frames ---------------------------------------------------


@settings(max_examples=500)
@given(documents, documents, st.lists(st.text(max_size=3), max_size=6))
def test_a_compact_patch_expands_to_the_same_change(a: Any, b: Any, extra: list[str]) -> None:
    """Whatever the key table holds (keys of the documents or not), a protocol 2 patch
    read back through the wire turns ``a`` into ``b`` exactly as protocol 1's does."""
    table = compact.key_table([a, b]) + [[key] for key in extra]
    frame = compact.Compactor(table).patch(5, diff(a, b))
    read = compact.read(msgpack.unpackb(packed(frame)))
    assert (read["t"], read["from"], read["to"]) == ("patch", 4, 5)
    patched = apply_patch(msgpack.unpackb(packed(a)), compact.expand(table, read["ops"]))
    assert canonical(patched) == canonical(b)


@settings(max_examples=500)
@given(loose, loose, st.lists(st.lists(st.text(max_size=2), min_size=1, max_size=2), max_size=8))
def test_the_compiled_compaction_gives_the_python_ones_ops(
    a: Any, b: Any, table: list[list[str]]
) -> None:
    """Same protocol 2 ops from C and Python for any diff and any key table (keys of
    the documents or not, pairs and singles, repeated entries: the first wins)."""
    if compact.compact is compact.compact_python:
        pytest.skip("protocol._speedups was not built (no C compiler at install)")
    singles, pairs = compact.refs(compact.key_table([a, b]) + table)
    for ops in (diff(a, b), diff(b, a), [[1, ["x", "y"]], [2, [], 0], [3, [0, "z"], [1]]]):
        made: list[Any] = ["head"]
        expected: list[Any] = ["head"]
        compact.compact(ops, singles, pairs, made)
        compact.compact_python(ops, singles, pairs, expected)
        assert made == expected


def test_of_two_table_entries_with_the_same_keys_the_first_is_used() -> None:
    table = [["game", "turn"], ["turn"], ["game", "turn"], ["turn"], ["game", "seats"]]
    assert compact.refs(table) == ({"turn": -2}, {"game": {"turn": -1, "seats": -5}})


@pytest.mark.parametrize(
    "ops", [[[0]], [(0, ["a"], 1)], [[0, ("a",), 1]], [[0, ["a"]]], [["x", []]]]
)
def test_the_compiled_compaction_refuses_ops_that_are_not_ops(ops: list[Any]) -> None:
    if compact.compact is compact.compact_python:
        pytest.skip("protocol._speedups was not built (no C compiler at install)")
    with pytest.raises(TypeError):
        compact.compact(ops, {}, {}, [])


def test_the_key_table_puts_the_view_first_and_spells_no_key_twice() -> None:
    doc = {"status": "playing", "game": {"turn": 1, "seats": [{"score": 0}]}, "to_act": [0]}
    table = compact.key_table([doc])
    assert table == [
        ["game", "seats"],
        ["game", "turn"],
        ["game"],
        ["status"],
        ["to_act"],
        ["score"],
        ["seats"],
        ["turn"],
    ]
    packer = compact.Compactor(table)
    assert packer.ops(diff(doc, {**doc, "game": {"turn": 2, "seats": [{"score": 3}]}})) == [
        [-2, 2],
        [-1, 0, -6, 3],
    ]
    assert packer.ops([[1, ["status"]], [2, ["to_act"], 0], [0, [], {}]]) == [
        [None, 1, -4],
        [None, 2, -5, 0],
        [{}],
    ]


@pytest.mark.parametrize(
    "ops",
    [[[-9, 1]], [[1.5, 0]], [[None, 7, -1]], [[]], [5], [[None, 1]]],
)
def test_a_compact_op_that_cannot_be_read_does_not_fit(ops: list[Any]) -> None:
    with pytest.raises(PatchError):
        compact.expand([["game"]], ops)


def test_a_protocol_2_mirror_expands_ops_and_goes_stale_on_a_bad_reference() -> None:
    mirror = Mirror()
    mirror.keys = [["game", "n"]]
    mirror.snapshot(1, {"game": {"n": 1}})
    assert mirror.patch(1, 2, [[-1, 2]]) and mirror.doc == {"game": {"n": 2}}
    assert not mirror.patch(2, 3, [[-2, 3]])
    assert mirror.stale


def test_an_array_frame_of_no_known_shape_is_ignored_not_fatal() -> None:
    assert compact.read([7, "later"]) == {"t": "unknown"}
    assert compact.read([1, "id-7", 12]) == {"t": "ack", "id": "id-7", "v": 12}
    with pytest.raises(ProtocolError):
        decode(packed([0, 1]))  # the server never takes an array from a client


def test_a_key_twice_inside_the_frame_keeps_its_last_value() -> None:
    # {"t": "ping", "data": {"a": 1, "a": 2}}: only the frame's own map is checked
    assert decode(b"\x82\xa1t\xa4ping\xa4data\x82\xa1a\x01\xa1a\x02") == {
        "t": "ping",
        "data": {"a": 2},
    }
