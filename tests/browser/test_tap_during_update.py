"""A tap is never lost to an update: a button pressed while the table changes (another seat
chooses its cards) and released after the page has redrawn still acts.

A click only reaches a button that was under the pointer both when it was pressed and when it was
released; a redraw that replaces the button in between loses it, and the player's pass stays
unsent with nothing said. The page keeps its buttons across redraws instead."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.browserkit import (
    Watch,
    add_robots_and_start,
    choose_three,
    new_context,
    open_table,
    sit,
)

pytestmark = pytest.mark.browser


#: The element's box in the viewport once it shows (null while it does not), read in one go in the
#: page: between a locator's wait and its box a redraw could replace the element (a fresh clone's
#: run found no box).
_SHOWN_BOX = """s => {
    const e = document.querySelector(s);
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? {x: r.x, y: r.y, width: r.width, height: r.height} : null;
}"""


def _press(page: Page, selector: str) -> int:
    """Press the mouse on ``selector``'s middle (not released); return the page's version.
    Waits for the element to show first (a page just opened may still be drawing it)."""
    box = page.wait_for_function(_SHOWN_BOX, arg=selector).json_value()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    version = int(page.evaluate("() => document.body.dataset.version"))
    page.mouse.down()
    return version


def _release_after_redraw(page: Page, version: int) -> None:
    page.wait_for_function("v => Number(document.body.dataset.version) > v", arg=version)
    page.mouse.up()


def _two_people(server: str, browser: Browser) -> tuple[Watch, Page, Page, str]:
    """Ana's page with a table of hers open, Beto's page not yet at it, and the table's link."""
    watch = Watch()
    host = watch.attach(new_context(browser, 1280, 800).new_page())
    guest = watch.attach(new_context(browser, 1280, 800).new_page())
    return watch, host, guest, open_table(host, server, name="Ana")


def test_a_pass_pressed_before_an_update_and_released_after_it_is_sent(
        server: str, browser: Browser) -> None:
    watch, host, guest, url = _two_people(server, browser)
    assert sit(guest, url, "Beto") == 1
    add_robots_and_start(host, 2)
    for page in (host, guest):
        page.wait_for_selector("#pass-btn")
    choose_three(host)
    host.wait_for_selector("#pass-btn:not([disabled])")
    host.wait_for_function("() => document.body.dataset.animating !== '1'")
    version = _press(host, "#pass-btn")
    # Beto chooses his three cards: the table changes and Ana's page redraws under her finger.
    choose_three(guest)
    _release_after_redraw(host, version)
    host.wait_for_function("() => !document.querySelector('#pass-btn')", timeout=10_000)
    assert "Pasaste tus cartas" in host.inner_text("#hint-line")
    assert not watch.errors, watch.errors


def test_add_robot_pressed_as_someone_sits_down_and_released_after_it_adds_the_robot(
        server: str, browser: Browser) -> None:
    watch, host, guest, url = _two_people(server, browser)
    version = _press(host, ".lobby-seat[data-seat='3'] button")
    # Beto sits down in the first free seat: Ana's lobby changes under her finger.
    assert sit(guest, url, "Beto") == 1
    _release_after_redraw(host, version)
    host.wait_for_selector(".lobby-seat[data-seat='3'][data-kind='robot']", timeout=10_000)
    # ... and the lobby she sees now has Beto in it too.
    host.wait_for_selector(".lobby-seat[data-seat='1'][data-kind='human']")
    assert not watch.errors, watch.errors
