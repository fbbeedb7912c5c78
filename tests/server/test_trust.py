"""Who a client is, as the shipped deployment decides it, and which hosts are served.

The app runs with the settings docker-compose.yml ships (read from the file, so the
test follows it), its requests coming from the proxy's address, as nginx's do. A client
that writes its own X-Forwarded-For (rotating the entries, claiming 127.0.0.1) is
still one address: the limits hold and no exemption is granted.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import yaml
from starlette.testclient import TestClient

from clients.spawn import SpawnedServer, free_port
from protocol.codec import decode, encode
from server.app import create_app
from server.proxies import Networks, allowed_host_names, forwarded_client
from server.settings import Settings, SettingsError
from server.store import MemoryStore, StoreUnavailable
from support import ROOT

# Starlette's TestClient (for a chosen client address, WebSockets included) warns that
# it will move to another HTTP library; that is not this test's concern.
pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")


def shipped() -> dict[str, str]:
    """The TABLEWIRE_* settings of docker-compose.yml's replicas, and the proxy's address."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    env = {k: str(v) for k, v in compose["x-tablewire"]["environment"].items()}
    proxy = compose["services"]["proxy"]["networks"]["edge"]["ipv4_address"]
    return {**env, "proxy": proxy}


def shipped_settings(**overrides: Any) -> Settings:
    env = {k: v for k, v in shipped().items() if k.startswith("TABLEWIRE_")}
    for name in ("TABLEWIRE_REDIS_URL", "TABLEWIRE_HOST", "TABLEWIRE_METRICS_PORT"):
        env.pop(name)  # the memory store, on loopback, no metrics listener here
    return Settings.from_env(env, **overrides)


def test_the_shipped_compose_trusts_its_proxy_alone() -> None:
    env = shipped()
    trusted = Networks(env["TABLEWIRE_TRUSTED_PROXIES"], "trusted_proxies")
    assert not trusted.any, "never every peer"
    assert env["proxy"] in trusted
    assert "172.28.0.3" not in trusted, "not a replica, not Redis, not another container"
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in nginx, "nginx writes the header"
    assert "$proxy_add_x_forwarded_for" not in nginx, "a client's header is never passed on"


@pytest.mark.parametrize(
    ("peer", "header", "client"),
    [
        ("203.0.113.7", "127.0.0.1", "203.0.113.7"),  # not a proxy: the header is ignored
        ("172.28.0.2", "198.51.100.4", "198.51.100.4"),
        ("172.28.0.2", "127.0.0.1, 198.51.100.4", "198.51.100.4"),  # appended: rightmost
        ("172.28.0.2", "1.1.1.1, 2.2.2.2, 198.51.100.4", "198.51.100.4"),
        ("172.28.0.2", "172.28.0.2, 198.51.100.4, 172.28.0.2", "198.51.100.4"),  # proxy chain
        ("172.28.0.2", "198.51.100.4, not-an-address", "172.28.0.2"),  # garbage: the proxy
        ("172.28.0.2", "[2001:db8::1]", "2001:db8::1"),
        ("172.28.0.2", "", "172.28.0.2"),
    ],
)
def test_the_client_is_the_rightmost_address_no_trusted_proxy_holds(
    peer: str, header: str, client: str
) -> None:
    assert forwarded_client(peer, [header], Networks("172.28.0.2", "t")) == client


def test_a_bad_trust_setting_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="trusted_proxies: 'nginx' is not an address"):
        Networks("127.0.0.1, nginx", "trusted_proxies")


@pytest.fixture
def behind_proxy() -> Iterator[TestClient]:
    """The app with the shipped settings, every request arriving from the proxy."""
    app = create_app(shipped_settings())
    with TestClient(app, base_url="http://localhost", client=(shipped()["proxy"], 40000)) as c:
        yield c


def forged(i: int) -> dict[str, str]:
    """A client's own X-Forwarded-For, different every time and claiming loopback, as a
    proxy that appends would pass it on (the real address last)."""
    return {"x-forwarded-for": f"127.0.0.1, 10.{i % 250}.{i // 250}.9, 198.51.100.4"}


