"""Timed work, in exactly one scheduler process: idle tables expire; robot turns are swept; the
live queue is matched.

A file lock in instance/ makes sure only one process on the machine runs the scheduler, whether it
is started in-process (dev: ``SCHEDULER = "inprocess"``) or as ``flask --app app scheduler``.
Deadlines live in rows, so the scheduler only wakes the work up and a restart loses nothing.
"""

from __future__ import annotations

import fcntl
import os
from typing import IO, Any

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.blocking import BlockingScheduler
from flask import Flask

from . import clock, matchmaking, push
from .maintenance import expire_idle_tables, pending_robot_tables
from .robot_worker import RobotWorker

_lock_file: IO[str] | None = None


def acquire_lock(app: Flask) -> bool:
    """True if this process now holds the scheduler lock (held until the process exits)."""
    global _lock_file
    if _lock_file is not None:
        return True
    path = os.path.join(app.instance_path, "scheduler.lock")
    f = open(path, "a+")  # noqa: SIM115 - kept open for the life of the process
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        return False
    _lock_file = f
    return True


def expire_job(app: Flask) -> int:
    with app.app_context():
        n = expire_idle_tables(int(app.config["TABLE_EXPIRY_DAYS"]))
        if n:
            app.logger.info("expired %d idle tables", n)
        return n


def robot_sweep_job(app: Flask) -> None:
    worker: Any = app.extensions.get("corazones_robots")
    with app.app_context():
        ids = pending_robot_tables()
    for tid in ids:
        if worker is not None:
            worker.kick(tid)
        else:
            RobotWorker(app).play(tid)


def add_jobs(app: Flask, sched: Any) -> None:
    sched.add_job(expire_job, "interval", hours=1, args=[app], id="expire",
                  next_run_time=None, coalesce=True, max_instances=1)
    sched.add_job(robot_sweep_job, "interval", seconds=float(app.config["ROBOT_SWEEP"]),
                  args=[app], id="robots", coalesce=True, max_instances=1)
    push.add_jobs(app, sched)
    clock.add_jobs(app, sched)
    matchmaking.add_jobs(app, sched)  # Jugar en vivo: nothing waits on a page to match


def start_background(app: Flask) -> BackgroundScheduler | None:
    if not acquire_lock(app):
        return None
    sched = BackgroundScheduler(daemon=True)
    add_jobs(app, sched)
    sched.start()
    app.extensions["corazones_scheduler"] = sched
    return sched


def run_blocking(app: Flask) -> None:
    if not acquire_lock(app):
        raise SystemExit("another scheduler process is already running")
    expire_job(app)
    sched = BlockingScheduler()
    add_jobs(app, sched)
    sched.start()
