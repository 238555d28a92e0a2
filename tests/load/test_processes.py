"""Each kind of process killed and started again, as a service manager would (docs/DEPLOY.md), and
`make serve` (the Procfile run by honcho) killed, started again at once, and started twice.

The stack is real (PostgreSQL, Redis, gunicorn, `flask robots` with a Difícil search process,
`flask scheduler`). After every kill, nothing the killed process started may keep running: no
web worker without its master, no search process or resource tracker without its robot process.
Every wait is on a condition, bounded."""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from deploy import budget
from deploy.stack import (
    REDIS_URL,
    ROOT,
    alive,
    cmdline,
    descendants,
    pg_connections,
    proc_children,
)
from tests.kit import HttpPlayer, free_port, holds_lock, wait_until
from tests.load.load_kit import PG_BASE, Stack, drop_pg_schema, new_pg_schema

LIMITS = {"RATELIMIT_CREATE": "100000 per minute", "RATELIMIT_CHAT": "100000 per minute",
          "RATELIMIT_CHURN_DEVICE": "100000 per minute",
          "RATELIMIT_CHURN_TABLE": "100000 per minute"}


def gone(pids: list[int]) -> bool:
    return not any(alive(p) for p in pids)


def answers(url: str) -> bool:
    try:
        return requests.get(url + "/api/csrf", timeout=5).status_code == 200
    except requests.RequestException:
        return False


def search_processes(robots_pid: int) -> list[int]:
    return [p for p in proc_children(robots_pid) if "spawn_main" in cmdline(p)]


def dificil_table(url: str) -> tuple[HttpPlayer, str]:
    """A table of one human (the test) and three Difícil robots, started."""
    host = HttpPlayer(url)
    r = host.post("/api/tables", {"host_name": "Ana", "robot_level": "dificil"})
    assert r.status_code == 201, r.text
    tid = r.json()["table_id"]
    for seat in (1, 2, 3):
        assert host.act(tid, "add_robot", seat=seat).status_code == 200
    assert host.act(tid, "start").status_code == 200
    return host, tid


def advance(host: HttpPlayer, tid: str) -> int:
    """The table's version; takes the human's turn when it is due (the robots take theirs), the
    next hand included."""
    try:
        st = host.state(tid)
        view = st["view"]
        if view["phase"] == "passing" and not view["pass_confirmed"][0]:
            host.act(tid, "confirm_pass", cards=view["hand"][:3])
        elif view["phase"] == "playing" and view.get("turn") == 0 and view.get("legal"):
            host.act(tid, "play", card=view["legal"][0], version=st["version"])
        elif view["phase"] == "counting":
            host.act(tid, "close_count", version=st["version"])  # SIGUIENTE MANO
        return int(st["version"])
    except (requests.RequestException, KeyError, ValueError):  # the web server restarting
        return 0


def robots_move_on(host: HttpPlayer, tid: str, moves: int = 4) -> None:
    """Wait until the table has moved ``moves`` versions on (robots acting, the human too)."""
    start = wait_until(lambda: advance(host, tid), 30, 0.1)
    wait_until(lambda: advance(host, tid) >= start + moves, 90, 0.1)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, HttpPlayer, str]]:
    direct, schema = new_pg_schema(PG_BASE)
    s = Stack(direct, tmp_path_factory.mktemp("procs"), web_workers=2, threads=16, robot_procs=1,
              env={"POLL_TIMEOUT": "5", "POLL_RECHECK": "2", "ROBOT_SWEEP": "0.5",
                   "ROBOT_SEARCH_PROCS": "1", **LIMITS})
    pids: list[int] = []
    try:
        s.start()
        host, tid = dificil_table(s.url)
        wait_until(lambda: search_processes(s.robots[0].pid), 60, 0.1)
        yield s, host, tid
        pids = s.pids()
    finally:
        s.stop()
        drop_pg_schema(PG_BASE, schema)
    wait_until(lambda: gone(pids), 30, 0.1)  # a stop leaves nothing either


def _group(pid: int) -> tuple[str, int]:
    """A process's scheduling group (Linux autogroups) and the group's niceness."""
    name, _, nice = Path(f"/proc/{pid}/autogroup").read_text().split()
    return name, int(nice)


