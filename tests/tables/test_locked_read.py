"""An action that waits for its table's lock acts on what the transaction before it wrote.

The action locks the table row and its seat rows and reads them, the action id's earlier use and
the push subscriptions in one statement (tables/actions.py ``_lock_table_and_seats``). On
PostgreSQL that statement reads as of its start; here another transaction holds the lock, writes
and commits while the action's statement waits for it, and the action must still see it all.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest
import sqlalchemy as sa

from tables.models import Action, Seat, Table, utcnow
from tests.kit import Player, wait_until

pytestmark = pytest.mark.db


def _waiting_for(conn: sa.Connection, holder_pid: int) -> bool:
    """Some backend waits for a lock the backend ``holder_pid`` holds."""
    return bool(conn.execute(sa.text(
        "SELECT count(*) FROM pg_stat_activity WHERE :pid = ANY(pg_blocking_pids(pid))"),
        {"pid": holder_pid}).scalar())


def _act_while_held(app: Any, tid: str, write: Any, body: dict[str, Any]) -> Any:
    """Send ``body`` as a new visitor's action while another transaction holds the table's lock
    and runs ``write(conn)``; commit that transaction once the action waits for the lock (on
    SQLite the action's BEGIN IMMEDIATE waits for the other writer instead). Returns the answer."""
    # Another client's connections (not the app's pool, which the action needs).
    engine = sa.create_engine(app.config["SQLALCHEMY_DATABASE_URI"])
    sqlite = engine.dialect.name == "sqlite"
    visitor = Player(app)
    answer: list[Any] = []
    try:
        with engine.connect() as holder, engine.connect() as watcher:
            holder.begin()
            if not sqlite:
                holder_pid = holder.execute(sa.text("SELECT pg_backend_pid()")).scalar_one()
                holder.execute(sa.select(Table.__table__.c.id)
                               .where(Table.__table__.c.id == tid).with_for_update())
            write(holder)
            sender = threading.Thread(target=lambda: answer.append(
                visitor.post(f"/api/tables/{tid}/actions", body)))
            sender.start()
            if not sqlite:
                wait_until(lambda: _waiting_for(watcher, holder_pid) or not sender.is_alive(),
                           60, 0.05)
                assert sender.is_alive(), ("the action did not wait for the lock",
                                           answer[0].status_code, answer[0].get_json())
            holder.commit()
            sender.join(60)
    finally:
        engine.dispose()
    assert answer, "the action did not return"
    return answer[0]


def _seats(app: Any, tid: str) -> dict[int, str]:
    from tables.db import db

    with app.app_context():
        rows = db.session.execute(sa.select(Seat.seat, Seat.name).where(Seat.table_id == tid))
        out = {seat: name for seat, name in rows}
        db.session.rollback()
    return out


def test_an_action_id_logged_while_the_action_waited_is_not_applied_again(app: Any) -> None:
    tid = Player(app).create("Ana")
    action_id = uuid.uuid4().hex
    t, a = Table.__table__, Action.__table__

    def log_the_same_action_id(conn: sa.Connection) -> None:
        version = conn.execute(sa.select(t.c.version).where(t.c.id == tid)).scalar_one() + 1
        conn.execute(t.update().where(t.c.id == tid).values(version=version))
        conn.execute(a.insert().values(table_id=tid, version=version, game_number=0, type="chat",
                                       seat=None, action_id=action_id, device_id=None,
                                       payload={}, events=[], at=utcnow()))

    r = _act_while_held(app, tid, log_the_same_action_id,
                        {"type": "sit", "name": "Bea", "action_id": action_id})
    assert r.status_code == 200, r.get_json()
    # The id was taken by the other transaction: this request is its retry, nothing changes.
    assert "Bea" not in _seats(app, tid).values()


def test_a_seat_taken_while_the_action_waited_is_not_taken_again(app: Any) -> None:
    tid = Player(app).create("Ana")
    s = Seat.__table__

    def seat_zoe(conn: sa.Connection) -> None:  # the seat row alone: the table's version stays
        conn.execute(s.update().where(s.c.table_id == tid, s.c.seat == 1)
                     .values(kind="human", name="Zoe"))

    r = _act_while_held(app, tid, seat_zoe,
                        {"type": "sit", "name": "Bea", "action_id": uuid.uuid4().hex})
    assert r.status_code == 200, r.get_json()
    assert _seats(app, tid) == {0: "Ana", 1: "Zoe", 2: "Bea", 3: ""}
