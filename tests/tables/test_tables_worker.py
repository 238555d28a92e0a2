"""The production shape of robots: web processes run none, a `flask robots` process plays them.

In a module of its own: any live server's robot worker sweeps every table of the database, so no
other server may be running while this test checks that nobody but the worker plays."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import pytest
from corazones_testkit import ROOT, HttpPlayer, wait_until

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
    time.sleep(0.5)
    assert host.state(tid)["view"]["pass_confirmed"] == [False] * 4  # nobody plays them yet
    worker = subprocess.Popen(
        [sys.executable, "-m", "flask", "--app", "app", "robots"], cwd=ROOT,
        env={**web.env, "ROBOT_WORKER": "off"}, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        def robots_passed() -> dict[str, Any] | None:
            s = host.state(tid)
            return s if s["view"]["pass_confirmed"][1:] == [True] * 3 else None

        st = wait_until(robots_passed, 30)
        assert st["view"]["pass_confirmed"][0] is False
    finally:
        worker.terminate()
        worker.wait(timeout=10)
