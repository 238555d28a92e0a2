"""Issue 8: the pace, decision deadlines in rows, the stand-in robot, the seat that comes back.

Time is injected (``CLOCK_NOW``, a callable in the app's config), so hours pass in microseconds;
the restart test runs real server processes with a clock of a few seconds.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

import robots
from rules import Game, Options, view_for
from tables import clock, models, snapshot
from tables.db import db
from tables.models import Action, Table, utcnow
from tables.seating import locked_table
from tests.kit import HttpPlayer, Player, close_app, error, make_app, wait_until

pytestmark = pytest.mark.db


class FakeClock:
    def __init__(self) -> None:
        self.t = utcnow().replace(microsecond=0)  # the state shows milliseconds

    def __call__(self) -> datetime:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += timedelta(seconds=seconds)


@pytest.fixture()
def fake() -> FakeClock:
    return FakeClock()


@pytest.fixture()
def capp(migrated: str, fake: FakeClock) -> Iterator[Any]:
    application = make_app(migrated, CLOCK_NOW=fake)
    yield application
    close_app(application)




def table_with(app: Any, pace: str, humans: int = 2, **opts: Any) -> tuple[str, list[Player]]:
    host = Player(app)
    tid = host.create("Ana", pace=pace, **opts)
    players = [host]
    for name in ("Beto", "Carla", "Dani")[: humans - 1]:
        p = Player(app)
        p.act(tid, "sit", name=name)
        players.append(p)
    for seat in range(humans, 4):
        host.act(tid, "add_robot", seat=seat)
    host.act(tid, "start")
    return tid, players


def poll(p: Player, tid: str) -> dict[str, Any]:
    """What an open page's long-poll reads (not a visit)."""
    r = p.client.get(f"/api/tables/{tid}/poll?since=0")
    assert r.status_code == 200
    return dict(r.get_json()["state"])


def seat_clock(state: dict[str, Any], seat: int) -> dict[str, Any]:
    return dict(state["table"]["clock"]["seats"][seat])


def at(value: str) -> datetime:
    return datetime.fromisoformat(value.rstrip("Z"))


def run_clock(app: Any) -> int:
    with app.app_context():
        try:
            return clock.run_once()
        finally:
            db.session.remove()


def count(app: Any, tid: str, kind: str, seat: int | None = None) -> int:
    with app.app_context():
        q = db.session.query(Action).filter(Action.table_id == tid, Action.type == kind)
        if seat is not None:
            q = q.filter(Action.seat == seat)
        n = q.count()
        db.session.rollback()
        return int(n)


def pass_three(p: Player, tid: str) -> None:
    st = poll(p, tid)
    p.act(tid, "confirm_pass", cards=st["view"]["hand"][:3])


# ------------------------------------------------------------------ the paces


