"""A page's stream leaves out the changes of the page's own actions (their answers bring them,
static/js/updates.js and tables/stream_routes.py). When an action's answer is lost on its way
back (the server applied it), the page sends the action again with the same id and gets the
first one's answer (applied once); when that answer is lost too, it says so and reads its table
again: it never stays behind its own change. Its stream then goes on from the state it sent
last."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser

from tests.browser.browserkit import new_context, open_table
from tests.kit import HttpPlayer

pytestmark = pytest.mark.browser


def _robot_added_with_answers_lost(server: str, browser: Browser, lost: int) -> None:
    """The host adds a robot while the first ``lost`` answers to its actions never arrive (the
    requests reach the server); the page shows the robot, the table has exactly one, and the
    page's stream goes on."""
    ctx = new_context(browser, 390, 844)
    try:
        host = ctx.new_page()
        url = open_table(host, server, name="Ana")
        tid = url.rstrip("/").split("/t/")[1].split("?")[0]
        host.wait_for_selector("body[data-online='1']")
        sent: list[dict[str, Any]] = []

        def lose_the_answer(route: Any) -> None:
            """The request reaches the server; its answer reaches the page after ``lost``."""
            response = route.fetch()
            sent.append({"status": response.status,
                         "page": route.request.headers.get("x-page-id"),
                         "action_id": (route.request.post_data_json or {}).get("action_id")})
            if len(sent) <= lost:
                route.abort()
            else:
                route.fulfill(response=response)

        host.route("**/actions", lose_the_answer)
        empty = host.locator(".lobby-seat[data-kind='empty'] button", has_text="AGREGAR ROBOT")
        empty.first.click()
        if lost >= 2:  # both tries lost: the player is told, and the page reads the table
            host.wait_for_selector(".toast:has-text('Sin conexión con la mesa')")
        host.wait_for_selector(".lobby-seat[data-kind='robot']", timeout=15000)
        assert len(sent) == 2  # sent once more, not more
        assert all(s["status"] == 200 and s["page"] for s in sent)
        assert sent[0]["action_id"] and sent[1]["action_id"] == sent[0]["action_id"]
        if lost < 2:  # the second answer arrived: nothing to tell
            assert host.locator(".toast:has-text('Sin conexión con la mesa')").count() == 0
        kinds = [s["kind"] for s in HttpPlayer(server).state(tid)["table"]["seats"]]
        assert kinds.count("robot") == 1  # the repeat was not applied again
        host.unroute("**/actions")
        # the stream goes on: somebody else sits down, the page hears it
        assert HttpPlayer(server).act(tid, "sit", name="Caro").status_code == 200
        host.wait_for_function(
            "() => [...document.querySelectorAll('.lobby-seat .lobby-name')]"
            ".some((e) => e.textContent.includes('Caro'))", timeout=30000)
        assert host.locator(".lobby-seat[data-kind='robot']").count() == 1
    finally:
        ctx.close()


def test_an_action_whose_answer_is_lost_is_sent_again_and_applied_once(
        server: str, browser: Browser) -> None:
    _robot_added_with_answers_lost(server, browser, lost=1)


def test_an_action_whose_answers_are_all_lost_still_shows_on_its_page(
        server: str, browser: Browser) -> None:
    _robot_added_with_answers_lost(server, browser, lost=2)
