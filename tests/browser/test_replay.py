"""Repetición in the browser: the review of the hands already played (only this seat's cards),
then the finished game's replay reached from the end scene, stepped forward and back with the
keyboard and the buttons, photographed at 390x844, 844x390 and 1440x900, and run through axe."""

from __future__ import annotations

import random
import uuid
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

import robots
from tests.browser.browserkit import Watch, new_context, shot, shots_and_axe

pytestmark = pytest.mark.browser


class Api:
    """The JSON API through the browser context's own cookies (the page's device)."""

    def __init__(self, ctx: BrowserContext, base: str) -> None:
        self.req = ctx.request
        self.base = base
        self.csrf = self.req.get(base + "/api/csrf").json()["csrf_token"]

    def post(self, path: str, body: dict[str, Any]) -> Any:
        r = self.req.post(self.base + path, data=body, headers={"X-CSRFToken": self.csrf})
        assert r.ok, (path, body, r.status, r.text())
        return r.json()

    def act(self, tid: str, kind: str, **fields: Any) -> Any:
        return self.post(f"/api/tables/{tid}/actions",
                         {"type": kind, "action_id": uuid.uuid4().hex, **fields})

    def state(self, tid: str) -> dict[str, Any]:
        return dict(self.req.get(f"{self.base}/api/tables/{tid}").json()["state"])


def play_until(api: Api, page: Page, tid: str, rng: random.Random, done: Any) -> dict[str, Any]:
    """Ana plays her seat (robots play theirs in the server) until ``done(state)``."""
    for _ in range(5000):
        st = api.state(tid)
        v = st["view"]
        if done(st):
            return st
        if v["phase"] == "counting":
            api.act(tid, "close_count")
        elif 0 in v["to_act"]:
            action = robots.decide(v, "normal", rng)
            api.act(tid, action.pop("type"), **action)
        else:
            page.wait_for_timeout(30)
    raise AssertionError("the game did not get there")


def dataset(page: Page) -> dict[str, str]:
    return dict(page.evaluate("() => ({...document.body.dataset})"))


def robot_table(api: Api, deck: str) -> str:
    """Ana's table to 50 with three Fácil robots, started: a game that plays itself to the end."""
    tid: str = api.post("/api/tables", {"host_name": "Ana", "target": 50, "renege": "impedido",
                                        "deck": deck, "robot_level": "facil"})["table_id"]
    for seat in (1, 2, 3):
        api.act(tid, "add_robot", seat=seat)
    api.act(tid, "start")
    return tid


def test_review_and_replay_step_with_keys_and_pass_axe(server: str, browser: Browser) -> None:
    watch = Watch()
    problems: list[str] = []
    ctx = new_context(browser, 390, 844)
    page = watch.attach(ctx.new_page())
    page.goto(server + "/")
    api = Api(ctx, server)
    tid = robot_table(api, "jardin")
    rng = random.Random(4)
    play_until(api, page, tid, rng, lambda st: st["view"]["hand_number"] >= 2
               and st["view"]["phase"] == "playing" and len(st["view"]["tricks"]) >= 2)

    # The review: Ana's own hand face up, the others' only counted.
    page.goto(f"{server}/t/{tid}/repaso")
    page.wait_for_selector("body[data-kind='deal']")
    assert page.locator(".rp-bottom-seat .rp-chip").count() == 13
    for pos in ("left", "top", "right"):
        assert page.locator(f".rp-{pos}-seat .rp-chip").count() == 0
        assert "13 cartas" in page.locator(f".rp-{pos}-seat").inner_text()
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("body[data-kind='pass']")
    assert page.locator("#rp-center .rp-pass").count() == 2  # what Ana gave and got, no more
    problems += shots_and_axe(page, "replay-review")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("body[data-kind='trick'][data-tricks='1']")
    assert page.locator("#rp-center .card").count() == 4
    assert page.locator(".rp-bottom-seat .rp-chip").count() == 12

    # To the end of the game; the end scene links to the replay.
    play_until(api, page, tid, rng, lambda st: st["table"]["status"] == "finished")
    page.goto(f"{server}/t/{tid}")
    page.wait_for_selector("#replay-link")
    page.click("#replay-link")
    page.wait_for_url(f"**/t/{tid}/partidas/1")
    page.wait_for_selector("body[data-kind='deal'][data-hand='1']")
    for pos in ("bottom", "left", "top", "right"):  # all four hands face up
        assert page.locator(f".rp-{pos}-seat .rp-chip").count() == 13
    problems += shots_and_axe(page, "replay-deal")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("body[data-kind='pass']")
    assert page.locator("#rp-center .rp-pass").count() == 4  # every pass drawn
    assert page.locator(".rp-seat .rp-chip.rp-passing").count() == 12
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.wait_for_selector("body[data-kind='trick'][data-tricks='5']")
    problems += shots_and_axe(page, "replay-trick")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("body[data-kind='trick'][data-tricks='4']")
    chips = sum(page.locator(f".rp-{p}-seat .rp-chip").count()
                for p in ("bottom", "left", "top", "right"))
    assert chips == 52 - 16
    page.keyboard.press("ArrowDown")
    page.wait_for_selector("body[data-kind='deal'][data-hand='2']")
    page.keyboard.press("ArrowUp")
    page.wait_for_selector("body[data-kind='deal'][data-hand='1']")
    page.click("#rp-next")
    page.wait_for_selector("body[data-kind='pass'][data-hand='1']")
    page.click("#rp-prev")
    page.wait_for_selector("body[data-kind='deal'][data-hand='1']")
    page.keyboard.press("End")
    page.wait_for_selector("body[data-kind='result']")
    assert "Gana" in page.locator("#rp-center").inner_text()
    assert page.locator("#rp-next").is_disabled()
    problems += shots_and_axe(page, "replay-result")
    page.keyboard.press("ArrowLeft")
    assert dataset(page)["kind"] in ("trick", "unfinished")

    # A swipe on the felt goes forward (the phone's gesture).
    page.keyboard.press("Home")
    page.wait_for_selector("body[data-step='0']")
    box = page.locator("#rp-felt").bounding_box()
    assert box is not None
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] - 20, y)
    page.mouse.down()
    page.mouse.move(box["x"] + 20, y, steps=5)
    page.mouse.up()
    page.wait_for_selector("body[data-step='1']")

    # The table's menu lists the finished game.
    page.goto(f"{server}/t/{tid}")
    page.wait_for_selector("#replay-link")
    page.keyboard.press("p")  # the end scene covers the menu button: P opens the menu
    page.wait_for_selector(".menu-games a")
    assert page.locator(".menu-games a").first.get_attribute("href") == f"/t/{tid}/partidas/1"
    shot(page, "replay-menu-390x844")

    # A game that does not exist: a Spanish 404.
    r = page.goto(f"{server}/t/{tid}/partidas/7")
    assert r is not None and r.status == 404
    assert "Esa partida no existe" in page.content()
    assert not watch.errors, watch.errors
    assert not problems, "\n".join(problems)
    ctx.close()
