"""Helpers shared by the tests (fixtures live in tests/conftest.py): an app per test, players
with their own cookie jars talking to the JSON API, real server subprocesses, and waiting on a
condition."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent
#: The server and robot processes of the test running now, whose output a failed test shows
#: (tests/conftest.py): what a process logged is often the only trace of why it failed.
RUNNING: list[Any] = []


def pg_url(base: str, schema: str) -> str:
    """The PostgreSQL URL ``base`` with its search_path set to ``schema``."""
    sep = "&" if "?" in base else "?"
    return f"{base}{sep}options=-csearch_path%3D{schema}"


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
    """Stop what the app runs in threads, then its connections. A push sender left running
    keeps sending the database's due pushes with its own app's settings: other tests' pushes
    too, which an app without PUSH_INSECURE_ENDPOINTS refuses for good (a loopback address)."""
    from tables.db import db, dispose_read_pool
    from tables.push import stop_sender

    worker = app.extensions.get("corazones_robots")
    if worker is not None:
        worker.stop()
    stop_sender(app)
    with app.app_context():
        db.session.remove()
        dispose_read_pool(db.engine)
        db.engine.dispose()


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


def holds_lock(pid: int, path: Path | str) -> bool:
    """True if process ``pid`` holds a flock on ``path`` (the kernel's /proc/locks)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    inode = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    with open("/proc/locks") as f:
        return any(line.split()[4:6] == [str(pid), inode] for line in f
                   if "FLOCK" in line and "->" not in line)


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
        self.log: IO[bytes] | None = None

    def start(self) -> Server:
        # what the server writes to stderr, kept for the error below (a pipe nobody reads could
        # fill up and stall the server)
        self.close_log()
        self.log = tempfile.TemporaryFile()
        RUNNING.append(self)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "serve", "--port", str(self.port)], cwd=ROOT,
            env=self.env, stdout=subprocess.DEVNULL, stderr=self.log,
        )
        import requests

        def answers() -> bool:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError("server exited at start: " + self.stderr())
            try:
                requests.get(self.url + "/api/csrf", timeout=5).close()
                return True
            except requests.ConnectionError:
                return False

        try:
            wait_until(answers, 90, 0.05)  # a loaded CI machine starts Python slowly
        except AssertionError:
            raise RuntimeError("server did not start: " + self.stderr()) from None
        return self

    def stderr(self) -> str:
        if self.log is None:
            return ""
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")

    output = stderr

    def title(self) -> str:
        return f"server {self.url} wrote"

    def close_log(self) -> None:
        if self.log is not None:
            self.log.close()
            self.log = None
        if self in RUNNING:
            RUNNING.remove(self)

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
        self.close_log()


class RobotProcess:
    """A ``flask robots`` process; what it writes is kept (and shown with a failed test)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "flask", "--app", "app", "robots"], cwd=ROOT, env=env,
            stdout=self.log, stderr=subprocess.STDOUT)
        self.pid = self.proc.pid
        RUNNING.append(self)

    def title(self) -> str:
        return f"flask robots (pid {self.pid}) wrote"

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")

    def stop(self, kill: bool = False) -> None:
        """SIGTERM (or SIGKILL), then wait for the end. What it wrote stays readable until the
        test ends (``close``)."""
        if self.proc.poll() is None:
            if kill:
                self.proc.kill()
            else:
                self.proc.terminate()
            self.proc.wait(timeout=30)

    def close(self) -> None:
        self.stop(kill=True)
        self.log.close()
        if self in RUNNING:
            RUNNING.remove(self)


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


def error(r: Any, status: int, code: str) -> dict[str, Any]:
    """A refusal: its status, its stable code and a Spanish message (a test client's answer)."""
    assert r.status_code == status, (r.status_code, r.get_data(as_text=True)[:300])
    body = r.get_json()
    assert body["error"] == code, body
    assert isinstance(body["message"], str) and body["message"]
    return dict(body)


def lobby(app: Any, humans: int = 1, robots_: int | None = None,
          **opts: Any) -> tuple[str, list[Player]]:
    """A table in the lobby: Ana hosts, ``humans - 1`` more people sit («Jugador 1»…), then
    ``robots_`` robots (by default, enough to fill the table)."""
    host = Player(app)
    tid = host.create("Ana", **opts)
    players = [host]
    for i in range(1, humans):
        p = Player(app)
        p.act(tid, "sit", name=f"Jugador {i}")
        players.append(p)
    robots_ = 4 - humans if robots_ is None else robots_
    for seat in range(humans, humans + robots_):
        host.act(tid, "add_robot", seat=seat)
    return tid, players

