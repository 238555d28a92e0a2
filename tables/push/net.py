"""Where the server may send a push: which endpoints a subscription may name, and the HTTP
transport that only ever connects to a public address of the push service.

Two locks, each enough on its own for the common case and together closing the rest:

- ``endpoint_ok``: the endpoint is parsed the way a browser parses it (WHATWG URL rules, the
  ``ada-url`` parser) and must be ``https://`` on the default port, with no user info, a host
  name (never an IP literal) written plainly (no backslash, no percent-encoding, no trailing dot,
  no IDN) and equal to a known push service host or a subdomain of one (dot-boundary suffix).
- ``guarded_session``: every connection resolves the host once, refuses the request if any
  address is loopback, private, link-local, multicast, reserved, unspecified or otherwise not
  global (IPv4-mapped, 6to4, NAT64 and Teredo addresses are judged by the IPv4 inside), then
  connects to one of those checked addresses (TLS still names the host: SNI and certificate
  checks are unchanged) and checks the peer it got. No second lookup that DNS rebinding could
  change, no proxy, and redirects are never followed (a 3xx is a failed delivery).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Mapping
from typing import Any

import ada_url
import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError
from urllib3.util.connection import create_connection

from ..models import ENDPOINT_MAX

#: The browsers' push services (Chrome/Edge-on-Android: FCM, Firefox: Mozilla, Safari: Apple,
#: Edge: WNS). Each entry allows that host and its subdomains (``updates.push.services.mozilla
#: .com``, ``web.push.apple.com``, ``wns2-by3p.notify.windows.com``); ``PUSH_ENDPOINT_HOSTS``
#: adds more.
PUSH_HOSTS: tuple[str, ...] = (
    "fcm.googleapis.com", "android.googleapis.com", "push.services.mozilla.com",
    "push.apple.com", "notify.windows.com",
)

#: A host name as DNS has it: lower-case letters, digits and inner hyphens, 1-63 per label.
_LABEL = r"(?!-)(?!xn--)[a-z0-9-]{1,63}(?<!-)"
_HOSTNAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})+")

#: Resolves a host to the addresses to connect to (tests pass their own).
Resolver = Callable[[str, int], list[str]]


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system resolver gives for ``host`` (TCP), in its order."""
    out: list[str] = []
    for *_, sockaddr in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        addr = str(sockaddr[0])
        if addr not in out:
            out.append(addr)
    return out


