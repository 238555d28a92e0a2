"""A page applies a stream's patch only to the state that stream sent last (static/js/updates.js):
a patch made from another base is dropped and the page opens a new stream, which starts whole.

The server never sends such a patch, so the stream here is scripted (Playwright answers the
page's stream requests): its events carry a real state of the table, renamed at each step so the
page's title shows which one it applied."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Browser

from tests.browser.browserkit import new_context, open_table
from tests.kit import HttpPlayer, wait_until

pytestmark = pytest.mark.browser

#: Every name the page's table title took, in order (a page script keeps them).
WATCH_NAMES = """
window.__names = [];
new MutationObserver(() => {
  const el = document.querySelector('#table-name');
  const text = el ? el.textContent : null;
  if (text && window.__names[window.__names.length - 1] !== text) window.__names.push(text);
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


def _sse(kind: str, data: Any, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    body = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return f"{head}event: {kind}\ndata: {body}\n\n"


def _renamed(state: dict[str, Any], version: int, name: str) -> dict[str, Any]:
    return {**state, "version": version, "table": {**state["table"], "name": name}}


def test_a_patch_from_another_base_is_dropped_and_the_stream_starts_again_whole(
        server: str, browser: Browser) -> None:
    host_ctx, guest_ctx = new_context(browser, 390, 844), new_context(browser, 390, 844)
    try:
        url = open_table(host_ctx.new_page(), server, name="Ana")
        tid = url.rstrip("/").split("/t/")[1].split("?")[0]
        real = HttpPlayer(server).state(tid)  # what a spectator sees, as the guest will
        v = int(real["version"])
        first = (
            "retry: 60000\n" + _sse("hello", str(v))
            + _sse("state", {"state": _renamed(real, v + 10, "Primera"), "log": []}, v + 10)
            # from the state just sent: applied
            + _sse("patch", {"base": v + 10, "version": v + 11, "log": [],
                             "patch": {"version": v + 11, "table": {"name": "Segunda"}}}, v + 11)
            # from a state this stream never sent: dropped
            + _sse("patch", {"base": v + 5, "version": v + 12, "log": [],
                             "patch": {"version": v + 12, "table": {"name": "Rota"}}}, v + 12)
        )
        again = ("retry: 60000\n" + _sse("hello", str(v + 20))
                 + _sse("state", {"state": _renamed(real, v + 20, "Entera"), "log": []}, v + 20))
        streams: list[dict[str, Any]] = []

        def scripted(route: Any) -> None:
            req = route.request
            streams.append({"url": req.url, "last_id": req.headers.get("last-event-id")})
            n = len(streams)
            if n > 2:  # nothing more to tell; the test has what it needs by then
                route.abort()
                return
            route.fulfill(status=200, body=first if n == 1 else again,
                          headers={"Content-Type": "text/event-stream",
                                   "Cache-Control": "no-store"})

        guest = guest_ctx.new_page()
        guest.add_init_script(WATCH_NAMES)
        guest.route("**/stream?**", scripted)
        guest.goto(url)
        guest.wait_for_function(
            "() => document.querySelector('#table-name')?.textContent === 'Entera'",
            timeout=30000)

        def names_to_the_last() -> list[str] | None:
            guest.wait_for_timeout(50)  # Playwright delivers the page's events meanwhile
            got = list(guest.evaluate("window.__names"))
            return got if got[-1:] == ["Entera"] else None

        seen = wait_until(names_to_the_last, 10, 0.05)
        assert "Rota" not in seen, seen
        assert seen[-3:] == ["Primera", "Segunda", "Entera"], seen
        # The second stream is a new one the page opened (the browser's own reconnection would
        # send the last id it got), from the last state the page had applied.
        assert len(streams) >= 2, streams
        assert streams[1]["last_id"] is None, streams
        assert f"since={v + 11}&" in streams[1]["url"], streams
    finally:
        host_ctx.close()
        guest_ctx.close()
