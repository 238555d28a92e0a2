"""The table page's part of the fair deal: in the lobby it draws a seed, keeps it under
``corazones:seed:<reference>:<game>:<hand>`` and sends it quietly; the first hand is dealt with it
(the hand's record, once the count is closed, carries that very seed for seat 0), and the page
sends its seed for the next hand while the hand is played."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests
from playwright.sync_api import Browser

from rules.deal import commit, table_reference, verify
from tests.browser.browserkit import (
    Watch,
    add_robots_and_start,
    new_context,
    next_step,
    open_table,
    pass_three,
    play_one,
)
from tests.kit import wait_until

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/deal-shots")
SEED_JS = "key => localStorage.getItem(key)"


def test_the_page_sends_its_seed_and_the_deal_uses_it(server: str, browser: Browser) -> None:
    ctx = new_context(browser, 390, 844)
    watch = Watch()
    page = watch.attach(ctx.new_page())
    url = open_table(page, server, name="Ana", target=50, level="facil")
    tid = url.rsplit("/", 1)[1]
    ref = table_reference(tid)
    key1 = f"corazones:seed:{ref}:1:1"
    seed1 = str(page.wait_for_function(SEED_JS, arg=key1).json_value())
    assert len(seed1) == 64 and int(seed1, 16) >= 0
    state = page.evaluate(f"() => fetch('/api/tables/{tid}').then((r) => r.json())")["state"]
    want = {"seat": 0, "by": "player", "commitment": commit(bytes.fromhex(seed1), ref, 1, 1, 0)}
    page.wait_for_function(
        f"() => fetch('/api/tables/{tid}').then((r) => r.json())"
        ".then((b) => b.state.fair_deal.next.seats[0].by === 'player')")
    state = page.evaluate(f"() => fetch('/api/tables/{tid}').then((r) => r.json())")["state"]
    assert state["fair_deal"]["next"]["seats"][0] == want
    assert page.locator("#toast:not([hidden])").count() == 0  # quiet: nothing shown
    SHOTS.mkdir(exist_ok=True)
    for w, h in ((390, 844), (844, 390), (1440, 900)):
        page.set_viewport_size({"width": w, "height": h})
        page.screenshot(path=str(SHOTS / f"lobby-{w}x{h}.png"))
    page.set_viewport_size({"width": 390, "height": 844})

    add_robots_and_start(page)
    # While hand 1 is played, the page sends its seed for hand 2.
    seed2 = str(page.wait_for_function(SEED_JS, arg=f"corazones:seed:{ref}:1:2").json_value())
    assert len(seed2) == 64 and seed2 != seed1
    for _ in range(40):
        step = next_step(page)
        if step == "pass":
            pass_three(page)
        elif step == "play":
            play_one(page)
        elif step == "count":
            page.screenshot(path=str(SHOTS / "count-390x844.png"))
            page.click("#next-hand")
            break
    else:
        raise AssertionError("hand 1 did not end")

    def revealed() -> dict[str, object] | None:
        r = requests.get(f"{server}/api/tables/{tid}/deals/1/1", timeout=30)
        return dict(r.json()) if r.status_code == 200 else None

    record = wait_until(revealed, 30)
    assert verify(record) == []
    seats = {s["seat"]: s for s in record["seats"]}
    assert seats[0]["by"] == "player" and seats[0]["seed"] == seed1
    assert [seats[s]["by"] for s in (1, 2, 3)] == ["server"] * 3
    assert page.evaluate(SEED_JS, key1) == seed1  # kept for the verifier
    assert watch.errors == []
    ctx.close()