def test_the_web_server_comes_first_and_the_robots_step_back(stack):
    """The web's workers share their master's scheduling group, ahead of every other group where
    the stack may put it there (CAP_SYS_NICE: root, as CI runs), left as it is elsewhere; the
    robot process's group steps back; the robots' Difícil search steps back further in a group
    of its own, at the idle policy."""
    s, _, _ = stack
    master, *workers = s.web_pids()
    assert len(workers) == 2 and all(os.getsid(w) == os.getsid(master) == master for w in workers)
    # The search process runs on the cores nobody else wants, every thread of it, once it has
    # started (groups or not); the robot process, which holds table locks, does not.
    [search] = search_processes(s.robots[0].pid)
    wait_until(lambda: {os.sched_getscheduler(int(t))
                        for t in os.listdir(f"/proc/{search}/task")} == {os.SCHED_IDLE}, 30, 0.1)
    assert os.sched_getscheduler(s.robots[0].pid) == os.SCHED_OTHER
    if not Path("/proc/self/autogroup").exists():  # a kernel without autogroups: no groups
        return
    web_group, web_nice = _group(master)
    assert all(_group(w) == (web_group, web_nice) for w in workers)
    asked = int(os.environ.get("GUNICORN_GROUP_NICE", "-10"))  # gunicorn.conf.py's default
    may = os.geteuid() == 0
    assert web_nice == (asked if may else 0), (web_nice, asked, may)
    robots_group = _group(s.robots[0].pid)
    assert robots_group[0] != web_group
    # the robot process's own group behind the web's (the Procfile's ROBOT_GROUP_NICE: raising a
    # niceness needs no privilege)
    assert robots_group[1] == int(os.environ.get("ROBOT_GROUP_NICE", "5")), robots_group
    # the search process leaves its robot process's group first thing, once it has started
    wait_until(lambda: _group(search)[0] != robots_group[0], 30, 0.1)
    assert _group(search)[0] != web_group and _group(search)[1] == 10


def test_web_master_killed_takes_its_workers_and_a_restart_serves(stack):
    s, host, tid = stack
    assert s.web is not None
    master = s.web.pid
    workers = proc_children(master)
    assert len(workers) == 2
    # a page waiting on a long-poll in a worker when the master dies
    version = advance(host, tid)
    poll = threading.Thread(target=lambda: _ignore(lambda: requests.get(
        f"{s.url}/api/tables/{tid}", params={"since": version + 1000}, timeout=30)), daemon=True)
    poll.start()
    os.kill(master, signal.SIGKILL)
    s.web.wait(timeout=30)
    wait_until(lambda: gone(workers), 30, 0.05)  # no orphan worker keeps the socket
    s.web = None
    s.start_web()  # what the service manager does next
    assert answers(s.url)
    robots_move_on(host, tid)
    poll.join(timeout=60)
    assert not poll.is_alive()


def _ignore(call: Any) -> None:
    try:
        call()
    except requests.RequestException:
        pass


def test_a_web_worker_killed_is_replaced_by_its_master(stack):
    s, host, tid = stack
    assert s.web is not None
    master = s.web.pid
    victim, other = proc_children(master)
    os.kill(victim, signal.SIGKILL)
    wait_until(lambda: len(kids := proc_children(master)) == 2 and victim not in kids, 60, 0.05)
    assert alive(master) and alive(other)
    wait_until(lambda: answers(s.url), 30, 0.1)
    robots_move_on(host, tid)


def sse_lines(r: Any) -> Any:
    """The lines of the streamed response ``r``, as they arrive (one iterator per response)."""
    return r.iter_lines(chunk_size=1, decode_unicode=True)


def read_events(lines: Any, enough: Any) -> list[dict[str, str]]:
    """Server-sent events from a stream's ``lines`` until ``enough(events)`` (or the stream
    ends): each event as {field: value}; heartbeat comments are left out."""
    events: list[dict[str, str]] = []
    fields: dict[str, str] = {}
    try:
        for line in lines:
            if line == "":
                if fields:
                    events.append(fields)
                    fields = {}
                    if enough(events):
                        break
            elif not line.startswith(":"):
                name, _, value = line.partition(":")
                fields[name] = value[1:] if value.startswith(" ") else value
    except requests.RequestException:  # the server went away mid-stream
        pass
    return events


