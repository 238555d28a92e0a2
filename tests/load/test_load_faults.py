"""Faults against the production stack on PostgreSQL: gunicorn (2 workers), a `flask robots`
process and one `flask scheduler` process, Redis between them, the database behind a TCP proxy
the test can cut. Player-like clients (bench/load.py) keep playing through every fault; afterwards
every hand of every table is checked from the action log (bench/load_audit.py).

The tests share one stack and run in file order (the audit of the last one covers them all)."""

from __future__ import annotations

import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tests.kit import HttpPlayer, wait_until
from tests.load.load_kit import (
    PG_BASE,
    Stack,
    TcpProxy,
    audit_database,
    drop_pg_schema,
    new_pg_schema,
    play_in_background,
    privacy_audit,
    via_proxy,
)

CLOCK = {"CLOCK_LIVE_GRACE": "1", "CLOCK_LIVE_GRACE_PASS": "1", "CLOCK_LIVE_RESERVE": "1",
         "CLOCK_SWEEP": "0.3"}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, str, TcpProxy]]:
    direct, schema = new_pg_schema(PG_BASE)
    proxy = TcpProxy()
    s = Stack(via_proxy(direct, proxy.port), tmp_path_factory.mktemp("stack"), web_workers=2,
              threads=64, robot_procs=1,
              env={"POLL_TIMEOUT": "5", "POLL_RECHECK": "2", "ROBOT_SWEEP": "0.5",
                   "RATELIMIT_CREATE": "100000 per minute", "RATELIMIT_CHAT": "100000 per minute",
                   "RATELIMIT_CHURN_DEVICE": "100000 per minute",
                   "RATELIMIT_CHURN_TABLE": "100000 per minute",
                   **CLOCK})
    try:
        s.start()
        yield s, direct, proxy
    finally:
        s.stop()
        proxy.close()
        drop_pg_schema(PG_BASE, schema)


def naive_utc(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, UTC).replace(tzinfo=None)


def count(url: str, sql: str, **params: Any) -> int:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(sa.text(sql), params).scalar_one())
    finally:
        engine.dispose()


ROBOT_MOVES_AFTER = """SELECT count(*) FROM actions a JOIN seats s
    ON s.table_id = a.table_id AND s.seat = a.seat
    WHERE s.kind = 'robot' AND a.type IN ('play', 'confirm_pass') AND a.at > :at"""


def test_sigkill_of_the_web_server_and_robots_under_load_loses_nothing(stack):
    s, direct, _ = stack
    tables = [("humans", True), ("humans", False), ("facil", True), ("normal", False)]
    h = play_in_background(s.url, tables, duration=18)
    timeline = []  # (what, seconds since the clients started): printed if a check fails
    kills = []
    for at in (4, 8, 12):
        # the kills are spread over the clients' fixed-length run: the moment is the scenario
        time.sleep(max(0.0, h.started + at - time.time()))
        s.kill_web(signal.SIGKILL)  # master and workers at once, mid-request
        kills.append(time.time())
        timeline.append(("web killed", time.time() - h.started))
        if at == 8:
            s.stop_robots(signal.SIGKILL)
            robots_killed = time.time()
            timeline.append(("robots killed", robots_killed - h.started))
            s.start_robots()
        s.start_web()
        timeline.append(("web answering", time.time() - h.started))
    out = h.result()
    assert out["errors"] == [], out["errors"][:5]
    assert out["retries"] > 0, "the kills were not felt by any client"
    acked = out["acked"]
    assert len(acked) >= 40, len(acked)
    audit = audit_database(direct, acked)
    assert audit.problems == [], audit.problems[:5]
    assert audit.acked_checked == len(acked) and audit.games >= 4
    # every response every page got, spectators included: no card of another seat's hand
    privacy = privacy_audit(direct, out["seen"])
    assert privacy.problems == [] and privacy.acked_checked > 100, privacy.problems[:3]
    # Humans played again after the last web restart.
    assert count(direct, "SELECT count(*) FROM actions WHERE at > :at AND action_id IS NOT NULL",
                 at=naive_utc(kills[-1])) > 0, timeline
    # Robots resumed after their process was killed: every robot turn left due (at the kill or
    # since) is played by the new process, and so are the passes of a table opened now. Whether
    # the clients' humans gave the robots a turn between the restart and their end depends on
    # the machine: on a slow one the web restarts at 8 and 12 s take most of that time.
    try:
        wait_until(lambda: count(direct, "SELECT count(*) FROM tables WHERE robot_due") == 0,
                   60, 0.2)
        host = HttpPlayer(s.url)
        r = host.post("/api/tables", {"host_name": "Ana", "target": 50})
        assert r.status_code == 201, r.text
        tid = r.json()["table_id"]
        for seat in (1, 2, 3):
            assert host.act(tid, "add_robot", seat=seat).status_code == 200
        assert host.act(tid, "start").status_code == 200
        wait_until(lambda: count(direct, ROBOT_MOVES_AFTER + " AND a.table_id = :t",
                                 at=naive_utc(robots_killed), t=tid) >= 3, 60, 0.2)
    except AssertionError as err:
        log = (s.log_dir / "robots0.log").read_text(errors="replace")[-4000:]  # the old one's too
        raise AssertionError(f"{err}; {timeline}; the robot processes' log:\n{log}") from err


