"""Ratings in the browser: ABRIR MESA con clasificación, the change at the end scene, the player's
page with its chart and Clasificación, photographed at 390x844, 844x390 and 1440x900 and checked
with axe-core."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from playwright.sync_api import Browser

from tests.browser.browserkit import (
    ROOT,
    Watch,
    add_robots_and_start,
    new_context,
    next_step,
    pass_three,
    play_one,
    shots_and_axe,
)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def rated_server() -> Iterator[tuple[str, Path]]:
    """The real app on its own SQLite file, which the test may shorten a game in."""
    tmp = Path(tempfile.mkdtemp(prefix="corazones-ratings-"))
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(CORAZONES_INSTANCE=str(tmp), ROBOT_DELAY="0", POLL_TIMEOUT="20", FLASK_DEBUG="0",
               PYTHONUNBUFFERED="1", PUSH_SENDER="off", SCHEDULER="off")
    flask = [sys.executable, "-m", "flask", "--app", "app"]
    subprocess.run([*flask, "setup"], cwd=ROOT, env=env, check=True, capture_output=True,
                   timeout=120)
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    log = open(tmp / "server.log", "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([*flask, "run", "--port", str(port), "--with-threads"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if requests.get(url + "/", timeout=2).status_code == 200:
                break
        except requests.RequestException:
            pass
        if time.monotonic() > deadline:
            proc.terminate()
            raise RuntimeError((tmp / "server.log").read_text())
        time.sleep(0.2)
    yield url, tmp / "corazones.db"
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


def set_totals(db_path: Path, table_id: str, totals: list[int]) -> None:
    with sqlite3.connect(db_path, timeout=15) as conn:
        (raw,) = conn.execute("SELECT game_json FROM tables WHERE id = ?", (table_id,)).fetchone()
        game = json.loads(raw)
        game["totals"] = totals
        conn.execute("UPDATE tables SET game_json = ? WHERE id = ?", (json.dumps(game), table_id))


def seed_board(db_path: Path) -> None:
    """Players with enough rated games, so that Clasificación has rows to show."""
    rows = [("semillaA", None, "Marisol", 31.2, 3.1, 22),
            ("semillaB", "robot:Luna:dificil", "Luna · Difícil", 29.4, 2.8, 140),
            ("semillaC", None, "Bartolomé de las Casas Villanueva", 26.0, 3.5, 9),
            ("semillaD", "robot:Tito:dificil", "Tito · Difícil", 24.1, 2.9, 160),
            ("semillaE", "robot:Carmen:facil", "Carmen · Fácil", 19.7, 3.0, 130)]
    with sqlite3.connect(db_path, timeout=15) as conn:
        for pid, rk, name, mu, sigma, games in rows:
            conn.execute(
                "INSERT INTO rating_players (public_id, device_id, robot_key, name, mu, sigma, "
                "games, created_at, updated_at) VALUES (?, NULL, ?, ?, ?, ?, ?, "
                "'2026-12-01 10:00:00', '2026-12-01 10:00:00')", (pid, rk, name, mu, sigma, games))


def test_end_scene_change_player_page_and_clasificacion(rated_server, browser: Browser) -> None:
    base, db_path = rated_server
    watch = Watch()
    problems: list[str] = []
    page = watch.attach(new_context(browser, 390, 844).new_page())

    # ABRIR MESA: con clasificación is the default; amistosa is one tap away.
    page.goto(base + "/")
    assert page.is_checked("input[name=rated][value='1']")
    assert "Amistosa" in page.inner_text("#rated-choice")
    page.check("input[name=target][value='50']", force=True)
    page.fill("#host-name", "Ana")
    page.click("#open-btn")
    page.wait_for_url("**/t/**")
    page.wait_for_selector("body[data-status='lobby']")
    table_id = page.url.split("/t/")[1].split("?")[0]
    add_robots_and_start(page)

    # The robots pass at once and wait for Ana: then any point of this hand ends the game.
    def robots_passed() -> bool:
        view = requests.get(f"{base}/api/tables/{table_id}", timeout=10).json()["state"]["view"]
        return all(view["pass_confirmed"][1:])

    deadline = time.monotonic() + 30
    while not robots_passed():
        assert time.monotonic() < deadline, "the robots did not pass"
        time.sleep(0.1)
    set_totals(db_path, table_id, [40, 45, 48, 49])

    started = time.monotonic()
    while True:
        assert time.monotonic() - started < 120, "the hand took too long"
        step = next_step(page)
        if step == "pass":
            pass_three(page)
        elif step == "play":
            play_one(page)
        elif step == "count":
            page.click("#next-hand")
            page.wait_for_function("() => !document.querySelector('#next-hand')")
        else:
            break

    over = page.locator("#overlay.game-over")
    changes = over.locator(".ranking .rchange")
    assert changes.count() == 4
    texts = [" ".join(t.split()).replace("Clasificación: ", "") for t in changes.all_inner_texts()]
    for t in texts:
        assert re.fullmatch(r"\d{3,4} → \d{3,4}\? \([+−±]\d+\)", t), t
    assert any(t.startswith("1500 → ") for t in texts)
    problems += shots_and_axe(page, "ratings-end-scene")

    # The player's page: Ana's link from the end scene.
    mine = over.locator(".ranking li.me .rchange")
    href = str(mine.get_attribute("href"))
    assert re.fullmatch(r"/jugador/[\w-]{6,24}", href)
    after = re.search(r"→ (\d+)\?", " ".join(mine.inner_text().split()))
    assert after
    page.goto(base + href)
    assert page.inner_text("h1") == "Ana"
    assert page.inner_text(".rating-num") == f"{after.group(1)}?"
    assert "provisional" in page.inner_text(".player-card")
    assert page.locator(".rating-chart svg polyline").count() == 1
    assert page.locator(".rating-history li").count() == 1
    problems += shots_and_axe(page, "ratings-player")

    # Clasificación: players with enough rated games, robots included, best first.
    seed_board(db_path)
    page.goto(base + "/clasificacion")
    rows = page.locator("table.board tbody tr")
    assert rows.count() == 5
    first = rows.first.inner_text()
    assert "Marisol" in first and "1686" in first
    assert "ROBOT Luna · Difícil" in rows.nth(1).inner_text()
    assert "Ana" not in page.inner_text("table.board")  # still provisional
    problems += shots_and_axe(page, "ratings-clasificacion")
    page.click("text=ROBOT Luna · Difícil")
    page.wait_for_url("**/jugador/semillaB")
    assert page.inner_text(".rating-num") == "1632"

    assert not problems, problems
    assert not watch.errors, watch.errors
