"""Tap targets on a touch phone: a tap on the visible part of any card of a full 13-card hand
selects that card (at 390 and 360 wide, portrait), and every button and select the page shows is
at least 44 px tall (home, lobby, the pass, the menu; portrait and landscape)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.browserkit import Watch, add_robot, new_context, open_table

pytestmark = pytest.mark.browser

SMALL_TARGETS_JS = """() => {
  const out = [];
  for (const el of document.querySelectorAll('button, select, summary, a.btn, input[type=text]')) {
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    if (!r.width || !r.height || cs.visibility === 'hidden' || el.closest('[hidden]')) continue;
    if (el.closest('dialog:not([open])')) continue;
    if (el.classList.contains('card')) continue;  // hand cards: checked strip by strip
    if (r.height < 43.5) out.push(`${el.tagName.toLowerCase()}#${el.id}.${el.className}` +
      ` «${(el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 30)}»` +
      ` ${Math.round(r.width)}x${Math.round(r.height)}`);
  }
  return out;
}"""

STRIPS_JS = """() => {
  const cards = [...document.querySelectorAll('#hand .card')];
  return cards.map((c, i) => {
    const r = c.getBoundingClientRect();
    const next = cards[i + 1] ? cards[i + 1].getBoundingClientRect().left : r.right;
    return { card: c.dataset.card, left: r.left, right: Math.min(next, r.right), top: r.top,
             bottom: r.bottom };
  });
}"""


def _small(page: Page, where: str) -> list[str]:
    return [f"{where}: {p}" for p in page.evaluate(SMALL_TARGETS_JS)]


def _tap_every_card(page: Page, width: int) -> list[str]:
    problems = []
    strips = page.evaluate(STRIPS_JS)
    assert len(strips) == 13
    for s in strips:
        width_px = s["right"] - s["left"]
        # the middle of the strip, and near each edge of it
        for x in (s["left"] + width_px / 2, s["left"] + 3, s["right"] - 3):
            y = s["top"] + (s["bottom"] - s["top"]) * 0.6
            page.touchscreen.tap(x, y)
            page.wait_for_function("c => document.querySelector(`#hand .card[data-card='${c}']`)"
                                   ".classList.contains('selected')", arg=s["card"], timeout=3000)
            chosen = page.locator("#hand .card.selected").evaluate_all(
                "els => els.map(e => e.dataset.card)")
            if chosen != [s["card"]]:
                problems.append(f"{width}px: tap at {x:.0f} on {s['card']} chose {chosen}")
            page.touchscreen.tap(x, y)   # in the pass a second tap lets it go again
            page.wait_for_function("() => !document.querySelector('#hand .card.selected')",
                                   timeout=3000)
    return problems


def test_tap_targets_on_a_phone(server: str, browser: Browser) -> None:
    watch = Watch()
    ctx = new_context(browser, 390, 844)
    page = watch.attach(ctx.new_page())
    problems: list[str] = []

    page.goto(server + "/")
    page.check("input[name=pace][value='turnos']", force=True)
    page.wait_for_selector("#turn-hours", state="visible")
    page.click("#more-options > summary")
    problems += _small(page, "home")
    url = open_table(page, server, name="Ana", target=100)
    problems += _small(page, "lobby")
    for _ in range(3):
        add_robot(page)
    page.click("#start-btn")
    page.wait_for_selector("#pass-btn")
    page.wait_for_function("() => document.querySelectorAll('#hand .card').length === 13")
    problems += _small(page, "pass")
    page.click("#menu-btn")
    page.wait_for_selector("#menu[open]")
    problems += _small(page, "menu")
    # a touch screen has no keys: the menu shows no key badges
    assert page.locator("#menu .menu-item kbd").evaluate_all(
        "els => els.filter(e => e.getBoundingClientRect().width > 0).length") == 0
    page.keyboard.press("Escape")
    page.wait_for_selector("#menu", state="hidden")

    for width in (390, 360):
        page.set_viewport_size({"width": width, "height": 844 if width == 390 else 780})
        page.wait_for_timeout(200)
        problems += _tap_every_card(page, width)

    page.set_viewport_size({"width": 844, "height": 390})
    page.wait_for_timeout(200)
    problems += _small(page, "pass 844x390")
    assert page.url.split("?")[0] == url
    assert not problems, problems
    assert not watch.errors, watch.errors
    ctx.close()
