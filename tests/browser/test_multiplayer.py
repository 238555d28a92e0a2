"""Four browser contexts and a fifth that watches: the host opens the table, three open the link
and sit, they pass and play tricks, chat works, and the spectator never sees a hidden card, neither
on the page nor in any byte the server sends it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, Response

from tests.browser.browserkit import (
    Watch,
    cards_in,
    click_card,
    new_context,
    open_table,
    play_one,
    shot,
    whose_turn,
)
from tests.kit import wait_until

pytestmark = pytest.mark.browser

CARD_RE = re.compile(r'"([2-9TJQKA][CDHS])"')


def test_four_players_and_a_spectator(server: str, browser: Browser) -> None:
    sizes = [(390, 844), (1280, 800), (820, 1180), (1440, 900), (390, 844)]
    ctxs = [new_context(browser, w, h) for w, h in sizes]
    watch = Watch()
    pages = [watch.attach(c.new_page()) for c in ctxs]
    host, spectator = pages[0], pages[4]

    url = open_table(host, server, name="Ana", target=100)
    names = ["Ana", "Beto", "Caro", "Dani"]
    for page, name in zip(pages[1:4], names[1:], strict=True):
        page.goto(url)
        page.wait_for_selector("#sit-name")
        page.fill("#sit-name", name)
        page.click(".sit-form button[type=submit]")
        page.wait_for_selector("body[data-seat]:not([data-seat=''])")
    host.wait_for_function("() => !document.querySelector(\".lobby-seat[data-kind='empty']\")")
    assert host.locator(".lobby-seat .lobby-name").all_inner_texts()[1].startswith("Beto")

    # The fifth visitor watches: every byte the server sends it is recorded.
    bodies: list[str] = []

    def record(r: Response) -> None:
        if r.request.resource_type in ("fetch", "xhr", "document"):
            try:
                bodies.append(r.text())
            except Exception:  # noqa: BLE001 - a long-poll cut by the page's end has no body
                pass

    spectator.on("response", record)
    # The table's changes come on a server-sent event stream: its events are recorded as well.
    spectator.add_init_script(STREAM_RECORDER)
    spectator.goto(url)
    spectator.wait_for_selector(".lobby .watching")
    assert "estás mirando" in spectator.inner_text(".lobby .watching")
    assert spectator.locator("#sit-name").count() == 0

    host.click("#start-btn")
    for page in pages[:4]:
        page.wait_for_selector("#pass-btn")
    spectator.wait_for_selector("body[data-phase='passing']")

    for page in pages[:4]:
        for i in range(3):
            click_card(page, "#hand .card", i)
        assert page.locator("#hand .card.selected").count() == 3
        page.click("#pass-btn")
    for page in pages[:4]:
        page.wait_for_selector("body[data-phase='playing']", timeout=15_000)
        assert page.locator("#hand .card.received").count() == 3
    shot(spectator, "spectator-playing-390x844")

    # Two full tricks, each player clicking its own cards.
    for _ in range(8):
        play_one(whose_turn(pages[:4]))
    for page in pages:
        page.wait_for_function("() => document.querySelector('#pile:not([hidden]) .count')"
                               " && document.querySelector('#pile .count').textContent === '2'")
    shot(pages[2], "four-players-820x1180")

    # Chat: Beto writes from a wide screen; the phone shows an unread count; the spectator reads.
    pages[1].fill("#chat-input", "¡Hola, mesa!")
    pages[1].press("#chat-input", "Enter")
    for page in pages:
        page.wait_for_selector("#chat-log li:has-text('¡Hola, mesa!')", state="attached")
    host.wait_for_selector("#chat-unread:not([hidden])")
    assert host.inner_text("#chat-unread") == "1"
    host.click("#chat-btn")
    host.wait_for_selector("#chat-unread", state="hidden")
    assert spectator.locator("#chat-input").is_disabled()

    # The spectator never saw a hidden card: only cards already on the table, ever.
    def chat_recorded() -> bool:
        spectator.evaluate("0")  # a call into Playwright delivers the page's pending events
        return any("Hola, mesa" in b for b in bodies + spectator.evaluate("window.__streamed"))

    wait_until(chat_recorded, 30)  # up to the last response the spectator got
    public = set(cards_in(host, "#trick")) | set(_played(host))
    seen_dom = set(cards_in(spectator, "body"))
    assert spectator.locator("#hand .card").count() == 0
    assert seen_dom <= public, seen_dom - public
    html = spectator.content()
    assert set(CARD_RE.findall(html)) <= public
    streamed = spectator.evaluate("window.__streamed")
    assert streamed, "the spectator's page followed the table on its stream"
    # after the stream's first whole state, only what changed (tables/patches.py)
    assert spectator.evaluate("window.__patches") > 0
    bodies += streamed
    leaked = set()
    for b in bodies:
        leaked |= set(CARD_RE.findall(b)) - public
    assert bodies and not leaked, leaked
    # The players' own pages do hold their hands (the check above could fail).
    assert len(cards_in(pages[1], "#hand")) == 11
    assert not watch.errors, watch.errors
    for c in ctxs:
        c.close()


#: Wraps the page's EventSource so that every ``state`` and ``patch`` event's data is kept in
#: window.__streamed (and the patches counted in window.__patches).
STREAM_RECORDER = """(() => {
  const Native = window.EventSource;
  window.__streamed = [];
  window.__patches = 0;
  window.EventSource = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('state', (ev) => window.__streamed.push(ev.data));
      this.addEventListener('patch', (ev) => {
        window.__patches += 1;
        window.__streamed.push(ev.data);
      });
    }
  };
})()"""


def _played(page: Page) -> list[str]:
    """Every card played this hand, read from the server's state as this player sees it."""
    state = page.evaluate("async () => (await (await fetch(document.body.dataset.api)).json())")
    view = state["state"]["view"]
    cards = [c["card"] for t in view["tricks"] for c in t["cards"]]
    return cards + [c["card"] for c in view["trick"]]
