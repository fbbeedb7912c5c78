"""Who a request comes from, and which host it is for (docs/operations.md, "Behind a proxy").

Every limit per client address counts the address this module gives, so it
must be one a client cannot choose:

* :class:`Networks` — a set of addresses and networks from a setting
  (``trusted_proxies``, ``load_test_clients``): ``127.0.0.1, 10.0.0.0/8, ::1``;
  ``*`` is every address.
* :class:`ClientAddress` — ASGI middleware. When the TCP peer is a trusted proxy,
  ``X-Forwarded-For`` is read from the right: each proxy appends the address it
  got the request from, so the rightmost entry that is not itself a trusted
  proxy is the client; everything left of it was written by the client and is
  ignored. Anything else (a peer that is not trusted, a header that is not a
  list of addresses) leaves the client at the last address a trusted hop
  vouched for. The TCP peer itself is kept in the scope under :data:`PEER`.
* :class:`HostPolicy` — ASGI middleware: a request whose ``Host`` names none of
  the server's names (``allowed_hosts``), or that has two, is refused before anything
  else sees it, so a page of another site that made its own name resolve to this server
  (DNS rebinding) cannot use it: HTTP 400 ``bad_host``, a WebSocket handshake
  closed before it is accepted (HTTP 403). The health probes (``/healthz``,
  ``/readyz``) answer whatever their ``Host``.
"""

from __future__ import annotations

import functools
import ipaddress
import json
import logging
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from starlette.types import ASGIApp, Receive, Scope, Send

from server.logs import fields

if TYPE_CHECKING:  # (settings checks its addresses with Networks: no run-time import back)
    from server.settings import Settings

log = logging.getLogger("tablewire.proxies")

PEER = "tablewire.peer"
"""The scope key of the TCP peer's address (the client's may be a forwarded one)."""

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None


class Networks:
    """Addresses and networks (``a.b.c.d``, ``a.b.c.d/n``, IPv6 alike; ``*``: all)."""

    def __init__(self, setting: str, name: str) -> None:
        self.any = False
        self.networks: list[Network] = []
        for item in (part.strip() for part in setting.split(",")):
            if item == "*":
                self.any = True
            elif item:
                try:
                    self.networks.append(ipaddress.ip_network(item, strict=False))
                except ValueError:
                    raise ValueError(
                        f"{name}: {item!r} is not an address or a network (a.b.c.d/n)"
                    ) from None

    def __contains__(self, address: str) -> bool:
        if self.any:
            return True
        ip = _ip(address)
        return ip is not None and any(ip in network for network in self.networks)

    def __bool__(self) -> bool:
        return self.any or bool(self.networks)


@functools.cache
def trusted_proxies(settings: Settings) -> Networks:
    """``settings.trusted_proxies`` parsed (once per settings)."""
    return Networks(settings.trusted_proxies, "trusted_proxies")


@functools.cache
def load_testers(settings: Settings) -> Networks:
    """``settings.load_test_clients`` parsed (once per settings: the gate, the lobby and
    the HTTP limits share it)."""
    return Networks(settings.load_test_clients, "load_test_clients")


def forwarded_client(peer: str, forwarded: Iterable[str], trusted: Networks) -> str:
    """The client of a request from ``peer`` carrying the ``X-Forwarded-For`` values
    ``forwarded``: the rightmost hop that ``trusted`` does not hold (see the module
    docstring)."""
    client = peer
    if client not in trusted:
        return client
    hops = [hop for value in forwarded for hop in value.split(",")]
    for hop in reversed(hops):
        ip = _ip(hop)
        if ip is None:  # not an address: nothing left of it can be believed
            return client
        client = str(ip)
        if client not in trusted:
            return client
    return client


