"""The table page's weight on the wire: a first visit at most 150 KB, a repeat visit at most 10 KB.

Static files live under content-hashed URLs with a year-long immutable cache, and responses are
compressed (tables/assets.py): a repeat visit fetches the page and its state, nothing else. Both
figures are printed (run pytest with -s to read them)."""

from __future__ import annotations

import re

import pytest
import requests
from playwright.sync_api import Browser

from tests.browser.browserkit import Watch, Wire, add_robots_and_start, new_context, open_table

pytestmark = pytest.mark.browser

FIRST_MAX = 150 * 1024
REPEAT_MAX = 10 * 1024


def test_first_and_repeat_visit_of_the_table_page(server: str, browser: Browser) -> None:
    watch = Watch()
    host = watch.attach(new_context(browser, 390, 844).new_page())
    url = open_table(host, server, name="Ana", target=100)
    add_robots_and_start(host)
    host.wait_for_selector("#pass-btn")

    ctx = new_context(browser, 390, 844)
    page = watch.attach(ctx.new_page())
    wire = Wire(page)
    page.goto(url)
    page.wait_for_selector("body[data-phase='passing']")
    wire.settle(page)
    first, first_n = wire.total, wire.requests
    print(f"\nfirst visit of the table page: {first} bytes over {first_n} requests\n{wire.table()}")

    wire.reset()
    page.goto(url)
    page.wait_for_selector("body[data-phase='passing']")
    wire.settle(page)
    repeat, repeat_n = wire.total, wire.requests
    print(f"repeat visit: {repeat} bytes over {repeat_n} requests\n{wire.table()}")

    assert 5_000 < first <= FIRST_MAX, f"first visit: {first} bytes"
    assert 0 < repeat <= REPEAT_MAX, f"repeat visit: {repeat} bytes"
    assert not watch.errors, watch.errors
    ctx.close()


def test_static_headers_and_compression(server: str) -> None:
    page = requests.get(server + "/", headers={"Accept-Encoding": "gzip"}, timeout=10)
    assert page.headers["Content-Encoding"] == "gzip"
    css = re.search(r'href="(/static/v/[0-9a-f]+/css/app\.css)"', page.text)
    assert css, "the page names its stylesheet under a hashed URL"
    r = requests.get(server + css.group(1), headers={"Accept-Encoding": "br"}, timeout=10)
    assert r.status_code == 200 and r.headers["Content-Encoding"] == "br"
    assert "immutable" in r.headers["Cache-Control"] and "max-age=31536000" in r.headers[
        "Cache-Control"]
    assert ".btn" in r.text
    # The same file under another (older) digest: served, but never kept.
    old = requests.get(server + "/static/v/000000000000/css/app.css", timeout=10)
    assert old.status_code == 200 and old.headers["Cache-Control"] == "no-cache"
    # Nothing outside the static folder, and a missing file is a plain 404.
    version = css.group(1).split("/")[3]
    for bad in ("../app.py", "..%2Fapp.py", "nope.js"):
        assert requests.get(f"{server}/static/v/{version}/{bad}", timeout=10).status_code == 404
    # The service worker stays revalidated at its fixed URL (a browser checks it for updates).
    sw = requests.get(server + "/sw.js", timeout=10)
    assert sw.status_code == 200 and "no-cache" in sw.headers["Cache-Control"]
    # The API is compressed too, and never cached.
    api = requests.get(server + "/api/tables/nope", headers={"Accept-Encoding": "gzip"},
                       timeout=10)
    assert api.status_code == 404 and api.headers["Cache-Control"] == "no-store"
