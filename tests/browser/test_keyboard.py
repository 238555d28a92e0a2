"""The keyboard alone: ← → move between cards, Enter marks (pass) and chooses then plays; Tab
reaches the pass button; P opens the menu and Esc closes it; M toggles the sound. Then the same
with a gamepad: d-pad, A, Start, Back."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.browserkit import Watch, add_robots_and_start, cards_in, new_context, open_table

pytestmark = pytest.mark.browser


def _focused(page: Page) -> str:
    return str(page.evaluate(
        "() => document.activeElement.dataset.card || document.activeElement.id"))


def test_a_trick_with_the_keyboard_alone(server: str, browser: Browser) -> None:
    watch = Watch()
    page = watch.attach(new_context(browser, 1440, 900).new_page())
    open_table(page, server, name="Teclado", target=50, level="facil")
    add_robots_and_start(page)
    page.wait_for_selector("#pass-btn")

    # Pass: → focuses the hand, Enter marks, → moves; three marked cards rise.
    page.keyboard.press("ArrowRight")
    marked = []
    for _ in range(3):
        marked.append(_focused(page))
        page.keyboard.press("Enter")
        page.keyboard.press("ArrowRight")
    selected = page.locator("#hand .card.selected").evaluate_all(
        "els => els.map(e => e.dataset.card)")
    assert sorted(selected) == sorted(marked)
    assert page.locator("#hand .card.selected").count() == 3
    for _ in range(8):
        if _focused(page) == "pass-btn":
            break
        page.keyboard.press("Shift+Tab")
    assert _focused(page) == "pass-btn"
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-phase='playing']", timeout=15_000)

    # Play: wait for the turn, walk to a playable card with the arrows, Enter twice.
    page.wait_for_selector("body[data-my-turn='1'][data-animating='0']", timeout=20_000)
    page.keyboard.press("Home")
    assert _focused(page) == cards_in(page, "#hand")[0]
    for _ in range(14):
        if page.evaluate("() => document.activeElement.classList.contains('playable')"):
            break
        page.keyboard.press("ArrowRight")
    card = _focused(page)
    assert page.locator(f"#hand .card.playable[data-card='{card}']").count() == 1
    page.keyboard.press("Enter")
    assert page.locator(f"#hand .card.selected[data-card='{card}']").count() == 1
    page.keyboard.press("Enter")
    page.wait_for_function(
        "c => !document.querySelector(`#hand .card[data-card='${c}']`)", arg=card)
    # The trick closes (robots play theirs) and goes to the pile.
    page.wait_for_selector("#pile:not([hidden])", timeout=20_000)
    assert page.inner_text("#pile .count") == "1"
    assert len(cards_in(page, "#hand")) == 12

    # Menu and sound from the keyboard; the table does not stop.
    page.keyboard.press("p")
    page.wait_for_selector("#menu[open]")
    on = page.get_attribute("#menu-sound", "aria-pressed")
    page.keyboard.press("Escape")
    page.wait_for_selector("#menu:not([open])", state="attached")
    page.keyboard.press("m")
    page.keyboard.press("P")
    page.wait_for_selector("#menu[open]")
    assert page.get_attribute("#menu-sound", "aria-pressed") != on
    page.keyboard.press("Escape")
    page.wait_for_selector("#menu:not([open])", state="attached")

    # A gamepad (the browser's Gamepad API; a pad is plugged in as the page sees it): the d-pad
    # moves, A chooses and plays, Start opens the menu, Back toggles the sound.
    page.evaluate(PAD_JS)
    page.wait_for_selector("body[data-my-turn='1'][data-animating='0']", timeout=20_000)
    for _ in range(13):
        _pad(page, 14)
    for _ in range(14):
        if page.evaluate("() => document.activeElement.classList.contains('playable')"):
            break
        _pad(page, 15)
    card = _focused(page)
    assert page.locator(f"#hand .card.playable[data-card='{card}']").count() == 1
    _pad(page, 0)
    assert page.locator(f"#hand .card.selected[data-card='{card}']").count() == 1
    _pad(page, 0)
    page.wait_for_function(
        "c => !document.querySelector(`#hand .card[data-card='${c}']`)", arg=card)
    assert len(cards_in(page, "#hand")) == 11
    _pad(page, 9)
    page.wait_for_selector("#menu[open]")
    sound = page.get_attribute("#menu-sound", "aria-pressed")
    _pad(page, 8)
    page.wait_for_function(
        "s => document.querySelector('#menu-sound').getAttribute('aria-pressed') !== s", arg=sound)
    assert not watch.errors, watch.errors


PAD_JS = """() => {
  const pad = { id: 'test pad', index: 0, connected: true, mapping: 'standard', axes: [0, 0, 0, 0],
                buttons: Array.from({ length: 17 }, () => ({ pressed: false, value: 0 })) };
  window.__pad = pad;
  window.__polls = 0;
  Object.defineProperty(navigator, 'getGamepads', {
    value: () => { window.__polls += 1; return [pad]; }, configurable: true });
  const ev = new Event('gamepadconnected');
  ev.gamepad = pad;
  window.dispatchEvent(ev);
}"""


def _pad(page: Page, button: int) -> None:
    """Press and release one button of the pad, each held until the page has read the pad twice."""
    for pressed in (True, False):
        n = page.evaluate(
            "([b, p]) => { window.__pad.buttons[b] = { pressed: p, value: p ? 1 : 0 };"
            " return window.__polls; }", [button, pressed])
        page.wait_for_function("n => window.__polls >= n + 2", arg=n)
