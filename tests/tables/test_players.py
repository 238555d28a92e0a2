"""The player beyond one table: the name kept and prefilled, the profile moved to another browser
once, Mis mesas (order, contents, the waits), the device-wide push subscription. Through Flask's
test client; every test also runs on PostgreSQL (db mark)."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text

import robots
from tables import identity, players
from tables.db import db
from tables.models import ClockSeat, Device, PushDevice, PushSubscription, utcnow
from tables.seating import duties, load_game, load_seats, locked_table
from tests.kit import Player, error

pytestmark = pytest.mark.db

ROOT = Path(__file__).resolve().parent.parent.parent

SUB = {"endpoint": "https://fcm.googleapis.com/fcm/send/abc123",
       "keys": {"p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1X"
                          "bjhazAkj7I99e8QcYP7DkM",
                "auth": "tBHItJI5svbpez7KI4CCXg"}}




def me(p: Player) -> dict[str, Any]:
    r = p.client.get("/api/me")
    assert r.status_code == 200
    return dict(r.get_json())


def mine(p: Player) -> dict[str, Any]:
    r = p.client.get("/api/me/tables")
    assert r.status_code == 200
    return dict(r.get_json())


def open_table(p: Player, host: str = "Ana", table_name: str | None = None) -> str:
    body: dict[str, Any] = {"host_name": host, "target": 50}
    if table_name:
        body["name"] = table_name
    r = p.post("/api/tables", body)
    assert r.status_code == 201, r.get_json()
    return str(r.get_json()["table_id"])


def with_robots(p: Player, host: str = "Ana", robots_: int = 3, name: str | None = None) -> str:
    tid = open_table(p, host, name)
    for seat in range(1, 1 + robots_):
        p.act(tid, "add_robot", seat=seat)
    return tid


def token_of(link: str) -> str:
    m = re.fullmatch(r"/llevar/([0-9a-f]{40})", link)
    assert m, link
    return m.group(1)


def take(p: Player, link: str) -> Any:
    return p.client.post(link, data={"csrf_token": p.csrf})


def device_hash(p: Player) -> str:
    cookie = p.client.get_cookie(identity.COOKIE)
    assert cookie is not None
    return hashlib.sha256(cookie.value.encode()).hexdigest()


# ------------------------------------------------------------------ the name


def test_the_name_is_kept_prefilled_changeable_and_only_for_its_device(app: Any) -> None:
    ana, beto, stranger = Player(app), Player(app), Player(app)
    assert me(stranger) == {"name": "", "profile": False, "waiting": 0, "tables": 0,
                            "move_url": None}
    tid = ana.create("Ana")
    assert me(ana)["name"] == "Ana" and me(ana)["profile"] is True
    beto.act(tid, "sit", name="Beto")
    assert me(beto)["name"] == "Beto" and me(ana)["name"] == "Ana"
    # prefilled: ABRIR MESA on the home page, the sit form of a new table's page
    home = ana.client.get("/").get_data(as_text=True)
    assert re.search(r'id="host-name"[^>]*value="Ana"', home)
    other = ana.create("Ana")
    page = beto.client.get(f"/t/{other}").get_data(as_text=True)
    assert 'data-my-name="Beto"' in page
    assert 'data-my-name=""' in stranger.client.get(f"/t/{other}").get_data(as_text=True)
    # the last one used: sitting with another name keeps that one
    beto.act(other, "sit", name="Bea")
    assert me(beto)["name"] == "Bea"
    # changeable; bad names change nothing
    assert beto.post("/api/me", {"name": "  Beatriz "}).get_json()["name"] == "Beatriz"
    error(beto.post("/api/me", {"name": ""}), 400, "bad_name")
    error(beto.post("/api/me", {"name": "x" * 40}), 400, "bad_name")
    error(beto.post("/api/me", {"name": "ROBOT Carmen"}), 400, "bad_name")
    error(beto.post("/api/me", ["Beto"]), 400, "bad_json")
    assert beto.post("/api/me", {"name": "Beto"}, csrf=False).status_code == 400
    assert me(beto)["name"] == "Beatriz"
    # seats already taken keep their names
    assert [s["name"] for s in ana.state(other)["table"]["seats"][:2]] == ["Ana", "Bea"]
    # a browser with nothing kept gets a row with its first name, and the name only
    newcomer = Player(app)
    assert newcomer.post("/api/me", {"name": "Nora"}).get_json()["profile"] is True
    assert me(newcomer)["name"] == "Nora" and mine(newcomer)["tables"] == []


# ------------------------------------------------------------------ moving the profile


def test_the_profile_moves_once_and_the_old_browser_holds_nothing(app: Any) -> None:
    ana, phone2, beto = Player(app), Player(app), Player(app)
    lobby_tid = ana.create("Ana")
    beto.act(lobby_tid, "sit", name="Beto")
    playing = with_robots(ana, "Ana")
    ana.act(playing, "start")
    assert ana.state(playing)["me"]["seat"] == 0
    error(Player(app).post("/api/me/move", {}), 403, "no_profile")
    link = ana.post("/api/me/move", {}).get_json()["move_url"]
    assert me(ana)["move_url"] == link
    token = token_of(link)
    old_hash = device_hash(ana)
    assert identity._known.get(old_hash) is not None  # this process knows Ana's cookie

    # The receiving page reads only: opening it (or a chat app's preview) uses nothing up.
    for _ in range(2):
        page = phone2.client.get(link)
        assert page.status_code == 200
        html = page.get_data(as_text=True)
        assert "Traer el perfil de Ana" in html and "TRAER MI PERFIL AQUÍ" in html
    # Ana's own browser cannot use it on itself
    assert "tu perfil ya está en este" in ana.client.get(link).get_data(as_text=True)
    r = take(ana, link)
    assert r.status_code == 409 and "otro teléfono" in r.get_data(as_text=True)
    # without the CSRF token: refused, nothing moves
    assert phone2.client.post(link).status_code == 400
    assert ana.state(playing)["me"]["seat"] == 0

    r = take(phone2, link)
    assert r.status_code == 302 and r.headers["Location"].endswith("/mis-mesas")
    # the new browser is the player: seats, host powers, hand, name, Mis mesas
    st = phone2.state(playing)
    assert st["me"]["seat"] == 0 and st["me"]["is_host"] is True and st["view"]["hand"]
    assert phone2.state(lobby_tid)["me"]["seat"] == 0
    assert me(phone2)["name"] == "Ana" and me(phone2)["move_url"] is None
    assert {t["table_id"] for t in mine(phone2)["tables"]} == {lobby_tid, playing}
    # the old browser holds nothing: no seat, no hand, no name, no tables; acts as a stranger
    assert old_hash not in identity._known
    st = ana.state(playing)
    assert st["me"]["seat"] is None and st["me"]["is_host"] is False
    assert "hand" not in (st["view"] or {}) or not st["view"].get("hand")
    assert me(ana) == {"name": "", "profile": False, "waiting": 0, "tables": 0,
                       "move_url": None}
    assert mine(ana)["tables"] == []
    error(ana.act(playing, "chat", expect=None, text="hola"), 403, "not_seated")
    error(ana.act(lobby_tid, "add_robot", expect=None, seat=2), 403, "not_host")
    error(ana.post("/api/me/move", {}), 403, "no_profile")
    # the link worked once
    r = take(Player(app), link)
    assert r.status_code == 404 and "ya no sirve" in r.get_data(as_text=True)
    assert Player(app).client.get(link).status_code == 404
    assert phone2.state(playing)["me"]["seat"] == 0
    with app.app_context():
        assert db.session.execute(select(Device.id).where(Device.token_hash == old_hash)
                                  ).first() is None
        assert db.session.execute(select(Device.move_hash).where(
            Device.move_hash == hashlib.sha256(token.encode()).hexdigest())).first() is None
        db.session.rollback()


def test_a_reissued_link_voids_the_old_one_and_bad_links_change_nothing(app: Any) -> None:
    ana = Player(app)
    tid = ana.create("Ana")
    first = ana.post("/api/me/move", {}).get_json()["move_url"]
    second = ana.post("/api/me/move", {}).get_json()["move_url"]
    assert first != second and me(ana)["move_url"] == second
    for bad in (first, "/llevar/" + "0" * 40, "/llevar/xyz", "/llevar/" + second[8:].upper()):
        r = take(Player(app), bad)
        assert r.status_code == 404, bad
        assert ana.state(tid)["me"]["seat"] == 0
    # voided: no link works until a new one is issued
    assert ana.post("/api/me/move/off", {}).get_json()["move_url"] is None
    assert take(Player(app), second).status_code == 404
    third = ana.post("/api/me/move", {}).get_json()["move_url"]
    phone = Player(app)
    assert take(phone, third).status_code == 302
    assert phone.state(tid)["me"]["seat"] == 0


def test_a_receiver_with_unfinished_tables_is_refused_else_its_profile_is_let_go(
        app: Any) -> None:
    ana, beto, nora = Player(app), Player(app), Player(app)
    ana_table = ana.create("Ana")
    beto_table = beto.create("Beto")
    link = ana.post("/api/me/move", {}).get_json()["move_url"]
    page = beto.client.get(link).get_data(as_text=True)
    assert "termina o abandona esas partidas" in page and "TRAER MI PERFIL" not in page
    r = take(beto, link)
    assert r.status_code == 409 and "como Beto" in r.get_data(as_text=True)
    assert ana.state(ana_table)["me"]["seat"] == 0 and beto.state(beto_table)["me"]["seat"] == 0
    assert me(ana)["move_url"] == link  # still good
    # Nora has a profile but no table: it is let go (the page says so first)
    nora.post("/api/me", {"name": "Nora"})
    assert nora.post("/api/push/device", {"subscription": SUB}).status_code == 200
    page = nora.client.get(link).get_data(as_text=True)
    assert "ya tiene un perfil (Nora)" in page
    with app.app_context():
        noras_old = db.session.execute(select(Device.id).where(
            Device.token_hash == device_hash(nora))).scalar_one()
        db.session.rollback()
    assert take(nora, link).status_code == 302
    assert me(nora)["name"] == "Ana" and nora.state(ana_table)["me"]["seat"] == 0
    with app.app_context():  # Nora's old subscription went with her old profile
        assert db.session.execute(select(PushDevice).where(
            PushDevice.device_id == noras_old)).first() is None
        db.session.rollback()


def test_a_cookie_hash_is_believed_long_only_within_the_subscription_it_was_looked_up_in(
) -> None:
    """While Redis stays subscribed every moved-device notice arrives, so a known cookie hash
    is believed for an hour; once the subscription ends or is renewed (notices may have been
    lost meanwhile), only for KNOWN_TTL from its lookup."""
    saved = identity._subscription, identity._subscribed
    try:
        identity.notices_changed(True)
        looked_up_in = identity._subscription
        assert identity._trust(looked_up_in) == identity.KNOWN_TTL_NOTIFIED
        identity.notices_changed(False)  # Redis lost
        assert identity._trust(looked_up_in) == identity.KNOWN_TTL
        assert identity._trust(identity._subscription) == identity.KNOWN_TTL
        identity.notices_changed(True)  # subscribed again: the old entry is not covered
        assert identity._trust(looked_up_in) == identity.KNOWN_TTL
        assert identity._trust(identity._subscription) == identity.KNOWN_TTL_NOTIFIED
        assert identity.KNOWN_TTL < identity.KNOWN_TTL_NOTIFIED
    finally:
        identity._subscription, identity._subscribed = saved


def test_a_moved_cookie_is_forgotten_by_other_processes_through_redis(migrated: str) -> None:
    """Another web process (a subprocess with Redis) forgets a cookie hash on the notice."""
    script = textwrap.dedent("""
        import sys, time
        from tables import identity, live
        from tests.kit import make_app
        app = make_app(sys.argv[1], REDIS_URL="redis://127.0.0.1:6379/0", ROBOT_WORKER="off")
        digest = "e" * 64
        end = time.monotonic() + 10
        while not live._listening and time.monotonic() < end:
            time.sleep(0.02)
        # known within this subscription: believed for an hour, but for the notice
        identity._known[digest] = (123456, time.monotonic(), identity._subscription)
        assert identity._trust(identity._subscription) == identity.KNOWN_TTL_NOTIFIED
        print("listening", flush=True)
        while digest in identity._known and time.monotonic() < end:
            time.sleep(0.02)
        print("forgotten" if digest not in identity._known else "kept", flush=True)
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("REDIS_URL", None)
    proc = subprocess.Popen([sys.executable, "-c", "import sys; exec(sys.stdin.read())",
                             migrated],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
                            cwd=ROOT)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(script)
    proc.stdin.close()
    try:
        assert proc.stdout.readline().strip() == "listening"
        import redis as redis_lib

        from tables import live

        redis_lib.Redis.from_url("redis://127.0.0.1:6379/0").publish(
            live.CHANNEL, f"{live.DEVICE_MOVED} {'e' * 64}")
        assert proc.stdout.readline().strip() == "forgotten"
    finally:
        proc.wait(20)
        proc.stdout.close()


