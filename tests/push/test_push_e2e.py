"""«Te toca» end to end in one process: a local push service receives the push for a seat whose
turn came from someone else's action; we decrypt it and check the VAPID JWT and the headers."""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select, update

from tables.db import db
from tables.models import PushOutbox, PushSubscription, PushTurn
from tables.push import drain, send_due_reminders
from tests.kit import Player, close_app, make_app, wait_until
from tests.push.pushkit import PushService, Subscriber, verify_vapid

CARD = re.compile(r"\b(10|[2-9TJQKA])[CDHS♠♥♦♣]\b")


@pytest.fixture()
def papp(migrated: str) -> Iterator[Any]:
    app = make_app(migrated, PUSH_INSECURE_ENDPOINTS=True, PUSH_SWEEP=0.2,
                   PUSH_BACKOFF=0.5, ROBOT_DELAY=0.0)
    yield app
    close_app(app)


def seat_table(app: Any, names: list[str], robots: int = 0) -> tuple[str, list[Any]]:
    players = [Player(app) for _ in names]
    tid = players[0].create(names[0])
    for p, name in zip(players[1:], names[1:], strict=True):
        p.act(tid, "sit", name=name)
    for seat in range(len(names), len(names) + robots):
        players[0].act(tid, "add_robot", seat=seat)
    return tid, players


def subscribe(p: Any, tid: str, sub: Subscriber, hide: bool = True) -> dict[str, Any]:
    r = p.post(f"/api/tables/{tid}/push", {"subscription": sub.subscription()})
    assert r.status_code == 200, r.get_json()
    if hide:  # the person leaves the page: from now on they are "away"
        assert p.post(f"/api/tables/{tid}/push/presence", {"visible": False}).status_code == 200
    return dict(r.get_json())


def view(p: Any, tid: str) -> dict[str, Any]:
    return dict(p.state(tid)["view"])


def play_until(ana: Any, tid: str, stop_seat: int, timeout: float = 20.0) -> dict[str, Any]:
    """Ana plays her turns (robots play theirs) until ``stop_seat`` must play."""

    def step() -> dict[str, Any] | None:
        v = view(ana, tid)
        if v["phase"] == "playing" and v["to_act"] == [stop_seat]:
            return v
        if v["phase"] == "playing" and v["to_act"] == [0]:
            ana.act(tid, "play", card=v["legal"][0], expect=None)
        return None

    return dict(wait_until(step, timeout))


