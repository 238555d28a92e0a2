"""Who is asking: the device cookie (a random token; only its SHA-256 is stored)."""

from __future__ import annotations

import hashlib
import secrets

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
        device_id = db.session.execute(
            select(Device.id).where(Device.token_hash == token_hash(token))
        ).scalar_one_or_none()
    g.device_id = device_id
    return device_id


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
