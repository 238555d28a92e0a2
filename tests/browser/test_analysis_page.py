"""Análisis in the browser, in the production shape: the web process runs no robots and no
review; a `flask robots` process plays the robots and, once no robot turn is due, reviews the
game. Ana finishes a game, opens «Análisis» from the end scene (also offered in Mis mesas), sees
«Analizando tu partida…» while it waits, then the marked decisions; one of them shown at its
moment of the replay. Photographed at 390x844, 844x390 and 1440x900 and run through axe."""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest
from playwright.sync_api import Browser, Page

import robots
from rules.cards import DECK
from tests.browser.browserkit import DESKTOP, LANDSCAPE, PHONE, axe_problems, new_context
from tests.browser.test_replay import Api
from tests.kit import ROOT, Server

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/analysis-shots")


class Site:
    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="corazones-analysis-"))
        self.web = Server(f"sqlite:///{self.tmp}/analysis.db", self.tmp, ROBOT_WORKER="off",
                          ANALYSIS_WORLDS="12", ANALYSIS_POLL="0.3", POLL_TIMEOUT="20")
        self.robots: subprocess.Popen[bytes] | None = None
        self.log: IO[str] | None = None

    def setup(self) -> None:
        subprocess.run([sys.executable, "-m", "flask", "--app", "app", "setup"], cwd=ROOT,
                       env=self.web.env, check=True, capture_output=True, timeout=120)
        self.web.start()

    def start_robots(self) -> None:
        self.log = open(self.tmp / "robots.log", "a")  # noqa: SIM115 - closed in stop_robots
        self.robots = subprocess.Popen(
            [sys.executable, "-m", "flask", "--app", "app", "robots"], cwd=ROOT,
            env=self.web.env, stdout=self.log, stderr=subprocess.STDOUT)

    def stop_robots(self) -> None:
        if self.robots is not None:
            self.robots.terminate()
            self.robots.wait(timeout=30)
            self.robots = None
        if self.log is not None:
            self.log.close()
            self.log = None


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    s = Site()
    s.setup()
    try:
        yield s
    finally:
        s.stop_robots()
        s.web.stop()


def shots_and_axe(page: Page, name: str) -> list[str]:
    SHOTS.mkdir(exist_ok=True)
    problems: list[str] = []
    for w, h in (PHONE, LANDSCAPE, DESKTOP):
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(150)
        page.screenshot(path=str(SHOTS / f"{name}-{w}x{h}.png"))
        if (w, h) != LANDSCAPE:
            problems += axe_problems(page, f"{name} {w}x{h}")
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    return problems


def play_carelessly(api: Api, page: Page, tid: str, rng: random.Random) -> None:
    """Ana plays her seat carelessly until the game is over: Fácil's pass and always her highest
    legal card (Fácil's own one careless card in three left a whole game with nothing for
    Difícil to mark once in a fresh clone's run); the robot process plays the others."""
    for _ in range(5000):
        st = api.state(tid)
        v = st["view"]
        if st["table"]["status"] == "finished":
            return
        if v["phase"] == "counting":
            api.act(tid, "close_count")
        elif 0 in v["to_act"]:
            action = robots.decide(v, "facil", rng)
            if action["type"] == "play":
                action["card"] = max(v["legal"], key=lambda c: DECK.index(c) % 13)
            api.act(tid, action.pop("type"), **action)
        else:
            page.wait_for_timeout(30)
    raise AssertionError("the game did not end")


def test_analysis_from_the_end_scene_to_a_marked_moment(site: Site, browser: Browser) -> None:
    base = site.web.url
    problems: list[str] = []
    ctx = new_context(browser, 390, 844)
    page = ctx.new_page()
    page.goto(base + "/")
    api = Api(ctx, base)
    tid = api.post("/api/tables", {"host_name": "Ana", "target": 50, "renege": "impedido",
                                   "robot_level": "normal"})["table_id"]
    for seat in (1, 2, 3):
        api.act(tid, "add_robot", seat=seat)
    api.act(tid, "start")
    site.start_robots()
    play_carelessly(api, page, tid, random.Random(7))
    site.stop_robots()  # no robot process now: the analysis waits

    page.goto(f"{base}/t/{tid}")
    link = page.locator("#analysis-link")
    link.wait_for()
    assert link.inner_text() == "Análisis"
    SHOTS.mkdir(exist_ok=True)
    link.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "end-scene-390x844.png"))
    link.click()
    page.wait_for_selector(".an-working")
    assert "Analizando tu partida" in page.locator("#an-panel").inner_text()
    problems += shots_and_axe(page, "analysis-waiting")
    status = page.request.get(f"{base}/api/tables/{tid}/games/1/analysis").json()
    assert status["status"] == "queued" and status["done"] == 0  # the web process ran nothing

    site.start_robots()  # a robot process takes it over
    page.wait_for_selector("#an-panel .an-list, #an-panel p:has-text('Ninguna')", timeout=180_000)
    done = page.request.get(f"{base}/api/tables/{tid}/games/1/analysis").json()
    assert done["status"] == "done" and done["done"] == done["total"] > 0
    assert done["marked"] > 0, "a careless game had nothing marked"
    first = page.locator(".an-go").first
    first.click()
    note = page.locator("#an-note")
    note.wait_for()
    text = note.inner_text()
    assert "Mejor:" in text and "en promedio" in text
    problems += shots_and_axe(page, "analysis-marked")

    page.goto(f"{base}/mis-mesas")
    mine = page.locator(f"a[href='/t/{tid}/partidas/1?analisis=1']")
    assert mine.count() == 1
    problems += shots_and_axe(page, "mis-mesas")
    assert not problems, problems
    ctx.close()