# ------------------------------------------------------------------ Mis mesas


def _finish_game(app: Any, p: Player, tid: str) -> None:
    with app.app_context(), locked_table(tid) as t:
        assert t is not None and t.game_json is not None
        data = dict(t.game_json)
        data["totals"] = [45, 45, 45, 45]
        t.game_json = data
    rng = random.Random(5)
    for _ in range(400):
        st = p.state(tid)
        v = st["view"]
        if st["table"]["status"] == "finished":
            return
        if v["phase"] == "counting":
            p.act(tid, "close_count", expect=None)
        elif 0 in v["to_act"]:
            action = robots.decide(v, "facil", rng)
            p.act(tid, action.pop("type"), expect=None, **action)
        else:
            time.sleep(0.02)
    raise AssertionError("the game did not end")


def test_mis_mesas_lists_every_table_te_toca_first(app: Any) -> None:
    ana, beto = Player(app), Player(app)
    finished = with_robots(ana)
    ana.act(finished, "start")
    _finish_game(app, ana, finished)
    lobby = open_table(ana, "Ana", "Mesa del lobby")
    beto.act(lobby, "sit", name="Beto")
    # Beto's turn to pass, not Ana's (she passed): playing
    theirs = open_table(ana, "Ana", "Mesa de Beto")
    beto.act(theirs, "sit", name="Beto")
    for seat in (2, 3):
        ana.act(theirs, "add_robot", seat=seat)
    ana.act(theirs, "start")
    ana.act(theirs, "confirm_pass", cards=ana.state(theirs)["view"]["hand"][:3])
    # two tables waiting for Ana; the older wait first
    older = with_robots(ana, name="Mesa vieja")
    ana.act(older, "start")
    newer = with_robots(ana, name="Mesa nueva")
    ana.act(newer, "start")
    with app.app_context():
        db.session.execute(text("UPDATE clock_seats SET started_at = :t WHERE table_id = :id"
                                " AND seat = 0"),
                           {"t": utcnow().replace(microsecond=0) - _hours(3), "id": older})
        db.session.commit()

    out = mine(ana)
    order = [(t["table_id"], t["group"]) for t in out["tables"]]
    assert order[:2] == [(older, "turn"), (newer, "turn")]
    assert order[2:] == [(theirs, "playing"), (lobby, "lobby"), (finished, "finished")]
    assert out["waiting"] == 2 and out["counts"] == {"turn": 2, "playing": 1, "lobby": 1,
                                                     "finished": 1}
    by_id = {t["table_id"]: t for t in out["tables"]}
    old = by_id[older]
    assert old["duty"] == "pass" and old["url"] == f"/t/{older}" and old["name"] == "Mesa vieja"
    assert 3 * 3600 <= old["waited_seconds"] < 3 * 3600 + 120
    assert old["players"] == ["ROBOT Carmen", "ROBOT Tito", "ROBOT Luna"]
    assert by_id[newer]["waited_seconds"] < 120
    assert by_id[theirs]["duty"] is None and by_id[theirs]["players"][0] == "Beto"
    assert by_id[lobby]["empty_seats"] == 2 and by_id[lobby]["is_host"] is True
    assert by_id[finished]["games"] == [{"number": 1, "url": f"/t/{finished}/partidas/1"}]
    assert by_id[finished]["status"] == "finished" and by_id[finished]["waiting_since"] is None
    # Beto sees his own: his pass waits at «Mesa de Beto»
    b = mine(beto)
    assert [(t["table_id"], t["group"], t["duty"]) for t in b["tables"]] == [
        (theirs, "turn", "pass"), (lobby, "lobby", None)]
    # the same «who must act» as duties(), table by table
    with app.app_context():
        for t in out["tables"]:
            from tables.models import Table

            table = db.session.get(Table, t["table_id"])
            seats = load_seats(t["table_id"])
            owed = [d for d in duties(table, seats, load_game(table)) if d.seat == 0]
            assert (t["group"] == "turn") == bool(owed), t
            if owed:
                assert t["duty"] == owed[0].what
        db.session.rollback()

    # the page, and the home page's list with how many wait
    page = ana.client.get("/mis-mesas").get_data(as_text=True)
    assert page.index("Mesa vieja") < page.index("Mesa nueva") < page.index("Mesa de Beto") \
        < page.index("Mesa del lobby")
    assert "Elige tus 3 cartas y pasa" in page and "hace 3 horas" in page
    assert f'href="/t/{finished}/partidas/1"' in page
    assert re.search(r"<b>2</b> mesas te esperan", page)
    home = ana.client.get("/").get_data(as_text=True)
    assert re.search(r"<b>2</b> mesas te esperan", home) and "Mesa vieja" in home
    assert 'href="/mis-mesas"' in home
    assert "Mis mesas" not in Player(app).client.get("/").get_data(as_text=True)
    empty = Player(app).client.get("/mis-mesas").get_data(as_text=True)
    assert "Todavía no tienes mesas" in empty


