"""Housekeeping: idle tables expire, and the robots' sweep finds tables left waiting on them."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from .db import db, write_transaction
from .models import Action, Seat, Table, Viewer, utcnow


def expire_idle_tables(days: int) -> int:
    """Delete tables idle for ``days`` days (with their seats and log; the clock's and the
    pushes' rows go with the table, ON DELETE CASCADE). Returns how many."""
    cutoff = utcnow() - timedelta(days=days)
    ids = list(db.session.execute(select(Table.id).where(Table.updated_at < cutoff)).scalars())
    expired = 0
    for tid in ids:
        with write_transaction():  # one table at a time: never a long write lock
            # The table row first, as an action takes it (then its seats and log): locking the
            # seats first deadlocked with an action holding the table. Still idle under the lock,
            # or an action came in between and the table stays.
            idle = db.session.execute(
                select(Table.id).where(Table.id == tid, Table.updated_at < cutoff)
                .with_for_update()).scalar_one_or_none()
            if idle is None:
                continue
            for model in (Action, Seat, Viewer):
                db.session.query(model).filter(model.table_id == tid).delete()
            db.session.query(Table).filter(Table.id == tid).delete()
            expired += 1
    return expired


def pending_robot_tables(limit: int = 200) -> list[str]:
    rows = db.session.execute(
        select(Table.id).where(Table.robot_due.is_(True)).order_by(Table.updated_at).limit(limit)
    ).scalars()
    out = list(rows)
    db.session.rollback()
    return out


def table_count() -> int:
    return int(db.session.execute(select(func.count()).select_from(Table)).scalar_one())
