"""Bad input and intruders: requests generated from the served OpenAPI document (hypothesis), the
CSRF token, other seats' and other tables' cookies, spectators, HTML payloads, and the chat rate
limit held across two processes. A refused request must change nothing."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tables.db import db
from tests.kit import HttpPlayer, Player, close_app, make_app

WORDS = ["2C", "QS", "AH", "10H", "TD", "reino", "noche", "facil", "dificil", "t1", "en_vivo",
         "impedido", "permitido", "", " ", "<script>alert(1)</script>", "ñandú", "\u202e", "0"]


@pytest.fixture()
def app(migrated: str) -> Iterator[Any]:
    # A stream ends after STREAM_MAX, so each drawn request is answered whole.
    application = make_app(migrated, ROBOT_WORKER="off", PUSH_SENDER="off", STREAM_MAX=0.2,
                           STREAM_HEARTBEAT=0.1)
    yield application
    close_app(application)


def fingerprint(app: Any) -> tuple[Any, ...]:
    """Everything a refused request must leave as it was (devices excepted: a refused `sit`
    still gives the browser its cookie)."""
    with app.app_context():
        conn = db.session.connection()
        out = tuple(conn.execute(sa.text(q)).one() for q in (
            "SELECT count(*), coalesce(sum(version), 0) FROM tables",
            "SELECT count(*), coalesce(max(id), 0) FROM actions",
            "SELECT count(*), coalesce(sum(CASE WHEN kind = 'human' THEN 1 ELSE 0 END), 0) "
            "FROM seats",
            "SELECT count(*) FROM viewers",
        ))
        db.session.rollback()
        return out


def game_table(app: Any) -> tuple[str, list[Player]]:
    players = [Player(app) for _ in range(4)]
    tid = players[0].create("Ana")
    for i, p in enumerate(players[1:], 1):
        p.act(tid, "sit", name=f"P{i}")
    players[0].act(tid, "start")
    return tid, players


# ------------------------------------------------------------------ fuzz from the OpenAPI document


def strategy(schema: dict[str, Any], doc: dict[str, Any], depth: int = 0) -> Any:
    """Values for ``schema``: mostly what it allows, sometimes anything (bad input on purpose)."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        return strategy(doc["components"]["schemas"][name], doc, depth)
    junk = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**9), st.text(max_size=8),
                     st.lists(st.integers(), max_size=2))
    kind = schema.get("type")
    if "enum" in schema:
        good: Any = st.sampled_from(schema["enum"])
    elif kind == "string":
        good = st.one_of(st.sampled_from(WORDS), st.text(max_size=schema.get("maxLength", 40)))
    elif kind == "integer":
        good = st.integers(schema.get("minimum", -2), 10**6) | st.integers(0, 3)
    elif kind == "boolean":
        good = st.booleans()
    elif kind == "array":
        good = st.lists(strategy(schema.get("items", {}), doc, depth + 1), max_size=4)
    elif kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        required = [k for k in schema.get("required", []) if k in props]
        good = st.fixed_dictionaries(
            {k: strategy(props[k], doc, depth + 1) for k in required},
            optional={k: strategy(v, doc, depth + 1) for k, v in props.items()
                      if k not in required})
    else:
        good = junk
    return st.one_of(good, good, good, junk) if depth < 3 else good


def operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, op) for path, item in sorted(doc["paths"].items())
            for method, op in sorted(item.items()) if method in ("get", "post")]