@pytest.mark.db
def test_turn_push_is_encrypted_signed_and_names_the_table(
        papp: Any, push_service: PushService) -> None:
    tid, (ana, beto) = seat_table(papp, ["Ana", "Beto"], robots=2)
    sub = Subscriber(push_service, "beto")
    status = subscribe(beto, tid, sub)
    assert status["subscribed"] is True and status["seat"] == 1
    public_key = status["public_key"]
    assert public_key == papp.config["VAPID_PUBLIC_KEY"] and len(public_key) == 87

    answer = push_service.hold[sub.path] = threading.Event()
    ana.act(tid, "start")  # Beto must pass now, because of Ana's action
    assert push_service.to(sub.path) == []  # the move did not wait for the push service
    answer.set()
    (first,) = push_service.wait_for(sub.path)
    payload = sub.decrypt(first)
    assert payload["title"] == "Te toca"
    assert payload["body"] == "Mesa de Ana: elige tus 3 cartas y pasa"
    assert payload["tag"] == f"corazones-{tid}"
    assert payload["url"] == f"/t/{tid}"
    assert payload["kind"] == "turn" and payload["turn"] == "g1:h1:pass"
    assert not CARD.search(json.dumps(payload, ensure_ascii=False)), payload
    verify_vapid(first, sub.endpoint, public_key)
    assert first.headers["ttl"] == "86400"
    assert first.headers["urgency"] == "high"
    topic = first.headers["topic"]
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,32}", topic) and tid not in topic

    # Passing: Beto first (his own action opens nothing), then Ana: play begins.
    beto.act(tid, "confirm_pass", cards=view(beto, tid)["hand"][:3])
    ana.act(tid, "confirm_pass", cards=view(ana, tid)["hand"][:3])
    v = play_until(ana, tid, 1)
    key = f"g1:h1:play:{len(v['tricks'])}:{len(v['trick'])}"
    pushes = push_service.wait_for(sub.path, 2)
    second = sub.decrypt(pushes[1])
    assert second["body"] == "Mesa de Ana: juega tu carta" and second["turn"] == key
    assert pushes[1].headers["topic"] == topic  # same table and seat: they collapse
    verify_vapid(pushes[1], sub.endpoint, public_key)
    assert len(push_service.to(sub.path)) == 2

    # Beto looks at the page: his next turn sends nothing.
    assert beto.post(f"/api/tables/{tid}/push/presence", {"visible": True}).status_code == 200
    beto.act(tid, "play", card=view(beto, tid)["legal"][0])
    v = play_until(ana, tid, 1)
    key2 = f"g1:h1:play:{len(v['tricks'])}:{len(v['trick'])}"
    st = beto.state(tid)
    last = beto.client.get(f"/api/tables/{tid}?since={st['version'] - 1}").get_json()["log"][-1]
    with papp.app_context():

        def turn_row() -> Any:
            row = db.session.execute(select(PushTurn).where(
                PushTurn.table_id == tid, PushTurn.turn_key == key2)).scalar_one_or_none()
            if row is None:
                db.session.rollback()  # a fresh snapshot on the next try (SQLite WAL keeps one)
            return row

        turn = wait_until(turn_row, 10)
        # Beto may have won the trick he closed: then his own card began this turn.
        assert turn.first == ("own_action" if last["seat"] == 1 else "visible")
        db.session.rollback()
    assert len(push_service.to(sub.path)) == 2

    # Still his turn after the host's delay, and he went away: one reminder, never a second.
    assert beto.post(f"/api/tables/{tid}/push/presence", {"visible": False}).status_code == 200
    with papp.app_context():
        db.session.execute(update(PushTurn).where(PushTurn.table_id == tid)
                           .values(remind_at=_past()))
        db.session.commit()
        assert send_due_reminders() == 1
        assert send_due_reminders() == 0
    pushes = push_service.wait_for(sub.path, 3)
    reminder = sub.decrypt(pushes[2])
    assert reminder["kind"] == "reminder" and reminder["turn"] == key2
    assert reminder["body"] == "Mesa de Ana: sigue siendo tu turno, juega tu carta"
    with papp.app_context():  # a sweep of the outbox, here and now: nothing more to send
        drain()
        db.session.remove()
    assert len(push_service.to(sub.path)) == 3


def _past() -> Any:
    from datetime import timedelta

    from tables.models import utcnow

    return utcnow() - timedelta(minutes=1)


@pytest.mark.db
def test_subscribe_status_settings_and_unsubscribe(papp: Any, push_service: PushService) -> None:
    tid, (ana, beto) = seat_table(papp, ["Ana", "Beto"])
    watcher = Player(papp)
    sub = Subscriber(push_service, "b")
    api = f"/api/tables/{tid}/push"
    r = watcher.post(api, {"subscription": sub.subscription()})
    assert r.status_code == 403 and r.get_json()["error"] == "not_seated"
    bad = sub.subscription()
    bad["keys"]["auth"] = "short"
    assert beto.post(api, {"subscription": bad}).get_json()["error"] == "bad_subscription"
    ftp = sub.subscription()
    ftp["endpoint"] = "ftp://127.0.0.1/x"
    assert beto.post(api, {"subscription": ftp}).status_code == 400
    assert beto.post(api, {"subscription": sub.subscription()}, csrf=False).status_code == 400
    assert beto.client.get(api).get_json()["subscribed"] is False
    subscribe(beto, tid, sub)
    st = beto.client.get(api).get_json()
    assert st["subscribed"] is True and st["reminder_hours"] == 12 and st["is_host"] is False
    assert papp.test_client().get("/api/push/key").get_json()["public_key"] == st["public_key"]

    r = beto.post(f"{api}/settings", {"reminder_hours": 3})
    assert r.status_code == 403 and r.get_json()["error"] == "not_host"
    assert ana.post(f"{api}/settings", {"reminder_hours": 5}).status_code == 400
    assert ana.post(f"{api}/settings", {"reminder_hours": 3}).get_json()["reminder_hours"] == 3
    assert beto.client.get(api).get_json()["reminder_hours"] == 3

    assert beto.post(f"{api}/off", {}).get_json()["subscribed"] is False
    with papp.app_context():
        assert db.session.execute(select(PushSubscription).where(
            PushSubscription.table_id == tid)).first() is None


