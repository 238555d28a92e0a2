"""Browser tests: the real app in a subprocess (temporary instance, SQLite) and Debian's Chromium."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "screenshots"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """Start the real application (flask setup + flask run) on a free port; yield its base URL."""
    tmp = tempfile.mkdtemp(prefix="corazones-browser-")
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(CORAZONES_INSTANCE=tmp, ROBOT_DELAY="0", POLL_TIMEOUT="20", FLASK_DEBUG="0",
               PYTHONUNBUFFERED="1")
    flask = [sys.executable, "-m", "flask", "--app", "app"]
    subprocess.run([*flask, "setup"], cwd=ROOT, env=env, check=True, capture_output=True,
                   timeout=120)
    port = _free_port()
    log = open(Path(tmp) / "server.log", "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([*flask, "run", "--port", str(port), "--with-threads"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            if requests.get(url + "/", timeout=2).status_code == 200:
                break
        except requests.RequestException:
            time.sleep(0.2)
    else:
        proc.terminate()
        raise RuntimeError("the app did not start: " + (Path(tmp) / "server.log").read_text())
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


class Watch:
    """Collects console errors, page errors and CSP violations of a page."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def attach(self, page: Page) -> Page:
        page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        page.on("console", lambda m: self.errors.append(f"console: {m.text}")
                if m.type == "error" and "Failed to load resource" not in m.text else None)
        return page


def new_context(browser: Browser, width: int = 390, height: int = 844, *,
                reduced: bool = True, **kw: Any) -> BrowserContext:
    mobile = width < 700
    return browser.new_context(
        viewport={"width": width, "height": height}, device_scale_factor=1,
        has_touch=mobile, is_mobile=False, locale="es-ES",
        reduced_motion="reduce" if reduced else "no-preference", **kw,
    )


def open_table(page: Page, base: str, *, name: str = "Ana", target: int = 50,
               renege: str = "impedido", deck: str = "reino", level: str = "normal") -> str:
    """Use the home page's ABRIR MESA form; return the table URL."""
    page.goto(base + "/")
    page.check(f"input[name=target][value='{target}']", force=True)
    page.check(f"input[name=renege][value='{renege}']", force=True)
    page.check(f"input[name=deck][value='{deck}']", force=True)
    page.check(f"input[name=robot_level][value='{level}']", force=True)
    page.fill("#host-name", name)
    page.click("#open-btn")
    page.wait_for_url("**/t/**")
    page.wait_for_selector("body[data-status='lobby']")
    return page.url.split("?")[0]


def add_robots_and_start(page: Page, count: int = 3) -> None:
    for _ in range(count):
        page.locator(".lobby-seat[data-kind='empty'] button", has_text="AGREGAR ROBOT").first.click()
        page.wait_for_function(
            "n => document.querySelectorAll(\".lobby-seat[data-kind='empty']\").length <= n",
            arg=3 - _ - 1 if count == 3 else 99)
    page.click("#start-btn")
    page.wait_for_selector("body[data-status='playing']")


def shot(page: Page, name: str) -> Path:
    SHOTS.mkdir(exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def click_card(page: Page, selector: str, nth: int = 0) -> str:
    """Click a hand card on its visible left strip (the next card overlaps the rest); return it."""
    loc = page.locator(selector).nth(nth)
    card = str(loc.get_attribute("data-card"))
    loc.click(position={"x": 8, "y": 24})
    return card
