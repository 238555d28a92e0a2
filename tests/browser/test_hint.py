"""La Pista on the table page: while Difícil searches the button says «Pensando…» and a second tap
asks nothing more; the answer chooses the cards (the pass) or the card (play) with a line that
says so; a refused hint (too many in a minute) says why in Spanish and gives the button back."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from rules import card_label
from tests.browser.browserkit import MY_TURN_JS, add_robots_and_start, new_context, open_table, shot
from tests.kit import wait_until

pytestmark = pytest.mark.browser

HINT = "**/api/tables/*/hint"
#: The hint route's limit per device and minute (tables/hint_routes.py HINT_LIMIT).
LIMIT = 30


def _button(page: Page) -> tuple[str, str | None]:
    btn = page.locator("#hint-btn")
    return btn.inner_text().strip(), btn.get_attribute("aria-busy")


def _pumped(page: Page, check: Any) -> Any:
    def look() -> Any:
        page.wait_for_timeout(50)  # Playwright delivers the page's events meanwhile
        return check()
    return wait_until(look, 30, 0.05)


def test_la_pista_thinks_answers_and_gives_the_button_back_when_refused(
        server: str, browser: Browser) -> None:
    ctx = new_context(browser, 390, 844)
    try:
        page = ctx.new_page()
        url = open_table(page, server, name="Ana")
        api = url.replace("/t/", "/api/tables/").rstrip("/") + "/hint"
        add_robots_and_start(page)
        page.wait_for_selector("#pass-btn")
        page.wait_for_function("() => document.body.dataset.animating !== '1'")

        # The pass: the request is held on its way while the page is looked at.
        held: list[Any] = []
        asked: list[str] = []
        page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/hint") else None)
        page.route(HINT, lambda route: route.continue_() if held else held.append(route))
        assert _button(page) == ("Pista", None)
        page.click("#hint-btn")
        _pumped(page, lambda: bool(held))
        assert _button(page) == ("Pensando…", "true")
        assert page.locator("#hint-btn").get_attribute("aria-disabled") == "true"
        page.click("#hint-btn", force=True)  # a second tap while Difícil searches
        page.wait_for_timeout(300)
        assert len(asked) == 1 and len(held) == 1
        shot(page, "hint-thinking-390x844")
        with page.expect_response(HINT) as answer:
            held[0].continue_()
        cards = answer.value.json()["cards"]
        assert len(cards) == 3
        page.wait_for_function(
            "n => document.querySelectorAll('#hand .card.selected').length === n", arg=3)
        chosen = page.locator("#hand .card.selected").evaluate_all(
            "els => els.map((e) => e.dataset.card)")
        assert sorted(chosen) == sorted(cards)
        line = page.inner_text("#hint-line")
        assert line.startswith("Pista: pasa ") and all(card_label(c) in line for c in cards), line
        assert _button(page) == ("Pista", None)
        shot(page, "hint-pass-390x844")
        page.click("#pass-btn")
        page.wait_for_function("() => !document.querySelector('#pass-btn')")

        # Play: the hint chooses a card, «Jugar» plays it.
        page.wait_for_function(MY_TURN_JS, timeout=60_000)
        with page.expect_response(HINT) as answer:
            page.click("#hint-btn")
        card = answer.value.json()["card"]
        page.wait_for_selector(f"#hand .card.selected[data-card='{card}']")
        assert page.inner_text("#hint-line").startswith(f"Pista: juega {card_label(card)}.")
        for w, h in ((390, 844), (844, 390), (1440, 900)):
            page.set_viewport_size({"width": w, "height": h})
            page.wait_for_timeout(150)
            shot(page, f"hint-play-{w}x{h}")
        page.set_viewport_size({"width": 390, "height": 844})
        page.click("#play-btn")
        page.wait_for_function(
            "c => !document.querySelector(`#hand .card[data-card='${c}']`)", arg=card)

        # The minute's hints used up (a hint asked out of turn counts too): the next tap is
        # refused, says why, and the button is the Pista again.
        for _ in range(LIMIT - len(asked)):
            assert page.request.get(api).status in (200, 409)
        page.wait_for_function(MY_TURN_JS, timeout=60_000)
        with page.expect_response(HINT) as answer:
            page.click("#hint-btn")
        assert answer.value.status == 429
        page.wait_for_selector("#toast:not([hidden])")
        assert "Demasiadas solicitudes" in page.inner_text("#toast")
        page.wait_for_function(
            "() => document.querySelector('#hint-btn').textContent.trim() === 'Pista'")
        assert _button(page) == ("Pista", None)
        assert page.locator("#hand .card.selected").count() == 0
    finally:
        ctx.close()
