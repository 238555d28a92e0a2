"""Where a push may go: only https endpoints on the known push services (parsed as a browser
parses them), only public addresses at send time (checked on the connection itself), never a
redirect. Nothing here sends a packet beyond 127.0.0.1: a refused address is refused before any
connection, and the resolvers are the tests' own."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import requests
from sqlalchemy import func, select

from tables.db import db
from tables.models import PushOutbox, PushSubscription
from tables.push.net import (
    AddressGuard,
    BlockedAddress,
    GuardedSession,
    address_allowed,
    endpoint_ok,
)
from tests.kit import Player, close_app, make_app, wait_until
from tests.push.pushkit import PushService, Subscriber, running_push_service

GOOD = [
    "https://fcm.googleapis.com/fcm/send/abc:APA91bH-x_y",
    "https://android.googleapis.com/gcm/send/abc",
    "https://updates.push.services.mozilla.com/wpush/v2/gAAAAA",
    "https://push.services.mozilla.com/wpush/v1/x",
    "https://web.push.apple.com/QGx-abc",
    "https://wns2-by3p.notify.windows.com/w/?token=BQYAAAB%2b",
]

ATTACKS = [
    # urlparse reads the whole authority as the host; WHATWG (and the HTTP client) stop at '\'.
    "https://127.0.0.1\\.fcm.googleapis.com/x",
    "https://localhost\\.fcm.googleapis.com/x",
    "https://169.254.169.254\\.fcm.googleapis.com/latest/meta-data/",
    "https://[::1]\\.fcm.googleapis.com/x",
    "https://fcm.googleapis.com\\@127.0.0.1/x",
    # user info
    "https://fcm.googleapis.com@127.0.0.1/",
    "https://user:pw@fcm.googleapis.com/x",
    "https://fcm.googleapis.com:x@localhost/",
    # IP literals, in every spelling WHATWG accepts
    "https://[::1]/",
    "https://127.0.0.1/x",
    "https://2130706433/x",
    "https://0x7f.1/x",
    "https://[::ffff:127.0.0.1]/x",
    "https://169.254.169.254/latest/meta-data/",
    # ports and schemes
    "https://fcm.googleapis.com:8443/x",
    "https://fcm.googleapis.com:80/x",
    "http://fcm.googleapis.com/fcm/send/abc",
    "ftp://fcm.googleapis.com/x",
    "wss://fcm.googleapis.com/x",
    "//fcm.googleapis.com/x",
    "fcm.googleapis.com/fcm/send/abc",
    # percent-encoded host characters
    "https://fcm%2Egoogleapis.com/x",
    "https://%66cm.googleapis.com/x",
    "https://127.0.0.1%2F.fcm.googleapis.com/x",
    "https://fcm.googleapis.com%2F@127.0.0.1/x",
    # trailing dots and look-alikes
    "https://fcm.googleapis.com./x",
    "https://fcm.googleapis.com../x",
    "https://fсm.googleapis.com/x",  # Cyrillic 'с'
    "https://xn--fm-omc.googleapis.com/x",
    "https://ｆcm.googleapis.com/x",  # full-width 'ｆ' (NFKC folds it to 'f')
    "https://fcm.googleapis.com\u3002/x",  # ideographic full stop
    # the allow-list matches whole labels only
    "https://evil.example/fcm.googleapis.com",
    "https://fcm.googleapis.com.evil.example/x",
    "https://evilfcm.googleapis.com/x",
    "https://notpush.apple.com/x",
    "https://xnotify.windows.com/x",
    "https://googleapis.com/x",
    # whitespace and control characters WHATWG would strip
    " https://fcm.googleapis.com/x",
    "https://fcm.googleapis.com/x\t",
    "https://fcm.google\tapis.com/x",
    "https://fcm.googleapis.com/x\n",
    "https://FCM.GOOGLEAPIS.COM/x",
    "not a url at all",
    "https://",
]


@pytest.mark.parametrize("endpoint", GOOD)
def test_push_service_endpoints_are_accepted(endpoint: str) -> None:
    assert endpoint_ok(endpoint)


@pytest.mark.parametrize("endpoint", ATTACKS)
def test_attack_endpoints_are_refused(endpoint: str) -> None:
    assert not endpoint_ok(endpoint)
    assert not endpoint_ok(endpoint, extra_hosts=("push.example.org",))


@pytest.mark.parametrize("endpoint", [a for a in ATTACKS if "127.0.0.1/" not in a
                                      and "[::1]/" not in a and "0x7f" not in a
                                      and "2130706433" not in a and "::ffff:127" not in a])
def test_the_test_only_loopback_mode_refuses_them_too(endpoint: str) -> None:
    """PUSH_INSECURE_ENDPOINTS adds loopback IP literals, nothing else."""
    assert not endpoint_ok(endpoint, True)


def test_the_test_only_loopback_mode_adds_loopback_literals_only() -> None:
    assert endpoint_ok("http://127.0.0.1:9/push/x", True)
    assert endpoint_ok("https://[::1]:8443/push/x", True)
    assert not endpoint_ok("http://127.0.0.1:9/push/x", False)
    assert not endpoint_ok("http://10.0.0.1:9/push/x", True)
    assert not endpoint_ok("http://169.254.169.254/latest", True)
    assert not endpoint_ok("http://localhost:9/push/x", True)
    assert not endpoint_ok("http://push.example.org/x", True)


def test_extra_hosts_match_whole_labels() -> None:
    extra = ("push.example.org",)
    assert endpoint_ok("https://push.example.org/x", False, extra)
    assert endpoint_ok("https://eu.push.example.org/x", False, extra)
    assert not endpoint_ok("https://evilpush.example.org/x", False, extra)
    assert not endpoint_ok("https://push.example.org.evil/x", False, extra)
    assert not endpoint_ok("https://push.example.org/x", False)


# -------------------------------------------------------------------- the subscribe API


@pytest.fixture()
def prod_app(migrated: str) -> Iterator[Any]:
    """The production configuration (no loopback allowance); pushes never leave the machine:
    the sender is off and every name resolves to a private address, which is refused."""
    app = make_app(migrated, PUSH_SENDER="off",
                   PUSH_RESOLVER=lambda host, port: ["10.255.255.1"])
    yield app
    close_app(app)


def _rows(app: Any, tid: str) -> int:
    with app.app_context():
        n = db.session.execute(select(func.count()).select_from(PushSubscription)
                               .where(PushSubscription.table_id == tid)).scalar_one()
        db.session.rollback()
        return int(n)


@pytest.mark.db
def test_refused_endpoints_get_a_spanish_400_and_store_nothing(prod_app: Any) -> None:
    ana = Player(prod_app)
    tid = ana.create("Ana")
    keys = Subscriber(PushService(url="https://fcm.googleapis.com"), "ana").subscription()["keys"]
    for endpoint in ATTACKS:
        r = ana.post(f"/api/tables/{tid}/push",
                     {"subscription": {"endpoint": endpoint, "keys": keys}})
        assert r.status_code == 400, (endpoint, r.status_code)
        body = r.get_json()
        assert body["error"] == "bad_push_endpoint", endpoint
        assert "servicio de avisos conocido" in body["message"]
        assert _rows(prod_app, tid) == 0, endpoint
    # The same request with a push service's endpoint is stored.
    r = ana.post(f"/api/tables/{tid}/push", {"subscription": {
        "endpoint": "https://fcm.googleapis.com/fcm/send/ana", "keys": keys}})
    assert r.status_code == 200 and r.get_json()["subscribed"] is True
    assert _rows(prod_app, tid) == 1


# -------------------------------------------------------------------- addresses


BLOCKED = [
    "127.0.0.1", "127.1.2.3", "::1", "10.1.2.3", "172.16.0.1", "192.168.1.1",
    "169.254.169.254", "100.64.0.1", "0.0.0.0", "::", "224.0.0.1", "239.255.255.250",
    "240.0.0.1", "255.255.255.255", "192.0.2.1", "198.18.0.1", "fe80::1", "fe80::1%1",
    "fc00::1", "fd12:3456::1", "fec0::1", "ff02::1", "ff0e::1", "2001:db8::1",
    "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::127.0.0.1",
    "2002:7f00:1::1", "2002:a00:1::1", "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe",
    "64:ff9b:1::a00:1", "2001:0:4136:e378:8000:63bf:80ff:fffe", "not-an-ip", "",
]
PUBLIC = ["8.8.8.8", "142.250.74.106", "2a00:1450:4001:82a::200a", "2606:4700::1111",
          "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"]


@pytest.mark.parametrize("address", BLOCKED)
def test_non_public_addresses_are_refused(address: str) -> None:
    assert not address_allowed(address)


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_are_allowed(address: str) -> None:
    assert address_allowed(address)


def test_loopback_allowance_is_loopback_only() -> None:
    assert address_allowed("127.0.0.1", allow_loopback=True)
    assert address_allowed("::1", allow_loopback=True)
    assert address_allowed("::ffff:127.0.0.1", allow_loopback=True)
    for addr in ("10.1.2.3", "169.254.169.254", "fe80::1", "0.0.0.0", "::ffff:192.168.0.1"):
        assert not address_allowed(addr, allow_loopback=True), addr


class Resolver:
    """A resolver the test controls: the answers it gives and every question it got."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, int]] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append((host, port))
        return list(self.answers)