@pytest.mark.parametrize("pace,grace,expires", [
    ("sin_reloj", None, 24 * 3600),
    ("turno_1h", 3600, 3600),
    ("turno_12h", 12 * 3600, 12 * 3600),
    ("turno_24h", 24 * 3600, 24 * 3600),
    ("en_vivo", 30, 30 + 90),  # passing: 30 s of grace, then the hand's 90 s reserve
])
def test_each_pace_deadline_time_up_once_and_the_standin(capp, fake, pace, grace, expires):
    tid, (ana, beto) = table_with(capp, pace)
    st = ana.state(tid)
    assert st["table"]["pace"] == pace and st["table"]["pace_label"]
    assert {p["id"] for p in st["table"]["paces"]} == set(clock.PACES)
    assert st["view"]["phase"] == "passing"
    c = seat_clock(st, 1)
    assert c["waiting"] and not c["time_up"] and not c["can_standin"]
    started = at(c["started_at"])
    assert started == fake.t
    if grace is None:
        assert c["deadline"] is None
    else:
        assert at(c["deadline"]) - started == timedelta(seconds=grace)
    assert at(c["expires_at"]) - started == timedelta(seconds=expires)
    assert at(st["table"]["clock"]["now"]) == fake.t
    # robots owe no clock; the host's own time runs too
    assert not seat_clock(st, 2)["waiting"] and seat_clock(st, 0)["waiting"]

    fake.advance(expires - 1)
    run_clock(capp)  # (other tests' tables share the database: count this table's entries)
    assert count(capp, tid, "time_up") == 0
    error(ana.act(tid, "standin", expect=None, seat=1), 409, "time_left")
    pass_three(ana, tid)  # Ana decides in time: her seat is done

    fake.advance(2)
    run_clock(capp)
    assert count(capp, tid, "time_up", seat=1) == 1  # Beto's time is up: exactly once
    run_clock(capp)
    assert count(capp, tid, "time_up") == 1
    st = ana.state(tid)
    assert seat_clock(st, 1)["time_up"] and seat_clock(st, 1)["can_standin"]
    assert not seat_clock(beto.state(tid), 1)["can_standin"]  # not for oneself
    error(beto.act(tid, "standin", expect=None, seat=1), 409, "self_standin")
    error(Player(capp).act(tid, "standin", expect=None, seat=1), 403, "not_seated")
    error(ana.act(tid, "standin", expect=None, seat=2), 409, "not_human")
    error(ana.act(tid, "standin", expect=None, seat=0), 409, "self_standin")

    st = ana.act(tid, "standin", seat=1).get_json()["state"]
    seat = st["table"]["seats"][1]
    assert seat["standin"] and seat["label"] == "ROBOT por Beto" and seat["kind"] == "human"
    error(ana.act(tid, "standin", expect=None, seat=1), 409, "already_standin")
    # the stand-in passes for Beto
    wait_until(lambda: poll(ana, tid)["view"]["pass_confirmed"][1], 10)
    assert count(capp, tid, "confirm_pass", seat=1) == 1


def test_live_reserve_is_spent_beyond_the_grace_and_renewed_each_hand(capp, fake):
    tid, (ana, beto) = table_with(capp, "en_vivo")
    fake.advance(10)
    pass_three(ana, tid)  # within the grace: nothing spent
    fake.advance(40)  # Beto passes 20 s after his 30 s of grace
    pass_three(beto, tid)
    with capp.app_context():
        rows = {r.seat: r for r in db.session.query(models.ClockSeat).filter_by(table_id=tid)}
        assert rows[0].reserve_left == 90 and rows[1].reserve_left == pytest.approx(70)
        db.session.rollback()
    st = wait_until(lambda: (s := poll(ana, tid))["view"]["phase"] == "playing"
                    and s["view"]["turn"] in (0, 1) and s, 10)  # robots play at once
    turn = st["view"]["turn"]
    c = seat_clock(st, turn)
    assert at(c["deadline"]) - at(c["started_at"]) == timedelta(seconds=15)
    left = 90 if turn == 0 else 70
    assert at(c["expires_at"]) - at(c["deadline"]) == timedelta(seconds=left)
    fake.advance(20)  # 5 s into the reserve: the page sees it draining
    assert seat_clock(ana.state(tid), turn)["reserve_left"] == pytest.approx(left - 5)


# ------------------------------------------------------------------ the stand-in


def replay_checking_standin(app: Any, tid: str, seat: int) -> tuple[int, list[str]]:
    """Replay the game from the log; every decision the stand-in (no device) made for ``seat``
    must have been legal in the position it faced. Returns (its decisions, its cards played)."""
    with app.app_context():
        t = db.session.get(Table, tid)
        rows = [(r.type, r.seat, r.device_id, dict(r.payload)) for r in
                db.session.query(Action).filter(Action.table_id == tid).order_by(Action.version)]
        target, renege = t.target, t.renege
        db.session.rollback()
    game = Game(Options(target=target, renege=renege))
    checked, plays = 0, []
    for kind, who, device, payload in rows:
        if kind not in ("deal", "choose_pass", "confirm_pass", "play", "accuse", "close_count"):
            continue
        if who == seat and device is None and kind in ("play", "confirm_pass"):
            view = view_for(game, seat)
            if kind == "play":
                assert payload["card"] in view["legal"], (payload, view["legal"])
                plays.append(payload["card"])
            else:
                assert set(payload.get("cards") or view["pass_selected"]) <= set(view["hand"])
            checked += 1
        game.apply(payload)
    return checked, plays


