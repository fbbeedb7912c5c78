"""clients/spawn.py's throwaway redis-server: its output is read all along, so one that
logs more than a pipe holds keeps answering and stops when told; one that cannot start
is an error that shows why."""

from __future__ import annotations

import redis

from conftest import redis_server

PIPE = 64 * 1024
"""What a Linux pipe holds before its writer blocks."""


def test_a_redis_that_logs_more_than_a_pipe_holds_keeps_answering_and_stops() -> None:
    server = redis_server("--enable-debug-command", "local")
    server.start()
    try:
        client = redis.Redis(port=server.port, socket_timeout=10)
        line = "x" * 1000
        for _ in range(3 * PIPE // len(line)):
            client.execute_command("DEBUG", "LOG", line)
        assert client.ping()
        client.close()
    finally:
        server.cleanup()
    assert server.process is None
    assert any(line in logged for logged in server.output), "its last lines are kept"


def test_a_redis_that_cannot_start_says_why() -> None:
    server = redis_server("--no-such-option", "yes")
    try:
        server.start(within=30)
    except RuntimeError as error:
        assert "no-such-option" in str(error), error
        assert server.process is None
    else:
        raise AssertionError("a redis-server given a bad option started")
    finally:
        server.cleanup()
