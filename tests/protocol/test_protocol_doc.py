"""docs/protocol.md stays true: its byte examples decode, and it names every code and message."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import msgpack
import pytest

import engines
from engines import base
from protocol import compact, messages
from protocol.codec import decode, encode
from protocol.errors import Code
from protocol.messages import _PARSERS, parse
from support import ROOT

DOC = (ROOT / "docs" / "protocol.md").read_text()
EXAMPLES = DOC.split("## 11. Byte-level examples")[1]
SERVER_TYPES = {"welcome", "snapshot", "patch", "ack", "reject", "event", "result", "legal"}
SERVER_TYPES |= {"error", "pong", "chat"}


HEX_RUN = re.compile(r"^(?:[0-9a-f]{2}(?: |$))+")


def hex_examples() -> list[bytes]:
    """Every example's bytes: the leading hex of each line of a code block, or inline hex."""
    examples = []
    for block in re.findall(r"```\n(.*?)```", EXAMPLES, flags=re.S):
        runs = [HEX_RUN.match(line.strip()) for line in block.splitlines()]
        examples.append(bytes.fromhex(" ".join(run.group(0) for run in runs if run)))
    inline = re.findall(r"`((?:[0-9a-f]{2} )+[0-9a-f]{2})`", EXAMPLES)
    return examples + [bytes.fromhex(text) for text in inline]


EXAMPLE = re.compile(
    r"^\*\*(?P<name>[^*]+)\*\* — `(?P<literal>[{\[][^`\n]*[}\]])`"
    r"(?:: `(?P<inline>[0-9a-f ]+)`| \((?P<size>\d+) bytes[^)]*\)\n\n```\n(?P<block>.*?)```)",
    flags=re.M | re.S,
)


def documented_examples() -> list[tuple[str, Any, bytes, int | None]]:
    """Each example as (name, the message it shows, its bytes, its stated length)."""
    examples = []
    for match in EXAMPLE.finditer(EXAMPLES):
        literal = json.loads(match["literal"].replace("nil", "null"))
        if match["inline"]:
            data = bytes.fromhex(match["inline"])
        else:
            runs = [HEX_RUN.match(line.strip()) for line in match["block"].splitlines()]
            data = bytes.fromhex(" ".join(run.group(0) for run in runs if run))
        size = int(match["size"]) if match["size"] else None
        examples.append((match["name"], literal, data, size))
    return examples


BUILDERS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "welcome": lambda m: messages.welcome(**{k: v for k, v in m.items() if k != "t"}),
    "snapshot": lambda m: messages.snapshot(m["v"], m["doc"]),
    "patch": lambda m: messages.patch(m["from"], m["to"], m["ops"]),
    "ack": lambda m: messages.ack(m["id"], m["v"]),
    "reject": lambda m: messages.reject(m["id"], m["code"], m["message"]),
    "event": lambda m: messages.event(m["v"], m["events"]),
    "result": lambda m: messages.result(m["v"], m["result"]),
    "error": lambda m: messages.error(m["code"], m["message"], fatal=m["fatal"]),
    "pong": lambda m: messages.pong(m["data"]),
    "chat": lambda m: messages.chat(m["lines"]),
}
"""How the server builds each message type that has an example."""


def maps() -> list[tuple[str, Any, bytes, int | None]]:
    return [example for example in documented_examples() if isinstance(example[1], dict)]


def arrays() -> list[tuple[str, Any, bytes, int | None]]:
    """Protocol 2's array frames (section 6.2)."""
    return [example for example in documented_examples() if isinstance(example[1], list)]


def test_every_example_is_found_and_every_block_has_its_heading() -> None:
    found = documented_examples()
    assert len(found) == len(hex_examples()) == 21
    assert {literal["t"] for _, literal, _, _ in maps()} >= set(_PARSERS) | set(BUILDERS)
    assert [literal[0] for _, literal, _, _ in arrays()] == [compact.PATCH, compact.ACK]


@pytest.mark.parametrize(
    ("name", "literal", "data", "size"),
    [pytest.param(*example, id=example[0]) for example in maps()],
)
def test_every_byte_example_is_exactly_what_it_says(
    name: str, literal: dict[str, Any], data: bytes, size: int | None
) -> None:
    assert msgpack.unpackb(data) == literal, "the bytes decode to the message shown"
    assert encode(literal) == data, "the Python codec writes exactly these bytes"
    assert size is None or size == len(data), f"{name} is {len(data)} bytes"
    if literal["t"] in _PARSERS:
        parse(decode(data))  # a client message the server accepts
    else:
        assert BUILDERS[literal["t"]](literal) == literal, "the server builds it with these fields"
    if literal["t"] == "event":
        assert all({"type", "text"} <= set(event) for event in literal["events"])


