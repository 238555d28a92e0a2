"""Every route and every error of the HTTP API, through Flask's test client."""

from __future__ import annotations

import json
import random
import threading
from typing import Any

import pytest

import robots
from tables import actions, kinds, maintenance, tokens
from tables.db import db
from tables.models import Action, Table
from tests.kit import ROOT, Player, close_app, error, lobby, make_app, wait_until

pytestmark = pytest.mark.db




def near_the_end(app: Any, tid: str, totals: list[int]) -> None:
    """Fixture shortcut: the game's totals so far (the target is 50), so one hand ends it."""
    from tables.seating import locked_table

    with app.app_context(), locked_table(tid) as t:
        assert t is not None and t.game_json is not None
        data = dict(t.game_json)
        data["totals"] = totals
        t.game_json = data


def count_actions(app: Any, tid: str, kind: str | None = None) -> int:
    with app.app_context():
        q = db.session.query(Action).filter(Action.table_id == tid)
        if kind:
            q = q.filter(Action.type == kind)
        n = q.count()
        db.session.rollback()
        return n


def count_human_entries(app: Any, tid: str) -> int:
    with app.app_context():
        n = db.session.query(Action).filter(Action.table_id == tid,
                                            Action.device_id.is_not(None)).count()
        db.session.rollback()
        return n




# ------------------------------------------------------------------ creating and reading


def test_create_table_gives_link_seat_zero_and_a_safe_cookie(app):
    ana = Player(app)
    r = ana.post("/api/tables", {"host_name": "Ana", "target": 100, "renege": "permitido",
                                 "deck": "noche", "robot_level": "dificil"})
    assert r.status_code == 201
    body = r.get_json()
    tid = body["table_id"]
    assert len(tid) >= 22 and body["url"] == f"/t/{tid}"
    st = body["state"]
    assert st["me"] == {**st["me"], "seat": 0, "is_host": True, "spectator": False}
    assert st["table"]["seats"][0]["label"] == "Ana" and st["table"]["seats"][0]["is_host"]
    assert st["table"]["renege"] == "permitido" and st["table"]["robot_level"] == "dificil"
    assert st["me"]["deck"] == "noche" and st["me"]["seat_link"].startswith(f"/t/{tid}/s/")
    # the browser's token came with its first page (here /api/csrf); its row with the table
    first = app.test_client().get("/api/csrf").headers.getlist("Set-Cookie")
    dev = next(c for c in first if c.startswith("corazones_device="))
    assert "HttpOnly" in dev and "SameSite=Lax" in dev and "Secure" not in dev
    cookie = ana.client.get_cookie("corazones_device")
    assert cookie is not None
    token = cookie.value
    with app.app_context():
        from tables.models import Device

        hashes = [d.token_hash for d in db.session.query(Device).all()]
        assert token not in hashes and tokens.hashlib.sha256(token.encode()).hexdigest() in hashes
    # the same device at a second table: the cookie does not change or grow
    r2 = ana.post("/api/tables", {"host_name": "Ana"})
    assert r2.status_code == 201
    assert not any(c.startswith("corazones_device=") for c in r2.headers.getlist("Set-Cookie"))


def test_cookies_are_secure_over_https(app):
    c = app.test_client()
    r = c.post("/api/tables", json={"host_name": "Ana"}, base_url="https://corazones.test")
    assert r.status_code == 400  # no CSRF token: refused, but the browser has its token now
    cookies = r.headers.getlist("Set-Cookie")
    assert not any(x.startswith("corazones_device=") for x in cookies)
    r = c.get("/", base_url="https://corazones.test")
    dev = next(x for x in r.headers.getlist("Set-Cookie") if x.startswith("corazones_device="))
    assert "Secure" in dev and "HttpOnly" in dev
    r = app.test_client().get("/api/csrf", base_url="https://corazones.test")
    session = next(x for x in r.headers.getlist("Set-Cookie") if x.startswith("session="))
    assert "Secure" in session and "HttpOnly" in session and "SameSite=Lax" in session