def test_a_stream_cut_by_killed_web_workers_reconnects_and_misses_nothing(stack):
    s, _, _ = stack
    assert s.web is not None
    host = HttpPlayer(s.url)
    r = host.post("/api/tables", {"host_name": "Ana"})
    assert r.status_code == 201, r.text
    tid, version = r.json()["table_id"], r.json()["state"]["version"]
    stream = host.s.get(f"{s.url}/api/tables/{tid}/stream", params={"since": version},
                        headers={"Accept": "text/event-stream"}, stream=True, timeout=(5, 30))
    assert stream.status_code == 200
    lines = sse_lines(stream)
    assert read_events(lines, lambda e: len(e) >= 1)[0]["event"] == "hello"
    assert host.act(tid, "chat", text="uno").status_code == 200
    [got] = read_events(lines, lambda e: any(x.get("event") == "state" for x in e))
    last = int(got["id"])
    assert [e["text"] for e in json.loads(got["data"])["log"] if e["type"] == "chat"] == ["uno"]
    # every web worker killed at once under the open stream: the master starts new ones
    master = s.web.pid
    workers = proc_children(master)
    for w in workers:
        os.kill(w, signal.SIGKILL)
    assert read_events(lines, lambda e: False) == []  # the stream ended, nothing more came
    wait_until(lambda: answers(s.url) and not set(proc_children(master)) & set(workers), 60, 0.1)
    for text in ("dos", "tres"):  # changes the page did not hear
        assert host.act(tid, "chat", text=text).status_code == 200
    # the page reconnects as EventSource does: the last id it got as Last-Event-ID
    again = host.s.get(f"{s.url}/api/tables/{tid}/stream", params={"since": version},
                       headers={"Accept": "text/event-stream", "Last-Event-ID": str(last)},
                       stream=True, timeout=(5, 30))
    events = read_events(sse_lines(again), lambda e: any(x.get("event") == "state" for x in e))
    again.close()
    [state] = [e for e in events if e.get("event") == "state"]
    data = json.loads(state["data"])
    assert [e["version"] for e in data["log"]] == list(range(last + 1, int(state["id"]) + 1))
    assert [e["text"] for e in data["log"] if e["type"] == "chat"] == ["dos", "tres"]
    assert data["state"]["version"] == int(state["id"]) == host.state(tid)["version"]


def test_every_process_keeps_to_its_share_of_the_connection_budget(stack):
    s, _, _ = stack
    assert s.web is not None and s.sched is not None
    host, tid = dificil_table(s.url)  # its own table: the module's keeps its hand for the others
    shares = {"web": budget.process_connections("web"),
              "robots": budget.process_connections("robots"),
              "scheduler": budget.process_connections("scheduler")}
    stop = threading.Event()
    failures: list[int] = []

    def page() -> None:  # a page reading the table again and again (the read pool)
        viewer = requests.Session()
        while not stop.is_set():
            r = viewer.get(f"{s.url}/api/tables/{tid}", timeout=30)
            if r.status_code >= 500:
                failures.append(r.status_code)

    def chatter() -> None:  # a person writing (the write pool)
        p = HttpPlayer(s.url)
        code = p.post("/api/tables", {"host_name": "Bea"})
        own = code.json()["table_id"]
        while not stop.is_set():
            r = p.act(own, "chat", text="hola")
            if r.status_code >= 500:
                failures.append(r.status_code)

    peak = {"web": 0, "robots": 0, "scheduler": 0, "machine": 0}
    threads = [threading.Thread(target=page, daemon=True) for _ in range(48)]
    threads += [threading.Thread(target=chatter, daemon=True) for _ in range(8)]
    for t in threads:
        t.start()
    end = time.monotonic() + 6
    while time.monotonic() < end:  # while the robots play the Difícil table on
        advance(host, tid)
        web = [pg_connections(p) for p in proc_children(s.web.pid)]
        robots = [pg_connections(p) for r in s.robots for p in (r.pid, *proc_children(r.pid))]
        sched = pg_connections(s.sched.pid)
        peak["web"] = max(peak["web"], *web)
        peak["robots"] = max(peak["robots"], sum(robots))
        peak["scheduler"] = max(peak["scheduler"], sched)
        peak["machine"] = max(peak["machine"], sum(web) + sum(robots) + sched)
        time.sleep(0.05)
    stop.set()
    for t in threads:
        t.join(timeout=60)
    assert failures == []
    assert peak["web"] > shares["web"] // 2, peak  # the burst did use the pools
    assert peak["web"] <= shares["web"], peak
    assert peak["robots"] <= shares["robots"] and peak["scheduler"] <= shares["scheduler"], peak
    assert peak["machine"] <= budget.Machine(web_workers=2).connections(), peak
    # pg_stat_activity names each connection's process ("corazones <pid>"): the same count as
    # the process's own sockets (bench/load.py counts connections that way)
    import psycopg

    from tables.db import APPLICATION_NAME

    workers = proc_children(s.web.pid)

    def named_as_owned() -> bool:
        with psycopg.connect(PG_BASE.replace("postgresql+psycopg", "postgresql"),
                             autocommit=True) as conn:
            rows = conn.execute("SELECT application_name, count(*) FROM pg_stat_activity "
                                "GROUP BY 1").fetchall()
        named = {name: int(n) for name, n in rows}
        owned = {f"{APPLICATION_NAME} {p}": pg_connections(p) for p in workers}
        return all(named.get(k, 0) == n for k, n in owned.items()) and sum(owned.values()) > 0

    wait_until(named_as_owned, 10, 0.1)  # (a connection may open or close between the reads)


