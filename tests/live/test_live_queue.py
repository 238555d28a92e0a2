"""Jugar en vivo in one process: the matching rule, the queue's life (join, poll, cancel, a page
closed), the tables it forms, leavers, Mesas en vivo and bad input. The clock is the test's."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from tables.db import db
from tables.matchmaking import Rules, Waiting, choose_robots, plan
from tables.models import ClockTable, RatingChange, utcnow
from tables.ratings import robot_key
from tests.kit import Player, error, lobby, wait_until
from tests.live.livekit import FakeClock, Queuer, entry, live_app, table_of

pytestmark = pytest.mark.db

R = Rules(wait_limit=20.0, window_start=100.0, window_grow=100.0, window_step=4.0, stale=6.0)


@pytest.fixture()
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture()
def live(migrated: str, clock: FakeClock) -> Any:
    from tests.kit import close_app

    app = live_app(migrated, clock)
    yield app
    close_app(app)


def wait_together(clock: FakeClock, people: list[Queuer], seconds: float) -> None:
    """Time passes with every page open (each polls every 2 s)."""
    for _ in range(int(seconds // 2)):
        clock.advance(2)
        for p in people:
            p.poll()


def w(i: int, rating: float, waited: float = 0.0) -> Waiting:
    return Waiting(i, i, f"P{i}", rating, T0 - timedelta(seconds=waited))


T0 = utcnow()


# ------------------------------------------------------------------ the rule (no database)


def test_four_within_the_window_sit_together_the_closest_first():
    groups = plan([w(1, 1500), w(2, 1550), w(3, 1590), w(4, 1600), w(5, 1900)], T0, R)
    assert len(groups) == 1
    assert {p.id for p in groups[0].people} == {1, 2, 3, 4} and groups[0].robots == 0
    # the spread is 100: inside the starting window, not one point more
    assert plan([w(1, 1500), w(2, 1550), w(3, 1590), w(4, 1601)], T0, R) == []


def test_the_window_widens_with_the_longest_wait():
    far = [w(1, 1500, waited=0), w(2, 1650), w(3, 1700), w(4, 1790)]
    assert plan(far, T0, R) == []  # spread 290 > 100
    assert R.window(7.9) == 200 and R.window(8) == 300
    widened = [w(1, 1500, waited=8), *far[1:]]
    [g] = plan(widened, T0, R)
    assert len(g.people) == 4 and g.window == 300


def test_after_the_wait_limit_robots_fill_the_free_seats():
    lone = [w(1, 1500, waited=19.9)]
    assert plan(lone, T0, R) == []
    [g] = plan([w(1, 1500, waited=20)], T0, R)
    assert [p.id for p in g.people] == [1] and g.robots == 3
    # people within the window still sit with them: the closest up to three, robots the rest
    [g] = plan([w(1, 1500, waited=20), w(2, 1900), w(3, 2600)], T0, R)
    assert {p.id for p in g.people} == {1, 2} and g.robots == 2  # 2600 is outside 600


def test_the_robots_closest_in_rating_are_chosen():
    rated = {robot_key("Carmen", "dificil"): 1900, robot_key("Tito", "dificil"): 1880,
             robot_key("Luna", "dificil"): 1700, robot_key("Carmen", "facil"): 1200}
    assert choose_robots([1890], 2, rated) == ("dificil", ["Carmen", "Tito"])
    assert choose_robots([1200, 1220], 1, rated) == ("facil", ["Carmen"])
    assert choose_robots([1500], 3, {}) == ("normal", ["Carmen", "Tito", "Luna"])


# ------------------------------------------------------------------ the queue


def test_four_people_of_similar_rating_are_seated_at_one_public_live_table(live, clock):
    people = [Queuer(live, 1500 + 20 * i) for i in range(4)]
    for p in people[:3]:
        got = p.join()
        assert got["status"] == "waiting" and got["waited_seconds"] == 0
    assert people[2].poll()["looking"] == 3
    last = people[3].join()
    assert last["status"] == "seated"
    tid = last["table_id"]
    for p in people:
        got = p.poll()
        assert got["status"] == "seated" and got["url"] == f"/t/{tid}"
    t, seats = table_of(live, tid)
    assert t.public and t.rated and t.status == "playing" and t.target == 50
    assert t.renege == "impedido" and t.host_device_id is None
    assert sorted(s.device_id for s in seats) == sorted(p.device_id for p in people)
    with live.app_context():
        assert db.session.get(ClockTable, tid).pace == "en_vivo"
        db.session.rollback()
    # the device cookie is the seat: each lands at the table as its player
    st = people[0].state(tid)
    assert st["me"]["seat"] is not None and st["view"]["hand"]
    assert entry(live, people[0].device_id).allowed_spread == 100


def test_ratings_too_far_apart_wait_until_the_window_allows_them(live, clock):
    people = [Queuer(live, r) for r in (1500, 1600, 1700, 1790)]
    for p in people:
        assert p.join()["status"] == "waiting"
    clock.advance(4)  # window 200: still too narrow for a spread of 290
    for p in people:
        assert p.poll()["status"] == "waiting"
    clock.advance(4)  # the longest wait is 8 s now: 300
    assert people[0].poll()["status"] == "seated"
    e = entry(live, people[3].device_id)
    assert e is not None and e.status == "seated" and e.allowed_spread == 300
    assert e.seated_at is not None and (e.seated_at - e.joined_at).total_seconds() >= 8


def test_one_person_past_the_wait_limit_plays_three_robots_marked_as_robots(live, clock):
    ana = Queuer(live, 1500)
    ana.join()
    for _ in range(4):
        clock.advance(4.9)
        assert ana.poll()["status"] == "waiting"
    clock.advance(0.5)  # 20.1 s
    got = ana.poll()
    assert got["status"] == "seated"
    st = ana.state(got["table_id"])
    robots = [s for s in st["table"]["seats"] if s["kind"] == "robot"]
    assert len(robots) == 3 and all(s["label"].startswith("ROBOT ") for s in robots)
    assert st["table"]["rated"] and st["table"]["pace"] == "en_vivo"


def test_cancel_leaves_the_queue_at_once_and_is_never_seated(live, clock):
    people = [Queuer(live, 1500) for _ in range(4)]
    for p in people[:3]:
        p.join()
    assert people[0].cancel()["status"] == "none"
    assert entry(live, people[0].device_id) is None
    assert people[3].join()["status"] == "waiting"  # three left: no table
    assert people[0].poll()["status"] == "none"
    wait_together(clock, people[1:], 22)  # past the limit: the three sit with a robot
    assert people[1].poll()["status"] == "seated"
    assert people[0].poll()["status"] == "none"
    _, seats = table_of(live, people[1].poll()["table_id"])
    assert people[0].device_id not in {s.device_id for s in seats}
    assert sum(s.kind == "robot" for s in seats) == 1


def test_a_closed_page_is_never_seated(live, clock):
    gone = Queuer(live, 1500)
    gone.join()
    clock.advance(6.5)  # its page stopped polling: stale
    people = [Queuer(live, 1500) for _ in range(3)]
    for p in people:
        assert p.join()["status"] == "waiting"
    assert people[0].poll()["looking"] == 3  # the closed page is not counted either
    wait_together(clock, people, 22)
    tid = people[0].poll()["table_id"]
    assert tid is not None
    _, seats = table_of(live, tid)
    assert gone.device_id not in {s.device_id for s in seats}
    assert sorted(s.device_id for s in seats if s.kind == "human") == sorted(
        p.device_id for p in people)
    assert entry(live, gone.device_id).status == "waiting"  # kept (its page may come back)


def test_nobody_is_queued_twice_nor_seated_at_two_tables(live, clock):
    people = [Queuer(live, 1500) for _ in range(4)]
    for p in people:
        p.join()
    tid = people[0].poll()["table_id"]
    # JUGAR EN VIVO again while the live game goes on: back to that table, no new entry
    again = people[0].join()
    assert again["status"] == "seated" and again["table_id"] == tid
    more = [Queuer(live, 1500) for _ in range(3)]
    for p in more:
        p.join()
    wait_together(clock, more, 22)
    other = more[0].poll()["table_id"]
    assert other not in (None, tid)
    _, seats = table_of(live, other)
    assert people[0].device_id not in {s.device_id for s in seats}


def test_a_leaver_is_replaced_by_a_robot_at_once_and_finishes_last(migrated):
    from tests.kit import close_app

    app = live_app(migrated, ROBOT_WORKER="thread", LIVE_WAIT_LIMIT=0.0)
    try:
        ana = Queuer(app, 1500)
        got = ana.join()
        assert got["status"] == "seated"
        tid = got["table_id"]
        st = ana.state(tid)
        me = st["me"]["seat"]
        r = ana.act(tid, "leave")
        seat = r.get_json()["state"]["table"]["seats"][me]
        assert seat["left"] and seat["label"].startswith("ROBOT ")  # a robot plays it now
        assert r.get_json()["state"]["me"]["seat"] is None
        # the robots play the game out; the leaver is rated last
        wait_until(lambda: ana.state(tid)["table"]["status"] == "finished", 300, 0.2)
        with app.app_context():
            rows = db.session.execute(select(RatingChange.seat, RatingChange.place,
                                             RatingChange.left).where(
                RatingChange.table_id == tid)).all()
            db.session.rollback()
        assert len(rows) == 4  # the three robots are rated too: they sat from the deal
        mine = next(r for r in rows if r.seat == me)
        # last: behind every other seat, whatever its total (equal totals share a place)
        assert mine.left and all(r.place < mine.place for r in rows if r.seat != me)
        # free to look for another live table
        assert ana.join()["status"] in ("seated", "waiting")
    finally:
        close_app(app)


# ------------------------------------------------------------------ Mesas en vivo


def test_mesas_en_vivo_lists_public_playing_tables_only(live, clock):
    link_tid, players = lobby(live)
    players[0].act(link_tid, "start")
    people = [Queuer(live, 1500 + i) for i in range(4)]
    for p in people:
        p.join()
    tid = people[0].poll()["table_id"]
    watcher = Player(live)
    listed = watcher.client.get("/api/live/tables").get_json()["tables"]
    ids = [t["table_id"] for t in listed]
    assert tid in ids and link_tid not in ids
    mine = next(t for t in listed if t["table_id"] == tid)
    assert sorted(p["name"] for p in mine["players"]) == sorted(p.name for p in people)
    assert {p["rating"] for p in mine["players"]} == {1500, 1501, 1502, 1503}
    assert mine["hand"] == 1 and mine["url"] == f"/t/{tid}"
    page = watcher.client.get("/mesas-en-vivo").get_data(as_text=True)
    assert f"/t/{tid}" in page and link_tid not in page and people[0].name in page
    # a spectator opens it, and cannot take a seat there
    st = watcher.state(tid)
    assert st["table"]["public"] and not watcher.state(link_tid)["table"]["public"]
    assert st["me"]["spectator"] and st["view"] is not None and "hand" not in st["view"]
    error(watcher.act(tid, "sit", name="Intrusa", expect=None), 409, "public_table")


def test_bad_input_is_refused_in_spanish_and_changes_nothing(live, clock):
    p = Queuer(live, 1500)
    error(p.post("/api/live/queue", {}), 400, "bad_name")
    error(p.post("/api/live/queue", {"name": "   "}), 400, "bad_name")
    error(p.post("/api/live/queue", {"name": "ROBOT Tito"}), 400, "bad_name")
    error(p.post("/api/live/queue", {"name": 7}), 400, "bad_name")
    error(p.post("/api/live/queue", [1, 2]), 400, "bad_json")
    error(p.post("/api/live/queue", {"name": "Ana"}, csrf=False), 400, "csrf")
    assert entry(live, p.device_id) is None
    assert p.poll()["status"] == "none"


def test_joining_is_rate_limited(migrated):
    from tests.kit import close_app

    app = live_app(migrated, RATELIMIT_LIVE="3 per minute")
    try:
        p = Queuer(app, 1500)
        for _ in range(3):
            p.join()
        error(p.post("/api/live/queue", {"name": p.name}), 429, "rate_limited")
    finally:
        close_app(app)


def test_the_scheduler_matches_without_any_page_and_forgets_long_closed_pages(migrated):
    from tables import matchmaking
    from tests.kit import close_app

    clock = FakeClock()
    # polls never match here (one pass per 1000 s and process): only the scheduler's pass does
    app = live_app(migrated, clock, LIVE_MATCH_EVERY=1000.0, LIVE_FORGET=60.0)
    try:
        matchmaking._last_pass = 0.0
        long_gone = Queuer(app, 3000)
        long_gone.join()  # the first join takes this process's one pass (nothing to form)
        clock.advance(61)
        people = [Queuer(app, 1500) for _ in range(4)]
        for p in people:
            assert p.join()["status"] == "waiting"
        assert matchmaking.scheduler_job(app) == 1
        assert all(p.poll()["status"] == "seated" for p in people)
        assert entry(app, long_gone.device_id) is None  # its page closed a minute ago
    finally:
        close_app(app)
        matchmaking._last_pass = 0.0