def my_turn(p: Player, tid: str, seat: int) -> dict[str, Any] | None:
    st = poll(p, tid)
    v = st["view"]
    if v["phase"] in ("counting", "game_over") or seat in v["to_act"]:
        return st
    return None


def test_standin_plays_legal_cards_only_while_standing_in_and_the_seat_returns(capp, fake):
    tid, (ana, beto) = table_with(capp, "turno_1h")
    pass_three(ana, tid)
    fake.advance(3601)
    ana.act(tid, "standin", seat=1)
    rng = random.Random(8)
    # Ana plays a few tricks against three robots, one of them standing in for Beto
    for _ in range(6):
        st = wait_until(lambda: my_turn(ana, tid, 0), 15)
        v = st["view"]
        if v["phase"] != "playing":
            break
        action = robots.decide(v, "facil", rng)
        ana.act(tid, action.pop("type"), **action)
    wait_until(lambda: my_turn(ana, tid, 0), 15)
    checked, plays = replay_checking_standin(capp, tid, 1)
    assert checked >= 4 and len(plays) >= 3  # the pass and at least three cards
    # a long-poll from Beto's open page is no visit: the stand-in keeps the seat
    assert poll(beto, tid)["table"]["seats"][1]["standin"]
    # a GET changes nothing, not even for the absent person
    assert beto.state(tid)["table"]["seats"][1]["standin"]
    # nor does the seed his open page sends for the next hand's deal (docs/FAIR_DEAL.md)
    nxt = poll(beto, tid)["fair_deal"]["next"]
    beto.act(tid, "deal_seed", game=nxt["game"], hand=nxt["hand"], seed="ab" * 32)
    assert poll(beto, tid)["fair_deal"]["next"]["seats"][1]["by"] == "player"
    assert poll(beto, tid)["table"]["seats"][1]["standin"]
    assert count(capp, tid, "take_back", seat=1) == 0
    # Beto opens the page (it sends come_back): the seat is his again, with a summary only he sees
    beto.act(tid, "come_back")
    st = beto.state(tid)
    assert not st["table"]["seats"][1]["standin"] and st["table"]["seats"][1]["label"] == "Beto"
    summary = st["me"]["standin_summary"]
    assert summary["text"].startswith("Mientras no estabas, el robot")
    assert summary["plays"] == plays and len(summary["passed"]) == 3
    from rules import card_label

    assert all(card_label(c) in summary["text"] for c in plays)
    assert ana.state(tid)["me"]["standin_summary"] is None
    assert Player(capp).state(tid)["me"].get("standin_summary") is None
    assert count(capp, tid, "take_back", seat=1) == 1
    r = beto.act(tid, "come_back", expect=409)  # nothing to take back twice
    assert r.get_json()["error"] == "not_standin"
    # from now the stand-in never acts for Beto: his next decision waits for him
    with capp.app_context():
        v_back = db.session.query(Action).filter_by(table_id=tid, type="take_back").one().version
        db.session.rollback()
    for _ in range(8):
        st = wait_until(lambda: my_turn(ana, tid, 0) or my_turn(beto, tid, 1), 15)
        v = st["view"]
        if v["phase"] != "playing":
            break
        if v["turn"] == 1:
            time.sleep(0.6)  # a check that nothing happens: a robot's chance to (wrongly) act
            assert poll(beto, tid)["view"]["turn"] == 1
            c = seat_clock(beto.state(tid), 1)
            assert c["waiting"] and not c["time_up"]  # a fresh hour for Beto
            with capp.app_context():
                from tables.actions import perform
                from tables.errors import ServiceError

                with pytest.raises(ServiceError) as err:
                    vb = view_for(Game.from_json(db.session.get(Table, tid).game_json), 1)
                    db.session.rollback()
                    perform(tid, None, {"type": "play", "card": vb["legal"][0]}, robot_seat=1)
                assert err.value.code == "not_robot"
                db.session.remove()
            bv = beto.state(tid)["view"]
            beto.act(tid, "play", card=bv["legal"][0])
            break
        action = robots.decide(v, "facil", rng)
        ana.act(tid, action.pop("type"), **action)
    with capp.app_context():
        robot_moves = db.session.query(Action).filter(
            Action.table_id == tid, Action.seat == 1, Action.version > v_back,
            Action.device_id.is_(None), Action.type.in_(("play", "confirm_pass"))).count()
        db.session.rollback()
    assert robot_moves == 0


