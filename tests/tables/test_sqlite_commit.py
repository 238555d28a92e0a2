"""SQLite in a gevent web worker: a write's COMMIT (the WAL synced) runs in a thread of gevent's
pool, not on the event loop, and that thread lets go of the writers' file lock as soon as the
commit is done (tables/db.py ``_commit``).

A process patched as a gevent worker is: one greenlet writes; another, which never yields, waits
for the writers' file lock to be let go (the kernel's /proc/locks) and then looks whether the
writer has come back yet. With the COMMIT on the loop, the writer would run to its end before the
other greenlet ever ran."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
from gevent import monkey
monkey.patch_all()

import json, os, sys, time
import gevent
from sqlalchemy import text
from tests.kit import close_app, holds_lock, make_app
from tables.db import db, write_transaction

app = make_app(sys.argv[1], ROBOT_WORKER="off")
seen = {}


def write():
    with app.app_context():
        seen["path"] = os.path.abspath(db.engine.url.database) + "-writers.lock"
        with write_transaction():
            db.session.execute(text("UPDATE tables SET version = version WHERE id = 'none'"))
            seen["held_inside"] = holds_lock(os.getpid(), seen["path"])
        seen["writer_back"] = True


def watch():
    # never yields: the loop runs nothing else until this returns
    deadline = time.monotonic() + 60
    while "path" not in seen or holds_lock(os.getpid(), seen["path"]):
        if time.monotonic() > deadline:
            seen["timed_out"] = True
            return
    seen["writer_back_when_let_go"] = seen.get("writer_back", False)


a = gevent.spawn(write)
gevent.sleep(0)  # the writer runs up to its COMMIT
b = gevent.spawn(watch)
gevent.joinall([a, b], raise_error=True)
close_app(app)
print(json.dumps(seen))
"""


def test_a_commit_on_the_event_loop_lets_go_of_the_writers_lock_from_a_thread(
        migrated: str) -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT, migrated], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["held_inside"] is True  # the writer held the lock while it wrote
    assert "timed_out" not in seen
    # the lock was let go while the writer was still waiting for its COMMIT to come back
    assert seen["writer_back_when_let_go"] is False
    assert seen["writer_back"] is True
