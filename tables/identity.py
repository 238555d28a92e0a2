"""Who is asking: the device cookie (a random token; only its SHA-256 is stored)."""

from __future__ import annotations

import hashlib
import secrets
import time

from flask import Response, g, request
from sqlalchemy import select

from .db import db, write_transaction
from .models import Device, utcnow

COOKIE = "corazones_device"
COOKIE_MAX_AGE = 400 * 24 * 3600


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def current_device_id() -> int | None:
    """The device of this request, or None (never creates one: GET changes nothing)."""
    if "device_id" in g:
        return g.device_id  # type: ignore[no-any-return]
    token = request.cookies.get(COOKIE, "")
    device_id = None
    if 20 <= len(token) <= 100:
        digest = token_hash(token)
        now = time.monotonic()
        hit = _known.get(digest)
        if hit is not None and hit[1] > now:
            device_id = hit[0]
        else:
            device_id = db.session.execute(
                select(Device.id).where(Device.token_hash == digest)
            ).scalar_one_or_none()
            if device_id is not None:
                if len(_known) > 20000:
                    _known.clear()
                _known[digest] = (device_id, now + KNOWN_TTL)
    g.device_id = device_id
    return device_id


#: Cookie hash -> (device id, until when): every poll of every page names its device, and the
#: answer never changes but by ``rebind_device`` (which forgets the old hash here; another process
#: may still accept it for up to ``KNOWN_TTL`` s: a token whose answer was lost in the first place).
_known: dict[str, tuple[int, float]] = {}
KNOWN_TTL = 60.0


def presence_key() -> str:
    device_id = current_device_id()
    return f"dev:{device_id}" if device_id is not None else "ip:" + (request.remote_addr or "?")


def ensure_device() -> int:
    """The device of this request, creating it (and its cookie) on a state-changing request."""
    device_id = current_device_id()
    if device_id is not None:
        return device_id
    token = secrets.token_urlsafe(32)
    dev = Device(token_hash=token_hash(token), created_at=utcnow())
    with write_transaction():
        db.session.add(dev)
    g.device_id = dev.id
    g.new_device_token = token
    return dev.id


def rebind_device(device_id: int) -> None:
    """Give this browser a fresh cookie for ``device_id`` (its old token stops working)."""
    token = secrets.token_urlsafe(32)
    with write_transaction():
        dev = db.session.get(Device, device_id)
        if dev is None:
            return
        _known.pop(dev.token_hash, None)
        dev.token_hash = token_hash(token)
    g.device_id = device_id
    g.new_device_token = token


def set_cookie_if_new(response: Response) -> Response:
    token = g.get("new_device_token")
    if token:
        response.set_cookie(
            COOKIE, token, max_age=COOKIE_MAX_AGE, httponly=True, samesite="Lax",
            secure=request.is_secure, path="/",
        )
    return response
