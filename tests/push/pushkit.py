"""Push tests' kit: a real local HTTP server acting as the push service, real subscription keys,
real decryption (http_ece, aes128gcm) and a real check of the VAPID JWT (the ``push_service``
fixture is in tests/push/conftest.py)."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlparse

import http_ece
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils

from tests.kit import wait_until


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float
    status: int


@dataclass
class PushService:
    """Records every POST; answers per path from a script (default 201 Created), and holds the
    answer to a path while its ``hold`` event is not set."""

    url: str = ""
    received: list[Received] = field(default_factory=list)
    script: dict[str, list[tuple[int, dict[str, str]]]] = field(default_factory=dict)
    hold: dict[str, threading.Event] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def on(self, path: str, *answers: tuple[int, dict[str, str]]) -> None:
        self.script[path] = list(answers)

    def to(self, path: str) -> list[Received]:
        with self.lock:
            return [r for r in self.received if r.path == path]

    def wait_for(self, path: str, n: int = 1, timeout: float = 15.0) -> list[Received]:
        try:
            got: list[Received] = wait_until(
                lambda: got if len(got := self.to(path)) >= n else None, timeout)
        except AssertionError:
            raise AssertionError(f"{path}: {len(self.to(path))} pushes, wanted {n}") from None
        return got


@contextlib.contextmanager
def running_push_service() -> Iterator[PushService]:
    """A local push service on 127.0.0.1 for the duration of the ``with``."""
    svc = PushService()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            path = urlparse(self.path).path
            gate = svc.hold.get(path)
            if gate is not None:  # a push service that has not answered yet
                gate.wait(60)
            with svc.lock:
                answers = svc.script.get(path)
                status, headers = answers.pop(0) if answers else (201, {})
                svc.received.append(Received(path, {k.lower(): v for k, v in
                                                    self.headers.items()},
                                             body, time.monotonic(), status))
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    svc.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    try:
        yield svc
    finally:
        httpd.shutdown()
        httpd.server_close()


class Subscriber:
    """A browser's push subscription: its own P-256 key pair and auth secret."""

    def __init__(self, service: PushService, name: str) -> None:
        self.path = f"/push/{name}"
        self.endpoint = service.url + self.path
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    def subscription(self) -> dict[str, Any]:
        point = self.key.public_key().public_bytes(serialization.Encoding.X962,
                                                   serialization.PublicFormat.UncompressedPoint)
        return {"endpoint": self.endpoint,
                "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)}}

    def decrypt(self, r: Received) -> dict[str, Any]:
        assert r.headers["content-encoding"] == "aes128gcm"
        plain = http_ece.decrypt(r.body, private_key=self.key, auth_secret=self.auth,
                                 version="aes128gcm")
        return dict(json.loads(plain.decode("utf-8")))


def verify_vapid(r: Received, endpoint: str, public_key: str) -> dict[str, Any]:
    """Check the Authorization header: ``vapid t=<JWT>, k=<key>``, ES256 signed by our key."""
    auth = r.headers["authorization"]
    scheme, _, rest = auth.partition(" ")
    assert scheme.lower() == "vapid"
    parts = dict(p.strip().split("=", 1) for p in rest.split(","))
    assert parts["k"] == public_key
    head_b64, claims_b64, sig_b64 = parts["t"].split(".")
    header = json.loads(unb64url(head_b64))
    assert header["alg"] == "ES256"
    sig = unb64url(sig_b64)
    assert len(sig) == 64
    der = utils.encode_dss_signature(int.from_bytes(sig[:32], "big"),
                                     int.from_bytes(sig[32:], "big"))
    pub = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(public_key))
    pub.verify(der, f"{head_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    claims = dict(json.loads(unb64url(claims_b64)))
    u = urlparse(endpoint)
    assert claims["aud"] == f"{u.scheme}://{u.netloc}"
    now = time.time()
    assert now < claims["exp"] <= now + 24 * 3600
    assert claims["sub"].startswith(("mailto:", "https://"))
    return claims