@pytest.mark.parametrize("body,code", [
    ({"host_name": ""}, "bad_name"),
    ({"host_name": "x" * 25}, "bad_name"),
    ({"host_name": 5}, "bad_name"),
    ({"host_name": "Ana\u0000"}, "bad_name"),
    ({"host_name": "Ana", "target": 75}, "bad_target"),
    ({"host_name": "Ana", "target": True}, "bad_target"),
    ({"host_name": "Ana", "renege": "a veces"}, "bad_renege"),
    ({"host_name": "Ana", "deck": "otra"}, "bad_deck"),
    ({"host_name": "Ana", "robot_level": "experto"}, "bad_level"),
    ([1, 2], "bad_json"),
])
def test_create_table_refuses_bad_input(app, body, code):
    error(Player(app).post("/api/tables", body), 400, code)


def test_malformed_json_and_missing_csrf_are_refused(app):
    p = Player(app)
    r = p.client.post("/api/tables", data="{no json", content_type="application/json",
                      headers={"X-CSRFToken": p.csrf})
    error(r, 400, "bad_json")
    error(p.post("/api/tables", {"host_name": "Ana"}, csrf=False), 400, "csrf")
    r = p.client.post("/api/tables", json={"host_name": "Ana"},
                      headers={"X-CSRFToken": "forged"})
    error(r, 400, "csrf")
    with app.app_context():
        assert maintenance.table_count() >= 0
    error(p.client.get("/api/tables"), 405, "method_not_allowed")
    error(p.post("/api/tables", {"host_name": "A" * 70000}), 413, "too_large")
    error(p.client.get("/api/nothing-here"), 404, "not_found")


def test_unknown_table_and_bad_since(app):
    p = Player(app)
    error(p.client.get("/api/tables/nope"), 404, "not_found")
    error(p.client.get("/api/tables/nope/poll?since=0"), 404, "not_found")
    error(p.act("nope", "chat", expect=None, text="hola"), 404, "not_found")
    tid = p.create()
    error(p.client.get(f"/api/tables/{tid}?since=abc"), 400, "bad_since")
    error(p.client.get(f"/api/tables/{tid}/poll?since=-1"), 400, "bad_since")
    error(p.client.get(f"/api/tables/{tid}?since=¹"), 400, "bad_since")  # a digit to isdigit()
    r = p.client.post(f"/t/{tid}/plain", data={"csrf_token": p.csrf, "type": "add_robot",
                                               "seat": "²"})
    assert r.status_code == 302
    r = p.client.get("/t/nope")
    assert r.status_code == 404 and "no existe" in r.get_data(as_text=True)


def test_get_changes_nothing_and_sets_no_cookie(app):
    ana = Player(app)
    tid = ana.create()
    before = ana.state(tid)["version"]
    visitor = Player(app)
    for url in (f"/api/tables/{tid}", f"/t/{tid}", f"/t/{tid}/plain", f"/api/tables/{tid}?since=0",
                "/", "/plain", "/api/openapi.json"):
        r = visitor.client.get(url)
        assert r.status_code == 200, url
        assert not any(c.startswith("corazones_device=")
                       for c in r.headers.getlist("Set-Cookie")), url
    assert ana.state(tid)["version"] == before
    st = visitor.state(tid)
    assert st["me"]["spectator"] and st["me"]["seat"] is None and st["me"]["can_sit"]


def test_spectators_are_counted_and_players_are_not(app):
    tid, (ana, beto) = lobby(app, humans=2, robots_=0)
    ana.state(tid)
    beto.state(tid)
    assert ana.state(tid)["table"]["spectators"] == 0
    watcher = Player(app)
    watcher.act(tid, "set_deck", deck="noche")  # a device of its own
    assert watcher.state(tid)["table"]["spectators"] == 1


