"""La Pista in the robot processes: a web process that runs no robots hands the hint over (Redis)
and a `flask robots` process computes it, in its search process (a whole Difícil search); with no
robot process the web process does not compute it itself but says, in Spanish, that the hint is
late."""

from __future__ import annotations

import os
from typing import Any

import pytest

import robots
from deploy.stack import cmdline, descendants
from rules import view_for
from tables.db import db
from tables.models import Table
from tables.seating import load_game
from tests.kit import RobotProcess, close_app, error, lobby, make_app, wait_until

pytestmark = pytest.mark.db

REDIS = "redis://127.0.0.1:6379/0"


def test_the_hint_is_computed_by_a_robot_process_not_by_the_web(migrated: str) -> None:
    web = make_app(migrated, ROBOT_WORKER="off", REDIS_URL=REDIS, HINT_TIMEOUT=1.5)
    proc = None
    try:
        tid, (ana,) = lobby(web, humans=1)
        ana.act(tid, "start")  # Ana must pass (the robots' passes wait: no robot process yet)
        # No robot process: the web process waits, then says so; it computed nothing itself.
        body = error(ana.client.get(f"/api/tables/{tid}/hint"), 503, "hint_late")
        assert "La pista" in body["message"]
        with web.app_context():
            view = view_for(load_game(db.session.get(Table, tid)), 0)
            db.session.rollback()
        env = {"DATABASE_URL": migrated, "REDIS_URL": REDIS, "ROBOT_WORKER": "off",
               "SECRET_KEY": "test-secret", "SCHEDULER": "off", "ANALYSIS_PROCS": "0",
               "ROBOT_SEARCH_PROCS": "1"}
        proc = RobotProcess({**os.environ, **env})

        def answered() -> dict[str, Any] | None:
            r = ana.client.get(f"/api/tables/{tid}/hint")
            return r.get_json() if r.status_code == 200 else None

        def searchers() -> list[int]:
            return [p for p in descendants(proc.pid) if "spawn_main" in cmdline(p)]

        # The table's robots are Normal: nothing else starts the search process.
        assert searchers() == []
        hint = wait_until(answered, 60, 0.5)
        assert hint == {"cards": robots.hint(view)["cards"]}  # what Difícil would pass
        assert len(searchers()) == 1  # the search ran there, not in the robot process's GIL
    finally:
        if proc is not None:
            proc.stop()
        close_app(web)
