"""Rate limits (table creation, chat): Redis storage when REDIS_URL is set, so every process
shares them; memory otherwise."""

from __future__ import annotations

from flask import Flask, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

limiter = Limiter(key_func=get_remote_address, default_limits=[])


def chat_exempt() -> bool:
    """The actions route only counts chat, taunts and deck changes (each wakes every page of the
    table) against the chat limit."""
    if request.form:
        kind = request.form.get("type")
    else:
        data = request.get_json(silent=True, force=True)
        kind = data.get("type") if isinstance(data, dict) else None
    return kind not in ("chat", "taunt", "set_deck")


def device_or_address() -> str:
    """Chat is limited per device (friends behind one router each have their own budget)."""
    from .identity import COOKIE, token_hash

    token = request.cookies.get(COOKIE, "")
    return "d:" + token_hash(token)[:24] if token else "ip:" + get_remote_address()


def init_limits(app: Flask) -> None:
    app.config.setdefault("RATELIMIT_CREATE", "30 per hour;10 per minute")
    app.config.setdefault("RATELIMIT_CHAT", "20 per minute")
    app.config.setdefault("RATELIMIT_HEADERS_ENABLED", False)
    url = app.config.get("REDIS_URL")
    app.config.setdefault("RATELIMIT_STORAGE_URI", url if url else "memory://")
    limiter.init_app(app)