def test_security_headers(app):
    p = Player(app)
    tid = p.create()
    for url in (f"/t/{tid}", f"/t/{tid}/plain", f"/api/tables/{tid}"):
        r = p.client.get(url)
        assert r.headers["Content-Security-Policy"].startswith("default-src 'self'")
        assert r.headers["Referrer-Policy"] == "no-referrer"
        assert r.headers["X-Robots-Tag"] == "noindex"
    assert "unsafe-inline" not in p.client.get("/").headers["Content-Security-Policy"]


# ------------------------------------------------------------------ lobby


def test_sit_first_come_first_served_and_return_to_the_seat(app):
    tid, (ana, beto) = lobby(app, humans=2, robots_=0)
    st = beto.state(tid)
    assert st["me"]["seat"] == 1 and st["table"]["seats"][1]["name"] == "Jugador 1"
    r = beto.act(tid, "sit", name="Otro nombre")  # already seated: returns to the same seat
    assert r.get_json()["state"]["me"]["seat"] == 1
    assert r.get_json()["state"]["table"]["seats"][1]["name"] == "Jugador 1"
    c, d, e = Player(app), Player(app), Player(app)
    c.act(tid, "sit", name="Carla")
    d.act(tid, "sit", name="Dani")
    body = error(e.act(tid, "sit", expect=None, name="Eva"), 409, "table_full")
    assert body["state"]["me"]["spectator"] and not body["state"]["me"]["can_sit"]
    error(Player(app).act(tid, "sit", expect=None, name=""), 400, "bad_name")
    ana.act(tid, "start")
    error(Player(app).act(tid, "sit", expect=None, name="Tarde"), 409, "game_started")


def test_robots_are_added_and_removed_by_the_host_only(app):
    tid, (ana, beto) = lobby(app, humans=2, robots_=0)
    error(beto.act(tid, "add_robot", expect=None, seat=2), 403, "not_host")
    error(ana.act(tid, "add_robot", expect=None, seat=1), 409, "seat_taken")
    error(ana.act(tid, "add_robot", expect=None, seat=7), 400, "bad_seat")
    error(ana.act(tid, "add_robot", expect=None, seat="2"), 400, "bad_seat")
    st = ana.act(tid, "add_robot", seat=2).get_json()["state"]
    assert st["table"]["seats"][2]["kind"] == "robot"
    assert st["table"]["seats"][2]["label"] == "ROBOT Carmen"
    st = ana.act(tid, "add_robot", seat=3).get_json()["state"]
    assert st["table"]["seats"][3]["label"] == "ROBOT Tito"
    error(ana.act(tid, "remove_robot", expect=None, seat=1), 409, "not_robot")
    error(beto.act(tid, "remove_robot", expect=None, seat=2), 403, "not_host")
    st = ana.act(tid, "remove_robot", seat=2).get_json()["state"]
    assert st["table"]["seats"][2]["kind"] == "empty" and st["me"]["can_sit"] is False
    assert Player(app).state(tid)["me"]["can_sit"]
    error(ana.act(tid, "start", expect=None), 409, "not_full")
    error(beto.act(tid, "start", expect=None), 403, "not_host")


def test_leave_before_and_during_the_game(app):
    tid, (ana, beto, carla) = lobby(app, humans=3, robots_=1)
    error(ana.act(tid, "leave", expect=None), 409, "host_cannot_leave")
    st = carla.act(tid, "leave").get_json()["state"]
    assert st["me"]["seat"] is None and st["table"]["seats"][2]["kind"] == "empty"
    error(carla.act(tid, "leave", expect=None), 403, "not_seated")
    carla.act(tid, "sit", name="Carla")
    ana.act(tid, "start")
    st = beto.act(tid, "leave").get_json()["state"]
    seat = st["table"]["seats"][1]
    assert st["me"]["spectator"] and seat["left"] and seat["label"].startswith("ROBOT ")
    assert "hand" not in st["view"]
    # the robot standing in passes for Beto
    wait_until(lambda: ana.state(tid)["view"]["pass_confirmed"][1], 10)


# ------------------------------------------------------------------ playing