def test_an_action_from_the_absent_person_takes_the_seat_back(capp, fake):
    tid, (ana, beto) = table_with(capp, "sin_reloj")
    pass_three(ana, tid)
    fake.advance(24 * 3600 + 1)
    ana.act(tid, "standin", seat=1)
    wait_until(lambda: poll(ana, tid)["view"]["pass_confirmed"][1], 10)
    st = beto.act(tid, "chat", text="¡Ya volví!").get_json()["state"]
    assert not st["table"]["seats"][1]["standin"]
    assert "pasó" in st["me"]["standin_summary"]["text"]


def test_four_absent_humans_nothing_plays_and_the_table_expires(capp, fake):
    tid, players = table_with(capp, "turno_1h", humans=4)
    with capp.app_context():
        updated = db.session.get(Table, tid).updated_at
        version = db.session.get(Table, tid).version
        db.session.rollback()
    for hours in (2, 30, 24 * 40):
        fake.t = utcnow() + timedelta(hours=hours)
        run_clock(capp)
    assert count(capp, tid, "time_up") == 4  # each decision timed out once, whatever the wait
    time.sleep(0.5)  # a check that nothing happens: the robot worker (0.5 s sweep) gets its chance
    with capp.app_context():
        t = db.session.get(Table, tid)
        assert not t.robot_due and t.updated_at == updated and t.version == version + 4
        assert Game.from_json(t.game_json).phase == "passing"
        db.session.rollback()
    assert count(capp, tid, "confirm_pass") == 0
    # like any idle table, it expires (clock rows go with it)
    with capp.app_context():
        t = db.session.get(Table, tid)
        t.updated_at = utcnow() - timedelta(days=31)
        db.session.commit()
    from tables.scheduler import expire_job

    assert expire_job(capp) >= 1
    with capp.app_context():
        assert db.session.query(models.ClockSeat).filter_by(table_id=tid).count() == 0
        assert db.session.get(models.ClockTable, tid) is None
        db.session.rollback()


