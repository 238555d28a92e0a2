"""A page whose streams never get through (a proxy that drops them) follows its table on the
long-poll instead (static/js/updates.js): it still hears every change."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser

from tests.browser.browserkit import new_context, open_table
from tests.kit import HttpPlayer, wait_until

pytestmark = pytest.mark.browser


def test_a_page_whose_streams_are_cut_falls_back_to_the_long_poll(server: str,
                                                                   browser: Browser) -> None:
    host_ctx, guest_ctx = new_context(browser, 390, 844), new_context(browser, 844, 390)
    try:
        url = open_table(host_ctx.new_page(), server, name="Ana")
        tid = url.rstrip("/").split("/t/")[1].split("?")[0]
        guest = guest_ctx.new_page()
        streams: list[str] = []
        polls: list[str] = []

        def cut(route: Any) -> None:
            streams.append(route.request.url)
            route.abort()

        guest.route("**/stream?**", cut)
        guest.on("request", lambda r: polls.append(r.url) if "/poll?" in r.url else None)
        guest.goto(url)
        guest.wait_for_selector("#sit-name")
        guest.fill("#sit-name", "Beto")
        guest.click(".sit-form button[type=submit]")
        guest.wait_for_selector("body[data-seat]:not([data-seat=''])")
        def long_polling() -> bool:
            guest.wait_for_timeout(100)  # Playwright delivers the page's events meanwhile
            return bool(polls)

        wait_until(long_polling, 60, 0.1)  # the streams failed: the page long-polls now
        assert len(streams) >= 3
        # someone sits down elsewhere: the guest's page hears it on the long-poll
        assert HttpPlayer(server).act(tid, "sit", name="Caro").status_code == 200
        guest.wait_for_function(
            "() => [...document.querySelectorAll('.lobby-seat .lobby-name')]"
            ".some((e) => e.textContent.includes('Caro'))", timeout=30000)
    finally:
        host_ctx.close()
        guest_ctx.close()