def test_every_byte_example_is_one_msgpack_message() -> None:
    messages = [compact.read(msgpack.unpackb(data)) for data in hex_examples()]
    kinds = {m["t"] for m in messages}
    assert set(_PARSERS) | SERVER_TYPES <= kinds
    assert all(isinstance(m, dict) for m in messages)


def test_protocol_2_examples_are_protocol_1s_with_the_documented_key_table() -> None:
    by_name = {name: literal for name, literal, _, _ in documented_examples()}
    keys = by_name["welcome with its key table"]["keys"]
    (v1,) = [literal for literal in by_name.values() if literal_type(literal) == "patch"]
    (v2_patch, v2_ack) = [literal for _, literal, _, _ in arrays()]
    for _, literal, data, size in arrays():
        assert msgpack.unpackb(data) == literal and encode(literal) == data
        assert size is None or size == len(data)
    assert compact.Compactor(keys).patch(v1["to"], v1["ops"]) == v2_patch, "the server's bytes"
    read = compact.read(v2_patch)
    assert (read["from"], read["to"]) == (v1["from"], v1["to"])
    assert compact.expand(keys, read["ops"]) == v1["ops"], "a client reads protocol 1's ops"
    ack = by_name["ack"]
    assert compact.read(v2_ack) == ack == compact.read(compact.ack(ack["id"], ack["v"]))


def literal_type(literal: Any) -> str | None:
    return literal.get("t") if isinstance(literal, dict) else None


def test_every_error_code_is_documented() -> None:
    for code in Code:
        assert f"`{code.value}`" in DOC, code


def test_every_http_error_code_is_documented() -> None:
    http = DOC.split("### HTTP codes")[1].split("## 9.")[0]
    server = ROOT / "server"
    source = "\n".join(path.read_text() for path in server.rglob("*.py"))
    found = re.findall(r'ApiError\(\s*\d+,\s*(?:"(\w+)"|Code\.(\w+))', source)
    codes = {quoted or Code[member].value for quoted, member in found}
    codes |= {"bad_seats", "bad_seed", "bad_seat", "not_found", "method_not_allowed"}
    assert {"internal", "game_over", "bad_kind", "unknown_engine"} <= codes
    for code in codes:
        assert f"`{code}`" in http, code


def test_every_message_type_is_documented() -> None:
    for kind in [*_PARSERS, *SERVER_TYPES]:
        assert f"| `{kind}` |" in DOC, kind


def _source(module: ModuleType) -> str:
    """A module's Python source, also where it runs compiled (its file is then the
    extension module beside the source)."""
    path = Path(module.__file__ or "")
    return path.with_name(path.name.split(".", 1)[0] + ".py").read_text()


@pytest.mark.parametrize("engine_id", sorted(engines.ENGINES))
def test_every_engine_reject_code_is_documented(engine_id: str) -> None:
    # Every engine's apply starts with engines.base.check_turn: its codes count too.
    folder = engines.folder(engine_id)
    rules = "".join(path.read_text() for path in sorted(folder.glob("*.py")))
    source = rules + _source(base)
    codes = set(re.findall(r'IllegalAction\(\s*"(\w+)"', source))
    why = (
        source.split("def _why_illegal", 1)[-1].split("\ndef ", 1)[0]
        if "_why_illegal" in source
        else ""
    )
    codes |= set(re.findall(r'return "(\w+)"', why))
    assert len(codes) >= 5
    for code in codes:
        assert f"`{code}`" in DOC, code


CLIENT_FIELDS = {"hello": ["token", "since"], "resync": ["since"], "ping": ["data"]}
"""The fields a client message may leave out (the parser takes them as nil)."""


@pytest.mark.parametrize("kind", sorted(CLIENT_FIELDS))
def test_every_field_a_client_may_leave_out_is_documented_so(kind: str) -> None:
    """A client author reads section 3 alone: a field the server takes as nil when it is
    absent says so in its row (hello's token and since once did not)."""
    full = {"t": kind, "protocol": 2} if kind == "hello" else {"t": kind}
    parse(full)
    row = next(line for line in DOC.splitlines() if line.startswith(f"| `{kind}` |"))
    for name in CLIENT_FIELDS[kind]:
        assert f"`{name}`" in row, name
    assert "optional" in row or "absent is nil" in row, row
