"""Robot turns in two lanes: with search processes, the tables whose robots search (Difícil) are
worked on by threads of their own, so a Normal table's robots never wait for a thread that waits
for a search (tables/robot_worker.py).

In a module of its own database: a robot worker sweeps every table of its database."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from tables.robot_worker import RobotWorker
from tests.kit import Player, close_app, lobby, make_app, wait_until

pytestmark = pytest.mark.db


def robots_passed(player: Player, tid: str) -> bool:
    return bool(player.state(tid)["view"]["pass_confirmed"][1:] == [True] * 3)


def test_a_normal_tables_robots_play_while_every_searching_thread_waits(own_database: str) -> None:
    app = make_app(own_database, ROBOT_WORKER="off", ROBOT_SEARCH_PROCS=1, ROBOT_NICE=0,
                   ROBOT_THREADS=2)
    worker = RobotWorker(app)
    app.extensions["corazones_robots"] = worker
    worker.thread.start()  # robots only: no analysis, no hints
    release = threading.Event()
    try:
        assert worker.searched_pool is not None
        # Every thread of the searching lane is taken (as by searches queued for the one search
        # process): a table whose robots search waits, the others must not.
        taken = [worker.searched_pool.submit(release.wait, 60) for _ in range(2)]
        hard, (ana,) = lobby(app, robot_level="dificil")
        easy, (bea,) = lobby(app, robot_level="normal")
        ana.act(hard, "start")
        bea.act(easy, "start")
        wait_until(lambda: robots_passed(bea, easy), 30)
        # The Difícil table went to its lane and waits there, its turn kept for it.
        wait_until(lambda: worker.searched.get(hard) is True, 30)
        assert worker.searched.get(easy) is False
        assert not robots_passed(ana, hard)
        assert hard in worker.inflight
        release.set()
        assert all(f.result(10) for f in taken)
        wait_until(lambda: robots_passed(ana, hard), 60)
        # Both tables play on, each in its lane: a human's pass, then the robots' cards.
        for player, tid in ((ana, hard), (bea, easy)):
            state: dict[str, Any] = player.state(tid)
            player.act(tid, "confirm_pass", cards=state["view"]["hand"][:3])
        wait_until(lambda: len(ana.state(hard)["view"]["trick"]) > 0
                   or ana.state(hard)["view"].get("turn") == 0, 60)
        wait_until(lambda: len(bea.state(easy)["view"]["trick"]) > 0
                   or bea.state(easy)["view"].get("turn") == 0, 60)
    finally:
        release.set()
        worker.stop()
        close_app(app)