def test_counting_and_a_rematch_wait_for_their_players(app: Any) -> None:
    ana, beto = Player(app), Player(app)
    tid = ana.create("Ana")
    beto.act(tid, "sit", name="Beto")
    for seat in (2, 3):
        ana.act(tid, "add_robot", seat=seat)
    ana.act(tid, "start")
    with app.app_context(), locked_table(tid) as t:
        assert t is not None and t.game_json is not None
        data = dict(t.game_json)
        data["phase"] = "counting"  # what duties() reads: every person owes the count
        t.game_json = data
    for p in (ana, beto):
        (entry,) = mine(p)["tables"]
        assert entry["group"] == "turn" and entry["duty"] == "count"
        assert entry["waiting_since"] is not None


def _hours(n: int) -> Any:
    from datetime import timedelta

    return timedelta(hours=n)


# ------------------------------------------------------------------ one permission per device


def test_a_sit_that_brings_the_tables_first_subscription_leaves_the_push_hook_to_look(
        app: Any) -> None:
    """A sit's commit may carry the table's first subscription (the device's own, inherited in
    the sit's transaction): it must not tell the push hook that the table has none."""
    from tables import hooks

    ana, beto = Player(app), Player(app)
    ana.create("Ana")
    assert ana.post("/api/push/device", {"subscription": SUB}).get_json()["subscribed"] is True
    table = beto.create("Beto")  # nobody here takes pushes yet
    seen: list[Any] = []

    def keep(commit: Any) -> None:
        if commit.table_id == table:
            seen.append(commit)

    hooks.register(keep)
    try:
        beto.act(table, "chat", text="hola")  # a table without subscriptions says so
        ana.act(table, "sit", name="Ana")
    finally:
        hooks.unregister(keep)
    assert [c.subscribed for c in seen] == [False, None], seen
    assert ana.client.get(f"/api/tables/{table}/push").get_json()["subscribed"] is True


