"""Every phase through axe-core (serious and critical violations, contrast included) at 390x844
and 1440x900, photographed at 390x844, 844x390 and 1440x900: home, lobby, the pass, play,
counting, an accusation's ruling, the end scene (winner and loser) and the spectator's view.

A permitido table to 50: Ana (phone) and Beto play with two robots, a spectator watches. Beto
accuses Ana falsely in two hands, so he takes 26 twice and the game ends with Ana, Carmen and
Tito tied at 0. Ana taunts; everyone takes the rematch; in game 2 the end scene shows no taunt
from game 1."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.browserkit import (
    MY_TURN_JS,
    Watch,
    add_robot,
    new_context,
    open_table,
    pass_three,
    play_one,
    shots_and_axe,
)
from tests.kit import wait_until

pytestmark = pytest.mark.browser

IDLE = "() => document.body.dataset.animating === '0'"


def _until_accusable(ana: Page, beto: Page) -> None:
    """ACUSAR shows once a card of the hand is on the table: when a person holds 2♣, that person
    leads it first (the deal decides; a robot leads at once)."""
    def next_move() -> Page | str | None:
        if beto.locator("#accuse-btn").count():
            return "accusable"
        return next((p for p in (ana, beto) if p.evaluate(MY_TURN_JS)), None)

    for _ in range(4):
        move = wait_until(next_move, 30)
        if move == "accusable":
            return
        assert isinstance(move, Page)
        play_one(move)
    raise AssertionError("ACUSAR never showed")


def _accuse_falsely(beto: Page, ana_seat: int = 0) -> None:
    beto.wait_for_selector("#accuse-btn")
    beto.click("#accuse-btn")
    beto.click(f".accuse-seat[data-seat='{ana_seat}']")
    beto.click("#accuse-confirm")
    beto.wait_for_selector("#overlay.counting .ruling")


def _pass_all(*pages: Page) -> None:
    for p in pages:
        p.wait_for_selector("#pass-btn")
        pass_three(p)
    for p in pages:
        p.wait_for_selector("body[data-phase='playing']")


def _hand_with_false_accusation(ana: Page, beto: Page) -> None:
    """One hand: both pass (when the hand has a pass), Beto accuses Ana, Ana closes the count."""
    ana.wait_for_function("() => ['passing', 'playing'].includes(document.body.dataset.phase)")
    if ana.locator("#pass-btn").count() or ana.evaluate(
            "document.body.dataset.phase") == "passing":
        _pass_all(ana, beto)
    _until_accusable(ana, beto)
    _accuse_falsely(beto)
    ana.wait_for_selector("#next-hand")


def test_every_phase_with_axe(server: str, browser: Browser) -> None:
    watch = Watch()
    problems: list[str] = []
    ana_ctx = new_context(browser, 390, 844)
    ana = watch.attach(ana_ctx.new_page())

    ana.goto(server + "/")
    problems += shots_and_axe(ana, "a11y-home")
    url = open_table(ana, server, name="Ana", target=50, renege="permitido")
    problems += shots_and_axe(ana, "a11y-lobby")

    beto_ctx = new_context(browser, 1440, 900)
    beto = watch.attach(beto_ctx.new_page())
    beto.goto(url)
    beto.wait_for_selector("#sit-deck .deck-opt")
    # a guest chooses a deck as they sit
    beto.click("#sit-deck .deck-opt[data-deck='noche']")
    beto.fill("#sit-name", "Beto")
    beto.click(".sit-form button[type=submit]")
    beto.wait_for_selector("body[data-seat='1']")
    beto.wait_for_selector("#lobby .lobby-seat")
    for _ in range(2):
        add_robot(ana)
    ana.click("#start-btn")
    ana.wait_for_selector("#pass-btn")
    beto.wait_for_selector("#hand .card[data-deck='noche']")

    spec_ctx = new_context(browser, 390, 844)
    spec = watch.attach(spec_ctx.new_page())
    spec.goto(url)
    spec.wait_for_selector("body[data-phase='passing']")
    # the top line keeps every bit whole: «estás mirando» and the pass direction
    meta = spec.locator("#table-meta span").all_inner_texts()
    assert "estás mirando" in meta and any(m.startswith("pase ") for m in meta), meta
    problems += shots_and_axe(spec, "a11y-spectator-pass")
    spec.click("#chat-btn")
    spec.wait_for_selector(".app.chat-open")
    assert spec.locator("#chat-form").is_hidden() and spec.locator("#chat-note").is_visible()
    spec.click("#chat-close")

    # The pass, with the permitido legend (first permitido table on this device)
    assert ana.locator("#legend").is_visible()
    assert "ACUSAR" in ana.inner_text("#legend")
    problems += shots_and_axe(ana, "a11y-pass")
    _pass_all(ana, beto)

    # Play: wait for Ana's turn; a card that reneges shows the whole warning
    started = time.monotonic()
    while not ana.evaluate("document.body.dataset.myTurn === '1'"):
        assert time.monotonic() - started < 60, "Ana's turn never came"
        if beto.evaluate(f"({IDLE})() && document.body.dataset.myTurn === '1'"):
            play_one(beto)
        ana.wait_for_timeout(100)
    ana.wait_for_function(IDLE)
    renege = ana.locator("#hand .card.renege.playable")
    if renege.count():
        renege.first.click(position={"x": 8, "y": 24})
        line = ana.locator("#hint-line")
        assert "Tócala otra vez para jugarla." in line.inner_text()
        for w, h in ((390, 844), (844, 390)):
            ana.set_viewport_size({"width": w, "height": h})
            ana.wait_for_timeout(150)
            fits = line.evaluate("e => e.scrollWidth <= e.clientWidth + 1 && "
                                 "e.getBoundingClientRect().height > 0")
            assert fits, f"the renege warning is cut at {w}x{h}"
        ana.set_viewport_size({"width": 390, "height": 844})
    problems += shots_and_axe(ana, "a11y-play")
    # ACUSAR shows to Ana too once a card of the hand is down: when she holds the 2♣ her
    # first turn is the hand's lead, with nothing down yet, and she plays it first.
    if not ana.locator("#accuse-btn").count():
        assert ana.evaluate("document.querySelector('#trick').dataset.count") == "0"
        play_one(ana)
    ana.wait_for_selector("#accuse-btn")
    assert ana.locator("#accuse-btn").is_visible()

    # Beto accuses Ana falsely: the ruling in the counting box
    _accuse_falsely(beto)
    ana.wait_for_selector("#overlay.counting .ruling.false")
    problems += shots_and_axe(ana, "a11y-ruling")
    spec.wait_for_selector("#overlay.counting .watching")
    color = spec.locator("#overlay .watching").evaluate("e => getComputedStyle(e).color")
    assert color != "rgb(255, 243, 196)", "the spectator's note is pale on the cream card"
    problems += shots_and_axe(spec, "a11y-spectator-counting")
    ana.click("#next-hand")
    ana.wait_for_function("() => !document.querySelector('#next-hand')")

    # Hand 2: counting without a ruling is photographed once, then the game ends.
    _hand_with_false_accusation(ana, beto)
    problems += shots_and_axe(ana, "a11y-counting")
    started = time.monotonic()
    while not ana.locator("#rematch-btn").count():
        assert time.monotonic() - started < 60, "the game did not end"
        if ana.locator("#next-hand").count():
            ana.click("#next-hand")
            ana.wait_for_function("() => !document.querySelector('#next-hand') || "
                                  "document.querySelector('#rematch-btn')")
        ana.wait_for_timeout(100)

    # The end: Ana wins (tied at 0 with the robots), Beto lost
    ana.wait_for_selector("#overlay.game-over .verdict.win")
    speech = ana.inner_text("#overlay .speech")
    assert "Empataron" in speech and "ustedes tres" in speech
    assert "Beto: te pasaste de 50." in speech
    # ¡REVANCHA! comes before the taunts and is on screen
    order = ana.evaluate("""() => {
      const r = document.querySelector('#rematch-btn'), t = document.querySelector('.btn-taunt');
      return !!(r.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING);
    }""")
    assert order, "the taunts come before ¡REVANCHA!"
    box = ana.locator("#rematch-btn").bounding_box()
    assert box and box["y"] + box["height"] <= 844, box
    problems += shots_and_axe(ana, "a11y-end-winner")
    beto.wait_for_selector("#overlay.game-over .verdict.lose")
    problems += shots_and_axe(beto, "a11y-end-loser")
    spec.wait_for_selector("#overlay.game-over")
    problems += shots_and_axe(spec, "a11y-spectator-end")

    ana.locator(".btn-taunt").first.click()
    beto.wait_for_selector("#overlay .taunt-log li")
    for p in (ana, beto):
        p.click("#rematch-btn")
    ana.wait_for_function("() => document.body.dataset.game === '2'", timeout=20_000)

    # Game 2 ends the same way, nobody taunts: the end scene shows no taunt of game 1
    for _ in range(2):
        _hand_with_false_accusation(ana, beto)
        ana.click("#next-hand")
    ana.wait_for_selector("#overlay.game-over #rematch-btn", timeout=30_000)
    beto.wait_for_selector("#overlay.game-over")
    spec.wait_for_selector("#overlay.game-over")
    for p in (ana, beto, spec):
        p.wait_for_function("() => document.body.dataset.game === '2'")
        assert p.locator("#overlay .taunt-log").count() == 0

    assert not problems, "\n".join(problems)
    assert not watch.errors, watch.errors
    for c in (ana_ctx, beto_ctx, spec_ctx):
        c.close()
