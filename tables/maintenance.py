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
    for tid in ids:
        with write_transaction():  # one table at a time: never a long write lock
            for model in (Action, Seat, Viewer):
                db.session.query(model).filter(model.table_id == tid).delete()
            db.session.query(Table).filter(Table.id == tid).delete()
    return len(ids)


def pending_robot_tables(limit: int = 200) -> list[str]:
    rows = db.session.execute(
        select(Table.id).where(Table.robot_due.is_(True)).order_by(Table.updated_at).limit(limit)
    ).scalars()
    out = list(rows)
    db.session.rollback()
    return out


def table_count() -> int:
    return int(db.session.execute(select(func.count()).select_from(Table)).scalar_one())