def test_one_subscription_serves_every_table_the_device_sits_at(app: Any) -> None:
    ana, beto = Player(app), Player(app)
    error(Player(app).post("/api/push/device", {"subscription": SUB}), 403, "not_seated")
    first = ana.create("Ana")
    second = ana.create("Ana")
    assert ana.client.get("/api/push/device").get_json()["subscribed"] is False
    bad = json.loads(json.dumps(SUB))
    bad["keys"]["auth"] = "x"
    error(ana.post("/api/push/device", {"subscription": bad}), 400, "bad_subscription")
    st = ana.post("/api/push/device", {"subscription": SUB}).get_json()
    assert st["subscribed"] is True and st["public_key"]
    # both tables, with no second subscribe
    for tid in (first, second):
        assert ana.client.get(f"/api/tables/{tid}/push").get_json()["subscribed"] is True
    # a table opened later, and one sat at later: the seat inherits it in its own transaction
    third = ana.create("Ana")
    fourth = beto.create("Beto")
    ana.act(fourth, "sit", name="Ana")
    for tid in (third, fourth):
        assert ana.client.get(f"/api/tables/{tid}/push").get_json()["subscribed"] is True
    assert beto.client.get(f"/api/tables/{fourth}/push").get_json()["subscribed"] is False
    with app.app_context():
        rows = db.session.execute(select(PushSubscription.table_id, PushSubscription.seat,
                                         PushSubscription.endpoint).where(
            PushSubscription.table_id.in_([first, second, third, fourth]))).all()
        db.session.rollback()
    assert sorted((r.table_id, r.seat) for r in rows) == sorted(
        [(first, 0), (second, 0), (third, 0), (fourth, 1)])
    assert {r.endpoint for r in rows} == {SUB["endpoint"]}
    # one table off leaves the others; the device off, all of them
    ana.post(f"/api/tables/{first}/push/off", {})
    assert ana.client.get(f"/api/tables/{first}/push").get_json()["subscribed"] is False
    assert ana.client.get(f"/api/tables/{second}/push").get_json()["subscribed"] is True
    assert ana.post("/api/push/device/off", {}).get_json()["subscribed"] is False
    for tid in (second, third, fourth):
        assert ana.client.get(f"/api/tables/{tid}/push").get_json()["subscribed"] is False
    # subscribing at one table is the device's subscription too: the other tables get it
    r = ana.post(f"/api/tables/{third}/push", {"subscription": SUB})
    assert r.status_code == 200 and r.get_json()["subscribed"] is True
    assert ana.client.get(f"/api/tables/{second}/push").get_json()["subscribed"] is True
    assert ana.client.get("/api/push/device").get_json()["subscribed"] is True
    # the moved profile leaves its subscriptions behind (they name the old browser)
    link = ana.post("/api/me/move", {}).get_json()["move_url"]
    phone = Player(app)
    assert take(phone, link).status_code == 302
    assert phone.client.get("/api/push/device").get_json()["subscribed"] is False
    assert phone.client.get(f"/api/tables/{second}/push").get_json()["subscribed"] is False