def test_game_errors_change_nothing(app):
    tid, (ana, beto) = lobby(app, humans=2, robots_=2)
    ana.act(tid, "start")
    st = ana.state(tid)
    humans_before = count_human_entries(app, tid)
    hand = st["view"]["hand"]
    assert len(hand) == 13 and st["view"]["phase"] == "passing"
    error(ana.act(tid, "play", expect=None, card=hand[0]), 409, "wrong_phase")
    error(ana.act(tid, "play", expect=None, card="ZZ"), 400, "bad_card")
    error(ana.act(tid, "play", expect=None, card=12), 400, "bad_card")
    error(ana.act(tid, "confirm_pass", expect=None, cards=hand[:2]), 400, "bad_pass")
    error(ana.act(tid, "confirm_pass", expect=None, cards=[hand[0]] * 3), 400, "bad_pass")
    other = next(c for c in beto.state(tid)["view"]["hand"])
    error(ana.act(tid, "confirm_pass", expect=None, cards=[hand[0], hand[1], other]), 409,
          "not_in_hand")
    error(ana.act(tid, "accuse", expect=None, accused=1), 409, "no_accusations")
    error(ana.act(tid, "close_count", expect=None), 409, "wrong_phase")
    error(ana.act(tid, "rematch", expect=None), 409, "not_finished")
    error(ana.act(tid, "nonsense", expect=None), 400, "bad_action")
    error(ana.act(tid, "chat", expect=None, text="hola", action_id=5), 400, "bad_action_id")
    # an id is visible ASCII (a page sends a UUID): a NUL (PostgreSQL's text refuses it), a tab,
    # a letter beyond ASCII are refused, not a failed write (a lone surrogate is no JSON: bad_json)
    def raw(url: str, body: dict[str, Any]) -> Any:  # escaped as a page's JSON would be
        return ana.client.post(url, data=json.dumps(body), content_type="application/json",
                               headers={"X-CSRFToken": ana.csrf})

    for odd in ("a\x00b", "\udadd\ude48x", "tab\there", "ñandú-1", "a b"):
        error(raw(f"/api/tables/{tid}/actions", {"type": "chat", "text": "hola", "action_id": odd}),
              400, "bad_action_id")
    # a creation names its table by its id: such an id is not one (the table is made all the same)
    for odd in ("\x00" * 20, "\udadd\ude48" * 10):
        made = raw("/api/tables", {"host_name": "Ana", "target": 50, "renege": "impedido",
                                   "deck": "reino", "robot_level": "normal", "action_id": odd})
        assert made.status_code == 201, (odd, made.get_json())
    error(ana.act(tid, "play", expect=None, card=hand[0], version="x"), 400, "bad_version")
    spectator = Player(app)
    body = error(spectator.act(tid, "confirm_pass", expect=None, cards=hand[:3]), 403,
                 "not_seated")
    assert "state" not in body or "hand" not in (body["state"]["view"] or {})
    error(spectator.act(tid, "play", expect=None, card=hand[0]), 403, "not_seated")
    assert count_human_entries(app, tid) == humans_before
    assert ana.state(tid)["view"]["hand"] == hand
    # choose, change, confirm
    ana.act(tid, "choose_pass", cards=hand[:3])
    st = ana.act(tid, "choose_pass", cards=hand[3:6]).get_json()["state"]
    assert st["view"]["pass_selected"] == hand[3:6]
    st = ana.act(tid, "confirm_pass").get_json()["state"]
    assert st["view"]["pass_confirmed"][0]
    error(ana.act(tid, "choose_pass", expect=None, cards=hand[:3]), 409, "already_passed")
    bh = beto.state(tid)["view"]["hand"]
    beto.act(tid, "confirm_pass", cards=bh[:3], version=0)  # passes ignore the version
    st = wait_until(lambda: (s := ana.state(tid))["view"]["phase"] == "playing" and s, 10)
    view = st["view"]
    turn = view["turn"]
    if turn in (0, 1):
        me, other_p = (ana, beto) if turn == 0 else (beto, ana)
        mine = me.state(tid)["view"]
        theirs = other_p.state(tid)["view"]
        error(other_p.act(tid, "play", expect=None, card=theirs["hand"][0]), 409,
              "not_your_turn")
        if mine["illegal"]:
            bad, reason = next(iter(mine["illegal"].items()))
            body = error(me.act(tid, "play", expect=None, card=bad), 409, body_code(reason))
            assert body["message"] == reason
            assert body["state"]["view"]["hand"] == mine["hand"]
        body = error(me.act(tid, "play", expect=None, card=mine["legal"][0], version=1), 409,
                     "stale")
        assert body["state"]["view"]["hand"] == mine["hand"]
        r = me.act(tid, "play", card=mine["legal"][0], version=body["state"]["version"])
        assert mine["legal"][0] not in r.get_json()["state"]["view"]["hand"]


