"""Who is asking: the device cookie (a random token; only its SHA-256 is stored).

The cookie comes first, the row later: a page hands its browser a token on the first visit
without writing anything, and the ``devices`` row is added only inside the transaction of the first
thing kept for that browser (a seat, a table, a deck choice). A request that fails keeps no row.
"""

from __future__ import annotations

import hashlib
import secrets
import time

from flask import Response, current_app, g, request
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from .db import db
from .models import Device, utcnow

COOKIE = "corazones_device"
COOKIE_MAX_AGE = 400 * 24 * 3600
TOKEN_MIN, TOKEN_MAX = 20, 100


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _cookie_token() -> str | None:
    token = request.cookies.get(COOKIE, "")
    return token if TOKEN_MIN <= len(token) <= TOKEN_MAX and token.isascii() else None


def device_token() -> str:
    """This browser's token: the one its cookie carries, or a fresh one sent with this answer."""
    token = _cookie_token() or g.get("new_device_token")
    if not token:
        token = secrets.token_urlsafe(32)
        g.new_device_token = token
    return token


def current_device_id() -> int | None:
    """The device of this request, or None (never creates one: GET changes nothing)."""
    if "device_id" in g:
        return g.device_id  # type: ignore[no-any-return]
    token = _cookie_token()
    device_id = None
    if token is not None:
        digest = token_hash(token)
        now = time.monotonic()
        hit = _known.get(digest)
        if hit is not None and now - hit[1] < _trust(hit[2]):
            device_id = hit[0]
        else:
            device_id = _device_of(digest)
            if device_id is not None:
                if len(_known) > 20000:
                    _known.clear()
                _known[digest] = (device_id, now, _subscription)
    g.device_id = device_id
    return device_id


#: Cookie hash -> (device id, when looked up, the subscription it was looked up in): every
#: request of every page names its device. A device row is re-keyed only when its player moves to
#: another browser (tables/players.py): that process forgets both hashes at once
#: (:func:`forget_hash`), the others on the Redis notice (tables/live.py). An entry is believed
#: for ``KNOWN_TTL_NOTIFIED`` while the subscription it was looked up in still holds (no notice
#: can have been lost since), else for ``KNOWN_TTL``: without Redis another process may answer to
#: the old hash that long.
_known: dict[str, tuple[int, float, int]] = {}
KNOWN_TTL = 60.0
KNOWN_TTL_NOTIFIED = 3600.0
#: Bumped by :func:`notices_changed` each time the subscription begins or ends; ``_subscribed``
#: while it holds (never without Redis).
_subscription = 0
_subscribed = False


def _trust(looked_up_in: int) -> float:
    return KNOWN_TTL_NOTIFIED if _subscribed and looked_up_in == _subscription else KNOWN_TTL


def notices_changed(subscribed: bool) -> None:
    """The Redis subscription began (``subscribed``) or ended (tables/live.py): entries looked up
    before were not covered by it, and are believed only for ``KNOWN_TTL`` from their lookup."""
    global _subscription, _subscribed
    _subscription += 1
    _subscribed = subscribed


def forget_hash(digest: str) -> None:
    """This process stops believing what it knew about a cookie hash (a device was re-keyed)."""
    _known.pop(digest, None)


def presence_key() -> str:
    device_id = current_device_id()
    return f"dev:{device_id}" if device_id is not None else "ip:" + (request.remote_addr or "?")


def ensure_device() -> int:
    """The device of this request, its row added to the caller's open write transaction if it has
    none yet: when that transaction rolls back (the action was refused), no row is left."""
    device_id = current_device_id()
    if device_id is not None:
        return device_id
    digest = token_hash(device_token())
    # Looked up again inside the transaction: another request of the same browser (two taps,
    # two tabs) may have written the row since this one first looked.
    device_id = _device_of(digest)
    if device_id is None:
        dev = Device(token_hash=digest, created_at=utcnow())
        try:
            with db.session.begin_nested():  # a savepoint: a lost race undoes only the row
                db.session.add(dev)
            device_id = dev.id
        except IntegrityError:  # that other request committed it a moment ago
            device_id = _device_of(digest)
            if device_id is None:
                raise
    g.device_id = device_id
    return device_id


def _device_of(digest: str) -> int | None:
    found = db.session.execute(select(Device.id).where(Device.token_hash == digest)).scalar()
    return None if found is None else int(found)


def forget_device() -> None:
    """Drop what this request believed about its device (after a rolled-back transaction)."""
    g.pop("device_id", None)


def offer_cookie() -> None:
    """Give a browser without a device token one now (no row is written for it)."""
    device_token()


def set_cookie_if_new(response: Response) -> Response:
    token = g.get("new_device_token")
    if token:
        secure = bool(current_app.config.get("SESSION_COOKIE_SECURE")) or request.is_secure
        response.set_cookie(
            COOKIE, token, max_age=COOKIE_MAX_AGE, httponly=True, samesite="Lax",
            secure=secure, path="/",
        )
    return response