def test_service_worker_and_manifest_at_the_root(papp: Any) -> None:
    c = papp.test_client()
    with c.get("/sw.js") as sw:  # a file answer: closed when done
        assert sw.status_code == 200 and sw.headers["Service-Worker-Allowed"] == "/"
        assert "javascript" in sw.content_type
        assert b"notificationclick" in sw.data and b"showNotification" in sw.data
    with c.get("/manifest.webmanifest") as m:
        assert m.status_code == 200 and m.content_type.startswith("application/manifest+json")
        doc = json.loads(m.data)
    assert doc["name"] == "Corazones" and doc["display"] == "standalone"
    sizes = {i["sizes"] for i in doc["icons"]}
    assert {"192x192", "512x512"} <= sizes
    tid = Player(papp).create("Ana")
    per_table = json.loads(c.get(f"/t/{tid}/manifest.webmanifest").data)
    assert per_table["start_url"] == f"/t/{tid}" and per_table["name"] == "Corazones · Mesa de Ana"
    assert per_table["icons"] == doc["icons"]
    assert c.get("/t/nope/manifest.webmanifest").status_code == 404
    for icon in doc["icons"]:
        with c.get(icon["src"]) as r:
            assert r.status_code == 200, icon
            data = r.data
        if icon["type"] == "image/png":
            assert data[:8] == b"\x89PNG\r\n\x1a\n"
            w, h = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
            assert f"{w}x{h}" == icon["sizes"]