# ------------------------------------------------------------------ privacy


def test_no_device_id_or_token_in_any_answer(app: Any) -> None:
    ana, phone = Player(app), Player(app)
    tid = with_robots(ana)
    ana.act(tid, "start")
    ana.post("/api/push/device", {"subscription": SUB})
    link = ana.post("/api/me/move", {}).get_json()["move_url"]
    cookie = ana.client.get_cookie(identity.COOKIE)
    assert cookie is not None
    token = cookie.value
    with app.app_context():
        dev = db.session.execute(select(Device).where(
            Device.token_hash == identity.token_hash(token))).scalar_one()
        device_id, digest = dev.id, dev.token_hash
        db.session.rollback()
    answers = [ana.client.get(u).get_data(as_text=True)
               for u in ("/api/me", "/api/me/tables", "/mis-mesas", "/", "/api/push/device",
                         f"/t/{tid}")]
    answers.append(phone.client.get(link).get_data(as_text=True))
    blob = "\n".join(answers)
    assert token not in blob and digest not in blob
    for a in answers[:2] + [answers[4]]:
        assert not re.search(rf'"[a-z_]*device[a-z_]*"\s*:\s*{device_id}\b', a), a
        assert "device_id" not in a and "token_hash" not in a
    assert "p256dh" not in blob and SUB["endpoint"] not in blob
    # a hand's cards never show in Mis mesas
    hand = ana.state(tid)["view"]["hand"]
    for a in answers[:3]:
        assert not any(f'"{c}"' in a for c in hand)


def test_mis_mesas_is_two_queries_whatever_the_number_of_tables(app: Any) -> None:
    from sqlalchemy import event

    ana = Player(app)
    for _ in range(6):
        with_robots(ana, robots_=1)
    with app.app_context():
        device_id = db.session.execute(select(Device.id).where(
            Device.token_hash == device_hash(ana))).scalar_one()
        db.session.rollback()
        seen: list[str] = []

        me = threading.get_ident()

        def note(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
            # Only this thread's queries: the app's robot and analysis threads share the engine.
            if threading.get_ident() == me and statement.lstrip().upper().startswith("SELECT"):
                seen.append(statement)

        engines = {db.engine}
        from tables.db import _read_engine, is_sqlite

        if not is_sqlite():
            engines.add(_read_engine(db.engine))
        for eng in engines:
            event.listen(eng, "before_cursor_execute", note)
        try:
            out = players.my_tables(device_id)
        finally:
            for eng in engines:
                event.remove(eng, "before_cursor_execute", note)
        assert len(out["tables"]) == 6
        assert len(seen) == 2, seen
        assert db.session.execute(select(ClockSeat.id)).first() is not None
        db.session.rollback()