def body_code(reason: str) -> str:
    return {"Debes salir con el 2 de tréboles": "must_lead_2c",
            "Los corazones no están rotos": "hearts_not_broken",
            "No se juegan puntos en la primera baza": "no_points_first_trick"}.get(
        reason, "must_follow")


def test_same_action_id_is_applied_once_with_the_same_answer(app):
    tid, (ana,) = lobby(app, humans=1, robots_=0)
    body = {"type": "chat", "text": "hola", "action_id": "abc-123"}
    r1 = ana.post(f"/api/tables/{tid}/actions", body)
    r2 = ana.post(f"/api/tables/{tid}/actions", body)
    assert r1.status_code == r2.status_code == 200
    assert r1.get_json()["state"]["version"] == r2.get_json()["state"]["version"]
    assert r1.get_json()["log"] == r2.get_json()["log"]
    assert count_actions(app, tid, "chat") == 1
    intruder = Player(app)
    intruder.act(tid, "sit", name="Beto")
    r3 = intruder.post(f"/api/tables/{tid}/actions", body)
    error(r3, 409, "action_id_reused")


def my_move(p: Player, tid: str, seat: int) -> dict[str, Any] | None:
    s = p.state(tid)
    v = s["view"]
    return s if v["phase"] in ("counting", "game_over") or seat in v["to_act"] else None


def test_chat_taunt_rematch_and_a_whole_game(app):
    tid, (ana,) = lobby(app, humans=1, robots_=3, target=50)
    error(ana.act(tid, "chat", expect=None, text="x" * 301), 400, "chat_too_long")
    error(ana.act(tid, "chat", expect=None, text="   "), 400, "bad_chat")
    error(ana.act(tid, "chat", expect=None, text=None), 400, "bad_chat")
    st = ana.act(tid, "chat", text="<b>hola</b> & <script>x</script>").get_json()["state"]
    assert st["chat"][-1]["text"] == "<b>hola</b> & <script>x</script>"
    page = Player(app).client.get(f"/t/{tid}/plain").get_data(as_text=True)
    assert "&lt;script&gt;x&lt;/script&gt;" in page and "<script>x" not in page
    error(Player(app).act(tid, "chat", expect=None, text="hola"), 403, "not_seated")
    error(ana.act(tid, "taunt", expect=None, taunt_id="t1"), 403, "not_winner")
    ana.act(tid, "start")
    st = ana.act(tid, "set_level", robot_level="facil").get_json()["state"]
    assert st["table"]["hand_level"] == "normal"  # the level applies from the next hand
    near_the_end(app, tid, [30, 45, 40, 44])
    rng = random.Random(3)
    for _ in range(400):
        st = wait_until(lambda: my_move(ana, tid, 0), 20)
        view = st["view"]
        if view["phase"] == "game_over":
            break
        if view["phase"] == "counting":
            ana.act(tid, "close_count")
            continue
        action = robots.decide(view, "facil", rng)
        ana.act(tid, action.pop("type"), **action)
    assert st["table"]["status"] == "finished"
    winners = st["view"]["game_result"]["winners"]
    error(ana.act(tid, "taunt", expect=None, taunt_id="zz"), 400, "bad_taunt")
    if 0 in winners:
        st = ana.act(tid, "taunt", taunt_id="t2").get_json()["state"]
        assert st["chat"][-1]["kind"] == "taunt"
    else:
        error(ana.act(tid, "taunt", expect=None, taunt_id="t2"), 403, "not_winner")
    assert all(s["wants_rematch"] for s in st["table"]["seats"][1:])
    st = ana.act(tid, "rematch").get_json()["state"]
    assert st["table"]["game_number"] == 2 and st["table"]["status"] == "playing"
    assert st["view"]["hand_number"] == 1 and st["view"]["totals"] == [0, 0, 0, 0]
    assert st["table"]["hand_level"] == "facil"


