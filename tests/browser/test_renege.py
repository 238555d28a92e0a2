"""Renuncio permitido: a true accusation and a false one, each ruled as the rules say: the
reneger takes 26 (with the trick as evidence), or the false accuser takes 26."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.browserkit import (
    Watch,
    add_robots_and_start,
    click_card,
    new_context,
    open_table,
    pass_three,
    shot,
    sit,
    whose_turn,
)
from tests.kit import wait_until

pytestmark = pytest.mark.browser

MY_TURN = "() => document.body.dataset.myTurn === '1' && document.body.dataset.animating === '0'"


def _play(page: Page, selector: str) -> str:
    card = click_card(page, selector)
    page.wait_for_selector(f"#hand .card.selected[data-card='{card}']")
    click_card(page, f"#hand .card[data-card='{card}']")
    page.wait_for_function("c => !document.querySelector(`#hand .card[data-card='${c}']`)",
                           arg=card)
    return card


def _accuse(accuser: Page, seat: int) -> None:
    accuser.click("#accuse-btn")
    accuser.click(f".accuse-seat[data-seat='{seat}']")
    accuser.click("#accuse-confirm")
    accuser.wait_for_selector("#overlay.counting .ruling")


def _adds(page: Page) -> list[int]:
    return [int(x.strip("+")) for x in page.locator("#overlay td.add").all_inner_texts()]


def test_true_and_false_accusations(server: str, browser: Browser) -> None:
    watch = Watch()
    host = watch.attach(new_context(browser, 390, 844).new_page())
    guest = watch.attach(new_context(browser, 1280, 800).new_page())
    url = open_table(host, server, name="Ana", target=100, renege="permitido")
    assert sit(guest, url, "Beto") == 1
    add_robots_and_start(host, 2)
    for page in (host, guest):
        page.wait_for_selector("#pass-btn")
        pass_three(page)

    # Hand 1: Beto reneges as soon as he can; Ana accuses him: true, he takes 26.
    reneged = None
    for _ in range(26):  # Ana's and Beto's cards of one hand
        turn = whose_turn([guest, host])
        if turn is guest:
            if guest.locator("#hand .card.renege.playable").count():
                reneged = _play(guest, "#hand .card.renege.playable")
                break
            _play(guest, "#hand .card.playable")
        else:
            _play(host, "#hand .card.playable:not(.renege)")
    assert reneged is not None, "Beto never had a chance to renege"
    host.wait_for_selector("#accuse-btn")
    _accuse(host, 1)
    ruling = host.inner_text("#overlay .ruling")
    assert "Renuncio comprobado" in ruling and "Beto" in ruling, ruling
    evidence = host.locator("#overlay .mini-trick .card.evidence")
    assert evidence.count() == 1 and evidence.get_attribute("data-card") == reneged
    assert _adds(host) == [0, 26, 0, 0]
    guest.wait_for_selector("#overlay.counting .ruling.guilty")
    assert "jugaste" in guest.inner_text("#overlay .ruling")
    assert "Acusaste a Beto" in ruling
    shot(host, "renege-true-390x844")
    host.click("#next-hand")

    # Hand 2: Ana accuses Beto before he could renege: false, Ana takes 26.
    for page in (host, guest):
        page.wait_for_selector("#pass-btn", timeout=15_000)
        pass_three(page)
    def accuse_or_turn() -> Page | str | None:
        if host.locator("#accuse-btn").count():
            return "accuse"
        return next((p for p in (host, guest) if p.evaluate(MY_TURN)), None)

    for _ in range(26):
        step = wait_until(accuse_or_turn, 30)
        if step == "accuse":
            break
        if step is host:
            _play(host, "#hand .card.playable")
        else:
            _play(guest, "#hand .card.playable:not(.renege)")
    else:
        raise AssertionError("Ana never could accuse")
    _accuse(host, 1)
    ruling = host.inner_text("#overlay .ruling")
    assert "Acusación falsa" in ruling and "no hubo renuncio" in ruling, ruling
    assert host.locator("#overlay .mini-trick .card.evidence").count() == 0
    assert _adds(host) == [26, 0, 0, 0]
    guest.wait_for_selector("#overlay.counting .ruling.false")
    assert "Ana te acusó" in guest.inner_text("#overlay .ruling")
    shot(guest, "renege-false-1280x800")
    assert not watch.errors, watch.errors