def normalize_hosts(value: str | tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Extra push service hosts from the config (comma-separated): valid host names only."""
    items = value.split(",") if isinstance(value, str) else list(value)
    out = []
    for item in items:
        host = str(item).strip().lower()
        if _HOSTNAME.fullmatch(host) and len(host) <= 253:
            out.append(host)
    return tuple(out)


def _host_allowed(host: str, allowed: tuple[str, ...]) -> bool:
    return any(host == h or host.endswith("." + h) for h in allowed)


def endpoint_ok(endpoint: object, allow_insecure: bool = False,
                extra_hosts: tuple[str, ...] = ()) -> bool:
    """A push endpoint the server may POST to (see the module's docstring).

    ``allow_insecure`` is for tests only (``PUSH_INSECURE_ENDPOINTS``): it also accepts
    ``http(s)://`` on a loopback IP literal with any port, the tests' local push service."""
    if not isinstance(endpoint, str) or not 10 <= len(endpoint) <= ENDPOINT_MAX:
        return False
    # Printable ASCII only (a browser serializes the endpoint so), never a backslash: WHATWG
    # reads one as a slash where other parsers read it as part of the host.
    if not endpoint.isascii() or "\\" in endpoint \
            or any(ord(c) <= 0x20 or ord(c) == 0x7F for c in endpoint):
        return False
    try:
        url = ada_url.parse_url(endpoint)
    except ValueError:
        return False
    if url["username"] or url["password"]:
        return False
    scheme, host, port = url["protocol"], url["hostname"], url["port"]
    # The authority exactly as written must be what the parser made of it: this refuses
    # percent-encoded or upper-case tricks, an '@' anywhere before the path, a stray port.
    rest = endpoint.split("://", 1)[1] if "://" in endpoint else ""
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    written = (url["host"],) + ((url["host"] + ":443",) if scheme == "https:" else ())
    if authority not in written:
        return False
    if allow_insecure and scheme in ("http:", "https:") and _loopback_literal(host):
        return True
    if scheme != "https:" or port != "" or url["host_type"] != ada_url.HostType.DEFAULT:
        return False
    if len(host) > 253 or not _HOSTNAME.fullmatch(host):
        return False
    return _host_allowed(host, PUSH_HOSTS + tuple(extra_hosts))


def _loopback_literal(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


# -------------------------------------------------------------------- addresses


_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")


def _embedded_ipv4(addr: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address stands for (mapped, 6to4, NAT64, Teredo), if any."""
    if addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    if addr.sixtofour is not None:
        return addr.sixtofour
    if addr.teredo is not None:
        return addr.teredo[1]
    if addr in _NAT64:
        return ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF)
    return None


def address_allowed(address: str, allow_loopback: bool = False) -> bool:
    """Whether the server may connect to this IP address: a global unicast address only
    (``allow_loopback``, tests only, also lets loopback through)."""
    try:
        addr: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.scope_id:
            return False
        inner = _embedded_ipv4(addr)
        if inner is not None:
            return address_allowed(str(inner), allow_loopback)
        if addr in _NAT64_LOCAL:
            return False
    if addr.is_loopback:
        return allow_loopback
    if addr.is_private or addr.is_link_local or addr.is_multicast or addr.is_reserved \
            or addr.is_unspecified:
        return False
    if isinstance(addr, ipaddress.IPv6Address) and addr.is_site_local:
        return False
    return addr.is_global


class BlockedAddress(Exception):
    """The push service's host resolved to an address the server never connects to."""


class AddressGuard:
    """Resolves once, checks every address, connects to a checked one, checks the peer."""

    def __init__(self, resolver: Resolver | None = None, allow_loopback: bool = False) -> None:
        self.resolver: Resolver = resolver or system_resolver
        self.allow_loopback = allow_loopback

    def addresses(self, host: str, port: int) -> list[str]:
        """The addresses to try for ``host``: all of them allowed, else ``BlockedAddress``."""
        try:
            ipaddress.ip_address(host.strip("[]"))
            found = [host.strip("[]")]  # an IP literal is its own address
        except ValueError:
            try:
                found = list(self.resolver(host, port))
            except socket.gaierror as err:
                raise OSError(f"{host}: {err}") from err
        if not found:
            raise BlockedAddress(f"{host} has no address")
        for addr in found:
            if not address_allowed(addr, self.allow_loopback):
                raise BlockedAddress(f"{host} resolves to {addr}, not a public address")
        return found

    def connect(self, conn: HTTPConnection) -> socket.socket:
        """What ``HTTPConnection._new_conn`` does, to a checked address of the host."""
        host = conn.host
        port = int(conn.port or (443 if isinstance(conn, HTTPSConnection) else 80))
        try:
            found = self.addresses(host, port)
        except OSError as err:
            raise NewConnectionError(conn, f"Failed to resolve {host}: {err}") from err
        last: OSError | None = None
        for addr in found:
            try:
                sock = create_connection((addr, port), conn.timeout,
                                         source_address=conn.source_address,
                                         socket_options=conn.socket_options)
            except TimeoutError as err:
                raise ConnectTimeoutError(
                    conn, f"Connection to {host} timed out. (connect timeout={conn.timeout})"
                ) from err
            except OSError as err:
                last = err
                continue
            peer = str(sock.getpeername()[0])
            if not address_allowed(peer, self.allow_loopback):
                sock.close()
                raise BlockedAddress(f"{host}: connected to {peer}, not a public address")
            return sock
        raise NewConnectionError(conn, f"Failed to establish a new connection: {last}")


class _GuardedHTTPConnection(HTTPConnection):
    def __init__(self, *args: Any, guard: AddressGuard, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guard = guard

    def _new_conn(self) -> socket.socket:
        return self.guard.connect(self)


class _GuardedHTTPSConnection(HTTPSConnection):
    def __init__(self, *args: Any, guard: AddressGuard, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guard = guard

    def _new_conn(self) -> socket.socket:
        return self.guard.connect(self)


class _GuardedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _GuardedHTTPConnection
    guard: AddressGuard  # set by GuardedAdapter on a subclass of its own

    def __init__(self, host: str, port: int | None = None, **kwargs: Any) -> None:
        super().__init__(host, port, **kwargs)
        self.conn_kw["guard"] = self.guard


class _GuardedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _GuardedHTTPSConnection
    guard: AddressGuard

    def __init__(self, host: str, port: int | None = None, **kwargs: Any) -> None:
        super().__init__(host, port, **kwargs)
        self.conn_kw["guard"] = self.guard


class GuardedAdapter(HTTPAdapter):
    """A requests transport whose every new connection goes through an ``AddressGuard``."""

    def __init__(self, guard: AddressGuard, **kwargs: Any) -> None:
        self.guard = guard
        super().__init__(**kwargs)

    def init_poolmanager(self, connections: int, maxsize: int, block: bool = False,
                         **pool_kwargs: Any) -> None:
        super().init_poolmanager(connections, maxsize, block, **pool_kwargs)
        attrs = {"guard": self.guard}
        self.poolmanager.pool_classes_by_scheme = {
            "http": type("GuardedHTTPPool", (_GuardedHTTPPool,), attrs),
            "https": type("GuardedHTTPSPool", (_GuardedHTTPSPool,), attrs),
        }

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        raise BlockedAddress("push requests never go through a proxy (its target is unchecked)")


class GuardedSession(requests.Session):
    """A requests session for push: guarded connections, no proxies, never a redirect."""

    def __init__(self, guard: AddressGuard) -> None:
        super().__init__()
        self.trust_env = False  # no proxy or .netrc from the environment
        for prefix in ("https://", "http://"):
            self.mount(prefix, GuardedAdapter(guard))

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        kwargs["allow_redirects"] = False
        return super().send(request, **kwargs)


def guarded_session(config: Mapping[str, Any]) -> GuardedSession:
    """The push session for an app's config: ``PUSH_RESOLVER`` (a function (host, port) ->
    addresses; the system resolver by default) and ``PUSH_INSECURE_ENDPOINTS`` (tests only:
    loopback addresses allowed too; private and the rest never)."""
    resolver = config.get("PUSH_RESOLVER")
    guard = AddressGuard(resolver if callable(resolver) else None,
                         allow_loopback=bool(config.get("PUSH_INSECURE_ENDPOINTS")))
    return GuardedSession(guard)
