"""docs/protocol.md stays true: its byte examples decode, and it names every code and message."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import msgpack
import pytest

from engines import base
from engines.chartered import engine as chartered_engine
from engines.crystal_palace import engine as crystal_palace_engine
from engines.sintra import engine as sintra_engine
from engines.turn_relay import engine as turn_relay_engine
from protocol.errors import Code
from protocol.messages import _PARSERS

DOC = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()
EXAMPLES = DOC.split("## 11. Byte-level examples")[1]
SERVER_TYPES = {"welcome", "snapshot", "patch", "ack", "reject", "event", "result", "legal"}
SERVER_TYPES |= {"error", "pong"}


HEX_RUN = re.compile(r"^(?:[0-9a-f]{2}(?: |$))+")


def hex_examples() -> list[bytes]:
    """Every example's bytes: the leading hex of each line of a code block, or inline hex."""
    examples = []
    for block in re.findall(r"```\n(.*?)```", EXAMPLES, flags=re.S):
        runs = [HEX_RUN.match(line.strip()) for line in block.splitlines()]
        examples.append(bytes.fromhex(" ".join(run.group(0) for run in runs if run)))
    inline = re.findall(r"`((?:[0-9a-f]{2} )+[0-9a-f]{2})`", EXAMPLES)
    return examples + [bytes.fromhex(text) for text in inline]


def test_every_byte_example_is_one_msgpack_message() -> None:
    messages = [msgpack.unpackb(data) for data in hex_examples()]
    kinds = {m["t"] for m in messages}
    assert set(_PARSERS) | SERVER_TYPES <= kinds
    assert all(isinstance(m, dict) for m in messages)


def test_every_error_code_is_documented() -> None:
    for code in Code:
        assert f"`{code.value}`" in DOC, code


def test_every_message_type_is_documented() -> None:
    for kind in [*_PARSERS, *SERVER_TYPES]:
        assert f"| `{kind}` |" in DOC, kind


@pytest.mark.parametrize(
    "module",
    [sintra_engine, chartered_engine, crystal_palace_engine, turn_relay_engine],
    ids=["sintra", "chartered", "crystal-palace", "turn-relay"],
)
def test_every_engine_reject_code_is_documented(module: ModuleType) -> None:
    # Every engine's apply starts with engines.base.check_turn: its codes count too.
    source = Path(module.__file__ or "").read_text() + Path(base.__file__ or "").read_text()
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