class ClientAddress:
    """ASGI middleware: ``scope["client"]`` becomes the client's address as
    :func:`forwarded_client` finds it; the peer is kept under :data:`PEER`."""

    def __init__(self, app: ASGIApp, trusted: Networks) -> None:
        self.app = app
        self.trusted = trusted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            client = scope.get("client")
            peer = str(client[0]) if client else "?"
            forwarded = [
                value.decode("latin-1")
                for name, value in scope.get("headers", ())
                if name == b"x-forwarded-for"
            ]
            address = forwarded_client(peer, forwarded, self.trusted) if forwarded else peer
            scope = {**scope, PEER: peer}
            if address != peer:
                scope["client"] = (address, 0)
        await self.app(scope, receive, send)


HOST = re.compile(r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9._-]+))(?::[0-9]{1,5})?")
"""What a ``Host`` header may be (RFC 9110): a name, an IPv4 address or an IPv6 one in
brackets, and an optional port."""


def host_name(host_header: str) -> str:
    """The name of a ``Host`` header, port and brackets dropped, lower case; "" for a
    header that is not ``host[:port]`` (``evil@localhost``, ``[::1``), which no name
    matches."""
    found = HOST.fullmatch(host_header)
    if found is None:
        return ""
    return (found["v6"] or found["name"]).lower()


_HOST_NAME = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?")
"""A DNS name as a ``Host`` header carries it (internationalised names in their
``xn--`` form), lower case."""


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def host_or_address(text: str) -> bool:
    """Whether ``text`` is an IP address (IPv6 without brackets) or a DNS name: what a
    server can be told to listen on, with no port, scheme, path or space in it."""
    return bool(_HOST_NAME.fullmatch(text.lower())) or _is_address(text)


def allowed_host_names(setting: str, bind_host: str) -> frozenset[str]:
    """``allowed_hosts`` as a set of names (``*`` among them: any); by default the
    address the server is bound to (unless it is every address) and the names of
    this machine's loopback. A ValueError for a part that no ``Host`` header can name
    (a port, a scheme, a path or a space in it): it would refuse every request."""
    names = {part.strip().lower().strip("[]") for part in setting.split(",") if part.strip()}
    for name in names - {"*"}:
        if not (_HOST_NAME.fullmatch(name) or _is_address(name)):
            raise ValueError(f"allowed_hosts: {name!r} is not a host name without a port")
    if not names:
        names = {"localhost", "127.0.0.1", "::1"}
        if bind_host not in ("0.0.0.0", "::", ""):
            names.add(bind_host.lower().strip("[]"))
    return frozenset(names)


PROBES = frozenset({"/healthz", "/readyz"})
"""Paths answered whatever their ``Host``: a health probe names the address it dials
(Docker's ``127.0.0.1``, an orchestrator's the container's own address), not the
site's name, and a probe refused takes a healthy process out of service. What they
answer (whether the process and its store answer, its node name and room counts) is
nothing a rebinding page could act on."""


class HostPolicy:
    """ASGI middleware refusing requests for a host that is not one of ``names`` (the
    health probes, :data:`PROBES`, aside)."""

    def __init__(self, app: ASGIApp, names: frozenset[str]) -> None:
        self.app = app
        self.names = names
        self.any = "*" in names

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.any or scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "http" and scope.get("path") in PROBES:
            await self.app(scope, receive, send)
            return
        hosts = [
            value.decode("latin-1") for name, value in scope.get("headers", ()) if name == b"host"
        ]
        host = ", ".join(hosts)  # more than one (RFC 9112: a bad request) names no host
        if len(hosts) == 1 and host_name(host) in self.names:
            await self.app(scope, receive, send)
            return
        log.info("host refused", extra=fields(host=host[:100], path=scope.get("path")))
        if scope["type"] == "websocket":
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008})
            return
        message = f"this server does not serve the host {host[:100]!r} (allowed_hosts)"
        body = json.dumps({"error": {"code": "bad_host", "message": message}}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        await send({"type": "http.response.start", "status": 400, "headers": headers})
        await send({"type": "http.response.body", "body": body})
