"""The VAPID key pair that signs every push: from the environment or config, else kept in
instance/ (made once, atomically, so processes starting together agree on one key)."""

from __future__ import annotations

import base64
import os
import threading

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from flask import Flask


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def public_key_b64(key: ec.EllipticCurvePrivateKey) -> str:
    return b64url(key.public_key().public_bytes(serialization.Encoding.X962,
                                                serialization.PublicFormat.UncompressedPoint))


def _load_private(text_value: str) -> ec.EllipticCurvePrivateKey:
    raw = text_value.strip()
    if "BEGIN" in raw:
        key = serialization.load_pem_private_key(raw.encode(), password=None)
    else:
        data = b64url_decode(raw)
        if len(data) == 32:  # the raw private number (what most VAPID generators print)
            key = ec.derive_private_key(int.from_bytes(data, "big"), ec.SECP256R1())
        else:
            key = serialization.load_der_private_key(data, password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise ValueError("VAPID_PRIVATE_KEY is not an EC key")
    return key


def ensure_vapid_keys(app: Flask) -> tuple[ec.EllipticCurvePrivateKey, str]:
    """The VAPID key pair: ``VAPID_PRIVATE_KEY`` (environment or config: PEM, base64url DER or
    the raw 32 bytes in base64url), else ``instance/vapid_private.pem``, made on first run
    (atomically, so several processes starting together agree on one key)."""
    given = app.config.get("VAPID_PRIVATE_KEY") or ""
    if given:
        key = _load_private(str(given))
    else:
        path = os.path.join(app.instance_path, "vapid_private.pem")
        if not os.path.exists(path):
            new = ec.generate_private_key(ec.SECP256R1())
            pem = new.private_bytes(serialization.Encoding.PEM,
                                    serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption())
            tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(pem)
            try:
                os.link(tmp, path)  # fails if another process won the race: use theirs
            except FileExistsError:
                pass
            finally:
                os.unlink(tmp)
        with open(path, "rb") as f:
            key = _load_private(f.read().decode())
    return key, public_key_b64(key)