def test_scheduler_stopped_past_a_deadline_runs_each_due_job_exactly_once(stack):
    s, direct, _ = stack
    s.stop_scheduler(signal.SIGKILL)
    host = HttpPlayer(s.url)
    r = host.post("/api/tables", {"host_name": "Ana", "pace": "en_vivo", "target": 50})
    assert r.status_code == 201, r.text
    tid = r.json()["table_id"]
    guest = HttpPlayer(s.url)
    assert guest.act(tid, "sit", name="Beto").status_code == 200
    for seat in (2, 3):
        assert host.act(tid, "add_robot", seat=seat).status_code == 200
    assert host.act(tid, "start").status_code == 200
    time_ups = "SELECT count(*) FROM actions WHERE table_id = :t AND type = 'time_up'"
    # the clock running past the deadlines is the thing under test: both humans' pass
    # decisions (1 s grace + 1 s reserve) are long overdue
    time.sleep(3.5)
    assert count(direct, time_ups, t=tid) == 0  # nobody ran the job meanwhile
    s.start_scheduler()
    wait_until(lambda: count(direct, time_ups, t=tid) >= 2, 30, 0.2)
    # exactly one scheduler: a second one refuses to start while the first runs
    second = subprocess.run(s.flask("scheduler"), cwd=str(Path(__file__).parents[2]),
                            env=s.env, capture_output=True, timeout=60)
    assert second.returncode != 0 and b"already running" in second.stderr
    time.sleep(1.5)  # a check that nothing more happens: several more sweeps
    s.stop_scheduler(signal.SIGKILL)
    s.start_scheduler()
    time.sleep(2.5)  # a check that nothing more happens: the restarted scheduler's first sweeps
    rows = count(direct, time_ups, t=tid)
    seats = count(direct, "SELECT count(DISTINCT seat) FROM actions WHERE table_id = :t "
                  "AND type = 'time_up'", t=tid)
    assert (rows, seats) == (2, 2)  # one per overdue decision, none twice
    st = host.state(tid)
    assert [c["time_up"] for c in st["table"]["clock"]["seats"][:2]] == [True, True]


def test_database_unreachable_fails_clearly_applies_nothing_and_resumes(stack):
    s, direct, proxy = stack
    host = HttpPlayer(s.url)
    r = host.post("/api/tables", {"host_name": "Ana", "target": 50})
    tid = r.json()["table_id"]
    guests = [HttpPlayer(s.url) for _ in range(3)]
    for i, g in enumerate(guests, 1):
        assert g.act(tid, "sit", name=f"P{i}").status_code == 200
    assert host.act(tid, "start").status_code == 200
    before = host.state(tid)
    # clients keep playing at other tables while the database goes away for 3 s
    # Game moves only: the clients' sits and starts carry action ids too, and every table is set
    # up before any client plays (the outage must not fall in the middle of a set-up).
    played = ("SELECT count(*) FROM actions WHERE action_id IS NOT NULL"
              " AND type IN ('choose_pass', 'confirm_pass', 'play')")
    already = count(direct, played)
    h = play_in_background(s.url, [("humans", True), ("humans", False)], duration=12)
    wait_until(lambda: count(direct, played) > already + 5, 30, 0.2)  # the clients are playing
    proxy.cut()
    try:
        aid = uuid.uuid4().hex
        cards = before["view"]["hand"][:3]
        r = host.act(tid, "confirm_pass", cards=cards, action_id=aid)
        assert r.status_code == 503, r.text
        body = r.json()
        assert body["error"] == "unavailable" and "base de datos" in body["message"]
        assert "Traceback" not in r.text and r.headers["Retry-After"]
        r = host.s.get(f"{s.url}/api/tables/{tid}", timeout=10)
        assert r.status_code == 503 and r.json()["error"] == "unavailable"
        page = host.s.get(f"{s.url}/t/{tid}", timeout=10)
        assert page.status_code == 503 and "base de datos" in page.text
        time.sleep(3)  # the outage lasts while the clients play: its length is the scenario
    finally:
        proxy.restore()
    restored = time.time()
    # service resumes by itself; the refused action changed nothing, its retry applies it once
    wait_until(lambda: host.s.get(f"{s.url}/api/tables/{tid}", timeout=10).status_code == 200,
               20, 0.2)
    assert host.state(tid)["version"] == before["version"]
    r = host.act(tid, "confirm_pass", cards=cards, action_id=aid)
    assert r.status_code == 200, r.text
    assert r.json()["state"]["view"]["pass_confirmed"][0] is True
    assert host.act(tid, "confirm_pass", cards=cards, action_id=aid).status_code == 200
    assert count(direct, "SELECT count(*) FROM actions WHERE action_id = :a", a=aid) == 1
    out = h.result()
    assert out["errors"] == [], out["errors"][:5]
    assert out["unavailable"] > 0, "the outage was not felt"
    assert count(direct, "SELECT count(*) FROM actions WHERE at > :at AND action_id IS NOT NULL",
                 at=naive_utc(restored)) > 0
    audit = audit_database(direct, out["acked"])
    assert audit.problems == [], audit.problems[:5]
    assert audit.hands >= 1 or audit.actions > 100
