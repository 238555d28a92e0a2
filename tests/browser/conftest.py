"""Browser tests: the real app in a subprocess (temporary instance, SQLite), Debian's Chromium."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser

from tests.browser.browserkit import ARGS, CHROMIUM, ROOT
from tests.kit import free_port, wait_until

#: The server's traceback signal: it writes every thread's stack into its log (faulthandler).
STACKS_SIGNAL = signal.SIGUSR1
#: How much of the server's log a failed browser test carries.
LOG_TAIL_LINES = 400
#: The running server of this test process: its process and its log (set by ``server``).
_running: dict[str, Any] = {}

# ``flask`` itself, with faulthandler answering STACKS_SIGNAL in every thread of the server.
_FLASK_WITH_STACKS = (
    "import faulthandler, signal, sys; "
    f"faulthandler.register(signal.{STACKS_SIGNAL.name}, all_threads=True); "
    "from flask.cli import main; sys.exit(main())"
)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None],
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed browser test carries what the server was doing: every thread's stack at the
    failure and the end of its request log (a page that waited in vain says why here)."""
    report = yield
    if report.when == "call" and report.failed and "server" in getattr(item, "fixturenames", ()):
        _attach_server_state(report)
    return report


def _attach_server_state(report: pytest.TestReport) -> None:
    proc, log_path = _running.get("proc"), _running.get("log")
    if proc is None or log_path is None or proc.poll() is not None:
        return

    def dumps() -> int:
        return Path(log_path).read_text(errors="replace").count("Current thread 0x")

    before = dumps()
    proc.send_signal(STACKS_SIGNAL)
    with contextlib.suppress(AssertionError):  # a server too stuck to answer: the log alone
        wait_until(lambda: dumps() > before, 5, 0.1)
    lines = Path(log_path).read_text(errors="replace").splitlines()
    report.sections.append(("browser server (log end, thread stacks)",
                            "\n".join(lines[-LOG_TAIL_LINES:])))


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """Start the real application (flask setup + flask run) on a free port; yield its base URL."""
    tmp = tempfile.mkdtemp(prefix="corazones-browser-")
    # Its own SQLite instance, no shared Redis, and room for the handful of tables these tests open.
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(CORAZONES_INSTANCE=tmp, ROBOT_DELAY="0", POLL_TIMEOUT="20", FLASK_DEBUG="0",
               PYTHONUNBUFFERED="1", RATELIMIT_CREATE="600 per minute", PUSH_SENDER="off",
               SCHEDULER="inprocess")
    subprocess.run([sys.executable, "-m", "flask", "--app", "app", "setup"], cwd=ROOT, env=env,
                   check=True, capture_output=True, timeout=120)
    port = free_port()
    log_path = Path(tmp) / "server.log"
    log = open(log_path, "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [sys.executable, "-c", _FLASK_WITH_STACKS, "--app", "app", "run", "--port", str(port),
         "--with-threads"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    _running.update(proc=proc, log=log_path)
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
    _running.clear()
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