def test_rematch_waits_for_every_human(app):
    tid, (ana, beto) = lobby(app, humans=2, robots_=2, target=50)
    ana.act(tid, "start")
    near_the_end(app, tid, [45, 45, 45, 45])
    beto.act(tid, "leave")
    ana.act(tid, "leave")
    st = wait_until(lambda: (s := Player(app).state(tid))["table"]["status"] == "finished"
                    and s, 60)
    assert st["view"]["phase"] == "game_over"
    error(ana.act(tid, "rematch", expect=None), 403, "not_seated")


def test_levels_and_decks(app):
    tid, (ana, beto) = lobby(app, humans=2, robots_=2)
    error(beto.act(tid, "set_level", expect=None, robot_level="facil"), 403, "not_host")
    error(ana.act(tid, "set_level", expect=None, robot_level="x"), 400, "bad_level")
    st = ana.act(tid, "set_level", robot_level="facil").get_json()["state"]
    assert st["table"]["robot_level"] == st["table"]["hand_level"] == "facil"
    ana.act(tid, "start")
    st = ana.act(tid, "set_level", robot_level="dificil").get_json()["state"]
    assert st["table"]["robot_level"] == "dificil" and st["table"]["hand_level"] == "facil"
    watcher = Player(app)
    error(watcher.act(tid, "set_deck", expect=None, deck="otra"), 400, "bad_deck")
    st = watcher.act(tid, "set_deck", deck="jardin").get_json()["state"]
    assert st["me"]["deck"] == "jardin" and st["table"]["deck"] == "reino"
    assert ana.state(tid)["me"]["deck"] == "reino"
    assert watcher.state(tid)["me"]["deck"] == "jardin"


def test_seat_link_moves_a_seat_to_another_device(app):
    tid, (ana, beto) = lobby(app, humans=2, robots_=0)
    link = beto.state(tid)["me"]["seat_link"]
    phone = Player(app)
    page = phone.client.get(link)
    assert page.status_code == 200 and "USAR MI LUGAR AQUÍ" in page.get_data(as_text=True)
    assert beto.state(tid)["me"]["seat"] == 1  # the GET moved nothing
    r = phone.client.post(link, data={"csrf_token": phone.csrf})
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/t/{tid}")
    assert phone.state(tid)["me"]["seat"] == 1
    assert beto.state(tid)["me"]["seat"] is None
    r = Player(app)
    again = r.client.post(link, data={"csrf_token": r.csrf})
    assert again.status_code == 404
    assert phone.client.post(link, data={}).status_code == 400  # no CSRF token
    error(beto.act(tid, "reissue_link", expect=None, seat=1), 403, "not_host")
    old = phone.state(tid)["me"]["seat_link"]
    ana.act(tid, "reissue_link", seat=1)
    assert phone.state(tid)["me"]["seat_link"] != old


def test_openapi_document_matches_the_routes(app):
    doc = Player(app).client.get("/api/openapi.json").get_json()
    assert doc["openapi"].startswith("3.")
    routes = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/"):
            path = rule.rule.replace("<", "{").replace(">", "}")
            for method in rule.methods - {"HEAD", "OPTIONS"}:
                routes.add((path, method.lower()))
    documented = {(p, m) for p, ops in doc["paths"].items() for m in ops}
    assert routes - documented == set(), (
        "routes missing from /api/openapi.json: describe them with "
        "tables.openapi.register_paths(...) (and add them to docs/API.md)")
    assert documented - routes == set(), "documented routes that do not exist"
    mapping = doc["components"]["schemas"]["Action"]["discriminator"]["mapping"]
    assert set(mapping) == set(actions.HANDLERS)
    text = (ROOT / "docs" / "API.md").read_text(encoding="utf-8")
    for path, _ in routes:
        assert path.replace("{table_id}", "<id>") in text, f"{path} is missing from docs/API.md"
    for kind in kinds.ACTION_TYPES:
        assert f"`{kind}`" in text, kind


