"""What a stranger sends cannot get in: replayed action ids, rows without limit, deep JSON, two
chat buckets, deceiving names, a departed host's powers, cross-site posts, caches and logs.
Each test fails without the defence it names (docs/SECURITY.md lists them)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from tables.db import db
from tables.guards import RedactSeatLinks, redact
from tables.models import Device, Seat
from tests.kit import ROOT, Player, close_app, error, free_port, make_app, wait_until

pytestmark = pytest.mark.db




def devices(app: Any) -> int:
    with app.app_context():
        n = db.session.query(Device).count()
        db.session.rollback()
        return int(n)


def seats_of(app: Any, tid: str) -> list[tuple[str, int | None]]:
    with app.app_context():
        rows = db.session.query(Seat).filter(Seat.table_id == tid).order_by(Seat.seat).all()
        out = [(s.kind, s.device_id) for s in rows]
        db.session.rollback()
        return out


def full_table(app: Any) -> tuple[str, list[Player]]:
    """Ana (host), Beto, Carla and a robot, playing."""
    ana = Player(app)
    tid = ana.create("Ana")
    beto, carla = Player(app), Player(app)
    beto.act(tid, "sit", name="Beto")
    carla.act(tid, "sit", name="Carla")
    ana.act(tid, "add_robot", seat=3)
    ana.act(tid, "start")
    return tid, [ana, beto, carla]


# ---------------------------------------------------------------- action ids belong to a device


def test_a_replayed_sit_from_another_device_is_refused_and_changes_nothing(app):
    ana = Player(app)
    tid = ana.create("Ana")
    beto = Player(app)
    body = {"type": "sit", "name": "Beto", "action_id": str(uuid.uuid4())}
    assert beto.post(f"/api/tables/{tid}/actions", body).get_json()["state"]["me"]["seat"] == 1
    before = seats_of(app, tid)
    stranger = Player(app)
    error(stranger.post(f"/api/tables/{tid}/actions", body), 409, "action_id_reused")
    error(stranger.post(f"/api/tables/{tid}/actions", {**body, "name": "Intruso"}), 409,
          "action_id_reused")
    assert seats_of(app, tid) == before
    assert stranger.state(tid)["me"]["seat"] is None
    assert beto.state(tid)["me"]["seat"] == 1  # the rightful device keeps its seat
    # the same device with another body under the same id is refused too
    error(beto.post(f"/api/tables/{tid}/actions", {**body, "name": "Otro"}), 409,
          "action_id_reused")
    again = beto.post(f"/api/tables/{tid}/actions", body)
    assert again.status_code == 200 and again.get_json()["state"]["me"]["seat"] == 1


def test_a_replayed_creation_never_hands_over_the_host_seat(app):
    ana = Player(app)
    body = {"host_name": "Ana", "action_id": str(uuid.uuid4())}
    first = ana.post("/api/tables", body)
    tid = first.get_json()["table_id"]
    stranger = Player(app)
    error(stranger.post("/api/tables", body), 409, "action_id_reused")
    error(stranger.post("/api/tables", {**body, "target": 50}), 409, "action_id_reused")
    error(ana.post("/api/tables", {**body, "target": 50}), 409, "action_id_reused")
    assert not stranger.state(tid)["me"]["is_host"]
    assert ana.state(tid)["me"]["is_host"]
    again = ana.post("/api/tables", body)
    assert again.status_code == 201 and again.get_json()["table_id"] == tid


# ---------------------------------------------------------------- rows and limits


def test_requests_that_fail_keep_no_device_row(app):
    ana = Player(app)
    tid = ana.create("Ana")
    n = devices(app)
    for _ in range(3):
        p = Player(app)
        p.act("no-such-table", "sit", expect=404, name="Beto")
        p.act(tid, "set_deck", expect=400, deck="otra")
        p.act(tid, "sit", expect=400, name="")
        r = p.client.post(f"/t/{tid}/s/{'0' * 40}", data={"csrf_token": p.csrf})
        assert r.status_code == 404
        r = p.client.post("/plain/new", data={"csrf_token": p.csrf, "host_name": ""})
        assert r.status_code == 302
    assert devices(app) == n
    Player(app).act(tid, "sit", name="Beto")
    assert devices(app) == n + 1


def test_every_way_of_opening_a_table_shares_one_limit(migrated):
    app = make_app(migrated, RATELIMIT_CREATE="2 per minute")
    try:
        p = Player(app)
        p.create()
        r = p.client.post("/plain/new", data={"csrf_token": p.csrf, "host_name": "Ana",
                                                  "target": "100"})
        assert r.status_code == 302 and "/t/" in r.headers["Location"]
        error(p.post("/api/tables", {"host_name": "Ana"}), 429, "rate_limited")
        r = p.client.post("/plain/new", data={"csrf_token": p.csrf, "host_name": "Ana",
                                                  "target": "100"})
        assert r.status_code == 429
    finally:
        close_app(app)


def test_lobby_churn_is_limited_per_device(migrated):
    app = make_app(migrated, RATELIMIT_CHURN_DEVICE="3 per minute")
    try:
        ana = Player(app)
        tid = ana.create("Ana")
        ana.act(tid, "add_robot", seat=1)
        ana.act(tid, "remove_robot", seat=1)
        ana.act(tid, "add_robot", seat=1)
        error(ana.act(tid, "remove_robot", expect=None, seat=1), 429, "rate_limited")
        assert ana.state(tid)["table"]["seats"][1]["kind"] == "robot"
        ana.act(tid, "set_level", robot_level="facil")  # other actions are not churn
        ana.act(tid, "chat", text="hola")
        Player(app).act(tid, "sit", name="Beto")  # another device has its own bucket
    finally:
        close_app(app)


def test_lobby_churn_is_limited_per_table(migrated):
    app = make_app(migrated, RATELIMIT_CHURN_TABLE="3 per minute")
    try:
        ana = Player(app)
        tid = ana.create("Ana")
        ana.act(tid, "add_robot", seat=3)
        Player(app).act(tid, "sit", name="Beto")
        Player(app).act(tid, "leave", expect=403)  # refused by the game, still churn
        error(Player(app).act(tid, "sit", expect=None, name="Dani"), 429, "rate_limited")
        assert [s["kind"] for s in ana.state(tid)["table"]["seats"]] == ["human", "human",
                                                                        "empty", "robot"]
        other = Player(app).create("Eva")  # another table has its own bucket
        Player(app).act(other, "sit", name="Fede")
    finally:
        close_app(app)


def test_actions_no_limit_counts_skip_the_limiter(app, monkeypatch):
    """A card, a pass or a start leaves the limiter before it resolves any limit; a chat or a
    lobby move still goes through the action endpoints' limits, from either page."""
    from tables.limits import limiter

    resolved: list[str | None] = []
    real = limiter.limit_manager.resolve_limits

    def counting(app_: Any, endpoint: str | None, *args: Any) -> Any:
        resolved.append(endpoint)
        return real(app_, endpoint, *args)

    monkeypatch.setattr(limiter.limit_manager, "resolve_limits", counting)
    ana = Player(app)
    tid = ana.create("Ana")
    resolved.clear()
    for seat in (1, 2, 3):
        ana.act(tid, "add_robot", seat=seat)
    assert resolved.count("tables.api_action") == 6  # a lobby move: in the middleware and the view
    resolved.clear()
    ana.act(tid, "start")
    ana.act(tid, "confirm_pass", cards=ana.state(tid)["view"]["hand"][:3])
    r = ana.client.post(f"/t/{tid}/plain", data={"csrf_token": ana.csrf, "type": "start"})
    assert r.status_code == 302  # refused by the game (it has started), not by a limit
    assert "tables.api_action" not in resolved and "tables.plain_action" not in resolved
    ana.act(tid, "chat", text="hola")
    r = ana.client.post(f"/t/{tid}/plain", data={"csrf_token": ana.csrf, "type": "chat",
                                                   "text": "chau"})
    assert r.status_code == 302
    assert resolved.count("tables.api_action") == 2
    assert resolved.count("tables.plain_action") == 2


