"""A page's stream leaves out the changes of the page's own actions (their answers bring them,
static/js/updates.js and tables/stream_routes.py). When an action's answer is lost on its way
back (the server applied it), the page reads its table again: it never stays behind its own
change. Its stream then goes on from the state it sent last."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser

from tests.browser.browserkit import new_context, open_table
from tests.kit import HttpPlayer

pytestmark = pytest.mark.browser


def test_an_action_whose_answer_is_lost_still_shows_on_its_page(server: str,
                                                                 browser: Browser) -> None:
    ctx = new_context(browser, 390, 844)
    try:
        host = ctx.new_page()
        url = open_table(host, server, name="Ana")
        tid = url.rstrip("/").split("/t/")[1].split("?")[0]
        host.wait_for_selector("body[data-online='1']")
        sent: list[dict[str, Any]] = []

        def lose_the_answer(route: Any) -> None:
            """The request reaches the server; its answer never reaches the page."""
            response = route.fetch()
            sent.append({"status": response.status,
                         "page": route.request.headers.get("x-page-id")})
            route.abort()

        host.route("**/actions", lose_the_answer)
        empty = host.locator(".lobby-seat[data-kind='empty'] button", has_text="AGREGAR ROBOT")
        empty.first.click()
        host.wait_for_selector(".toast:has-text('Sin conexión con la mesa')")
        # the server applied it, and the page shows it: read again, not from its stream
        host.wait_for_selector(".lobby-seat[data-kind='robot']", timeout=15000)
        assert sent and sent[0]["status"] == 200 and sent[0]["page"]
        kinds = [s["kind"] for s in HttpPlayer(server).state(tid)["table"]["seats"]]
        assert kinds.count("robot") == 1
        host.unroute("**/actions")
        # the stream goes on: somebody else sits down, the page hears it
        assert HttpPlayer(server).act(tid, "sit", name="Caro").status_code == 200
        host.wait_for_function(
            "() => [...document.querySelectorAll('.lobby-seat .lobby-name')]"
            ".some((e) => e.textContent.includes('Caro'))", timeout=30000)
        assert host.locator(".lobby-seat[data-kind='robot']").count() == 1
    finally:
        ctx.close()
