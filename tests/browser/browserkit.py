"""Helpers for the browser tests: contexts, the home form, card clicks, layout checks."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

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
    if level != "normal":  # the robots' level folds under «Más opciones»
        page.click("#more-options > summary")
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


def sit(page: Page, url: str, name: str) -> int:
    """Open a table's link and sit down with the form, in the first free seat; return it."""
    page.goto(url)
    page.fill("#sit-name", name)
    page.click(".sit-form button[type=submit]")
    page.wait_for_selector("body[data-seat]:not([data-seat=''])")
    return int(page.evaluate("() => document.body.dataset.seat"))


def choose_three(page: Page) -> list[str]:
    """Choose three cards to pass: each tap waits for the hand to settle and for its card to
    show as chosen (a tap during the deal's animation may land on a moving card)."""
    chosen = []
    for n in range(1, 4):
        page.wait_for_function("() => document.body.dataset.animating !== '1'")
        chosen.append(click_card(page, "#hand .card:not(.selected)"))
        page.wait_for_function(
            "n => document.querySelectorAll('#hand .card.selected').length === n", arg=n)
    return chosen


def pass_three(page: Page) -> list[str]:
    """Choose three cards (``choose_three``) and pass them."""
    chosen = choose_three(page)
    page.click("#pass-btn")
    try:
        page.wait_for_function("() => !document.querySelector('#pass-btn')")
    except PlaywrightTimeoutError:  # say what the page showed (a rare failure under load)
        raise AssertionError(f"the pass stayed unsent: {page_situation(page)}") from None
    return chosen


def page_situation(page: Page) -> dict[str, Any]:
    """What a stuck table page shows: its data attributes, the pass button, the toast."""
    return dict(page.evaluate("""() => {
      const b = document.querySelector('#pass-btn');
      const t = document.querySelector('#toast');
      return {body: {...document.body.dataset},
              passButton: b ? {disabled: b.disabled, text: b.textContent} : null,
              toast: t && !t.hidden ? t.textContent : null,
              selected: [...document.querySelectorAll('#hand .card.selected')]
                .map((c) => c.dataset.card)};
    }"""))


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


# ---------------------------------------------------------------- accessibility (axe-core)

PHONE, LANDSCAPE, DESKTOP = (390, 844), (844, 390), (1440, 900)
SERIOUS = ("serious", "critical")


def axe_problems(page: Page, where: str) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now (WCAG 2.x A and AA,
    best practices included), one line each; the report of every run is printed."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    found = results.response["violations"]
    out = []
    for v in found:
        if v.get("impact") not in SERIOUS:
            continue
        targets = [" ".join(map(str, n.get("target", []))) for n in v.get("nodes", [])][:4]
        out.append(f"{where}: {v['impact']} {v['id']} ({v['help']}) at {targets}")
    minor = sum(1 for v in found if v.get("impact") not in SERIOUS)
    print(f"axe {where}: {len(out)} serious/critical, {minor} minor or moderate")
    return out


def shots_and_axe(page: Page, phase: str, *, axe_sizes: tuple[tuple[int, int], ...] =
                  (PHONE, DESKTOP), shot_sizes: tuple[tuple[int, int], ...] =
                  (PHONE, LANDSCAPE, DESKTOP)) -> list[str]:
    """Photograph `phase` at each size and run axe at the axe sizes; restore the viewport."""
    original = page.viewport_size
    problems: list[str] = []
    for w, h in dict.fromkeys(shot_sizes + axe_sizes):
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(150)
        if (w, h) in shot_sizes:
            shot(page, f"{phase}-{w}x{h}")
        if (w, h) in axe_sizes:
            problems += axe_problems(page, f"{phase} {w}x{h}")
    if original:
        page.set_viewport_size(original)
        page.wait_for_timeout(100)
    return problems


# ---------------------------------------------------------------- bytes on the wire

class Wire:
    """Bytes that crossed the network for a page (headers and bodies, compressed as sent),
    from Chromium's own count; a response taken from the browser's cache counts 0."""

    def __init__(self, page: Page, skip: tuple[str, ...] = ("/poll", "/stream")) -> None:
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.send("Network.enable")
        self.skip = skip
        self.urls: dict[str, str] = {}
        self.pending: set[str] = set()
        self.bytes: dict[str, int] = {}
        self.cdp.on("Network.requestWillBeSent", self._sent)
        self.cdp.on("Network.loadingFinished", self._done)
        self.cdp.on("Network.loadingFailed", lambda e: self.pending.discard(e["requestId"]))

    def _sent(self, e: dict[str, Any]) -> None:
        url = e["request"]["url"]
        if any(s in url for s in self.skip) or not url.startswith("http"):
            return
        self.urls[e["requestId"]] = url
        self.pending.add(e["requestId"])

    def _done(self, e: dict[str, Any]) -> None:
        rid = e["requestId"]
        if rid in self.urls:
            self.bytes[rid] = self.bytes.get(rid, 0) + int(e["encodedDataLength"])
            self.pending.discard(rid)

    def reset(self) -> None:
        self.urls.clear()
        self.pending.clear()
        self.bytes.clear()

    def settle(self, page: Page, quiet_ms: int = 500, limit_ms: int = 15_000) -> None:
        """Wait until no counted request has been in flight for `quiet_ms`."""
        waited = quiet = 0
        while quiet < quiet_ms:
            assert waited < limit_ms, f"requests still loading: {self.pending}"
            page.wait_for_timeout(50)
            waited += 50
            quiet = 0 if self.pending else quiet + 50

    @property
    def total(self) -> int:
        return sum(self.bytes.values())

    @property
    def requests(self) -> int:
        return len(self.urls)

    def table(self) -> str:
        rows = sorted(((self.bytes.get(r, 0), u) for r, u in self.urls.items()), reverse=True)
        return "\n".join(f"  {b:>8} {u}" for b, u in rows)