def test_forged_addresses_do_not_escape_the_room_creation_limit(behind_proxy: TestClient) -> None:
    codes = [
        behind_proxy.post("/api/rooms", json={"engine": "sintra"}, headers=forged(i)).status_code
        for i in range(25)
    ]
    assert codes == [201] * 20 + [429] * 5, "room_burst is 20 for the one real address"
    other = {"x-forwarded-for": "198.51.100.5"}
    assert (
        behind_proxy.post("/api/rooms", json={"engine": "sintra"}, headers=other).status_code == 201
    )


def test_claiming_loopback_gives_no_load_test_exemption(behind_proxy: TestClient) -> None:
    body = {"engine": "turn-relay", "private": True, "seed": 1}
    codes = [
        behind_proxy.post("/api/rooms", json=body, headers=forged(i)).status_code for i in range(22)
    ]
    assert codes.count(429) == 2


def test_forged_addresses_do_not_escape_the_request_rate() -> None:
    app = create_app(shipped_settings(http_rate=0.001))  # no refill during the test
    with TestClient(app, base_url="http://localhost", client=(shipped()["proxy"], 1)) as client:
        codes = [client.get("/api/games", headers=forged(i)).status_code for i in range(230)]
    assert codes == [200] * 200 + [429] * 30, "http_burst is 200 for the one real address"


def test_forged_addresses_do_not_escape_the_connection_cap() -> None:
    settings = shipped_settings(address_connections=3)
    app = create_app(settings)
    with TestClient(app, base_url="http://localhost", client=(shipped()["proxy"], 1)) as client:
        room = client.post("/api/rooms", json={"engine": "sintra"}).json()["id"]
        held = []
        for i in range(3):
            ws = client.websocket_connect(
                f"ws://localhost/ws/rooms/{room}", headers=forged(i)
            ).__enter__()
            held.append(ws)
        with client.websocket_connect(
            f"ws://localhost/ws/rooms/{room}", headers=forged(99)
        ) as refused:
            frame = decode(refused.receive_bytes())
        assert (frame["t"], frame["code"]) == ("error", "too_many_connections")
        for ws in held:
            ws.send_bytes(encode({"t": "hello", "protocol": 1, "token": None}))
            assert decode(ws.receive_bytes())["t"] == "welcome"
            ws.__exit__(None, None, None)


# -- Host -------------------------------------------------------------------------------


def test_the_default_hosts_are_the_bound_address_and_loopback() -> None:
    assert allowed_host_names("", "127.0.0.1") == {"localhost", "127.0.0.1", "::1"}
    assert allowed_host_names("", "192.0.2.10") == {"localhost", "127.0.0.1", "::1", "192.0.2.10"}
    assert allowed_host_names("", "0.0.0.0") == {"localhost", "127.0.0.1", "::1"}
    assert allowed_host_names("Example.com, *", "0.0.0.0") == {"example.com", "*"}


def test_hosts_are_names_without_port_and_nothing_else_starts() -> None:
    named = "Example.com, www.example.com, [::1], ::1, 192.0.2.1, tablewire_1, *"
    assert Settings.from_env({"TABLEWIRE_ALLOWED_HOSTS": named}).allowed_hosts == named
    for wrong in ("example.com:8000", "https://example.com", "example.com/", "a b", "[::1]:80"):
        with pytest.raises(SettingsError, match="TABLEWIRE_ALLOWED_HOSTS must be host names"):
            Settings.from_env({"TABLEWIRE_ALLOWED_HOSTS": f"localhost,{wrong}"})


async def test_a_rebinding_host_is_refused_on_http(server_url: str) -> None:
    rebinding = {"host": "attacker.example", "origin": "http://attacker.example"}
    async with httpx.AsyncClient(base_url=server_url) as http:
        answer = await http.post("/api/rooms", json={"engine": "sintra"}, headers=rebinding)
        assert answer.status_code == 400
        assert answer.json()["error"]["code"] == "bad_host"
        page = await http.get("/", headers={"host": "attacker.example:8000"})
        assert page.status_code == 400
        ok = await http.post("/api/rooms", json={"engine": "sintra"})
        assert ok.status_code == 201, "the server's own address is served"
        named = await http.get("/api/games", headers={"host": "localhost:1234"})
        assert named.status_code == 200


async def test_a_rebinding_host_is_refused_on_the_websocket_handshake(server_url: str) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    ws_url = server_url.replace("http", "ws") + "/ws/rooms/anything"
    with pytest.raises(InvalidStatus) as refused:
        await connect(
            ws_url,
            additional_headers={"host": "attacker.example", "origin": "http://attacker.example"},
        )
    assert refused.value.response.status_code == 403
    async with connect(ws_url) as ws:  # the right host is served (and told the room is gone)
        await ws.send(encode({"t": "hello", "protocol": 1, "token": None}))
        assert decode(await ws.recv(decode=False))["code"] == "no_such_room"


