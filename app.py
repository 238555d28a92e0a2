"""Corazones' web application: create_app() wires config, extensions and blueprints."""

from __future__ import annotations

import os
import secrets
import sys
from typing import Any

from flask import Flask


def _secret_key(instance_path: str) -> str:
    """SECRET_KEY from the environment, or a random one kept in instance/ (shared by processes)."""
    env = os.environ.get("SECRET_KEY")
    if env:
        return env
    path = os.path.join(instance_path, "secret_key")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32))
    for _ in range(50):
        with open(path) as f:
            key = f.read().strip()
        if key:
            return key
        import time

        time.sleep(0.02)
    raise RuntimeError("instance/secret_key is empty")


def _tune_gc() -> None:
    """Shorter garbage-collection pauses in a serving process.

    A collection stops every thread of the process. Under load (bench/load.py, 200 tables) the web
    workers' oldest-generation collections paused them up to 147 ms, and young ones up to 39 ms:
    each scanned every object the imports had made. Those are frozen out of the collector once the
    app is built, and the youngest generation is collected every ``CORAZONES_GC_GEN0`` (10000)
    allocations instead of 700."""
    import gc

    gc.collect()
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(int(os.environ.get("CORAZONES_GC_GEN0", "10000")), gen1, gen2)


def _migrate_default_database(app: Flask) -> None:
    """Bring the default SQLite database in instance/ up to date as the app starts, so that
    ``flask --app app run`` on a fresh checkout serves a working game. A database named by
    DATABASE_URL is migrated by ``flask --app app setup``, once per release."""
    import fcntl

    from flask_migrate import upgrade

    with open(os.path.join(app.instance_path, "migrate.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # processes starting together migrate one at a time
        with app.app_context():
            upgrade(directory=app.config.get("MIGRATIONS_DIR", "migrations"))


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    # Hand the GIL over every 1 ms instead of 5: a thread that holds a table's lock (SQLite: the
    # one writer's lock) needs the GIL back after each database call, and behind threads building
    # states or robots searching it waited up to 5 ms each time while every writer queued behind
    # it (bench/load.py: robot writes held SQLite's lock 71 ms at p95).
    sys.setswitchinterval(float(os.environ.get("CORAZONES_SWITCH_INTERVAL", "0.001")))
    from tables.db import pool_options

    instance = os.environ.get("CORAZONES_INSTANCE") or None
    app = Flask(__name__, instance_relative_config=True, instance_path=instance)
    os.makedirs(app.instance_path, exist_ok=True)
    db_url = os.environ.get("DATABASE_URL") or (
        "sqlite:///" + os.path.join(app.instance_path, "corazones.db")
    )
    app.config.from_mapping(
        SQLALCHEMY_DATABASE_URI=db_url,
        SQLALCHEMY_ENGINE_OPTIONS=pool_options(db_url),
        REDIS_URL=os.environ.get("REDIS_URL", ""),
        MAX_CONTENT_LENGTH=64 * 1024,
        WTF_CSRF_TIME_LIMIT=None,
        WTF_CSRF_HEADERS=["X-CSRFToken", "X-CSRF-Token"],
        WTF_CSRF_SSL_STRICT=False,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=os.environ.get("CORAZONES_HTTPS", "") == "1",
        POLL_TIMEOUT=float(os.environ.get("POLL_TIMEOUT", "25")),
        POLL_RECHECK=float(os.environ.get("POLL_RECHECK", "0.5")),
        ROBOT_WORKER=os.environ.get("ROBOT_WORKER", "thread"),
        ROBOT_SWEEP=float(os.environ.get("ROBOT_SWEEP", "3")),
        ROBOT_DELAY=float(os.environ.get("ROBOT_DELAY", "0")),
        ROBOT_THREADS=int(os.environ.get("ROBOT_THREADS", "2")),
        ROBOT_SEARCH_PROCS=int(os.environ.get("ROBOT_SEARCH_PROCS", "0")),
        ROBOT_NICE=int(os.environ.get("ROBOT_NICE", "0")),
        SCHEDULER=os.environ.get("SCHEDULER", "inprocess"),
        TABLE_EXPIRY_DAYS=int(os.environ.get("TABLE_EXPIRY_DAYS", "30")),
        VAPID_PUBLIC_KEY="",
        MIGRATIONS_DIR=os.path.join(os.path.dirname(os.path.abspath(__file__)), "migrations"),
    )
    for key in ("RATELIMIT_CREATE", "RATELIMIT_CHAT", "RATELIMIT_CHURN_DEVICE",
                "RATELIMIT_CHURN_TABLE", "RATELIMIT_KEY_PREFIX"):
        if os.environ.get(key):
            app.config[key] = os.environ[key]
    app.config.from_pyfile("config.py", silent=True)
    if test_config:
        app.config.update(test_config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(app.instance_path)

    import tables

    tables.init_app(app)
    if not os.environ.get("DATABASE_URL") and not app.config.get("TESTING"):
        _migrate_default_database(app)
    if app.config["SCHEDULER"] == "inprocess" and not app.config.get("TESTING"):
        from tables.scheduler import start_background

        start_background(app)
    if not app.config.get("TESTING"):
        _tune_gc()
    return app