def test_a_loopback_receiver_is_not_reached_by_name(push_service: PushService) -> None:
    """A name resolving to the loopback push service: refused before connecting."""
    port = int(push_service.url.rsplit(":", 1)[1])
    resolver = Resolver("127.0.0.1")
    session = GuardedSession(AddressGuard(resolver))
    with pytest.raises(BlockedAddress):
        session.post(f"http://push.example.org:{port}/push/x", data=b"x", timeout=5)
    with pytest.raises(BlockedAddress):
        session.post(f"http://127.0.0.1:{port}/push/x", data=b"x", timeout=5)
    with pytest.raises(BlockedAddress):
        session.post(f"http://[::ffff:127.0.0.1]:{port}/push/x", data=b"x", timeout=5)
    assert resolver.asked == [("push.example.org", port)]
    assert push_service.received == []


@pytest.mark.parametrize("answers", [
    ["10.0.0.7"], ["169.254.169.254"], ["::ffff:127.0.0.1"], ["fd00::7"],
    ["8.8.8.8", "127.0.0.1"],  # one bad answer refuses the host: no picking
    [],
])
def test_a_name_with_any_non_public_address_is_refused(answers: list[str]) -> None:
    session = GuardedSession(AddressGuard(Resolver(*answers)))
    with pytest.raises(BlockedAddress):
        session.post("https://fcm.googleapis.com/fcm/send/x", data=b"x", timeout=5)