# ------------------------------------------------------------------ live updates


def test_poll_returns_at_once_times_out_and_wakes_on_change(app, monkeypatch):
    from tables import live

    tid, (ana,) = lobby(app, humans=1, robots_=0)
    v = ana.state(tid)["version"]
    body = ana.client.get(f"/api/tables/{tid}/poll?since=0").get_json()
    assert body["state"]["version"] == v and [e["version"] for e in body["log"]] == list(
        range(1, v + 1))
    # the real wait, watched: which time-out each poll waited with
    timeouts: list[float] = []
    real_wait = live.wait_for_version

    def watched_wait(table_id: str, since: int, timeout: float, *args: Any, **kw: Any) -> int:
        timeouts.append(timeout)
        return real_wait(table_id, since, timeout, *args, **kw)

    monkeypatch.setattr(live, "wait_for_version", watched_wait)
    body = ana.client.get(f"/api/tables/{tid}/poll?since={v}").get_json()
    assert body == {"version": v, "log": []} and timeouts == [2.0]  # POLL_TIMEOUT, then nothing
    app.config["POLL_TIMEOUT"] = 600.0  # read per request: only the change can end this one
    got: dict[str, Any] = {}

    def wait() -> None:
        got["body"] = Player(app).client.get(f"/api/tables/{tid}/poll?since={v}").get_json()

    th = threading.Thread(target=wait)
    th.start()
    wait_until(lambda: live._waiting.get(tid))  # the poll is waiting for a change
    ana.act(tid, "chat", text="¿hay alguien?")
    th.join(timeout=60)
    assert not th.is_alive(), "the change did not wake the poll"
    assert timeouts == [2.0, 600.0]
    assert got["body"]["log"][0]["text"] == "¿hay alguien?"


# ------------------------------------------------------------------ plain page, limits, expiry


def test_plain_page_plays_end_to_end_without_script(app):
    p = Player(app)
    r = p.client.post("/plain/new", data={"csrf_token": p.csrf, "host_name": "Ana",
                                          "target": "50", "renege": "impedido",
                                          "deck": "cuatro", "robot_level": "facil"})
    assert r.status_code == 302
    url = r.headers["Location"]
    tid = url.split("/t/")[1].split("/")[0]
    for seat in (1, 2, 3):
        p.client.post(url, data={"csrf_token": p.csrf, "type": "add_robot", "seat": str(seat)})
    page = p.client.get(url).get_data(as_text=True)
    assert page.count("ROBOT ") == 3 and "EMPEZAR LA PARTIDA" in page and "<script" not in page
    p.client.post(url, data={"csrf_token": p.csrf, "type": "start"})
    hand = p.state(tid)["view"]["hand"]
    r = p.client.post(url, data={"csrf_token": p.csrf, "type": "confirm_pass", "cards": hand[:3]})
    assert r.status_code == 302
    st = wait_until(lambda: (s := p.state(tid))["view"]["phase"] == "playing"
                    and s["view"]["turn"] == 0 and s, 20)
    card = st["view"]["legal"][0]
    p.client.post(url, data={"csrf_token": p.csrf, "type": "play", "card": card})
    st = p.state(tid)
    played = [c["card"] for t in st["view"]["tricks"] for c in t["cards"]] + \
        [c["card"] for c in st["view"]["trick"]]
    assert card in played
    r = p.client.post(url, data={"csrf_token": p.csrf, "type": "play", "card": "ZZ"},
                      follow_redirects=True)
    assert "Esa carta no existe" in r.get_data(as_text=True)