def test_one_chat_bucket_whatever_page_sends(migrated):
    app = make_app(migrated, RATELIMIT_CHAT="3 per minute")
    try:
        ana = Player(app)
        tid = ana.create("Ana")
        ana.act(tid, "chat", text="uno")
        ana.act(tid, "chat", text="dos")
        r = ana.client.post(f"/t/{tid}/plain", data={"csrf_token": ana.csrf, "type": "chat",
                                                       "text": "tres"})
        assert r.status_code == 302
        r = ana.client.post(f"/t/{tid}/plain", data={"csrf_token": ana.csrf, "type": "chat",
                                                       "text": "cuatro"})
        assert r.status_code == 429
        error(ana.act(tid, "chat", expect=None, text="cinco"), 429, "rate_limited")
        texts = [c["text"] for c in ana.state(tid)["chat"]]
        assert texts == ["uno", "dos", "tres"]
    finally:
        close_app(app)


# ---------------------------------------------------------------- deep JSON


@pytest.mark.parametrize("path", ["/api/tables", "/api/tables/{tid}/actions",
                                  "/api/tables/{tid}/push", "/api/tables/{tid}/push/presence",
                                  "/api/tables/{tid}/push/settings"])
@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_deeply_nested_json_is_a_spanish_400(app, path, opener):
    ana = Player(app)
    tid = ana.create("Ana")
    raw = opener * 5000
    r = ana.client.post(path.format(tid=tid), data=raw, content_type="application/json",
                        headers={"X-CSRFToken": ana.csrf})
    body = error(r, 400, "bad_json")
    assert "anida" in body["message"]
    # a text/plain body is read as JSON by the routes too: the same guard
    r = ana.client.post(path.format(tid=tid), data=raw, content_type="text/plain",
                        headers={"X-CSRFToken": ana.csrf})
    error(r, 400, "bad_json")
    # shallow bodies and brackets inside strings still pass the guard
    r = ana.client.post(f"/api/tables/{tid}/actions", json={"type": "chat", "text": "[" * 200},
                        headers={"X-CSRFToken": ana.csrf})
    assert r.status_code == 200