def test_two_machines_and_a_restart_fit_in_postgresqls_default_connections() -> None:
    first, more = budget.Machine(), budget.Machine(scheduler=False)  # one scheduler in all
    assert first.connections() == 2 * 10 + 8 + 6 and more.connections() == 2 * 10 + 8
    assert budget.needed([first, more]) == 34 + 28 + 20 <= budget.available()
    assert budget.needed([first, more, more]) > budget.available()  # then a pooler, or more
    # the Procfile and the systemd units give each kind of process the share the budget counts
    from tables.config import SETTINGS

    defaults = {st.name: st.default for st in SETTINGS}
    assert (defaults["DB_POOL_SIZE"], defaults["DB_MAX_OVERFLOW"]) == budget.POOLS["web"]
    lines = {k: v for k, _, v in (ln.partition(": ") for ln in
                                  (ROOT / "Procfile").read_text().splitlines())
             if k in budget.POOLS}
    units = {"robots": "corazones-robots@.service", "scheduler": "corazones-scheduler.service"}
    for kind in ("robots", "scheduler"):
        size, overflow = budget.POOLS[kind]
        want = f"DB_POOL_SIZE={size} DB_MAX_OVERFLOW={overflow} "
        assert want in lines[kind]
        assert want in (ROOT / "deploy" / "systemd" / units[kind]).read_text()
    assert "DB_POOL" not in lines["web"]


def test_systemd_gives_the_web_the_cores_first() -> None:
    """Under systemd a unit's CPUWeight= does what gunicorn's group niceness does elsewhere."""
    web_unit = (ROOT / "deploy" / "systemd" / "corazones-web.service").read_text()
    robots_unit = (ROOT / "deploy" / "systemd" / "corazones-robots@.service").read_text()

    def weight(text: str) -> int:
        found = re.search(r"^CPUWeight=(\d+)$", text, re.M)
        assert found is not None
        return int(found.group(1))

    assert weight(robots_unit) < 100 < weight(web_unit)  # 100: systemd's default (the others')
    assert "Environment=GUNICORN_GROUP_NICE=0" in web_unit


def test_robot_process_killed_takes_its_search_process_and_a_restart_plays_on(stack):
    s, host, tid = stack
    robots = s.robots[0]
    started = descendants(robots.pid)
    kinds = sorted("resource_tracker" if "resource_tracker" in cmdline(p) else "search"
                   for p in started)
    assert kinds == ["resource_tracker", "search"], [cmdline(p) for p in started]
    os.kill(robots.pid, signal.SIGKILL)  # the robot process alone: no process-group kill
    robots.wait(timeout=30)
    wait_until(lambda: gone(started), 30, 0.05)
    s.robots = []
    s.start_robots()
    robots_move_on(host, tid)
    assert wait_until(lambda: search_processes(s.robots[0].pid), 60, 0.1)


