"""Mis mesas and the home page's list in a real browser: «Te toca» first, photographed at
390x844, 844x390 and 1440x900, axe clean; the profile moved to a second browser with the link,
which then finds its tables and its name prefilled."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.browserkit import Watch, new_context, open_table, shots_and_axe

pytestmark = pytest.mark.browser


def _api(page: Any, base: str) -> Any:
    csrf = page.request.get(base + "/api/csrf").json()["csrf_token"]

    def post(path: str, body: dict[str, Any]) -> Any:
        r = page.request.post(base + path, data=body, headers={"X-CSRFToken": csrf})
        assert r.ok, (path, r.status, r.text())
        return r.json()
    return post


def test_mis_mesas_home_and_the_profile_move(server: str, browser: Browser) -> None:
    ctx = new_context(browser)
    page = Watch().attach(ctx.new_page())
    watch = Watch()
    watch.attach(page)
    lobby_url = open_table(page, server, name="Ana")
    post = _api(page, server)
    turn = post("/api/tables", {"host_name": "Ana", "target": 50,
                                "name": "Mesa con los robots"})["table_id"]
    for seat in (1, 2, 3):
        post(f"/api/tables/{turn}/actions", {"type": "add_robot", "seat": seat})
    post(f"/api/tables/{turn}/actions", {"type": "start"})

    page.goto(server + "/mis-mesas")
    page.wait_for_selector(".my-table")
    groups = page.eval_on_selector_all(".mine-group", "els => els.map(e => e.id)")
    assert groups == ["group-turn", "group-lobby"]
    first = page.locator(".my-table").first
    assert "Mesa con los robots" in first.inner_text()
    assert "Elige tus 3 cartas y pasa" in first.inner_text()
    assert page.locator("#mine-waiting").inner_text().startswith("1 mesa te espera")
    # the bell shows once the page has asked whether this device already has notices on
    expect(page.locator("#device-notify")).to_be_visible()
    problems = shots_and_axe(page, "mis-mesas")

    page.goto(server + "/")
    page.wait_for_selector(".home-mine")
    assert page.locator("#home-waiting").inner_text() == "1 mesa te espera"
    assert page.locator("#host-name").input_value() == "Ana"
    problems += shots_and_axe(page, "home-mis-mesas")

    # «Llevar mi perfil a otro teléfono»: the link, opened on a second browser
    page.goto(server + "/mis-mesas")
    page.click("#move-issue")
    page.wait_for_function("() => document.querySelector('#move-link').value.includes('/llevar/')")
    link = page.locator("#move-link").input_value()
    problems += shots_and_axe(page, "mis-mesas-link", axe_sizes=((390, 844),),
                              shot_sizes=((390, 844),))
    phone = new_context(browser)
    other = Watch().attach(phone.new_page())
    other.goto(link)
    problems += shots_and_axe(other, "llevar-perfil", shot_sizes=((390, 844),))
    other.get_by_role("button", name="TRAER MI PERFIL AQUÍ").click()
    other.wait_for_url("**/mis-mesas")
    assert other.locator(".my-table").count() == 2
    other.goto(server + "/")
    assert other.locator("#host-name").input_value() == "Ana"  # from the server: no local store
    other.goto(lobby_url)
    other.wait_for_selector("body[data-status='lobby']")
    # the first browser holds nothing now
    page.goto(server + "/mis-mesas")
    assert "Todavía no tienes mesas" in page.inner_text("main")
    assert problems == [], problems
    assert watch.errors == [], watch.errors
    ctx.close()
    phone.close()