# ---------------------------------------------------------------- names and chat


@pytest.mark.parametrize("name", ["\u3164", "\u2800", "\u0301\u0302", " \u3164\u2800 ",
                                  "\u200b", "\u115f\u1160"])
def test_a_name_that_renders_blank_is_refused(app, name):
    ana = Player(app)
    tid = ana.create("Ana")
    error(Player(app).act(tid, "sit", expect=None, name=name), 400, "bad_name")
    error(Player(app).post("/api/tables", {"host_name": name}), 400, "bad_name")


@pytest.mark.parametrize("name", ["ROBOT Tito", "robot Ana", "RОBОT Luna", "Tito", "carmen",
                                  "Lúna"])
def test_a_name_that_reads_as_a_robot_is_refused(app, name):
    ana = Player(app)
    tid = ana.create("Ana")
    error(Player(app).act(tid, "sit", expect=None, name=name), 400, "bad_name")
    error(Player(app).post("/api/tables", {"host_name": name}), 400, "bad_name")


@pytest.mark.parametrize("name", ["Ana", "ana", "ANA ", "\u0410na", "An\u0430", "Beto"])
def test_a_name_another_seat_shows_or_one_like_it_is_refused(app, name):
    ana = Player(app)
    tid = ana.create("Ana")
    Player(app).act(tid, "sit", name="Beto")
    error(Player(app).act(tid, "sit", expect=None, name=name), 400, "name_taken")
    ok = Player(app)
    ok.act(tid, "sit", name="Anabel")
    assert ok.state(tid)["me"]["seat"] == 2


def test_names_are_kept_in_nfc(app):
    ana = Player(app)
    tid = ana.create("Ana")
    Player(app).act(tid, "sit", name="Jose\u0301")
    assert ana.state(tid)["table"]["seats"][1]["name"] == "Jos\u00e9"


def test_chat_loses_bidi_overrides_and_zero_width_characters(app):
    ana = Player(app)
    tid = ana.create("Ana")
    ana.act(tid, "chat", text="gan\u202eé\u202c yo\u200b\u2066!\u2069\ufeff")
    ana.act(tid, "chat", text="familia 👨\u200d👩\u200d👧")
    lines = [c["text"] for c in ana.state(tid)["chat"]]
    assert lines == ["ganLé yo!".replace("L", ""), "familia 👨\u200d👩\u200d👧"]
    error(ana.act(tid, "chat", expect=None, text="\u202e\u200b"), 400, "bad_chat")


# ---------------------------------------------------------------- host powers follow a person


def test_host_powers_pass_clockwise_when_the_host_leaves(app):
    tid, (ana, beto, carla) = full_table(app)
    ana.act(tid, "leave")
    for viewer in (ana, beto, carla):
        st = viewer.state(tid)
        assert [s["is_host"] for s in st["table"]["seats"]] == [False, True, False, False]
    assert beto.state(tid)["me"]["is_host"] and not ana.state(tid)["me"]["is_host"]
    # the departed host, now a spectator, holds no power any more
    error(ana.act(tid, "set_level", expect=None, robot_level="facil"), 403, "not_host")
    error(ana.act(tid, "reissue_link", expect=None, seat=1), 403, "not_host")
    r = ana.post(f"/api/tables/{tid}/push/settings", {"reminder_hours": 3})
    error(r, 403, "not_host")
    beto.act(tid, "set_level", robot_level="facil")
    assert beto.post(f"/api/tables/{tid}/push/settings", {"reminder_hours": 3}).status_code == 200
    beto.act(tid, "leave")
    assert [s["is_host"] for s in carla.state(tid)["table"]["seats"]] == [False, False, True,
                                                                           False]
    carla.act(tid, "leave")  # nobody seated: nobody holds the powers
    assert not any(s["is_host"] for s in carla.state(tid)["table"]["seats"])


# ---------------------------------------------------------------- headers, cookies, cross-site