def test_search_process_killed_is_replaced_and_the_robots_play_on(stack):
    s, host, tid = stack
    robots = s.robots[0]
    wait_until(lambda: search_processes(robots.pid), 60, 0.1)
    [search] = search_processes(robots.pid)
    os.kill(search, signal.SIGKILL)
    wait_until(lambda: not alive(search), 30, 0.05)
    robots_move_on(host, tid, moves=6)  # decided in-process meanwhile, then in a new pool
    new = wait_until(lambda: search_processes(robots.pid), 60, 0.1)
    assert search not in new and robots.poll() is None
    # the new search process and the one resource tracker: nothing else
    assert len(descendants(robots.pid)) == 2, [cmdline(p) for p in descendants(robots.pid)]


def test_scheduler_killed_and_started_again_takes_the_lock_back(stack):
    s, _, _ = stack
    assert s.sched is not None
    old = s.sched.pid
    os.kill(old, signal.SIGKILL)
    s.sched.wait(timeout=30)
    s.sched = None
    assert not holds_lock(old, s.instance / "scheduler.lock")  # the kernel let go of it
    s.start_scheduler()
    assert s.sched is not None
    wait_until(lambda: holds_lock(s.sched.pid, s.instance / "scheduler.lock"), 90, 0.1)
    # exactly one: a second scheduler refuses while the restarted one runs
    out = subprocess.run(s.flask("scheduler"), cwd=ROOT, env=s.env, capture_output=True,
                         timeout=60)
    assert out.returncode != 0 and b"already running" in out.stderr
    assert s.sched.poll() is None and not alive(old)


# ------------------------------------------------------------------ make serve (honcho)


@pytest.fixture()
def serve_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    direct, schema = new_pg_schema(PG_BASE)
    env = {**os.environ, "DATABASE_URL": direct, "REDIS_URL": REDIS_URL,
           "CORAZONES_INSTANCE": str(tmp_path / "instance"), "PORT": str(free_port()),
           "SECRET_KEY": secrets.token_hex(32), "GUNICORN_WORKERS": "2",
           "GUNICORN_THREADS": "16", "RATELIMIT_KEY_PREFIX": "serve" + secrets.token_hex(6),
           **LIMITS}
    env.pop("GUNICORN_BIND", None)
    try:
        yield env
    finally:
        drop_pg_schema(PG_BASE, schema)


