"""A host with three robots plays a whole game to 50 by clicking cards, through the Queen's end
scene and a rematch at the same table; every phase is photographed at three sizes and checked."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser

from tests.browser.browserkit import (
    Watch,
    add_robots_and_start,
    cards_in,
    check_layout,
    click_card,
    new_context,
    next_step,
    open_table,
    pass_three,
    play_one,
    shot,
)

pytestmark = pytest.mark.browser


def test_host_and_three_robots_play_to_50_then_rematch(server: str, browser: Browser) -> None:
    ctx = new_context(browser, 390, 844)
    page = Watch().attach(ctx.new_page())
    watch = Watch()
    watch.attach(page)

    page.goto(server + "/")
    check_layout(page, "home")
    assert page.locator(".choice.deck").count() == 4          # a preview of each deck
    assert page.locator(".choice.deck .card").count() == 16

    url = open_table(page, server, name="Ana", target=50, level="facil")
    assert re.search(r"/t/[\w-]{16,}$", url)
    assert page.input_value("#table-link").endswith(url.split("/t/")[1])
    check_layout(page, "lobby-host")
    add_robots_and_start(page)
    labels = page.locator(".seat .seat-name").all_inner_texts()
    assert sum("ROBOT" in t for t in labels) == 3

    seen: set[str] = set()
    hands = 0
    # to 50 points: 26 points a hand reach 4 × 49 within 8 hands of 15 decisions each
    for _ in range(8 * 15 + 1):
        step = next_step(page)
        if step == "pass":
            if "pass" not in seen:
                seen.add("pass")
                label = " ".join(str(page.locator("#pass-btn").text_content()).split())
                assert label == "← Pasar a la izquierda"
                assert page.locator(".pass-arrow[data-dir='left']").is_visible()
                check_layout(page, "pass")
            passed = pass_three(page)
            if "received" not in seen:
                seen.add("received")
                page.wait_for_selector("body[data-phase='playing']")
                page.wait_for_selector("#hand .card.received")
                assert page.locator("#hand .card.received").count() == 3
                assert not set(passed) & set(cards_in(page, "#hand"))
        elif step == "play":
            if "play" not in seen and page.locator("#trick .card").count() > 0:
                seen.add("play")
                dim = page.locator("#hand .card.dimmed")
                gold = page.locator("#hand .card.playable")
                assert gold.count() >= 1
                if dim.count():
                    # A card that cannot be played says why, and nothing changes.
                    before = page.evaluate("document.body.dataset.version")
                    dim.first.click(position={"x": 8, "y": 24})
                    page.wait_for_selector("#toast:not([hidden])")
                    why = page.inner_text("#toast")
                    assert re.match(r"Debes seguir|No se juegan|Los corazones", why), why
                    assert page.evaluate("document.body.dataset.version") == before
                check_layout(page, "play")
                # Reload: the table is exactly where it was.
                hand_before = sorted(cards_in(page, "#hand"))
                trick_before = cards_in(page, "#trick")
                page.reload()
                page.wait_for_selector("body[data-my-turn='1']")
                assert sorted(cards_in(page, "#hand")) == hand_before
                assert cards_in(page, "#trick") == trick_before
            if "4th" not in seen and page.evaluate("document.body.dataset.hand") == "4":
                seen.add("4th")
                assert "esta mano no se pasa" in page.inner_text("#table-meta")
                assert page.locator("#pass-btn").count() == 0
            if "jugar" not in seen:
                # Seed 000's way: choose, then the «Jugar» button right above the hand.
                seen.add("jugar")
                card = click_card(page, "#hand .card.playable")
                page.wait_for_selector("#play-btn")
                assert page.inner_text("#play-btn").startswith("Jugar ")
                page.click("#play-btn")
                page.wait_for_function(
                    "c => !document.querySelector(`#hand .card[data-card='${c}']`)", arg=card)
            else:
                play_one(page)
        elif step == "count":
            hands += 1
            box = page.locator("#overlay .overlay-card")
            assert "CONTANDO LOS PUNTOS" in box.inner_text()
            assert box.locator("tbody tr").count() == 4
            adds = [int(x.strip("+")) for x in box.locator("td.add").all_inner_texts()]
            assert sum(adds) in (26, 78)                         # normal hand or a moon
            if "count" not in seen:
                seen.add("count")
                check_layout(page, "counting")
            page.click("#next-hand")
            page.wait_for_function("() => !document.querySelector('#next-hand')")
        else:
            break
    else:
        raise AssertionError(f"the game did not end within 8 hands ({hands} counted)")

    # The end: the Queen of Hearts speaks, the ranking, Victoria or Derrota, cornetita.
    over = page.locator("#overlay.game-over")
    assert over.locator(".queen-portrait svg").count() == 1
    speech = over.locator(".speech").inner_text()
    assert "te pasaste" in speech or "pasaron" in speech
    assert over.locator(".verdict").inner_text() in ("Victoria", "Derrota")
    assert over.locator(".ranking li").count() == 4
    totals = [int(x.split()[0]) for x in over.locator(".rtotal").all_inner_texts()]
    assert max(totals) >= 50 and totals == sorted(totals)
    assert "cornetita" in (page.evaluate("document.body.dataset.sounds") or "")
    if over.locator(".verdict").inner_text() == "Victoria":
        assert over.locator(".btn-taunt").count() >= 1
    check_layout(page, "game-over")
    shot(page, "game-over-390-final")

    # ¡REVANCHA!: robots always accept; the next game starts at the same table.
    page.click("#rematch-btn")
    page.wait_for_function(
        "() => document.body.dataset.game === '2' && document.body.dataset.status === 'playing'",
        timeout=20_000)
    page.wait_for_selector("#hand .card")
    assert page.locator("#hand .card").count() == 13
    assert page.url.split("?")[0] == url
    assert not watch.errors, watch.errors
    ctx.close()