def test_rate_limits_on_creation_and_chat(migrated):
    app = make_app(migrated, RATELIMIT_CREATE="2 per minute", RATELIMIT_CHAT="3 per minute")
    try:
        p = Player(app)
        tid = p.create()
        p.create()
        error(p.post("/api/tables", {"host_name": "Ana"}), 429, "rate_limited")
        for _ in range(3):
            p.act(tid, "chat", text="hola")
        error(p.act(tid, "chat", expect=None, text="hola"), 429, "rate_limited")
        # a deck change wakes every page of the table too: it counts against the same limit
        error(p.act(tid, "set_deck", expect=None, deck="noche"), 429, "rate_limited")
        p.act(tid, "set_level", robot_level="facil")  # other actions are not limited
    finally:
        close_app(app)


def test_idle_tables_expire(app):
    from datetime import timedelta

    from tables.models import utcnow
    from tables.scheduler import expire_job

    old, (ana,) = lobby(app, humans=1, robots_=0)
    fresh = ana.create()
    with app.app_context():
        t = db.session.get(Table, old)
        t.updated_at = utcnow() - timedelta(days=31)
        db.session.commit()
    assert expire_job(app) >= 1
    error(ana.client.get(f"/api/tables/{old}"), 404, "not_found")
    assert ana.state(fresh)["table"]["id"] == fresh
    assert count_actions(app, old) == 0


def test_a_robot_whose_choice_fails_still_plays(app, monkeypatch):
    """A bug in robots/ (an exception, or a move the rules refuse) must not stall a table."""
    import robots as robots_pkg

    calls = {"n": 0}

    def broken(view: Any, level: str, rng: Any) -> dict[str, Any]:
        calls["n"] += 1
        if calls["n"] % 2:
            raise RuntimeError("robot bug")
        return {"type": "play", "card": "ZZ"} if view["phase"] == "playing" else {
            "type": "confirm_pass", "cards": ["2C"]}

    monkeypatch.setattr(robots_pkg, "decide", broken)
    tid, (ana,) = lobby(app, humans=1, robots_=3)
    ana.act(tid, "start")
    st = wait_until(lambda: (lambda s: s if s["view"]["pass_confirmed"][1:] == [True] * 3
                             else None)(ana.state(tid)), 20)
    assert calls["n"] >= 3 and st["view"]["phase"] == "passing"


def test_a_sit_retried_after_its_answer_was_lost_gets_the_same_answer(app):
    tid, (ana,) = lobby(app, humans=1, robots_=0)
    aid = "5f0c6a8e-2b1d-4c7a-9e3f-0a1b2c3d4e5f"
    phone = Player(app)  # its page gave it a device token: no row yet
    body = {"type": "sit", "name": "Beto", "action_id": aid}
    first = phone.post(f"/api/tables/{tid}/actions", body)
    assert first.get_json()["state"]["me"]["seat"] == 1
    # the answer never arrived: the page sends the same request again, from the same browser
    again = phone.post(f"/api/tables/{tid}/actions", body)
    assert again.status_code == 200 and again.get_json()["state"]["me"]["seat"] == 1
    assert again.get_json()["state"]["version"] == first.get_json()["state"]["version"]
    assert [s["kind"] for s in ana.state(tid)["table"]["seats"]] == ["human", "human", "empty",
                                                                     "empty"]


def test_a_retried_creation_gives_the_same_table(app):
    aid = "0d6b1f5e-8c4a-4f2b-9a7e-3c5d7e9f1a2b"
    ana = Player(app)
    body = {"host_name": "Ana", "action_id": aid}
    first = ana.post("/api/tables", body)
    again = ana.post("/api/tables", body)
    assert first.status_code == again.status_code == 201
    tid = first.get_json()["table_id"]
    assert again.get_json()["table_id"] == tid and len(tid) >= 22
    other = Player(app).post("/api/tables", {"host_name": "Ana", "action_id": aid[::-1]})
    assert other.get_json()["table_id"] != tid