def test_connects_to_the_checked_address_and_keeps_the_host(push_service: PushService) -> None:
    """One lookup per connection, and that lookup's address is the one connected to."""
    port = int(push_service.url.rsplit(":", 1)[1])
    resolver = Resolver("127.0.0.1")
    session = GuardedSession(AddressGuard(resolver, allow_loopback=True))
    r = session.post(f"http://push.example.org:{port}/push/named", data=b"hi", timeout=5)
    assert r.status_code == 201
    (got,) = push_service.to("/push/named")
    assert got.headers["host"] == f"push.example.org:{port}" and got.body == b"hi"
    assert resolver.asked == [("push.example.org", port)]


def test_tls_still_names_the_host(tmp_path: Path) -> None:
    """Connected to the checked address, TLS still sends the host's name (SNI) and checks the
    certificate against it: a certificate for another name is refused."""
    import datetime
    import ssl

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "push.example.org")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("push.example.org")]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    names: list[str | None] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert_file, key_file)
    ctx.sni_callback = lambda sock, server_name, c: names.append(server_name)
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    port = httpd.server_address[1]
    try:
        resolver = Resolver("127.0.0.1")
        session = GuardedSession(AddressGuard(resolver, allow_loopback=True))
        r = session.post(f"https://push.example.org:{port}/push/x", data=b"x",
                         verify=str(cert_file), timeout=5)
        assert r.status_code == 201 and names == ["push.example.org"]
        with pytest.raises(requests.exceptions.SSLError):
            session.post(f"https://other.example.org:{port}/push/x", data=b"x",
                         verify=str(cert_file), timeout=5)
        assert resolver.asked == [("push.example.org", port), ("other.example.org", port)]
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_no_proxy_from_the_environment(push_service: PushService,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy would connect where the guard cannot see: the environment's is ignored."""
    with running_push_service() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("HTTPS_PROXY", proxy.url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        session = GuardedSession(AddressGuard(allow_loopback=True))
        r = session.post(push_service.url + "/push/direct", data=b"x", timeout=5)
        assert r.status_code == 201 and len(push_service.to("/push/direct")) == 1
        assert proxy.received == []


def test_a_redirect_is_not_followed(push_service: PushService) -> None:
    with running_push_service() as other:
        push_service.on("/push/moved", (301, {"Location": other.url + "/push/x"}))
        push_service.on("/push/moved307", (307, {"Location": other.url + "/push/x"}))
        session = GuardedSession(AddressGuard(allow_loopback=True))
        r = session.post(push_service.url + "/push/moved", data=b"x", timeout=5)
        assert r.status_code == 301
        r = session.post(push_service.url + "/push/moved307", data=b"x", timeout=5,
                         allow_redirects=True)
        assert r.status_code == 307
        assert len(push_service.to("/push/moved")) == 1
        assert other.received == []
    assert isinstance(session, requests.Session)


# -------------------------------------------------------------------- delivery, end to end


def _seat_two(app: Any) -> tuple[str, Any, Any]:
    ana, beto = Player(app), Player(app)
    tid = ana.create("Ana")
    beto.act(tid, "sit", name="Beto")
    for seat in (2, 3):
        ana.act(tid, "add_robot", seat=seat)
    return tid, ana, beto


def _subscribe(p: Any, tid: str, sub: Subscriber) -> None:
    r = p.post(f"/api/tables/{tid}/push", {"subscription": sub.subscription()})
    assert r.status_code == 200, r.get_json()
    assert p.post(f"/api/tables/{tid}/push/presence", {"visible": False}).status_code == 200


def _outbox_status(app: Any, endpoint: str) -> str | None:
    with app.app_context():
        st = db.session.execute(select(PushOutbox.status).join(
            PushSubscription, PushSubscription.id == PushOutbox.subscription_id).where(
            PushSubscription.endpoint == endpoint)).scalar_one_or_none()
        db.session.rollback()
        return st


@pytest.mark.db
@pytest.mark.parametrize("address", ["10.20.30.40", "169.254.169.254", "::ffff:127.0.0.1"])
def test_a_push_service_name_resolving_to_a_private_address_is_not_sent(
        migrated: str, address: str, caplog: pytest.LogCaptureFixture) -> None:
    """Allowed by name, refused by address at send time: a failed delivery, not retried."""
    caplog.set_level(logging.INFO, logger="corazones.push")
    resolver = Resolver(address)
    app = make_app(migrated, PUSH_SWEEP=0.2, PUSH_BACKOFF=0.2, ROBOT_DELAY=0.0,
                   PUSH_RESOLVER=resolver)
    try:
        tid, ana, beto = _seat_two(app)
        sub = Subscriber(PushService(url="https://fcm.googleapis.com"), "beto")
        sub.endpoint = f"https://fcm.googleapis.com/fcm/send/{tid}-beto"
        _subscribe(beto, tid, sub)
        ana.act(tid, "start")  # Beto must pass now: his push is due
        wait_until(lambda: _outbox_status(app, sub.endpoint) == "failed", 15)
        assert resolver.asked and set(resolver.asked) == {("fcm.googleapis.com", 443)}
        asked = len(resolver.asked)
        assert f"resolves to {address}, not a public address" in caplog.text
        assert "push refused before connecting" in caplog.text
        with app.app_context():
            from tables.push import drain
            assert drain(tid) == []  # failed for good: nothing left to retry
        assert len(resolver.asked) == asked
    finally:
        close_app(app)


@pytest.mark.db
def test_a_redirecting_push_service_is_a_failed_delivery(migrated: str,
                                                         push_service: PushService) -> None:
    app = make_app(migrated, PUSH_INSECURE_ENDPOINTS=True, PUSH_SWEEP=0.2,
                   PUSH_BACKOFF=0.2, ROBOT_DELAY=0.0)
    try:
        with running_push_service() as other:
            tid, ana, beto = _seat_two(app)
            sub = Subscriber(push_service, "moved")
            push_service.on(sub.path, (301, {"Location": other.url + "/push/elsewhere"}))
            _subscribe(beto, tid, sub)
            ana.act(tid, "start")
            wait_until(lambda: _outbox_status(app, sub.endpoint) == "failed", 15)
            assert [r.status for r in push_service.to(sub.path)] == [301]
            assert other.received == []
    finally:
        close_app(app)