class Serve:
    """`make serve` (python -m deploy.serve) in the background, its output in a file."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.url = f"http://127.0.0.1:{env['PORT']}"
        self.log = log
        with open(log, "ab") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "deploy.serve"], cwd=ROOT,
                                         env=env, stdout=out, stderr=subprocess.STDOUT)
        self.seen: set[int] = set()

    def processes(self) -> list[int]:
        """Every process started so far (remembered: they outlive the tree if they leak)."""
        self.seen.update(descendants(self.proc.pid))
        return sorted(self.seen)

    def named(self, kind: str) -> list[int]:
        """The live processes of one Procfile kind: web (gunicorn's master and workers),
        robots, scheduler."""
        ends = {"web": "gunicorn.conf.py", "robots": "app robots", "scheduler": "app scheduler"}
        return [p for p in descendants(self.proc.pid) if cmdline(p).endswith(ends[kind])]

    def web_master(self) -> int:
        web = self.named("web")
        [master] = [p for p in web if any(c in web for c in proc_children(p))]
        return master

    def wait_ready(self) -> None:
        def ready() -> bool:
            assert self.proc.poll() is None, self.log.read_text()[-3000:]
            self.processes()
            return (answers(self.url) and len(self.named("web")) == 3
                    and len(self.named("robots")) == 1 and len(self.named("scheduler")) == 1)

        wait_until(ready, 120, 0.2)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                for p in self.processes():
                    _ignore_lookup(p)
                self.proc.kill()
                self.proc.wait()


def _ignore_lookup(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def test_make_serve_master_killed_stops_everything_and_a_new_serve_comes_up_at_once(
        serve_env, tmp_path):
    first = Serve(serve_env, tmp_path / "serve1.log")
    second: Serve | None = None
    try:
        first.wait_ready()
        os.kill(first.web_master(), signal.SIGKILL)
        second = Serve(serve_env, tmp_path / "serve2.log")  # started again at that moment
        # honcho stops the robot and scheduler processes when the web process ends
        first.proc.wait(timeout=60)
        wait_until(lambda: gone(first.processes()), 30, 0.05)
        second.wait_ready()
        host, tid = dificil_table(second.url)
        robots_move_on(host, tid)
        # Ctrl-C or SIGTERM: honcho stops every process it started
        pids = second.processes()
        second.proc.send_signal(signal.SIGTERM)
        assert second.proc.wait(timeout=60) != 0
        wait_until(lambda: gone(pids), 30, 0.05)
    finally:
        first.stop()
        if second is not None:
            second.stop()


def test_make_serve_that_fails_to_start_stops_what_it_started(serve_env, tmp_path):
    running = Serve(serve_env, tmp_path / "running.log")
    extra: Serve | None = None
    try:
        running.wait_ready()
        # a second serve on the same instance: its scheduler finds the lock taken and ends, and
        # honcho stops the web and robot processes it had started
        extra = Serve({**serve_env, "PORT": str(free_port())}, tmp_path / "extra.log")

        def ended() -> bool:
            assert extra is not None
            extra.processes()
            return extra.proc.poll() is not None

        wait_until(ended, 120, 0.05)
        assert extra.proc.returncode != 0
        assert b"already running" in extra.log.read_bytes()
        wait_until(lambda: gone(extra.processes()), 30, 0.05)
        assert answers(running.url) and running.proc.poll() is None
    finally:
        running.stop()
        if extra is not None:
            extra.stop()
    wait_until(lambda: gone(running.processes()), 30, 0.05)


def test_pages_waiting_for_a_change_hold_no_place_of_their_worker(tmp_path):
    """One gevent worker with a single place (WEB_ACTIVE=1): long-polls and a stream wait for a
    change, and an action still gets in (were their waits holding the place, it would queue
    behind them until their time-outs, a minute), and every page hears it."""
    direct, schema = new_pg_schema(PG_BASE)
    s = Stack(direct, tmp_path, web_workers=1, robot_procs=0, scheduler=False,
              env={"WEB_ACTIVE": "1", "POLL_TIMEOUT": "60", "POLL_RECHECK": "60",
                   "STREAM_HEARTBEAT": "60", **LIMITS})
    try:
        s.setup()
        s.start_web()
        host = HttpPlayer(s.url)
        r = host.post("/api/tables", {"host_name": "Ana"})
        tid, version = r.json()["table_id"], r.json()["state"]["version"]
        answers: list[Any] = []

        def poll() -> None:
            answers.append(requests.get(f"{s.url}/api/tables/{tid}/poll",
                                        params={"since": version}, timeout=45).json())

        polls = [threading.Thread(target=poll, daemon=True) for _ in range(3)]
        for t in polls:
            t.start()
        stream = requests.get(f"{s.url}/api/tables/{tid}/stream", params={"since": version},
                              stream=True, timeout=(5, 45))
        lines = sse_lines(stream)
        assert read_events(lines, lambda e: len(e) >= 1)[0]["event"] == "hello"
        # the polls' waits are out of sight: a pause lets them get there first (a poll that
        # comes late answers at once; the stream, open for sure, is waiting already)
        time.sleep(0.3)
        assert host.act(tid, "chat", text="¿hay lugar?").status_code == 200  # not queued
        [got] = read_events(lines, lambda e: any(x.get("event") == "state" for x in e))
        stream.close()
        for t in polls:
            t.join(timeout=45)
        assert [a["log"][-1]["text"] for a in answers] == ["¿hay lugar?"] * 3
        assert json.loads(got["data"])["log"][-1]["text"] == "¿hay lugar?"
    finally:
        s.stop()
        drop_pg_schema(PG_BASE, schema)
