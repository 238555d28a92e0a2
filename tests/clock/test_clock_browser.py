"""Issue 8 in the browser: the pace chosen at ABRIR MESA, a seat's countdown, «Que juegue un robot»,
the stand-in's mark, and the summary the person reads when they come back (real server with the
scheduler in-process and an en vivo clock of a few seconds; Debian's Chromium)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser

from tests.browser.browserkit import ARGS, CHROMIUM, Watch, add_robot, new_context, pass_three, shot

pytestmark = pytest.mark.browser

ENV = {"CLOCK_LIVE_GRACE_PASS": "4", "CLOCK_LIVE_GRACE": "4", "CLOCK_LIVE_RESERVE": "2",
       "SCHEDULER": "inprocess", "CLOCK_SWEEP": "0.3", "ROBOT_DELAY": "0", "PUSH_SENDER": "off"}


@pytest.fixture(scope="module")
def chromium(playwright_session: Any) -> Iterator[Browser]:
    b = playwright_session.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
    yield b
    b.close()


def test_countdown_standin_and_the_seat_comes_back(server_factory, chromium: Browser) -> None:
    srv = server_factory(**ENV)
    watch = Watch()
    ana = watch.attach(new_context(chromium).new_page())
    beto = watch.attach(new_context(chromium).new_page())

    ana.goto(srv.url + "/")
    ana.check("input[name=pace][value='en_vivo']", force=True)
    ana.fill("#host-name", "Ana")
    ana.click("#open-btn")
    ana.wait_for_url("**/t/**")
    ana.wait_for_selector("body[data-status='lobby']")
    url = ana.url.split("?")[0]
    assert "En vivo" in ana.inner_text("#lobby .clock-pace")
    assert "sin reloj" not in ana.inner_text("#table-meta") and "en vivo" in ana.inner_text(
        "#table-meta")

    beto.goto(url)
    beto.fill("#sit-name", "Beto")
    beto.click(".sit-form button[type=submit]")
    beto.wait_for_selector("body[data-seat='1']")
    assert "En vivo" in beto.inner_text("#lobby .clock-pace")
    for _ in range(2):
        add_robot(ana)
    ana.wait_for_function("() => !document.querySelector(\".lobby-seat[data-kind='empty']\")")
    ana.click("#start-btn")
    for page in (ana, beto):
        page.wait_for_selector("#pass-btn")
    # Beto's countdown runs on both pages (from the server's clock)
    ana.wait_for_selector(".seat[data-seat='1'] .clock-badge .clock-text")
    assert beto.inner_text(".seat[data-seat='1'] .clock-text").startswith("Te quedan")
    pass_three(ana)
    # Beto does nothing: after 4 s of grace and 2 s of reserve Ana may call the stand-in
    ana.wait_for_selector(".seat[data-seat='1'] .clock-badge[data-kind='reserve']", timeout=10_000)
    btn = ana.wait_for_selector(".seat[data-seat='1'] .clock-standin", timeout=10_000)
    assert beto.locator(".clock-standin").count() == 0  # never for oneself
    shot(ana, "clock-time-up-390x844")
    btn.click()
    ana.wait_for_selector(".seat[data-seat='1'] .clock-badge[data-kind='standin']")
    assert "ROBOT por Beto" in ana.inner_text(".seat[data-seat='1'] .seat-name")
    # the stand-in passes for Beto; his page, left open, keeps polling and changes nothing
    ana.wait_for_selector("body[data-phase='playing']", timeout=15_000)
    beto.wait_for_selector(".seat[data-seat='1'] .clock-badge[data-kind='standin']",
                           timeout=15_000)
    shot(ana, "clock-standin-390x844")
    assert ana.locator(".clock-back").count() == 0
    # Beto comes back to his open page and taps VOLVER A JUGAR (opening the page again does the
    # same): the seat is his, with what the robot did
    beto.click(".seat[data-seat='1'] .clock-back")
    box = beto.wait_for_selector("#clock-summary")
    assert "Mientras no estabas, el robot pasó" in box.inner_text()
    shot(beto, "clock-summary-390x844")
    beto.click("#clock-summary button")
    beto.wait_for_selector("#clock-summary", state="detached")
    assert beto.locator(".seat[data-seat='1'] .clock-badge[data-kind='standin']").count() == 0
    ana.wait_for_function(
        "() => !document.querySelector(\".seat[data-seat='1'] .clock-badge[data-kind='standin']\")")
    assert "ROBOT" not in ana.inner_text(".seat[data-seat='1'] .seat-name")
    # the summary is shown once
    beto.reload()
    beto.wait_for_selector("body[data-seat='1']")
    beto.wait_for_timeout(300)  # a check that nothing appears: the page's chance to show it
    assert beto.locator("#clock-summary").count() == 0
    ana.click("#menu-btn")
    assert "En vivo" in ana.inner_text("#menu-body .clock-menu")
    assert watch.errors == []
