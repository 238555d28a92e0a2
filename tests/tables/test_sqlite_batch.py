"""SQLite in a gevent web worker: the writers that queue for the worker's turn share one COMMIT
(tables/db.py ``_Batch``), each in a savepoint of its own.

A process patched as a gevent worker is, with ten greenlets writing at once: each writes a row,
then yields, so the others queue behind it. What must hold: one COMMIT for the ten, every block
returning only once its row is durable (another connection reads it), a block that fails taking
only its own row back, a COMMIT that fails failing every writer of its batch with nothing written,
a transaction SQLite rolled back under the batch failing the writers before it too, and a batch
left open with nobody at the turn committed by a writer waiting for it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
from gevent import monkey
monkey.patch_all()

import json, os, sqlite3, sys
import gevent
from sqlalchemy import event, text
from tests.kit import close_app, make_app
from tables.db import db, write_transaction

dbmod = sys.modules["tables.db"]  # the module (the package names its ``db`` object so)

app = make_app(sys.argv[1], ROBOT_WORKER="off")
dbmod.BATCH_MAX_SECONDS = 600.0  # only the queue closes a batch here, however slow the machine
with app.app_context():
    path = os.path.abspath(db.engine.url.database)
    commits = []
    event.listen(db.engine, "commit", lambda conn: commits.append(1))
raw = sqlite3.connect(path)
raw.executescript(
    "PRAGMA foreign_keys=ON;"
    "CREATE TABLE parent (id INTEGER PRIMARY KEY);"
    "CREATE TABLE scratch (n INTEGER PRIMARY KEY,"
    " p INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);")
raw.close()


def durable(n):
    other = sqlite3.connect(path)
    try:
        return other.execute("SELECT count(*) FROM scratch WHERE n = ?", (n,)).fetchone()[0]
    finally:
        other.close()


def round_of(writers, fail=(), dangling=(), lose=()):
    commits.clear()
    seen = {}

    def write(n):
        with app.app_context():
            try:
                with write_transaction():
                    db.session.execute(text("INSERT INTO scratch (n, p) VALUES (:n, :p)"),
                                       {"n": n, "p": 999 if n in dangling else None})
                    gevent.sleep(0)  # the other writers queue for the turn meanwhile
                    if n in lose:  # as SQLite does on a full disk: the transaction is gone
                        db.session.connection().exec_driver_sql("ROLLBACK")
                    if n in fail:
                        raise ValueError(n)
            except ValueError:
                seen[n] = "failed"
                return
            except Exception as err:
                seen[n] = type(err).__name__
                return
            seen[n] = durable(n)  # read at the moment the block returned

    gevent.joinall([gevent.spawn(write, n) for n in writers], raise_error=True)
    return {"commits": len(commits), "seen": seen,
            "rows": [durable(n) for n in writers]}


out = {
    "queue": round_of(range(1, 11)),
    "one_fails": round_of(range(11, 21), fail={15}),
    "commit_fails": round_of(range(21, 26), dangling={23}),
    "rolled_back": round_of(range(31, 34), lose={33}, fail={33}),
}

# The request's objects loaded before its block are changed inside it and read after it.
from tables.models import Device

with app.app_context():
    with write_transaction():
        db.session.add(Device(token_hash="f" * 64, name="antes"))
    device = db.session.execute(text("SELECT id FROM devices WHERE token_hash = :h"),
                                {"h": "f" * 64}).scalar_one()
    db.session.rollback()


def rename(name):
    with app.app_context():
        dev = db.session.get(Device, device)
        with write_transaction():
            dev.name = name
            gevent.sleep(0)
        return dev.name  # read again after the block


writers = [gevent.spawn(rename, "Ana"), gevent.spawn(rename, "Bea")]
renamed = [g.value for g in gevent.joinall(writers, raise_error=True)]
check = sqlite3.connect(path)
out["objects"] = {"read_after": renamed, "stored": check.execute(
    "SELECT name FROM devices WHERE id = ?", (device,)).fetchone()[0]}
check.close()

# A batch left open with the turn free: the writer waiting for it commits it.
with app.app_context():
    token = dbmod._IMMEDIATE.set(True)
    dbmod._sqlite_writer.acquire()
    batch = dbmod._open_batch = dbmod._open()
    batch.conn.execute(text("INSERT INTO scratch (n) VALUES (100)"))
    batch.writes += 1
    dbmod._sqlite_writer.release()
    before = durable(100)
    dbmod._wait_for(batch)
    out["orphan"] = {"before": before, "after": durable(100),
                     "still_open": dbmod._open_batch is not None}
    dbmod._IMMEDIATE.reset(token)

close_app(app)
print(json.dumps(out))
"""


def _run(database: str) -> dict[str, dict[str, object]]:
    out = subprocess.run([sys.executable, "-c", SCRIPT, database], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    result: dict[str, dict[str, object]] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_queued_writers_share_one_commit_and_return_once_durable(own_database: str) -> None:
    result = _run(own_database)

    queue = result["queue"]
    assert queue["commits"] == 1  # ten writers, one COMMIT (ten without the batch)
    assert queue["seen"] == {str(n): 1 for n in range(1, 11)}  # each durable when it returned
    assert queue["rows"] == [1] * 10

    one_fails = result["one_fails"]
    assert one_fails["commits"] == 1
    seen = one_fails["seen"]
    assert isinstance(seen, dict) and seen.pop("15") == "failed"
    assert seen == {str(n): 1 for n in range(11, 21) if n != 15}
    assert one_fails["rows"] == [0 if n == 15 else 1 for n in range(11, 21)]

    # the deferred foreign key fails the COMMIT: every writer of the batch hears it (a 503 to
    # the page, which sends the same action again) and none of their rows was written
    commit_fails = result["commit_fails"]
    assert commit_fails["seen"] == {str(n): "OperationalError" for n in range(21, 26)}
    assert commit_fails["rows"] == [0] * 5

    # the transaction rolled back under the batch by a later writer's error: the writers before
    # it hear it too (their savepoints went with it), none is told its row is durable
    rolled_back = result["rolled_back"]
    assert rolled_back["rows"] == [0, 0, 0]
    seen = rolled_back["seen"]
    assert isinstance(seen, dict) and seen["31"] == seen["32"] == "OperationalError", seen
    assert seen["33"] in ("failed", "OperationalError"), seen

    # each request's object was written through the batch and read back after its block; the
    # second writer's name was the last one written
    assert result["objects"] == {"read_after": ["Bea", "Bea"], "stored": "Bea"}

    assert result["orphan"] == {"before": 0, "after": 1, "still_open": False}
