"""«Verificar el reparto» against the real endpoint: Ana plays with the table page open (its
seed.js sends her seeds), then the review and the replay verify the hands the server recorded."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Browser

from rules import deal
from tests.browser.browserkit import Watch, new_context
from tests.browser.test_deal_verify import shots_and_axe, verify_current_hand
from tests.browser.test_replay import Api, play_until

pytestmark = pytest.mark.browser


def test_verify_against_the_real_endpoint(server: str, browser: Browser) -> None:
    watch = Watch()
    ctx = new_context(browser, 390, 844)
    table_page = watch.attach(ctx.new_page())
    table_page.goto(server + "/")
    api = Api(ctx, server)
    tid = api.post("/api/tables", {"host_name": "Ana", "target": 50, "renege": "impedido",
                                   "deck": "reino", "robot_level": "facil"})["table_id"]
    table_page.goto(f"{server}/t/{tid}")  # the table page sends Ana's seeds as hands come
    ref = deal.table_reference(tid)
    table_page.wait_for_function("k => localStorage.getItem(k)", arg=f"corazones:seed:{ref}:1:1")
    table_page.wait_for_function(
        f"() => fetch('/api/tables/{tid}').then((r) => r.json())"
        ".then((b) => b.state.fair_deal.next.seats[0].by === 'player')")
    for seat in (1, 2, 3):
        api.act(tid, "add_robot", seat=seat)
    api.act(tid, "start")
    rng = random.Random(7)
    page = watch.attach(ctx.new_page())
    play_until(api, page, tid, rng, lambda st: st["view"]["hand_number"] >= 2
               and st["view"]["phase"] == "playing")

    page.goto(f"{server}/t/{tid}/repaso")
    page.wait_for_selector("body[data-kind='deal'][data-hand='1']")
    assert verify_current_hand(page) == "ok", page.inner_text("#rp-verify-out")
    out = page.locator("#rp-verify-out")
    assert out.locator(".rp-verify-own").inner_text() == "Tu semilla está en el reparto ✓"
    assert out.locator(".rp-verify-seat[data-seat='0'] .rp-verify-by").inner_text() == "barajó Ana"
    assert out.locator(".rp-verify-seat[data-seat='3'] .rp-verify-by").inner_text() == \
        "barajó el servidor"
    problems = shots_and_axe(page, "e2e-review")

    play_until(api, page, tid, rng, lambda st: st["table"]["status"] == "finished")
    table_page.close()
    page.goto(f"{server}/t/{tid}/partidas/1")
    page.wait_for_selector("body[data-kind='deal'][data-hand='1']")
    hands = int(page.evaluate("() => document.querySelectorAll('.rp-jump').length"))
    for n in range(1, hands + 1):
        assert verify_current_hand(page) == "ok", (n, page.inner_text("#rp-verify-out"))
        page.keyboard.press("ArrowDown")
        if n < hands:
            page.wait_for_selector(f"body[data-kind='deal'][data-hand='{n + 1}']")
    # A hand that does not exist: the server's Spanish refusal, calmly.
    r = page.evaluate(f"() => fetch('/api/tables/{tid}/deals/1/99').then(async (r) => "
                      "[r.status, await r.json()])")
    assert r[0] == 404 and r[1]["message"]
    assert not problems, problems
    assert not watch.errors, watch.errors
    ctx.close()
