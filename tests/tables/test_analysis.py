"""Análisis in the service: asked once per game and player (others refused in Spanish), run by the
robot worker only (never in the web request), after every robot turn due, one decision at a time
and resumed where a stopped process left it; each decision rebuilt as the player saw it."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from tables.analysis import DONE, QUEUED, game_before
from tables.db import db
from tables.models import GameAnalysis, Table, utcnow
from tables.robot_worker import RobotWorker
from tests.kit import Player, RobotProcess, close_app, error, lobby, make_app, wait_until
from tests.tables.test_records import play_out

pytestmark = pytest.mark.db

WORLDS = 4  # tiny reviews: these tests check the queue, not the judgement


class Game:
    def __init__(self, app: Any, tid: str, ana: Player, beto: Player, carla: Player) -> None:
        self.app, self.tid, self.ana, self.beto, self.carla = app, tid, ana, beto, carla

    def url(self, n: int = 1) -> str:
        return f"/api/tables/{self.tid}/games/{n}/analysis"

    def row(self, device_of: Player) -> dict[str, Any]:
        with self.app.app_context():
            rows = db.session.query(GameAnalysis).filter(GameAnalysis.table_id == self.tid).all()
            out = [{"status": r.status, "results": list(r.results), "decisions": r.decisions,
                    "lease_until": r.lease_until, "id": r.id, "seat": r.seat} for r in rows]
            db.session.rollback()
        seat = [self.ana, self.beto, self.carla].index(device_of)
        return next(r for r in out if r["seat"] == seat)

    def rows(self) -> int:
        with self.app.app_context():
            n = db.session.query(GameAnalysis).filter(GameAnalysis.table_id == self.tid).count()
            db.session.rollback()
            return int(n)


@pytest.fixture(scope="module")
def game(own_database: str) -> Iterator[Game]:
    """A finished game of Ana, Beto and Carla with a robot, in a database of its own (whether
    analysis work is taken depends on every table's robot turns). Its robot plays in a worker
    that is then stopped: the tests drive a worker of their own by hand."""
    app = make_app(own_database, ROBOT_WORKER="off", ANALYSIS_WORLDS=WORLDS, ANALYSIS_PROCS=1,
                   ANALYSIS_POLL=0.1)
    players = RobotWorker(app)
    app.extensions["corazones_robots"] = players
    players.thread.start()  # robots only: no analysis thread
    tid, (ana, beto, carla) = lobby(app, humans=3, target=50)
    ana.act(tid, "start")
    st = play_out([ana, beto, carla], tid, seed=11)
    assert st["table"]["status"] == "finished"
    players.stop()
    worker = RobotWorker(app)  # not started: the tests call its steps
    app.extensions["corazones_robots"] = worker
    yield Game(app, tid, ana, beto, carla)
    worker.stop()
    close_app(app)


def worker_of(game: Game) -> RobotWorker:
    return game.app.extensions["corazones_robots"]  # type: ignore[no-any-return]


def drain(worker: RobotWorker) -> None:
    """Empty this process's hand-off of robot turns (its running loop would take them at once):
    what is due is then told by the database alone, as to a robot process that did not get it."""
    while not worker.queue.empty():
        worker.queue.get()


def test_a_player_asks_once_others_are_refused_and_the_web_request_reviews_nothing(game):
    r = game.ana.post(game.url())
    assert r.status_code == 202, r.get_json()
    body = r.get_json()
    assert body["status"] == QUEUED and body["done"] == 0 and body["total"] > 13
    kinds = {d["kind"] for d in body["decisions"]}
    assert kinds == {"pass", "play"} and all(d["seat"] == 0 for d in body["decisions"])
    again = game.ana.post(game.url())
    assert again.status_code == 202 and again.get_json()["total"] == body["total"]
    assert game.rows() == 1
    # Nothing ran in the web request, and nothing runs without a robot worker's step.
    assert game.row(game.ana)["status"] == QUEUED and game.row(game.ana)["results"] == []
    assert game.ana.client.get(game.url()).get_json()["status"] == QUEUED
    stranger = Player(game.app)
    body = error(stranger.post(game.url()), 403, "not_player")
    assert "Solo quien jugó" in body["message"]
    assert stranger.client.get(game.url()).get_json()["status"] == "none"
    assert game.rows() == 1
    error(game.ana.post(game.url(2)), 404, "game_not_found")
    error(game.ana.post(f"/api/tables/{game.tid}/games/x/analysis"), 404, "game_not_found")
    error(game.ana.post("/api/tables/nope/games/1/analysis"), 404, "game_not_found")


def test_every_decision_is_rebuilt_as_the_player_saw_it(game):
    r = game.ana.post(game.url()).get_json()
    record = game.ana.client.get(f"/api/tables/{game.tid}/games/1").get_json()
    for d in r["decisions"]:
        hand = record["hands"][d["hand"] - 1]
        if d["kind"] == "pass":
            g = game_before(record, d["hand"], None)
            assert g.phase == "passing" and not g.pass_ok[0]
        else:
            g = game_before(record, d["hand"], d["index"])
            assert g.turn == 0 and hand["plays"][d["index"]]["seat"] == 0


def test_robot_turns_come_before_analysis_work(game):
    game.ana.post(game.url())
    worker = worker_of(game)
    # Another table whose robots must pass now: nobody has played them yet.
    tid, (carla,) = lobby(game.app)
    carla.act(tid, "start")
    drain(worker)
    with game.app.app_context():
        assert db.session.get(Table, tid).robot_due
        db.session.rollback()
    before = game.row(game.ana)["results"]
    assert worker.analysis_step() is False  # a robot turn is due: no analysis work
    assert game.row(game.ana)["results"] == before
    assert worker.play(tid) == 3  # the robots pass
    drain(worker)
    assert worker.analysis_step() is True
    assert len(game.row(game.ana)["results"]) == len(before) + 1


def test_a_stopped_process_is_resumed_without_redoing_decisions(game):
    game.ana.post(game.url())
    first = worker_of(game)
    for _ in range(3):
        assert first.analysis_step() is True
    row = game.row(game.ana)
    done = list(row["results"])
    assert row["status"] == "running" and len(done) >= 3
    # The process stops here (killed: it never saves again). Another robot process does not
    # take the analysis while the lease holds...
    second = RobotWorker(game.app)
    assert second.analysis_step() is False
    # ... and takes it over once it ran out, from the first decision not done.
    with game.app.app_context():
        a = db.session.get(GameAnalysis, row["id"])
        a.lease_until = utcnow() - timedelta(seconds=1)
        db.session.commit()
    steps = 0
    while second.analysis_step():
        steps += 1
    row = game.row(game.ana)
    assert row["status"] == DONE
    assert steps == len(row["decisions"]) - len(done)
    assert row["results"][:len(done)] == done
    body = game.ana.client.get(game.url()).get_json()
    assert body["status"] == DONE and body["done"] == body["total"]
    for d in body["decisions"]:
        assert d["done"] and ("failed" not in d)
        if d["forced"]:
            assert not d["marked"]
        if d["marked"]:
            assert d["reason"] and d["cost"] >= 1 and d["best"] != d["chosen"]
    second.stop()


def test_a_killed_robot_process_is_resumed_by_another(game):
    """Production shape: `flask robots` processes. One is killed (SIGKILL) in the middle of an
    analysis; another takes it over when the lease runs out and finishes it from where the first
    stopped, keeping every review the first one saved."""
    r = game.carla.post(game.url())
    assert r.status_code == 202
    aid = game.row(game.carla)["id"]
    with game.app.app_context():  # deep reviews, so that the first process is caught mid-way
        db.session.get(GameAnalysis, aid).worlds = 300
        db.session.commit()
    env = {**os.environ, "DATABASE_URL": game.app.config["SQLALCHEMY_DATABASE_URI"],
           "ROBOT_WORKER": "off", "SECRET_KEY": "test-secret", "SCHEDULER": "off",
           "ANALYSIS_PROCS": "0", "ANALYSIS_LEASE": "2", "ANALYSIS_POLL": "0.2"}
    env.pop("REDIS_URL", None)

    first = RobotProcess(env)
    try:
        wait_until(lambda: len(game.row(game.carla)["results"]) >= 3, 90, 0.05)
    finally:
        first.stop(kill=True)
    before = game.row(game.carla)
    kept = list(before["results"])
    assert before["status"] == "running" and 3 <= len(kept) < len(before["decisions"])
    assert all(r["worlds"] == 300 for r in kept if not r["forced"])
    with game.app.app_context():  # the rest quickly (and told apart from what was kept)
        db.session.get(GameAnalysis, aid).worlds = WORLDS
        db.session.commit()
    second = RobotProcess(env)
    try:
        done = wait_until(lambda: (lambda row: row if row["status"] == DONE else None)(
            game.row(game.carla)), 120, 0.1)
    finally:
        second.stop()
    assert done["results"][:len(kept)] == kept  # nothing kept was redone
    assert all(r["worlds"] in (0, WORLDS) for r in done["results"][len(kept):])
    assert len(done["results"]) == len(done["decisions"])


def test_the_robot_workers_thread_runs_the_analysis_by_itself(game):
    r = game.beto.post(game.url())
    assert r.status_code == 202 and r.get_json()["decisions"][0]["seat"] == 1
    worker = worker_of(game)
    worker.analysis_thread.start()
    body = wait_until(lambda: (lambda b: b if b["status"] == DONE else None)(
        game.beto.client.get(game.url()).get_json()), 120)
    assert body["done"] == body["total"] > 0
    assert worker.analyser is not None  # reviewed in a process of its own
    # Asking again answers the analysis there is.
    again = game.beto.post(game.url())
    assert again.status_code == 200 and again.get_json()["done"] == body["total"]
    rng = random.Random(0)
    d = rng.choice(body["decisions"])
    assert d["done"] and d["kind"] in ("pass", "play")