@settings(max_examples=160, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(data=st.data())
def test_requests_drawn_from_the_openapi_document_never_fail_or_change_when_refused(app, data):
    if "doc" not in app.extensions:
        tid, players = game_table(app)
        doc = players[0].client.get("/api/openapi.json").get_json()
        app.extensions["doc"] = (doc, tid, players + [Player(app)])
    doc, tid, people = app.extensions["doc"]
    path, method, op = data.draw(st.sampled_from(operations(doc)), label="operation")
    who = data.draw(st.sampled_from(people), label="who")
    url = path
    query: dict[str, Any] = {}
    headers: dict[str, str] = {}
    for p in op.get("parameters", []):
        if p["in"] == "path":
            value = data.draw(st.one_of(st.just(tid), st.text(
                st.characters(codec="ascii", exclude_characters="/?#%"), max_size=30)),
                label=p["name"])
            url = url.replace("{" + p["name"] + "}", value or "x")
        elif p["in"] == "query":
            if data.draw(st.booleans(), label=f"send {p['name']}"):
                query[p["name"]] = data.draw(st.one_of(
                    st.integers(0, 60).map(str), st.text(max_size=6)), label=p["name"])
        elif p["in"] == "header" and p["name"].lower() == "x-csrftoken":
            token = data.draw(st.sampled_from(["good", "good", "good", "none", "forged"]),
                              label="csrf")
            if token != "none":
                headers["X-CSRFToken"] = who.csrf if token == "good" else "x" + who.csrf[1:]
    if "poll" in url:
        query["since"] = "0"  # the long-poll answers at once when the table changed since
    before = fingerprint(app)
    if method == "get":
        r = who.client.get(url, query_string=query)
    else:
        schema = (op.get("requestBody", {}).get("content", {}).get("application/json", {})
                  .get("schema", {}))
        body = data.draw(strategy(schema, doc) if schema else st.just({}), label="body")
        r = who.client.post(url, json=body, headers=headers, query_string=query)
    text = r.get_data(as_text=True)
    assert r.status_code < 500, (method, url, r.status_code, text[:300])
    assert "Traceback" not in text and 'File "/' not in text
    if url.startswith("/api/"):
        if r.status_code == 200 and url.endswith("/stream"):
            assert r.mimetype == "text/event-stream" and text.startswith("retry: "), text[:100]
        else:
            assert r.is_json, (url, r.status_code)
    if r.status_code >= 400:
        assert set(r.get_json()) >= {"error", "message"}
        assert fingerprint(app) == before, (method, url, r.status_code, r.get_json()["error"])


# ------------------------------------------------------------------ intruders


def test_csrf_other_seats_other_tables_and_spectators_are_refused_and_change_nothing(app):
    tid, (ana, beto, carla, dani) = game_table(app)
    other_tid, (olga, *_) = game_table(app)
    spectator = Player(app)
    deviced = Player(app)
    deviced.act(tid, "set_deck", deck="noche")  # a spectator with a device cookie
    state = ana.state(tid)
    view = state["view"]
    hand = view["hand"]
    before = fingerprint(app)
    url = f"/api/tables/{tid}/actions"

    def refused(r: Any, status: int, code: str) -> None:
        assert (r.status_code, r.get_json()["error"]) == (status, code), r.get_json()
        assert fingerprint(app) == before

    pass_body = {"type": "confirm_pass", "cards": hand[:3], "action_id": uuid.uuid4().hex}
    refused(ana.post(url, pass_body, csrf=False), 400, "csrf")
    refused(ana.client.post(url, json=pass_body, headers={"X-CSRFToken": beto.csrf}), 400, "csrf")
    refused(ana.client.post(url, json=pass_body, headers={"X-CSRFToken": "forged"}), 400, "csrf")
    # another seat's cards, another seat's host powers, another table's seat
    refused(beto.act(tid, "confirm_pass", expect=None, cards=hand[:3]), 409, "not_in_hand")
    refused(beto.act(tid, "add_robot", expect=None, seat=1), 403, "not_host")
    refused(beto.act(tid, "reissue_link", expect=None, seat=0), 403, "not_host")
    refused(beto.act(tid, "set_level", expect=None, robot_level="dificil"), 403, "not_host")
    refused(olga.act(tid, "confirm_pass", expect=None, cards=hand[:3]), 403, "not_seated")
    refused(olga.act(tid, "chat", expect=None, text="hola"), 403, "not_seated")
    # a forged device cookie is nobody
    forged = Player(app)
    forged.client.set_cookie("corazones_device", secrets.token_urlsafe(32))
    refused(forged.act(tid, "confirm_pass", expect=None, cards=hand[:3]), 403, "not_seated")
    # spectators, with and without a device, cannot act
    for who in (spectator, deviced):
        refused(who.act(tid, "confirm_pass", expect=None, cards=hand[:3]), 403, "not_seated")
        refused(who.act(tid, "chat", expect=None, text="hola"), 403, "not_seated")
        refused(who.act(tid, "start", expect=None), 403, "not_host")
        refused(who.act(tid, "standin", expect=None, seat=1), 403, "not_seated")
        r = who.client.get(f"/api/tables/{tid}")
        assert r.get_json()["state"]["me"]["seat"] is None and "hand" not in \
            r.get_json()["state"]["view"]
    # a seat link of another table does not move a seat here
    link = olga.state(other_tid)["me"]["seat_link"].rsplit("/", 1)[1]
    r = spectator.client.post(f"/t/{tid}/s/{link}", data={"csrf_token": spectator.csrf})
    assert r.status_code == 404 and fingerprint(app) == before
    # the plain page's forms are held to the same rules
    r = spectator.client.post(f"/t/{tid}/plain", data={"type": "confirm_pass",
                                                       "cards": hand[:3]})
    assert r.status_code == 400 and fingerprint(app) == before
    r = beto.client.post(f"/t/{tid}/plain", data={"type": "add_robot", "seat": "1",
                                                  "csrf_token": beto.csrf})
    assert r.status_code == 302 and fingerprint(app) == before
    assert ana.state(tid)["view"]["hand"] == hand


def test_html_and_script_in_names_and_chat_are_shown_as_text(app):
    payloads = ['<script>x("n")</script>', "<img src=x onerror=f()>"]  # names: 24 at most
    host = Player(app)
    r = host.post("/api/tables", {"host_name": payloads[0], "name": '"><svg onload=alert(2)>'})
    assert r.status_code == 201, r.get_json()
    tid = r.get_json()["table_id"]
    guest = Player(app)
    guest.act(tid, "sit", name=payloads[1])
    host.act(tid, "chat", text="<b>hola</b><script>alert(3)</script>")
    state = host.state(tid)
    assert state["table"]["seats"][0]["name"] == payloads[0]  # kept as typed, as JSON text
    for page in (f"/t/{tid}/plain", f"/t/{tid}"):
        r = guest.client.get(page)
        html = r.get_data(as_text=True)
        assert r.status_code == 200
        assert "<script>x" not in html and "<img src=x" not in html
        assert "<svg onload" not in html and "<b>hola" not in html
        assert "default-src 'self'" in r.headers["Content-Security-Policy"]
    plain = guest.client.get(f"/t/{tid}/plain").get_data(as_text=True)
    assert "&lt;script&gt;x(&#34;n&#34;)&lt;/script&gt;" in plain
    assert "&lt;img src=x onerror=f()&gt;" in plain
    assert "&lt;b&gt;hola&lt;/b&gt;" in plain
    r = guest.client.get(f"/api/tables/{tid}")  # JSON text, never sniffed as HTML
    assert r.mimetype == "application/json" and r.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.db
def test_chat_rate_limit_answers_429_and_holds_across_two_processes(server_factory):
    env = {"REDIS_URL": "redis://127.0.0.1:6379/0", "RATELIMIT_CHAT": "6 per minute",
           "RATELIMIT_KEY_PREFIX": "t" + secrets.token_hex(6), "ROBOT_WORKER": "off"}
    a = server_factory(**env)
    b = server_factory(**env)
    host = HttpPlayer(a.url)
    r = host.post("/api/tables", {"host_name": "Ana"})
    tid = r.json()["table_id"]
    on_b = HttpPlayer(b.url)
    on_b.s.cookies.update(host.s.cookies)  # the same browser, answered by the other process
    on_b.csrf = on_b.s.get(b.url + "/api/csrf", timeout=10).json()["csrf_token"]
    codes = [(host, on_b)[i % 2].act(tid, "chat", text=f"m{i}").status_code for i in range(9)]
    assert codes == [200] * 6 + [429] * 3, codes
    refused = on_b.act(tid, "chat", text="otra")
    assert refused.json()["error"] == "rate_limited" and "espera" in refused.json()["message"]
    chat = host.state(tid)["chat"]
    assert [m["text"] for m in chat] == [f"m{i}" for i in range(6)]
    # other actions are not counted against chat
    assert host.act(tid, "add_robot", seat=1).status_code == 200
