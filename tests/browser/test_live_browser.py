"""Jugar en vivo in Chromium: JUGAR EN VIVO on the home page, the waiting view (time, how many are
looking, CANCELAR), four people seated together and landing at their table, Mesas en vivo and a
spectator opening a public table. Photographed at 390x844, 844x390 and 1440x900 under
/tmp/live-shots/ (LIVE_SHOTS overrides), axe-core clean on the new pages."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.browserkit import (
    DESKTOP,
    LANDSCAPE,
    PHONE,
    Watch,
    axe_problems,
    new_context,
)

pytestmark = pytest.mark.browser

SHOTS = Path(os.environ.get("LIVE_SHOTS", "/tmp/live-shots"))


def shots_and_axe(page: Page, name: str) -> list[str]:
    """Photograph the page at the three sizes, run axe-core at the phone's and the desktop's."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    for w, h in (PHONE, LANDSCAPE, DESKTOP):
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(150)
        page.screenshot(path=str(SHOTS / f"{name}-{w}x{h}.png"), full_page=True)
        if (w, h) != LANDSCAPE:
            problems += axe_problems(page, f"{name} {w}x{h}")
        overflow = page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
        if overflow > 1:
            problems.append(f"{name} {w}x{h}: horizontal overflow {overflow}px")
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    return problems


def live_page(browser: Browser, watch: Watch) -> Page:
    return watch.attach(new_context(browser).new_page())


def test_jugar_en_vivo_waiting_view_and_cancel(server: str, browser: Browser) -> None:
    watch = Watch()
    page = live_page(browser, watch)
    page.goto(server + "/")
    page.fill("#host-name", "Ana")
    problems = shots_and_axe(page, "live-home")
    page.click("#live-btn")
    page.wait_for_url("**/en-vivo")
    page.wait_for_selector("#live-wait:not([hidden])")
    page.wait_for_function("() => document.querySelector('#live-looking').textContent"
                           ".startsWith('1 persona busca')")
    page.wait_for_function("() => document.querySelector('#live-time').textContent !== '0:00'")
    problems += shots_and_axe(page, "live-waiting")
    page.click("#live-cancel")
    page.wait_for_url(server + "/")
    # the queue no longer holds Ana: the waiting view offers to look again
    page.goto(server + "/en-vivo")
    page.wait_for_selector("#live-join:not([hidden])")
    assert page.input_value("#live-name") == "Ana"
    problems += shots_and_axe(page, "live-join")
    page.fill("#live-name", "")
    page.click("#live-join-btn")
    assert "Escribe tu nombre" in page.text_content("#join-error")
    page.fill("#live-name", "ROBOT Ana")
    page.click("#live-join-btn")
    page.wait_for_selector("#join-error:not([hidden])")
    assert "robot" in page.text_content("#join-error")
    assert not problems, problems
    assert not watch.errors, watch.errors
    page.context.close()


def test_four_people_are_seated_and_a_spectator_watches_from_mesas_en_vivo(
        server: str, browser: Browser) -> None:
    watch = Watch()
    pages = [live_page(browser, watch) for _ in range(4)]
    names = ["Bea", "Ciro", "Dora", "Eli"]
    for page, name in zip(pages[:3], names, strict=False):
        page.goto(server + "/")
        page.fill("#host-name", name)
        page.click("#live-btn")
        page.wait_for_selector("#live-wait:not([hidden])")
    pages[2].wait_for_function("() => document.querySelector('#live-looking').textContent"
                               ".startsWith('3 personas')")
    problems = shots_and_axe(pages[2], "live-waiting-three")
    pages[3].goto(server + "/en-vivo")
    pages[3].fill("#live-name", names[3])
    pages[3].click("#live-join-btn")
    for page in pages:  # each lands at the table, in a seat of its own
        page.wait_for_url("**/t/**", timeout=20_000)
        page.wait_for_selector("body[data-status='playing']")
    urls = {p.url.split("?")[0] for p in pages}
    assert len(urls) == 1
    table_url = urls.pop()
    problems += shots_and_axe(pages[0], "live-table")
    spectator = live_page(browser, watch)
    spectator.goto(server + "/mesas-en-vivo")
    row = spectator.locator(f"a.live-table-link[href='{table_url.split(server)[1]}']")
    assert row.count() == 1
    text = row.text_content() or ""
    assert all(n in text for n in names) and "1500?" in text
    problems += shots_and_axe(spectator, "live-mesas")
    row.click()
    spectator.wait_for_url(table_url)
    spectator.wait_for_selector("body[data-status='playing']")
    assert spectator.locator("#hand .card").count() == 0  # a spectator holds no hand
    problems += shots_and_axe(spectator, "live-spectator")
    assert not problems, problems
    assert not watch.errors, watch.errors
    for p in [*pages, spectator]:
        p.context.close()
