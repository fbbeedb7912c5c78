"""clients/spawn.py's throwaway redis-server: its output is read all along, so one that
logs more than a pipe holds keeps answering and stops when told; one that cannot start
is an error that shows why."""

from __future__ import annotations

import socket
from pathlib import Path

import redis

from clients.spawn import free_port
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


def test_a_free_port_is_outside_the_ports_of_outgoing_connections() -> None:
    """A server started again on its port must not find it held by a client's connection
    (a Redis cluster test failed so: 'address already in use'): the ports handed out are
    below the kernel's range for outgoing connections, and free."""
    low, high = (int(n) for n in Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    ports = {free_port() for _ in range(20)}
    assert all(not low <= port <= high for port in ports), ports
    for port in ports:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))
