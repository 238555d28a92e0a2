"""Shared fixtures: a migrated database per session (SQLite file, or a fresh PostgreSQL schema when
DATABASE_URL points at PostgreSQL), an app per test, players with their own cookie jars, and real
server subprocesses for concurrency and restart tests."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Test modules import these helpers as ``corazones_testkit``: the bare name ``conftest`` is taken
# by whichever conftest.py pytest imported last (tests/browser/ has its own).
if __name__ in sys.modules:
    sys.modules.setdefault("corazones_testkit", sys.modules[__name__])


def _pg_url(base: str, schema: str) -> str:
    sep = "&" if "?" in base else "?"
    return f"{base}{sep}options=-csearch_path%3D{schema}"


@pytest.fixture(scope="session")
def instance_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("instance")
    os.environ["CORAZONES_INSTANCE"] = str(path)
    os.environ["SCHEDULER"] = "off"
    return path


@pytest.fixture(scope="session")
def database_url(instance_dir: Path) -> Iterator[str]:
    base = os.environ.get("DATABASE_URL", "")
    if base.startswith("postgresql"):
        import sqlalchemy as sa

        schema = "t_" + secrets.token_hex(6)
        engine = sa.create_engine(base)
        with engine.begin() as conn:
            conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
        url = _pg_url(base, schema)
        try:
            yield url
        finally:
            with engine.begin() as conn:
                conn.exec_driver_sql(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            engine.dispose()
    else:
        yield "sqlite:///" + str(instance_dir / "test.db")


@pytest.fixture(scope="session")
def migrated(database_url: str) -> str:
    from flask_migrate import upgrade

    from app import create_app

    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url,
                      "ROBOT_WORKER": "off", "SECRET_KEY": "test-secret"})
    with app.app_context():
        upgrade(directory=str(ROOT / "migrations"))
        from tables.db import db

        db.engine.dispose()
    return database_url


def make_app(database_url: str, **config: Any) -> Any:
    from app import create_app

    cfg: dict[str, Any] = {
        "TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url, "SECRET_KEY": "test-secret",
        "POLL_TIMEOUT": 2.0, "POLL_RECHECK": 0.2, "ROBOT_SWEEP": 0.5, "SCHEDULER": "off",
        "RATELIMIT_CREATE": "10000 per minute", "RATELIMIT_CHAT": "10000 per minute",
        "RATELIMIT_CHURN_DEVICE": "10000 per minute", "RATELIMIT_CHURN_TABLE": "10000 per minute",
        "MIGRATIONS_DIR": str(ROOT / "migrations"),
    }
    cfg.update(config)
    return create_app(cfg)


def close_app(app: Any) -> None:
    worker = app.extensions.get("corazones_robots")
    if worker is not None:
        worker.stop()
    from tables.db import db

    with app.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture()
def app(migrated: str) -> Iterator[Any]:
    application = make_app(migrated)
    yield application
    close_app(application)


class Player:
    """One browser: its own cookie jar, a CSRF token, helpers for the JSON API."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.client = app.test_client()
        self.csrf = self.client.get("/api/csrf").get_json()["csrf_token"]
        self.version = 0

    def post(self, url: str, body: Any = None, csrf: bool = True, **kw: Any) -> Any:
        headers = {"X-CSRFToken": self.csrf} if csrf else {}
        return self.client.post(url, json=body, headers=headers, **kw)

    def create(self, name: str = "Ana", **fields: Any) -> str:
        body = {"host_name": name, "target": 50, "renege": "impedido", "deck": "reino",
                "robot_level": "normal"}
        body.update(fields)
        r = self.post("/api/tables", body)
        assert r.status_code == 201, r.get_json()
        return str(r.get_json()["table_id"])

    def act(self, table_id: str, kind: str, expect: int | None = 200, **fields: Any) -> Any:
        body = {"type": kind, "action_id": uuid.uuid4().hex}
        body.update(fields)
        r = self.post(f"/api/tables/{table_id}/actions", body)
        if expect is not None:
            assert r.status_code == expect, (kind, r.status_code, r.get_json())
        return r

    def state(self, table_id: str) -> dict[str, Any]:
        r = self.client.get(f"/api/tables/{table_id}")
        assert r.status_code == 200, r.get_json()
        return dict(r.get_json()["state"])


@pytest.fixture()
def player(app: Any) -> Any:
    return lambda: Player(app)


def wait_until(pred: Any, timeout: float = 20.0, step: float = 0.02) -> Any:
    end = time.monotonic() + timeout
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError("timed out waiting")
        time.sleep(step)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A real server process (python -m serve) on a free local port."""

    def __init__(self, database_url: str, instance: Path, **env: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ)
        self.env.update({"DATABASE_URL": database_url, "CORAZONES_INSTANCE": str(instance),
                         "SCHEDULER": "off", "SECRET_KEY": "test-secret", "POLL_TIMEOUT": "3",
                         "POLL_RECHECK": "0.2", "ROBOT_SWEEP": "0.5",
                         "RATELIMIT_CREATE": "10000 per minute",
                         "RATELIMIT_CHAT": "10000 per minute",
                         "RATELIMIT_CHURN_DEVICE": "10000 per minute",
                         "RATELIMIT_CHURN_TABLE": "10000 per minute",
                         "RATELIMIT_KEY_PREFIX": "test" + secrets.token_hex(6)})
        self.env.update(env)
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Server:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "serve", "--port", str(self.port)], cwd=ROOT,
            env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        import requests

        end = time.monotonic() + 90  # a loaded CI machine starts Python slowly
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError("server exited at start")
            try:
                requests.get(self.url + "/api/csrf", timeout=5)
                return self
            except requests.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("server did not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="module")
def shared_server(migrated: str, instance_dir: Path) -> Iterator[Server]:
    """One server for a whole test module (tests that do not kill or reconfigure it). It runs no
    robots: a robot worker sweeps every table of the database, other tests' tables included."""
    s = Server(migrated, instance_dir, ROBOT_WORKER="off").start()
    yield s
    s.stop()


@pytest.fixture()
def server_factory(migrated: str, instance_dir: Path) -> Iterator[Any]:
    servers: list[Server] = []

    def start(**env: str) -> Server:
        s = Server(migrated, instance_dir, **env).start()
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.stop()


class HttpPlayer:
    """A browser talking to a real server over HTTP (requests keeps its cookies)."""

    def __init__(self, base: str) -> None:
        import requests

        self.base = base
        self.s = requests.Session()
        self.csrf = self.s.get(base + "/api/csrf", timeout=60).json()["csrf_token"]

    def post(self, path: str, body: Any) -> Any:
        return self.s.post(self.base + path, json=body, headers={"X-CSRFToken": self.csrf},
                           timeout=60)

    def act(self, table_id: str, kind: str, **fields: Any) -> Any:
        body = {"type": kind, "action_id": fields.pop("action_id", uuid.uuid4().hex)}
        body.update(fields)
        return self.post(f"/api/tables/{table_id}/actions", body)

    def state(self, table_id: str) -> dict[str, Any]:
        return dict(self.s.get(f"{self.base}/api/tables/{table_id}", timeout=60).json()["state"])


@pytest.fixture(scope="session")
def playwright_session() -> Iterator[Any]:
    """One Playwright for the whole run: its sync API refuses to start a second one while the
    first is open, so every browser test launches Chromium from this."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p