@pytest.fixture
def server_url(server: Any) -> str:
    url: str = server.url
    return url


@pytest.fixture
def store_kind() -> str:
    return "memory"


# -- /metrics ---------------------------------------------------------------------------


def test_metrics_are_not_served_to_a_peer_elsewhere(behind_proxy: TestClient) -> None:
    answer = behind_proxy.get("/metrics", headers={"x-forwarded-for": "127.0.0.1"})
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "not_found"


def test_metrics_are_served_on_the_public_port_to_this_machine_only_and_limited() -> None:
    app = create_app(Settings(http_burst=5, http_rate=0.001))
    with TestClient(app, base_url="http://localhost", client=("127.0.0.1", 1)) as client:
        codes = [client.get("/metrics").status_code for _ in range(7)]
    assert codes == [200] * 5 + [429] * 2


def test_metrics_are_not_served_through_a_proxy_on_this_machine() -> None:
    """A reverse proxy on this machine (what the default trusted_proxies, 127.0.0.1,
    trusts) forwards the world's requests from loopback: one it forwards for a client
    elsewhere gets 404, as that client would asking directly."""
    app = create_app(Settings())
    with TestClient(app, base_url="http://localhost", client=("127.0.0.1", 1)) as client:
        forwarded = client.get("/metrics", headers={"x-forwarded-for": "203.0.113.9"})
        local = client.get("/metrics", headers={"x-forwarded-for": "127.0.0.1"})
        direct = client.get("/metrics")
    assert forwarded.status_code == 404 and forwarded.json()["error"]["code"] == "not_found"
    assert (local.status_code, direct.status_code) == (200, 200)


# -- /healthz and /readyz -------------------------------------------------------------


class DownStore(MemoryStore):
    """A store whose Redis does not answer, and says where it is."""

    async def ping(self) -> None:
        raise StoreUnavailable("redis: Error 111 connecting to redis-node-3:6379")


@pytest.mark.parametrize("down", [False, True])
def test_health_probes_tell_the_world_whether_not_what(down: bool) -> None:
    """``/healthz`` and ``/readyz`` answer anyone (nginx passes them on): they told every
    client the process's name (host name and pid), the rooms it holds and owns and, while
    Redis was down, Redis's own address. A client elsewhere (through the proxy too) is
    told only whether; a probe on this machine (the image's HEALTHCHECK) gets the details."""
    app = create_app(shipped_settings(node="tablewire-1"), store=DownStore() if down else None)
    with TestClient(app, base_url="http://localhost", client=(shipped()["proxy"], 1)) as proxy:
        world = [proxy.get(path, headers={"x-forwarded-for": "198.51.100.4"}) for path in PROBES]
    with TestClient(app, base_url="http://localhost", client=("127.0.0.1", 1)) as here:
        local = [here.get(path) for path in PROBES]
    ready = {"ok": not down, "store": "unavailable" if down else "ok"}
    assert [answer.json() for answer in world] == [{"ok": True}, ready]
    assert [answer.status_code for answer in world] == [200, 503 if down else 200]
    assert world[1].headers.get("retry-after") == ("1" if down else None)
    details = {"ok": True, "node": "tablewire-1", "rooms": 0, "owned": 0}
    assert local[0].json() == details
    why = "unavailable: redis: Error 111 connecting to redis-node-3:6379"
    assert local[1].json() == {**details, "ok": not down, "store": why if down else "ok"}


PROBES = ("/healthz", "/readyz")


async def test_the_metrics_listener_serves_metrics_and_nothing_else() -> None:
    port = free_port()
    spawned = await SpawnedServer(metrics_port=port).start()
    try:
        async with httpx.AsyncClient() as http:
            scraped = await http.get(f"http://127.0.0.1:{port}/metrics", headers={"host": "tw-1"})
            assert scraped.status_code == 200 and "tablewire_connections" in scraped.text
            other = await http.get(f"http://127.0.0.1:{port}/api/games")
            assert other.status_code == 404
            assert (await http.get(f"{spawned.url}/api/games")).status_code == 200
    finally:
        await spawned.stop()
