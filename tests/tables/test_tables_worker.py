"""The production shape of robots: web processes run none, a `flask robots` process plays them.

In a module of its own: any live server's robot worker sweeps every table of the database, so no
other server may be running while this test checks that nobody but the worker plays."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from deploy.stack import alive, cmdline, descendants
from tests.kit import HttpPlayer, RobotProcess, wait_until

pytestmark = pytest.mark.db


def test_a_separate_robot_worker_process_plays_the_robots(server_factory, migrated, instance_dir):
    """Production shape: web processes with ROBOT_WORKER=off and a `flask robots` process."""
    web = server_factory(ROBOT_WORKER="off")
    host = HttpPlayer(web.url)
    r = host.post("/api/tables", {"host_name": "Ana"})
    assert r.status_code == 201
    tid = r.json()["table_id"]
    for seat in (1, 2, 3):
        host.act(tid, "add_robot", seat=seat)
    host.act(tid, "start")
    time.sleep(0.5)  # a check that nothing happens: a robot's chance to (wrongly) act in the web
    assert host.state(tid)["view"]["pass_confirmed"] == [False] * 4  # nobody plays them yet
    worker = RobotProcess({**web.env, "ROBOT_WORKER": "off"})
    try:
        def robots_passed() -> dict[str, Any] | None:
            s = host.state(tid)
            return s if s["view"]["pass_confirmed"][1:] == [True] * 3 else None

        st = wait_until(robots_passed, 30)
        assert st["view"]["pass_confirmed"][0] is False
    finally:
        worker.stop()


def _nice(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[16])


def _search_children(pid: int) -> list[tuple[int, int]]:
    """(pid, nice) of the robot search processes started by process ``pid``."""
    from deploy.stack import proc_children

    out = []
    for child in proc_children(pid):
        try:
            with open(f"/proc/{child}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{child}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if b"spawn_main" in cmd:
            out.append((child, int(fields[16])))
    return out


def test_difficult_robots_search_in_lower_priority_processes(server_factory):
    """ROBOT_SEARCH_PROCS: the Difícil searches run in processes of their own at ROBOT_NICE, and
    the robots still play every turn (the worker process only reads and writes)."""
    web = server_factory(ROBOT_WORKER="off")
    host = HttpPlayer(web.url)
    r = host.post("/api/tables", {"host_name": "Ana", "robot_level": "dificil"})
    assert r.status_code == 201
    tid = r.json()["table_id"]
    for seat in (1, 2, 3):
        assert host.act(tid, "add_robot", seat=seat).status_code == 200
    assert host.act(tid, "start").status_code == 200
    worker = RobotProcess({**web.env, "ROBOT_WORKER": "off", "ROBOT_SEARCH_PROCS": "1",
                           "ROBOT_NICE": "5"})
    try:
        st = wait_until(
            lambda: (s := host.state(tid))["view"]["pass_confirmed"][1:] == [True] * 3 and s, 30)
        assert host.act(tid, "confirm_pass", cards=st["view"]["hand"][:3]).status_code == 200

        def robot_plays() -> int:
            """Robot cards played so far; plays the human's turn when it comes."""
            s = host.state(tid)
            view = s["view"]
            if view["phase"] == "playing" and view.get("turn") == 0 and view.get("legal"):
                host.act(tid, "play", card=view["legal"][0], version=s["version"])
                return 0
            r = host.s.get(f"{web.url}/api/tables/{tid}", params={"since": 0}, timeout=60)
            return sum(1 for e in r.json()["log"] if e["type"] == "play" and e["seat"] != 0)

        wait_until(lambda: robot_plays() >= 6, 60)
        searchers = _search_children(worker.pid)
        assert len(searchers) == 1, searchers
        # ROBOT_NICE is added to the worker's own niceness (the suite may itself run niced)
        lower = min(19, _nice(worker.pid) + 5)
        assert all(nice == lower for _, nice in searchers), (lower, searchers)
        # ... in a session of its own, whose scheduling group (Linux autogroups: niceness counts
        # only inside a group) steps back by as much
        for pid, _nice_value in searchers:
            assert os.getsid(pid) == pid != os.getsid(worker.pid)
            group = Path(f"/proc/{pid}/autogroup")
            if group.exists():  # Linux with autogroups
                assert group.read_text().split()[-1] == "5", group.read_text()
        assert worker.proc.poll() is None
        # the search process and multiprocessing's resource tracker
        started = descendants(worker.pid)
        assert len(started) == 2, [cmdline(p) for p in started]
    finally:
        worker.stop()
    # SIGTERM ends `flask robots` with no clean-up of its own: what it started ends with it
    wait_until(lambda: not any(alive(p) for p in started), 30, 0.1)
