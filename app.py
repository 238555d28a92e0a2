"""Corazones' web application: create_app() wires config, extensions and blueprints."""

from __future__ import annotations

import fcntl
import gc
import os
import secrets
import sys
import time
from typing import Any

from flask import Flask
from flask_migrate import upgrade

import tables
from tables import config
from tables.db import pool_options
from tables.jsonwire import JSONProvider
from tables.scheduler import start_background


def _secret_key(instance_path: str) -> str:
    """A random SECRET_KEY kept in instance/ (made once, shared by the processes)."""
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
        time.sleep(0.02)
    raise RuntimeError("instance/secret_key is empty")


def _tune_gc(gen0: int) -> None:
    """Shorter garbage-collection pauses in a serving process.

    A collection stops every thread of the process. Under load (bench/load.py, 200 tables) the web
    workers' oldest-generation collections paused them up to 147 ms, and young ones up to 39 ms:
    each scanned every object the imports had made. Those are frozen out of the collector once the
    app is built, and the youngest generation is collected every ``gen0`` (10000) allocations
    instead of 700."""
    gc.collect()
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(gen0, gen1, gen2)


def _migrate_default_database(app: Flask) -> None:
    """Bring the default SQLite database in instance/ up to date as the app starts, so that
    ``flask --app app run`` on a fresh checkout serves a working game. A database named by
    DATABASE_URL is migrated by ``flask --app app setup``, once per release."""
    with open(os.path.join(app.instance_path, "migrate.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # processes starting together migrate one at a time
        with app.app_context():
            upgrade(directory=app.config.get("MIGRATIONS_DIR", "migrations"))


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """The app: settings read once from the environment (tables/config.py), then ``test_config``
    over them, then the service wired in."""
    settings = config.from_environ()
    app = Flask(__name__, instance_relative_config=True,
                instance_path=config.instance_path())
    app.json = JSONProvider(app)  # orjson for the answers (tables/jsonwire.py)
    os.makedirs(app.instance_path, exist_ok=True)
    # The database: the test config's when it names one (its engine options follow it: a
    # benchmark's PostgreSQL gets the serving processes' pools and cursors), else the
    # environment's, else SQLite in the instance folder.
    db_url = (test_config or {}).get("SQLALCHEMY_DATABASE_URI") or settings["DATABASE_URL"] \
        or "sqlite:///" + os.path.join(app.instance_path, "corazones.db")
    app.config.from_mapping(settings)
    app.config.from_mapping(
        SQLALCHEMY_DATABASE_URI=db_url,
        SQLALCHEMY_ENGINE_OPTIONS=pool_options(db_url, settings["DB_POOL_SIZE"],
                                               settings["DB_MAX_OVERFLOW"],
                                               settings["DB_POOL_TIMEOUT"]),
        MAX_CONTENT_LENGTH=64 * 1024,
        WTF_CSRF_TIME_LIMIT=None,
        WTF_CSRF_HEADERS=["X-CSRFToken", "X-CSRF-Token"],
        WTF_CSRF_SSL_STRICT=False,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=settings["CORAZONES_HTTPS"],
        VAPID_PUBLIC_KEY="",
        MIGRATIONS_DIR=os.path.join(os.path.dirname(os.path.abspath(__file__)), "migrations"),
    )
    app.config.from_pyfile("config.py", silent=True)
    if test_config:
        app.config.update(test_config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(app.instance_path)
    # Hand the GIL over every 1 ms instead of 5: a thread that holds a table's lock (SQLite: the
    # one writer's lock) needs the GIL back after each database call, and behind threads building
    # states or robots searching it waited up to 5 ms each time while every writer queued behind
    # it (bench/load.py: robot writes held SQLite's lock 71 ms at p95).
    sys.setswitchinterval(float(app.config["CORAZONES_SWITCH_INTERVAL"]))

    tables.init_app(app)
    if not settings["DATABASE_URL"] and not app.config.get("TESTING"):
        _migrate_default_database(app)
    if app.config["SCHEDULER"] == "inprocess" and not app.config.get("TESTING"):
        start_background(app)
    if not app.config.get("TESTING"):
        _tune_gc(int(app.config["CORAZONES_GC_GEN0"]))
    return app
