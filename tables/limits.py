"""Rate limits: Redis storage when REDIS_URL is set, so every process shares them; memory
otherwise (``LockedMemoryStorage``). Each limit is one bucket whatever page or route spends it:

- ``create``: opening a table (the JSON API and the plain page alike), per address;
- ``chat``: chat lines, taunts and deck changes (each wakes every page of the table), per device;
- ``churn``: lobby moves (sit, leave, add or remove a robot), per device and per table, since
  each wakes every page too;
- ``live``: JUGAR EN VIVO (joining the queue), per device.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from flask import Flask, current_app, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits.storage import MemoryStorage

from .identity import COOKIE, token_hash

limiter = Limiter(key_func=get_remote_address, default_limits=[])

CHAT_TYPES = frozenset({"chat", "taunt", "set_deck"})
CHURN_TYPES = frozenset({"sit", "leave", "add_robot", "remove_robot"})
#: The action types some limit counts; every other action (a card, a pass, a closed count...)
#: spends no bucket.
LIMITED_TYPES = CHAT_TYPES | CHURN_TYPES
#: The endpoints that take a table's actions, whose only limits are the action types' above.
ACTION_ENDPOINTS = frozenset({"tables.api_action", "tables.plain_action"})


def action_type() -> str | None:
    """The ``type`` of the action this request sends (form or JSON), without walking a body the
    depth guard refused."""
    if request.form:
        return request.form.get("type")
    data = request.get_json(silent=True, force=True)
    kind = data.get("type") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) else None


@limiter.request_filter
def _unlimited_action() -> bool:
    """An action no limit counts leaves the limiter at once. Each of the action endpoints' limits
    would find it exempt anyway (``exempt_when``), but only after Flask-Limiter had resolved and
    evaluated all three, twice a request: a card's CPU p50 3.39 -> 3.11 ms on PostgreSQL
    (`make bench-action`, seven pairs)."""
    return request.endpoint in ACTION_ENDPOINTS and action_type() not in LIMITED_TYPES


def device_or_address() -> str:
    """Per device (friends behind one router each have their own budget); per address for a
    browser without a device cookie."""
    token = request.cookies.get(COOKIE, "")
    return "d:" + token_hash(token)[:24] if token else "ip:" + get_remote_address()


def per_table() -> str:
    return "t:" + str((request.view_args or {}).get("table_id", ""))


def _exempt_unless(types: frozenset[str]) -> Callable[[], bool]:
    return lambda: action_type() not in types


def _config(key: str) -> Callable[[], str]:
    return lambda: str(current_app.config[key])


#: Every way of opening a table spends this one bucket.
create_limit = limiter.shared_limit(_config("RATELIMIT_CREATE"), scope="create")
#: Every page that sends chat spends this one bucket.
chat_limit = limiter.shared_limit(_config("RATELIMIT_CHAT"), scope="chat",
                                  key_func=device_or_address,
                                  exempt_when=_exempt_unless(CHAT_TYPES))
churn_device_limit = limiter.shared_limit(_config("RATELIMIT_CHURN_DEVICE"), scope="churn-device",
                                          key_func=device_or_address,
                                          exempt_when=_exempt_unless(CHURN_TYPES))
churn_table_limit = limiter.shared_limit(_config("RATELIMIT_CHURN_TABLE"), scope="churn-table",
                                         key_func=per_table,
                                         exempt_when=_exempt_unless(CHURN_TYPES))
#: JUGAR EN VIVO (joining the queue), per device: each join may form a table.
live_limit = limiter.shared_limit(_config("RATELIMIT_LIVE"), scope="live",
                                  key_func=device_or_address)


class LockedMemoryStorage(MemoryStorage):
    """limits' memory storage, with its expiry timer restarted under a lock. Two threads that
    both found the timer stopped could start the same timer twice (limits 5.8.0: "threads can
    only be started once", a 500 for the request that hit it; made thread-safe upstream in
    alisaifee/limits#352, not in a release this project can install). Used where there is no
    Redis (one process: ``make run``, tests)."""

    STORAGE_SCHEME = ["corazones-memory"]

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False,
                 **options: str) -> None:
        self._timer_lock = threading.Lock()
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)

    # MemoryStorage calls its private ``__schedule_expiry`` at every hit (name-mangled).
    def _MemoryStorage__schedule_expiry(self) -> None:
        with self._timer_lock:
            if not self.timer.is_alive():
                # (mypy does not mangle private names, so it cannot see this one)
                expire = self._MemoryStorage__expire_events  # type: ignore[attr-defined]
                self.timer = threading.Timer(0.01, expire)
                self.timer.start()


def init_limits(app: Flask) -> None:
    app.config.setdefault("RATELIMIT_CREATE", "30 per hour;10 per minute")
    app.config.setdefault("RATELIMIT_CHAT", "20 per minute")
    app.config.setdefault("RATELIMIT_CHURN_DEVICE", "30 per minute")
    app.config.setdefault("RATELIMIT_CHURN_TABLE", "60 per minute")
    app.config.setdefault("RATELIMIT_LIVE", "30 per minute;300 per hour")
    app.config.setdefault("RATELIMIT_HEADERS_ENABLED", False)
    url = app.config.get("REDIS_URL")
    app.config.setdefault("RATELIMIT_STORAGE_URI", url if url else "corazones-memory://")
    limiter.init_app(app)
