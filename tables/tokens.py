"""Secrets derived from the app's SECRET_KEY, and fingerprints of requests.

Every keyed value is an HMAC-SHA256 over a purpose tag and its parts, so that no two purposes can
ever produce the same value: a seat link, a table id made from a creation's action id, a push topic.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Mapping
from typing import Any, TypeGuard

from flask import current_app

from .kinds import ACTION_ID_PATTERN, PROOF_ID_LEN

#: The form the OpenAPI document states for an action id, checked with the same pattern.
_ACTION_ID = re.compile(ACTION_ID_PATTERN)


def keyed(purpose: str, *parts: object) -> bytes:
    """HMAC-SHA256 of ``purpose:part:part…`` under the app's SECRET_KEY."""
    return _keyed(current_app.config["SECRET_KEY"], purpose, *parts)


def _keyed(key: str | bytes, purpose: str, *parts: object) -> bytes:
    key_bytes = key.encode() if isinstance(key, str) else bytes(key)
    text = ":".join([purpose, *(str(p) for p in parts)])
    return hmac.new(key_bytes, text.encode(), hashlib.sha256).digest()


def seat_token(table_id: str, seat: int, gen: int) -> str:
    """The private link of a seat (``/t/<id>/s/<token>``); a new ``gen`` voids the old one."""
    return _seat_token(current_app.config["SECRET_KEY"], table_id, seat, gen)


@functools.lru_cache(maxsize=8192)
def _seat_token(key: str | bytes, table_id: str, seat: int, gen: int) -> str:
    # Remembered: every state a seated viewer gets carries its link, one HMAC each.
    return _keyed(key, "seat", table_id, seat, gen).hex()[:40]


def seat_token_matches(table_id: str, seat: int, gen: int, token: str) -> bool:
    return hmac.compare_digest(seat_token(table_id, seat, gen), token)


def is_action_id(value: object) -> TypeGuard[str]:
    """A client's action id: 1 to 64 visible ASCII characters (``kinds.ACTION_ID_PATTERN``; a page
    sends a UUID). No space, control character or NUL (PostgreSQL's text refuses NUL, so such an id
    would fail the write instead of being refused)."""
    return (isinstance(value, str) and len(value) <= 64
            and _ACTION_ID.fullmatch(value) is not None)


def new_table_id(action_id: str | None = None) -> str:
    """144 random bits; or, for a creation with a client action id of 16+ characters, a keyed
    hash of it (as unguessable, and a retried creation finds the table it made)."""
    if action_id is not None and PROOF_ID_LEN <= len(action_id) <= 64:
        return base64.urlsafe_b64encode(keyed("table", action_id)[:18]).decode()
    return secrets.token_urlsafe(18)


def push_topic(table_id: str, seat: int) -> str:
    """The push Topic header (<= 32 URL-safe base64 characters): pushes for the same table and
    seat waiting at the push service replace each other. Keyed: it does not reveal the table."""
    return base64.urlsafe_b64encode(keyed("push-topic", table_id, seat)).decode().rstrip("=")[:32]


def request_digest(body: Mapping[str, Any]) -> str:
    """The SHA-256 of a request body in a canonical form (key order and spacing do not count)."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()