def test_pages_with_a_hand_or_a_seat_link_are_never_cached(app):
    ana = Player(app)
    tid = ana.create("Ana")
    link = ana.state(tid)["me"]["seat_link"]
    for url in ("/", "/plain", f"/t/{tid}", f"/t/{tid}/plain", link, f"/api/tables/{tid}"):
        r = ana.client.get(url)
        assert r.status_code == 200, url
        assert r.headers["Cache-Control"] == "no-store", url
        assert r.headers["X-Frame-Options"] == "DENY", url
        assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"], url


def test_the_device_cookie_is_secure_behind_a_tls_proxy(migrated):
    app = make_app(migrated, SESSION_COOKIE_SECURE=True)  # what CORAZONES_HTTPS=1 sets
    try:
        r = app.test_client().get("/")  # the app sees plain http behind the proxy
        dev = next(x for x in r.headers.getlist("Set-Cookie")
                   if x.startswith("corazones_device="))
        assert "Secure" in dev
    finally:
        close_app(app)


def test_posts_from_another_site_are_refused_before_the_csrf_check(app):
    ana = Player(app)
    tid = ana.create("Ana")
    url = f"/api/tables/{tid}/actions"
    body = {"type": "chat", "text": "hola"}
    for headers in ({"Sec-Fetch-Site": "cross-site"}, {"Origin": "https://otro.example"},
                    {"Origin": "null"}):
        r = ana.client.post(url, json=body, headers={"X-CSRFToken": ana.csrf, **headers})
        error(r, 403, "cross_site")
        r = ana.client.post(url, json=body, headers=headers)  # no token either: still 403
        error(r, 403, "cross_site")
    for headers in ({"Sec-Fetch-Site": "same-origin"}, {"Origin": "http://localhost"}):
        r = ana.client.post(url, json=body, headers={"X-CSRFToken": ana.csrf, **headers})
        assert r.status_code == 200, headers
    assert [c["text"] for c in ana.state(tid)["chat"]] == ["hola", "hola"]


def test_seat_link_tokens_never_reach_a_log():
    token = "9f" * 20
    assert redact(f'GET /t/abc/s/{token} HTTP/1.1') == "GET /t/abc/s/… HTTP/1.1"
    record = logging.LogRecord("werkzeug", logging.INFO, __file__, 1, '"%s" %s',
                               (f"POST /t/abc/s/{token}?x=1 HTTP/1.1", "302"), None)
    assert RedactSeatLinks().filter(record)
    assert token not in record.getMessage() and "/t/abc/s/…" in record.getMessage()


def test_gunicorn_access_log_shows_the_route_not_the_token(tmp_path: Path, migrated: str):
    """The production web process, run for real: its access log keeps the route only."""
    port = free_port()
    log = tmp_path / "access.log"
    env = {**os.environ, "DATABASE_URL": migrated, "CORAZONES_INSTANCE": str(tmp_path),
           "GUNICORN_BIND": f"127.0.0.1:{port}", "GUNICORN_WORKERS": "1",
           "GUNICORN_THREADS": "4", "GUNICORN_ACCESSLOG": str(log), "SECRET_KEY": "test-secret"}
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        import requests

        token = "ab" * 20

        def status() -> int:
            try:
                return requests.get(f"http://127.0.0.1:{port}/t/nope/s/{token}",
                                    timeout=5).status_code
            except requests.ConnectionError:
                return 0

        assert wait_until(status, 60) == 404
        text = wait_until(lambda: log.exists() and log.read_text(), 20)
        assert "/t/nope/s/…" in text and token not in text
    finally:
        proc.terminate()
        proc.wait(30)


# ---------------------------------------------------------------- a newcomer's first run


def test_flask_run_on_a_fresh_checkout_migrates_the_default_database(tmp_path: Path):
    """No DATABASE_URL, no `flask setup`: the app brings instance/'s SQLite up to date itself."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(CORAZONES_INSTANCE=str(tmp_path), SCHEDULER="off", ROBOT_WORKER="off")
    script = (
        "from app import create_app\n"
        "app = create_app()\n"
        "c = app.test_client()\n"
        "c.get('/')\n"
        "token = c.get('/api/csrf').get_json()['csrf_token']\n"
        "r = c.post('/api/tables', json={'host_name': 'Ana'}, headers={'X-CSRFToken': token})\n"
        "print(r.status_code)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "201"
    assert (tmp_path / "corazones.db").exists()


def test_a_database_without_tables_is_not_called_a_lost_connection(tmp_path: Path):
    app = make_app("sqlite:///" + str(tmp_path / "empty.db"))
    try:
        p = Player(app)
        r = p.post("/api/tables", {"host_name": "Ana"})
        body = error(r, 500, "not_set_up")
        assert "flask --app app setup" in body["message"]
        assert "conexión" not in body["message"]
    finally:
        close_app(app)
