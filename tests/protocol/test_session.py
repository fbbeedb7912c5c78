"""The sans-I/O room session (protocol/session.py), without a network: the frames the
server takes and refuses, and what a client makes of each frame it receives."""

from __future__ import annotations

from typing import Any

import pytest

from protocol import PROTOCOL_VERSION, compact, messages
from protocol.codec import decode, encode
from protocol.errors import Code, ProtocolError
from protocol.messages import Hello, Legal
from protocol.session import CHAT_LINES, ClientSession, joining, refusal


def welcome(protocol: int = 1, keys: list[list[str]] | None = None) -> bytes:
    frame = messages.welcome(
        protocol=protocol,
        room="r1",
        engine="sintra",
        title="Azul: Stained Glass of Sintra",
        options={},
        seats=2,
        seat=0,
        version=3,
        keys=keys,
    )
    return encode(frame)


def test_the_first_frame_must_be_a_hello_in_a_spoken_protocol() -> None:
    hello = Hello(protocol=PROTOCOL_VERSION, token=None, since=None)
    assert joining(hello) is hello
    with pytest.raises(ProtocolError) as refused:
        joining(Legal())
    assert refused.value.code == Code.HELLO_REQUIRED
    with pytest.raises(ProtocolError) as refused:
        joining(Hello(protocol=99, token=None, since=None))
    assert refused.value.code == Code.UNSUPPORTED_PROTOCOL
    assert "99" in refused.value.message


def test_a_refused_intent_gets_a_reject_and_anything_else_an_error() -> None:
    rejected = decode(refusal(ProtocolError(Code.BAD_FIELD, "no", intent_id=7)))
    assert rejected == {"t": "reject", "id": 7, "code": Code.BAD_FIELD, "message": "no"}
    errored = decode(refusal(ProtocolError(Code.BAD_FIELD, "no", of="legal")))
    assert errored["t"] == "error" and errored["of"] == "legal" and not errored["fatal"]


def test_hello_carries_the_token_and_the_version_held() -> None:
    session = ClientSession("tok")
    assert decode(session.hello()) == {
        "t": "hello",
        "protocol": PROTOCOL_VERSION,
        "token": "tok",
        "since": None,
    }
    session.receive(welcome())
    session.receive(encode(messages.snapshot(3, {"n": 1})))
    assert decode(session.hello())["since"] == 3, "a reconnect catches up from here"
    assert session.seat == 0


def test_snapshots_and_patches_keep_the_mirror_and_a_gap_asks_for_a_resync() -> None:
    session = ClientSession()
    session.receive(welcome())
    got = session.receive(encode(messages.snapshot(3, {"n": 1})))
    assert got.changed and session.mirror.doc == {"n": 1}
    got = session.receive(encode(messages.patch(3, 4, [[0, ["n"], 2]])))
    assert got.changed and got.reply is None and session.mirror.version == 4
    assert not session.receive(encode(messages.patch(3, 4, [[0, ["n"], 9]]))).changed, (
        "a duplicate patch changes nothing"
    )
    got = session.receive(encode(messages.patch(6, 7, [[0, ["n"], 5]])))
    assert got.reply is not None and decode(got.reply) == {"t": "resync", "since": None}
    assert session.resyncs == 1 and session.mirror.doc == {"n": 2}
    assert session.receive(encode(messages.snapshot(7, {"n": 5}))).changed
    assert not session.mirror.stale
    assert session.received == {"welcome": 1, "snapshot": 2, "patch": 3}


def test_protocol_2_patches_and_acks_are_read_against_the_key_table() -> None:
    session = ClientSession()
    session.receive(welcome(protocol=2, keys=[["game", "turn"]]))
    session.receive(encode(messages.snapshot(3, {"game": {"turn": 0}})))
    got = session.receive(encode([compact.PATCH, 4, [-1, 1]]))
    assert got.changed and session.mirror.doc == {"game": {"turn": 1}}
    got = session.receive(encode(compact.ack(11, 4)))
    assert (got.kind, got.answers) == ("ack", 11)


def test_each_answer_names_the_request_it_answers() -> None:
    session = ClientSession()
    answers: dict[str, Any] = {
        "reject": messages.reject(5, "not_your_turn", "wait"),
        "legal": messages.legal(3, 0, [], []),
        "pong": messages.pong(None),
        "error": messages.error(Code.RATE_LIMITED, "slow", of="legal", retry_after=1.0),
    }
    assert [session.receive(encode(frame)).answers for frame in answers.values()] == [
        5,
        "legal",
        "pong",
        "legal",
    ]
    fatal = messages.error(Code.BAD_TOKEN, "no", fatal=True)
    assert session.receive(encode(fatal)).answers is None


def test_intent_ids_are_unique_and_a_resend_keeps_its_id() -> None:
    one, two = ClientSession(), ClientSession()
    ids = {one.new_intent_id() for _ in range(100)}
    assert len(ids) == 100 and not ids & {two.new_intent_id()}
    frame = decode(one.intent({"k": "pass"}, intent_id=42))
    assert frame == {"t": "intent", "id": 42, "action": {"k": "pass"}}


def test_chat_lines_are_kept_and_a_join_replaces_them() -> None:
    session = ClientSession()
    assert decode(session.say("gg")) == {"t": "say", "text": "gg"}

    def line(n: int) -> dict[str, Any]:
        return {"seat": 0, "name": "ana", "text": f"line {n}", "at": float(n)}

    session.receive(encode(messages.chat([line(1), line(2)], history=True)))
    session.receive(encode(messages.chat([line(3)])))
    assert [said["text"] for said in session.chat] == ["line 1", "line 2", "line 3"]
    session.receive(encode(messages.chat([line(9)], history=True)))  # after a reconnect
    assert [said["text"] for said in session.chat] == ["line 9"]
    for n in range(CHAT_LINES + 5):
        session.receive(encode(messages.chat([line(n)])))
    assert len(session.chat) == CHAT_LINES and session.chat[-1] == line(CHAT_LINES + 4)
