"""Screens beyond the game loop, at three sizes: a newcomer's lobby, a spectator's, the menu, the
rules, the chat drawer; the table page's first load stays under 300 KB; the deck choice, the last
trick and the hand order (dragged sideways) work and survive a reload."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Response

from tests.browser.browserkit import (
    Watch,
    add_robot,
    add_robots_and_start,
    cards_in,
    check_layout,
    new_context,
    open_table,
    shot,
)

pytestmark = pytest.mark.browser


def test_lobby_screens_menu_and_weight(server: str, browser: Browser) -> None:
    watch = Watch()
    host = watch.attach(new_context(browser, 390, 844).new_page())
    url = open_table(host, server, name="Ana", target=100)

    # First load of the table page, as a newcomer: everything that crosses the wire.
    guest_ctx = new_context(browser, 390, 844)
    guest = watch.attach(guest_ctx.new_page())
    sizes: list[int] = []

    def count(r: Response) -> None:
        if "/poll" in r.url or "/stream" in r.url:
            return
        try:
            sizes.append(len(r.body()))
        except Exception:  # noqa: BLE001 - a response without a body (redirect)
            sizes.append(0)

    guest.on("response", count)
    guest.goto(url)
    guest.wait_for_selector("#sit-name")
    # what loads after the page (the favicon, the first poll) has no event to wait on: this
    # measures what a first visit fetches in its first 0.6 s
    guest.wait_for_timeout(600)
    guest.remove_listener("response", count)
    total = sum(sizes)
    assert 20_000 < total <= 300 * 1024, f"first load is {total} bytes"
    check_layout(guest, "lobby-newcomer")

    guest.fill("#sit-name", "Beto")
    guest.click(".sit-form button[type=submit]")
    guest.wait_for_selector("body[data-seat='1']")
    assert "Esperando a que Ana empiece" in guest.inner_text("#lobby")
    for _ in range(2):
        add_robot(host)
    host.wait_for_selector("#start-btn:not([disabled])")
    # QUITAR frees a robot's seat again, then AGREGAR ROBOT fills it.
    host.locator(".lobby-seat[data-kind='robot'] button", has_text="QUITAR").first.click()
    host.wait_for_selector("#start-btn[disabled]")
    add_robot(host)
    host.wait_for_selector("#start-btn:not([disabled])")

    spectator = watch.attach(new_context(browser, 390, 844).new_page())
    spectator.goto(url)
    spectator.wait_for_selector(".lobby .watching")
    check_layout(spectator, "lobby-spectator")

    host.click("#start-btn")
    host.wait_for_selector("#pass-btn")

    # The menu (P), with the deck choice: the viewer's cards change design at once.
    host.keyboard.press("p")
    host.wait_for_selector("#menu[open]")
    check_layout(host, "menu")
    host.click(".deck-opt[data-deck='cuatro']")
    host.wait_for_selector("#hand .card[data-deck='cuatro']")
    assert host.locator("#hand .card[data-deck='reino']").count() == 0
    assert guest.locator("#hand .card[data-deck='reino']").count() == 13   # Beto keeps his
    host.keyboard.press("Escape")
    host.click("#menu-btn")
    host.click("text=Cómo se juega")
    host.wait_for_selector("#rules-dialog[open]")
    for title in ("Cómo jugar Corazones", "Las reglas de la mesa", "La Dama de Corazones",
                  "Controles en celular y computadora", "Pantalla táctil",
                  "Lo que elige quien arma la mesa", "Los robots"):
        assert host.locator("#rules-dialog", has_text=title).count() == 1, title
    shot(host, "rules-390x844")
    host.keyboard.press("Escape")

    # Drag a card sideways: the new order is kept for this device, across a reload.
    before = cards_in(host, "#hand")
    first = host.locator("#hand .card").first.bounding_box()
    last = host.locator("#hand .card").last.bounding_box()
    assert first and last
    host.mouse.move(first["x"] + 8, first["y"] + 30)
    host.mouse.down()
    host.mouse.move(first["x"] + 40, first["y"] + 32, steps=4)
    host.mouse.move(last["x"] + last["width"] - 2, first["y"] + 32, steps=8)
    host.mouse.up()
    after = cards_in(host, "#hand")
    assert after[-1] == before[0] and sorted(after) == sorted(before)
    host.reload()
    host.wait_for_selector("#hand .card")
    assert cards_in(host, "#hand") == after

    # Chat on a phone: the drawer opens over the table and closes again.
    guest.click("#chat-btn")
    guest.wait_for_selector(".app.chat-open")
    check_layout(guest, "chat-drawer", sizes=[(390, 844)])
    guest.click("#chat-close")

    # ABANDONAR, right above the hand, asks first; then the seat shows that Beto left.
    guest.click("#leave-btn")
    guest.wait_for_selector("#modal[open] #leave-confirm")
    guest.click("#leave-confirm")
    guest.wait_for_url(server + "/")
    host.wait_for_selector(".seat[data-seat='1'] .badge-left")
    assert not watch.errors, watch.errors


def test_last_trick_and_drag_to_play(server: str, browser: Browser) -> None:
    watch = Watch()
    page = watch.attach(new_context(browser, 820, 1180).new_page())
    open_table(page, server, name="Ana", target=50, level="facil")
    add_robots_and_start(page)
    page.wait_for_selector("#pass-btn")
    for i in range(3):
        page.locator("#hand .card").nth(i).click(position={"x": 8, "y": 24})
    page.click("#pass-btn")
    # Play by dragging the card up onto the felt.
    page.wait_for_selector("body[data-my-turn='1'][data-animating='0']", timeout=20_000)
    card = page.locator("#hand .card.playable").first
    code = card.get_attribute("data-card")
    box = card.bounding_box()
    felt = page.locator("#trick").bounding_box()
    assert box and felt
    page.mouse.move(box["x"] + 8, box["y"] + 30)
    page.mouse.down()
    page.mouse.move(box["x"] + 8, box["y"] - 20, steps=3)
    page.mouse.move(felt["x"] + felt["width"] / 2, felt["y"] + felt["height"] / 2, steps=6)
    page.mouse.up()
    page.wait_for_function("c => !document.querySelector(`#hand .card[data-card='${c}']`)",
                           arg=code)
    page.wait_for_selector("#pile:not([hidden])", timeout=20_000)
    page.click("#pile")
    page.wait_for_selector("#modal[open] .mini-trick")
    shown = page.locator("#modal .mini-trick .card").evaluate_all(
        "els => els.map(e => e.dataset.card)")
    assert code in shown and len(shown) == 4
    assert "Última baza (1 de 13)" in page.inner_text("#modal-title")
    shot(page, "last-trick-820x1180")
    assert not watch.errors, watch.errors