@pytest.mark.db
def test_push_service_failures_delete_retry_and_log(
        papp: Any, push_service: PushService, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="corazones.push")
    push_service.on("/push/gone", (410, {}))
    push_service.on("/push/missing", (404, {}))
    push_service.on("/push/busy", (429, {"Retry-After": "2"}), (201, {}))
    push_service.on("/push/flaky", (500, {}), (503, {"Retry-After": "1"}), (201, {}))
    push_service.on("/push/bad", (400, {}))
    slow_answer = push_service.hold["/push/slow"] = threading.Event()
    t1, (ana, beto, cata, dani) = seat_table(papp, ["Ana", "Beto", "Cata", "Dani"])
    t2, (ana2, eva, fede, gus) = seat_table(papp, ["Ana", "Eva", "Fede", "Gus"])
    subs = {}
    for tid, p, name in ((t1, beto, "gone"), (t1, cata, "busy"), (t1, dani, "flaky"),
                         (t2, eva, "missing"), (t2, fede, "bad"), (t2, gus, "slow")):
        subs[name] = Subscriber(push_service, name)
        subscribe(p, tid, subs[name])

    for host, tid in ((ana2, t2), (ana, t1)):  # a push service that does not answer...
        r = host.act(tid, "start")
        assert r.get_json()["state"]["table"]["status"] == "playing"
    assert push_service.to("/push/slow") == []  # ...has not answered, and never held a move
    slow_answer.set()

    def subscription_gone(endpoint: str) -> bool:
        with papp.app_context():
            row = db.session.execute(select(PushSubscription.id).where(
                PushSubscription.endpoint == endpoint)).first()
            db.session.rollback()
            return row is None

    for name in ("gone", "missing"):
        push_service.wait_for(subs[name].path)
        wait_until(lambda n=name: subscription_gone(subs[n].endpoint), 10)
    busy = push_service.wait_for("/push/busy", 2, timeout=20)
    # the waits asked for are the rule under test; a slow machine only makes the gaps longer
    assert busy[1].at - busy[0].at >= 1.9  # Retry-After honoured
    flaky = push_service.wait_for("/push/flaky", 3, timeout=20)
    assert flaky[2].at - flaky[1].at >= 0.9
    assert [r.status for r in flaky] == [500, 503, 201]
    assert subs["flaky"].decrypt(flaky[2])["body"] == "Mesa de Ana: elige tus 3 cartas y pasa"
    push_service.wait_for("/push/slow", timeout=20)
    push_service.wait_for("/push/bad")

    def outbox(name: str) -> str | None:
        with papp.app_context():
            st = db.session.execute(select(PushOutbox.status).join(
                PushSubscription, PushSubscription.id == PushOutbox.subscription_id).where(
                PushSubscription.endpoint == subs[name].endpoint)).scalar_one_or_none()
            db.session.rollback()
            return st

    wait_until(lambda: outbox("bad") == "failed", 10)
    wait_until(lambda: outbox("busy") == "sent" and outbox("flaky") == "sent", 10)
    assert not subscription_gone(subs["bad"].endpoint)  # a 400 keeps the subscription
    with papp.app_context():  # a sweep of the outbox, here and now: the refused one stays
        drain()
        db.session.remove()
    assert len(push_service.to("/push/bad")) == 1  # not retried
    assert len(push_service.to("/push/gone")) == 1
    logs = caplog.text
    assert "push refused (400)" in logs
    assert "push subscription gone (410)" in logs and "push subscription gone (404)" in logs
    assert "push answered 429: retry in 2 s" in logs
    # The moves went on: everyone can still pass.
    for p, tid in ((beto, t1), (eva, t2)):
        p.act(tid, "confirm_pass", cards=view(p, tid)["hand"][:3])


def test_endpoints_only_on_push_services() -> None:
    from tables.push.net import endpoint_ok

    assert endpoint_ok("https://fcm.googleapis.com/fcm/send/abc", False)
    assert endpoint_ok("https://updates.push.services.mozilla.com/wpush/v2/x", False)
    assert endpoint_ok("https://web.push.apple.com/QGx", False)
    assert endpoint_ok("https://wns2-by3p.notify.windows.com/w/?token=x", False)
    assert not endpoint_ok("https://evil.example/fcm.googleapis.com", False)
    assert not endpoint_ok("https://fcm.googleapis.com.evil.example/x", False)
    assert not endpoint_ok("http://fcm.googleapis.com/fcm/send/abc", False)
    assert not endpoint_ok("https://user:pw@fcm.googleapis.com/x", False)
    assert endpoint_ok("https://push.example.org/x", False, ("push.example.org",))
    assert endpoint_ok("http://127.0.0.1:9/push/x", True)


def test_rematch_turns_only_once_someone_asked() -> None:
    from tables.models import Seat, Table
    from tables.push.delivery import push_duties
    from tables.seating import Duty

    table = Table(id="t", status="finished", game_number=2, game_json=None)
    seats = [Seat(seat=i, kind=k, left=False, wants_rematch=False, standin=False)
             for i, k in enumerate(["human", "human", "robot", "human"])]
    assert push_duties(table, seats) == []  # the game just ended: nobody is asked yet
    seats[1].wants_rematch = True
    assert push_duties(table, seats) == [Duty(0, "g2:rematch", "rematch"),
                                         Duty(3, "g2:rematch", "rematch")]
    seats[3].left = True
    assert [d.seat for d in push_duties(table, seats)] == [0]
