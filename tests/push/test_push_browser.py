"""In Chromium: the service worker registers at the root scope, its push handler shows the
notification the server's real push carries (title, body, tag; a newer one for the same table
replaces the older), and its click logic takes the window to the table. The push comes from the
real server through the local push service; we decrypt it and hand it to the worker over CDP
(``ServiceWorker.deliverPushMessage``: there is no internet, so no browser push service)."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest

from tests.browser.browserkit import ARGS, CHROMIUM
from tests.kit import HttpPlayer, wait_until
from tests.push.pushkit import PushService, Subscriber


def _until(page: Any, pred: Any, timeout: float = 10) -> Any:
    """Wait for ``pred``; each look calls into Playwright, which delivers the page's events."""

    def look() -> Any:
        page.evaluate("0")
        return pred()

    return wait_until(look, timeout)


def _notifications(page: Any) -> list[dict[str, Any]]:
    return list(page.evaluate("""async () => {
        const reg = await navigator.serviceWorker.ready;
        const list = await reg.getNotifications();
        return list.map((n) => ({title: n.title, body: n.body, tag: n.tag, data: n.data,
                                 icon: n.icon}));
    }"""))


@pytest.mark.browser
def test_service_worker_shows_the_push_and_opens_the_table(
        push_service: PushService, server_factory: Any, playwright_session: Any) -> None:
    srv = server_factory(PUSH_INSECURE_ENDPOINTS="1", PUSH_SWEEP="0.3", ROBOT_DELAY="0")
    base = srv.url
    ana, beto = HttpPlayer(base), HttpPlayer(base)
    tid = ana.post("/api/tables", {"host_name": "Ana", "target": 50}).json()["table_id"]
    assert beto.act(tid, "sit", name="Beto").status_code == 200
    for seat in (2, 3):
        assert ana.act(tid, "add_robot", seat=seat).status_code == 200
    sub = Subscriber(push_service, "beto")
    assert beto.post(f"/api/tables/{tid}/push", {"subscription": sub.subscription()}
                     ).status_code == 200
    beto.post(f"/api/tables/{tid}/push/presence", {"visible": False})
    assert ana.act(tid, "start").status_code == 200
    (received,) = push_service.wait_for(sub.path)
    payload = sub.decrypt(received)

    with contextlib.nullcontext(playwright_session) as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            context = browser.new_context(locale="es-ES")
            context.grant_permissions(["notifications"], origin=base)
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{base}/t/{tid}")
            reg = page.evaluate("""async () => {
                await navigator.serviceWorker.register('/sw.js', {scope: '/'});
                const r = await navigator.serviceWorker.ready;
                return {scope: r.scope, script: r.active && r.active.scriptURL};
            }""")
            assert reg == {"scope": f"{base}/", "script": f"{base}/sw.js"}
            manifest = page.evaluate(
                "() => document.querySelector('link[rel=manifest]').href")
            assert manifest.endswith("manifest.webmanifest")

            cdp = context.new_cdp_session(page)
            regs: dict[str, str] = {}
            cdp.on("ServiceWorker.workerRegistrationUpdated", lambda ev: regs.update(
                {r["scopeURL"]: r["registrationId"] for r in ev["registrations"]
                 if not r.get("isDeleted")}))
            activated: set[str] = set()
            cdp.on("ServiceWorker.workerVersionUpdated", lambda ev: activated.update(
                v["registrationId"] for v in ev["versions"] if v.get("status") == "activated"))
            cdp.send("ServiceWorker.enable")
            _until(page, lambda: f"{base}/" in regs and regs[f"{base}/"] in activated)
            rid = regs[f"{base}/"]

            def deliver(data: dict[str, Any], shown: Any) -> Any:
                """Hand the push to the worker until ``shown`` holds: a push handed over CDP
                can be lost on a loaded machine (a fresh-clone run saw no notice within 10 s);
                the notice's tag keeps one notice per table however often it comes."""
                for _ in range(3):
                    cdp.send("ServiceWorker.deliverPushMessage",
                             {"origin": base, "registrationId": rid, "data": json.dumps(data)})
                    with contextlib.suppress(AssertionError):
                        return wait_until(shown, 5)
                raise AssertionError("the worker never showed the push")

            shown = deliver(payload, lambda: _notifications(page))
            assert len(shown) == 1
            n = shown[0]
            assert n["title"] == "Te toca"
            assert n["body"] == "Mesa de Ana: elige tus 3 cartas y pasa"
            assert n["tag"] == f"corazones-{tid}"
            assert n["data"]["url"] == f"/t/{tid}"
            assert n["icon"].endswith("/static/icons/icon-192.png")

            newer = dict(payload, body="Mesa de Ana: juega tu carta", turn="g1:h1:play:0:1")
            deliver(newer, lambda: _notifications(page)[0]["body"] == newer["body"])
            assert len(_notifications(page)) == 1  # same tag: the newer replaced the older

            # The click: from another page of ours, the worker takes the window to the table.
            page.goto(f"{base}/")
            page.evaluate("() => navigator.serviceWorker.ready")
            page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=10_000)
            (worker,) = [w for w in context.service_workers if w.url == f"{base}/sw.js"]
            notice = worker.evaluate("(d) => self.corazones.noticeFor(d)", payload)
            assert notice["options"]["data"]["url"] == f"/t/{tid}"
            worker.evaluate("(url) => self.corazones.openTable(url).then(() => true)",
                            notice["options"]["data"]["url"])
            page.wait_for_url(f"{base}/t/{tid}", timeout=10000)
            assert page.url == f"{base}/t/{tid}"
            assert errors == []
        finally:
            browser.close()


IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 "
          "(KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1")


@pytest.mark.browser
def test_table_page_offers_notices_and_explains_the_iphone_home_screen(
        server_factory: Any, playwright_session: Any) -> None:
    srv = server_factory(PUSH_INSECURE_ENDPOINTS="1", ROBOT_DELAY="0")
    base = srv.url
    ana, beto = HttpPlayer(base), HttpPlayer(base)
    tid = ana.post("/api/tables", {"host_name": "Ana", "target": 50}).json()["table_id"]
    assert beto.act(tid, "sit", name="Beto").status_code == 200
    links = {"desktop": ana.state(tid)["me"]["seat_link"],
             "iphone": beto.state(tid)["me"]["seat_link"]}

    with contextlib.nullcontext(playwright_session) as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            for kind, link in links.items():
                extra = {"user_agent": IPHONE, "viewport": {"width": 390, "height": 844},
                         "has_touch": True} if kind == "iphone" else {}
                context = browser.new_context(locale="es-ES", **extra)
                page = context.new_page()
                errors: list[str] = []
                page.on("pageerror", lambda e, errs=errors: errs.append(str(e)))
                asked: list[int] = []
                page.expose_function("notePermissionAsked", lambda a=asked: a.append(1))
                page.add_init_script("""(() => {
                    if (!window.Notification) return;
                    const real = Notification.requestPermission.bind(Notification);
                    Notification.requestPermission = (...a) => {
                        window.notePermissionAsked(); return real(...a); };
                })()""")
                page.goto(base + link)  # the private link moves the seat to this browser
                page.get_by_role("button", name="USAR MI LUGAR AQUÍ").click()
                page.wait_for_url(f"{base}/t/{tid}")
                offer = page.get_by_role("button", name="Avisarme cuando me toque")
                offer.first.wait_for(state="visible")
                assert page.evaluate(
                    "() => document.querySelector('link[rel=manifest]').getAttribute('href')"
                ) == f"/t/{tid}/manifest.webmanifest"
                page.wait_for_timeout(300)  # a check that nothing happens: the page's chance to ask
                assert asked == []  # loading the page never asks for permission
                page.locator("#menu-btn").click()
                page.wait_for_selector("#menu[open]")
                toggle = page.locator("#menu-notify")
                assert toggle.get_attribute("aria-pressed") == "false"
                assert "Avisarme cuando me toque" in toggle.inner_text()
                if kind == "desktop":  # the host chooses the reminder's delay
                    sel = page.locator("#notify-reminder")
                    assert sel.input_value() == "12"
                    sel.select_option("3")
                    wait_until(lambda: ana.s.get(f"{base}/api/tables/{tid}/push").json()
                               .get("reminder_hours") == 3, 10)
                    page.keyboard.press("Escape")
                    page.wait_for_selector("#menu:not([open])", state="attached")
                    offer.first.click()  # the tap, and only the tap, asks for permission
                    _until(page, lambda asked=asked: asked)
                    assert asked == [1]
                else:
                    assert page.locator("#notify-reminder").count() == 0
                    page.keyboard.press("Escape")
                    page.wait_for_selector("#menu:not([open])", state="attached")
                    offer.first.click()
                    dlg = page.locator("#notify-dialog")
                    dlg.wait_for(state="visible")
                    text = dlg.inner_text()
                    assert "Avisos en iPhone y iPad" in text
                    assert "pantalla de inicio" in text and "iOS 16.4" in text
                    assert "Agregar a pantalla de inicio" in text
                    assert asked == []  # Safari in a tab cannot subscribe: nothing asked
                assert errors == [], errors
                context.close()
        finally:
            browser.close()
