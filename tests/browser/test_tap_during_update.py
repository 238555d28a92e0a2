"""A tap is never lost to an update: a button pressed while the table changes (another seat
chooses its cards) and released after the page has redrawn still acts.

A click only reaches a button that was under the pointer both when it was pressed and when it was
released; a redraw that replaces the button in between loses it, and the player's pass stays
unsent with nothing said. The page keeps its buttons across redraws instead."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.browserkit import Watch, add_robot, click_card, new_context, open_table

pytestmark = pytest.mark.browser


def _choose_three(page: Page) -> None:
    for n in range(1, 4):
        page.wait_for_function("() => document.body.dataset.animating !== '1'")
        click_card(page, "#hand .card:not(.selected)")
        page.wait_for_function(
            "n => document.querySelectorAll('#hand .card.selected').length === n", arg=n)


def test_a_pass_pressed_before_an_update_and_released_after_it_is_sent(
        server: str, browser: Browser) -> None:
    watch = Watch()
    host = watch.attach(new_context(browser, 1280, 800).new_page())
    guest = watch.attach(new_context(browser, 1280, 800).new_page())
    url = open_table(host, server, name="Ana")
    guest.goto(url)
    guest.fill("#sit-name", "Beto")
    guest.click(".sit-form button[type=submit]")
    guest.wait_for_selector("body[data-seat='1']")
    for _ in range(2):
        add_robot(host)
    host.wait_for_selector("#start-btn:not([disabled])")
    host.click("#start-btn")
    for page in (host, guest):
        page.wait_for_selector("#pass-btn")
    _choose_three(host)
    host.wait_for_selector("#pass-btn:not([disabled])")
    # Every version the host's page has seen so far, robots' passes included, before pressing.
    host.wait_for_function("() => document.body.dataset.animating !== '1'")
    box = host.locator("#pass-btn").bounding_box()
    assert box is not None
    version = int(host.evaluate("() => document.body.dataset.version"))
    host.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    host.mouse.down()
    # Beto chooses his three cards: the table changes and Ana's page redraws under her finger.
    _choose_three(guest)
    host.wait_for_function("v => Number(document.body.dataset.version) > v", arg=version)
    host.mouse.up()
    host.wait_for_function("() => !document.querySelector('#pass-btn')", timeout=10_000)
    assert "Pasaste tus cartas" in host.inner_text("#hint-line")
    assert not watch.errors, watch.errors


def test_add_robot_pressed_as_someone_sits_down_and_released_after_it_adds_the_robot(
        server: str, browser: Browser) -> None:
    watch = Watch()
    host = watch.attach(new_context(browser, 1280, 800).new_page())
    guest = watch.attach(new_context(browser, 1280, 800).new_page())
    url = open_table(host, server, name="Ana")
    guest.goto(url)
    guest.wait_for_selector("#sit-name")
    button = host.locator(".lobby-seat[data-seat='3'] button", has_text="AGREGAR ROBOT")
    box = button.bounding_box()
    assert box is not None
    version = int(host.evaluate("() => document.body.dataset.version"))
    host.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    host.mouse.down()
    # Beto sits down in the first free seat: Ana's lobby changes under her finger.
    guest.fill("#sit-name", "Beto")
    guest.click(".sit-form button[type=submit]")
    guest.wait_for_selector("body[data-seat='1']")
    host.wait_for_function("v => Number(document.body.dataset.version) > v", arg=version)
    host.mouse.up()
    host.wait_for_selector(".lobby-seat[data-seat='3'][data-kind='robot']", timeout=10_000)
    # ... and the lobby she sees now has Beto in it too.
    host.wait_for_selector(".lobby-seat[data-seat='1'][data-kind='human']")
    assert not watch.errors, watch.errors
