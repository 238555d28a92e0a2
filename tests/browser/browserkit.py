"""Helpers for the browser tests: contexts, the home form, card clicks, layout checks."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page

from tests.kit import wait_until

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "screenshots"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


class Watch:
    """Collects console errors, page errors and CSP violations of a page."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def attach(self, page: Page) -> Page:
        page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        page.on("console", lambda m: self.errors.append(f"console: {m.text}")
                if m.type == "error" and "Failed to load resource" not in m.text else None)
        return page


def new_context(browser: Browser, width: int = 390, height: int = 844, *,
                reduced: bool = True, **kw: Any) -> BrowserContext:
    mobile = width < 700
    return browser.new_context(
        viewport={"width": width, "height": height}, device_scale_factor=1,
        has_touch=mobile, is_mobile=False, locale="es-ES",
        reduced_motion="reduce" if reduced else "no-preference", **kw,
    )


def open_table(page: Page, base: str, *, name: str = "Ana", target: int = 50,
               renege: str = "impedido", deck: str = "reino", level: str = "normal") -> str:
    """Use the home page's ABRIR MESA form; return the table URL."""
    page.goto(base + "/")
    page.check(f"input[name=target][value='{target}']", force=True)
    page.check(f"input[name=renege][value='{renege}']", force=True)
    page.check(f"input[name=deck][value='{deck}']", force=True)
    page.check(f"input[name=robot_level][value='{level}']", force=True)
    page.fill("#host-name", name)
    page.click("#open-btn")
    page.wait_for_url("**/t/**")
    page.wait_for_selector("body[data-status='lobby']")
    return page.url.split("?")[0]


def add_robot(page: Page) -> None:
    """The host's AGREGAR ROBOT on the first free seat; waits until that seat is taken."""
    empty = ".lobby-seat[data-kind='empty']"
    n = page.locator(empty).count()
    page.locator(f"{empty} button", has_text="AGREGAR ROBOT").first.click()
    page.wait_for_function("([sel, n]) => document.querySelectorAll(sel).length < n",
                           arg=[empty, n])


def add_robots_and_start(page: Page, count: int = 3) -> None:
    for _ in range(count):
        add_robot(page)
    page.click("#start-btn")
    page.wait_for_selector("body[data-status='playing']")


def shot(page: Page, name: str) -> Path:
    SHOTS.mkdir(exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def click_card(page: Page, selector: str, nth: int = 0) -> str:
    """Click a hand card on its visible left strip (the next card overlaps the rest); return it."""
    loc = page.locator(selector).nth(nth)
    card = str(loc.get_attribute("data-card"))
    loc.click(position={"x": 8, "y": 24})
    return card


MY_TURN_JS = "() => document.body.dataset.myTurn === '1' && document.body.dataset.animating === '0'"


def whose_turn(pages: Sequence[Page], timeout: float = 60) -> Page:
    """Wait until one of ``pages`` may play a card; return that page."""
    page: Page = wait_until(lambda: next((p for p in pages if p.evaluate(MY_TURN_JS)), None),
                            timeout)
    return page


NEXT_STEP_JS = """() => {
  const b = document.body.dataset;
  if (!b.phase || b.animating === '1') return false;
  if (document.querySelector('#rematch-btn')) return 'over';
  if (document.querySelector('#next-hand')) return 'count';
  if (b.myTurn === '1') return 'play';
  if (b.phase === 'passing' && document.querySelector('#pass-btn')) return 'pass';
  return false;
}"""


def next_step(page: Page, timeout: float = 30_000) -> str:
    """Wait until this seat has something to do: 'pass', 'play', 'count' or 'over'."""
    return str(page.wait_for_function(NEXT_STEP_JS, timeout=timeout).json_value())


def pass_three(page: Page) -> list[str]:
    chosen = [click_card(page, "#hand .card:not(.selected)") for _ in range(3)]
    page.click("#pass-btn")
    page.wait_for_function("() => !document.querySelector('#pass-btn')")
    return chosen


def play_one(page: Page, selector: str = "#hand .card.playable") -> str:
    card = click_card(page, selector)
    page.wait_for_selector(f"#hand .card.selected[data-card='{card}']")
    click_card(page, f"#hand .card[data-card='{card}']")
    page.wait_for_function(
        "c => !document.querySelector(`#hand .card[data-card='${c}']`)", arg=card)
    return card


LAYOUT_JS = """() => {
  const vw = innerWidth, vh = innerHeight, out = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > vw + 1) out.push(`horizontal overflow ${doc.scrollWidth} > ${vw}`);
  if (document.body.classList.contains('page-table') && doc.scrollHeight > vh + 1)
    out.push(`vertical overflow ${doc.scrollHeight} > ${vh}`);
  const inside = (el, name) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) { out.push(`${name} has no size`); return; }
    if (r.left < -1 || r.top < -1 || r.right > vw + 1 || r.bottom > vh + 1)
      out.push(`${name} outside the viewport: ` +
        [r.left, r.top, r.right, r.bottom].map(Math.round).join(','));
  };
  document.querySelectorAll('#hand .card').forEach((c, i) => inside(c, `hand card ${i}`));
  document.querySelectorAll('#actions .btn')
    .forEach((b) => inside(b, `button ${b.textContent.trim()}`));
  const overlay = document.querySelector('#overlay:not([hidden]) .overlay-card');
  if (overlay) inside(overlay, 'overlay');
  else if (document.body.dataset.status === 'playing')
    inside(document.querySelector('#trick'), 'trick');
  const lobby = document.querySelector('#lobby:not([hidden]) .lobby-card');
  if (lobby) {
    const r = lobby.getBoundingClientRect();
    if (r.left < -1 || r.right > vw + 1) out.push('lobby wider than the screen');
  }
  // The buttons above the hand must really be above it.
  const hand = document.querySelector('#hand .card');
  const btn = document.querySelector('#actions .btn');
  if (hand && btn && btn.getBoundingClientRect().bottom > hand.getBoundingClientRect().top + 1)
    out.push('buttons are not above the hand');
  return out;
}"""

SIZES = [(390, 844), (820, 1180), (1440, 900)]


def check_layout(page: Page, phase: str, sizes: list[tuple[int, int]] = SIZES) -> None:
    """Screenshot `phase` at each size and assert that nothing overflows and the key parts show."""
    original = page.viewport_size
    problems: list[str] = []
    for w, h in sizes:
        page.set_viewport_size({"width": w, "height": h})
        # the page lays the hand out again 60 ms after a resize and marks nothing when done
        page.wait_for_timeout(150)
        shot(page, f"{phase}-{w}x{h}")
        problems += [f"{phase} {w}x{h}: {p}" for p in page.evaluate(LAYOUT_JS)]
    if original:
        page.set_viewport_size(original)
    assert not problems, problems


def cards_in(page: Page, root: str) -> list[str]:
    """The card codes shown under `root`, in order."""
    return [str(c) for c in page.locator(f"{root} .card[data-card]").evaluate_all(
        "els => els.map(e => e.dataset.card)")]