def test_time_up_is_claimed_once_by_concurrent_schedulers(capp, fake, migrated):
    tid, _ = table_with(capp, "turno_1h", humans=2)
    fake.advance(3601)
    other = make_app(migrated, CLOCK_NOW=fake, ROBOT_WORKER="off")
    try:
        results: list[int] = []
        threads = [threading.Thread(target=lambda a=a: results.append(run_clock(a)))
                   for a in (capp, other, capp, other)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert len(results) == 4 and count(capp, tid, "time_up") == 2
    finally:
        close_app(other)


# ------------------------------------------------------------------ ABANDONAR and the rematch


def test_leave_is_final_and_at_the_rematch_the_seat_is_free(capp, fake):
    tid, (ana, beto) = table_with(capp, "en_vivo", target=50)
    with capp.app_context(), locked_table(tid) as t:
        data = dict(t.game_json)
        data["totals"] = [45, 45, 45, 45]
        t.game_json = data
    beto.act(tid, "leave")
    st = ana.state(tid)
    assert st["table"]["seats"][1]["left"] and not st["me"]["can_sit"]
    error(beto.act(tid, "sit", expect=None, name="Beto"), 409, "game_started")
    rng = random.Random(5)
    for _ in range(60):
        st = wait_until(lambda: my_turn(ana, tid, 0), 20)
        v = st["view"]
        if v["phase"] == "game_over":
            break
        if v["phase"] == "counting":
            ana.act(tid, "close_count")
            continue
        action = robots.decide(v, "facil", rng)
        ana.act(tid, action.pop("type"), **action)
    assert st["table"]["status"] == "finished"
    st = ana.act(tid, "rematch").get_json()["state"]
    seat = st["table"]["seats"][1]
    assert st["table"]["status"] == "playing" and seat["vacant"] and seat["kind"] == "robot"
    carla = Player(capp)
    cst = carla.state(tid)
    assert cst["me"]["can_sit"] and cst["me"]["seat"] is None
    cst = carla.act(tid, "sit", name="Carla").get_json()["state"]
    assert cst["me"]["seat"] == 1 and cst["table"]["seats"][1]["label"] == "Carla"
    assert not cst["table"]["seats"][1]["vacant"] and "hand" in cst["view"]
    error(beto.act(tid, "sit", expect=None, name="Beto"), 409, "game_started")


# ------------------------------------------------------------------ restart mid-countdown


def test_restart_in_the_middle_of_a_countdown(server_factory, migrated):
    env = {"CLOCK_LIVE_GRACE_PASS": "8", "CLOCK_LIVE_GRACE": "8", "CLOCK_LIVE_RESERVE": "2"}
    srv = server_factory(**env)
    ana, beto = HttpPlayer(srv.url), HttpPlayer(srv.url)
    r = ana.post("/api/tables", {"host_name": "Ana", "pace": "en_vivo"})
    assert r.status_code == 201, r.text
    tid = r.json()["table_id"]
    assert beto.act(tid, "sit", name="Beto").status_code == 200
    for seat in (2, 3):
        assert ana.act(tid, "add_robot", seat=seat).status_code == 200
    assert ana.act(tid, "start").status_code == 200
    before = ana.state(tid)["table"]["clock"]["seats"][1]
    assert before["waiting"]
    srv.kill()  # mid-countdown: Beto has 10 s (kill waits until the process is gone)
    srv2 = server_factory(**env)
    ana.base = beto.base = srv2.url
    after = ana.state(tid)["table"]["clock"]["seats"][1]
    assert after["expires_at"] == before["expires_at"]  # the deadline lives in the row
    assert not after["time_up"]
    # the scheduler (its own process, started after the deadline) acts once
    expires = at(before["expires_at"])
    # the clock running past the deadline is the thing under test
    time.sleep(max(0.0, (expires - utcnow()).total_seconds()) + 0.3)
    app = make_app(migrated, ROBOT_WORKER="off", **{k: float(v) for k, v in env.items()})
    try:
        run_clock(app)
        run_clock(app)
    finally:
        close_app(app)
    with_app = make_app(migrated, ROBOT_WORKER="off")
    try:
        assert count(with_app, tid, "time_up") == 2  # Ana's and Beto's passes, once each
    finally:
        close_app(with_app)
    st = ana.state(tid)
    assert st["table"]["clock"]["seats"][1]["can_standin"]
    r = ana.act(tid, "standin", seat=1)
    assert r.status_code == 200, r.text
    wait_until(lambda: ana.state(tid)["view"]["pass_confirmed"][1], 15)


def test_a_commit_the_clock_missed_is_caught_up_and_time_up_is_no_game_change(capp, fake):
    tid, (ana, beto) = table_with(capp, "turno_1h")
    wait_until(lambda: poll(ana, tid)["view"]["pass_confirmed"][2:] == [True, True], 10)
    # as if the process died between a commit and the clock's bookkeeping
    with capp.app_context():
        db.session.query(models.ClockSeat).filter_by(table_id=tid).delete()
        db.session.get(models.Table, tid).clock_version = 0
        db.session.commit()
    snapshot.forget(tid)  # the process that died took its cached snapshot with it
    assert not poll(ana, tid)["table"]["clock"]["seats"][1].get("expires_at")
    run_clock(capp)
    c = seat_clock(ana.state(tid), 1)
    assert c["waiting"] and at(c["expires_at"]) == fake.t + timedelta(hours=1)
    v = ana.state(tid)["version"]
    fake.advance(3601)
    run_clock(capp)
    with capp.app_context():
        kinds = [r.type for r in db.session.query(Action).filter(
            Action.table_id == tid, Action.version > v).order_by(Action.version)]
        db.session.rollback()
    assert kinds == ["time_up", "time_up"], kinds
    with capp.app_context():
        from tables.seating import active_humans, load_seats

        assert active_humans(load_seats(tid)) == [0, 1]
        db.session.rollback()
    # a time-up changes no game state: an action made on the version before it is not stale
    error(ana.act(tid, "set_level", expect=None, robot_level="facil", version=v - 1), 409,
          "stale")
    ana.act(tid, "standin", seat=1, version=v)
    with capp.app_context():
        assert active_humans(load_seats(tid)) == [0]  # no «Te toca» push for Beto now
        db.session.rollback()


@pytest.mark.parametrize("pace", ["rapido", 5, ["en_vivo"], True])
def test_a_bad_pace_is_refused_and_the_default_is_no_clock(capp, pace):
    p = Player(capp)
    r = p.post("/api/tables", {"host_name": "Ana", "pace": pace})
    error(r, 400, "bad_pace")
    tid = p.create("Ana")
    assert p.state(tid)["table"]["pace"] == "sin_reloj"
    error(p.act(tid, "standin", expect=None, seat=1), 409, "wrong_phase")
    error(p.act(tid, "standin", expect=None, seat=7), 400, "bad_seat")


def _clock_rows_agree(app: Any, tid: str) -> int:
    """The seat clock rows the process's snapshot holds (which the next action starts from
    instead of reading them) equal the database's, every column; returns the version. Robots
    play meanwhile: compared once the snapshot and the database are at the same version (read as
    a page would when the process holds none at that version)."""
    from sqlalchemy import select

    def at_rest() -> tuple[Any, dict[int, Any], int] | None:
        snap = snapshot.cached(tid)
        with app.app_context():
            version = db.session.execute(select(Table.version).where(Table.id == tid)).scalar()
            stored = {r.seat: {f: getattr(r, f) for f in clock.SEAT_COLUMNS}
                      for r in db.session.execute(
                          select(models.ClockSeat).where(models.ClockSeat.table_id == tid)
                      ).scalars()}
            again = db.session.execute(select(Table.version).where(Table.id == tid)).scalar()
            db.session.rollback()
        if version != again:
            return None  # a robot moved while reading
        if snap is None or snap.version < version:
            # Not made by the action (a load that saw another commit land is not kept on
            # PostgreSQL, nor an action's that did not start from it): a page's read loads it.
            with app.app_context():
                snapshot.current(tid, version)
            return None
        if snap.version != version:
            return None
        return snap, stored, int(version)

    snap, stored, version = wait_until(at_rest, 15)
    held = {seat: {f: getattr(r, f) for f in clock.SEAT_COLUMNS} for seat, r in snap.clock.items()}
    assert held == stored
    return version


def test_the_clock_rows_an_action_starts_from_are_the_databases(capp, fake):
    """After every action of a hand with the live clock, a stand-in and the person's return, the
    snapshot the action made holds the seat clock rows exactly as stored (time used, reserve,
    time up, stand-in): what the next action starts from."""
    tid, (ana, beto) = table_with(capp, "en_vivo")
    rng = random.Random(5)
    for p in (ana, beto):
        fake.advance(40)  # beyond the 30 s of grace: the reserve is spent
        pass_three(p, tid)
        _clock_rows_agree(capp, tid)
    versions = set()
    stood_in = came_back = False
    for _ in range(30):
        st = wait_until(lambda: my_turn(ana, tid, 0) or my_turn(beto, tid, 1), 15)
        v = st["view"]
        if v["phase"] != "playing":
            break
        seat = 0 if 0 in v["to_act"] else 1
        if seat == 1 and not stood_in:
            fake.advance(200)  # Beto's grace and reserve run out: Ana calls the stand-in
            ana.act(tid, "standin", seat=1)
            stood_in = True
            versions.add(_clock_rows_agree(capp, tid))
            continue
        if seat == 1 and not came_back:
            beto.act(tid, "come_back")
            came_back = True
            versions.add(_clock_rows_agree(capp, tid))
            continue
        fake.advance(rng.choice((1, 20)))
        p = ana if seat == 0 else beto
        action = robots.decide(poll(p, tid)["view"], "facil", rng)
        p.act(tid, action.pop("type"), **action)
        versions.add(_clock_rows_agree(capp, tid))
    assert stood_in and came_back and len(versions) >= 10
