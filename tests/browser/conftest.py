"""Browser tests: the real app in a subprocess (temporary instance, SQLite), Debian's Chromium."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser

from tests.browser.browserkit import ARGS, CHROMIUM, ROOT
from tests.kit import free_port, wait_until


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """Start the real application (flask setup + flask run) on a free port; yield its base URL."""
    tmp = tempfile.mkdtemp(prefix="corazones-browser-")
    # Its own SQLite instance, no shared Redis, and room for the handful of tables these tests open.
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(CORAZONES_INSTANCE=tmp, ROBOT_DELAY="0", POLL_TIMEOUT="20", FLASK_DEBUG="0",
               PYTHONUNBUFFERED="1", RATELIMIT_CREATE="600 per minute", PUSH_SENDER="off",
               SCHEDULER="inprocess")
    flask = [sys.executable, "-m", "flask", "--app", "app"]
    subprocess.run([*flask, "setup"], cwd=ROOT, env=env, check=True, capture_output=True,
                   timeout=120)
    port = free_port()
    log = open(Path(tmp) / "server.log", "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([*flask, "run", "--port", str(port), "--with-threads"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            return requests.get(url + "/", timeout=2).status_code == 200
        except requests.RequestException:
            return False

    try:
        wait_until(up, 60, 0.2)
    except AssertionError:
        proc.terminate()
        raise RuntimeError(
            "the app did not start: " + (Path(tmp) / "server.log").read_text()) from None
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="session")
def browser(playwright_session: Any) -> Iterator[Browser]:
    b = playwright_session.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
    yield b
    b.close()


