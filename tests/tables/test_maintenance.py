"""Idle tables expire (tables/maintenance.py): a table that an action touched between the
selection of idle tables and its deletion stays."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from sqlalchemy import event

from tables.db import db
from tables.maintenance import expire_idle_tables
from tables.models import Table
from tests.kit import lobby

pytestmark = pytest.mark.db


def _age(app: Any, tid: str) -> None:
    with app.app_context():
        t = db.session.get(Table, tid)
        assert t is not None
        t.updated_at = t.updated_at.replace(year=2000)
        db.session.commit()


def test_a_table_touched_after_the_selection_is_not_deleted(app: Any) -> None:
    tid, _ = lobby(app, humans=1)
    kept, _ = lobby(app, humans=1)
    _age(app, tid)
    _age(app, kept)
    with app.app_context():
        engine = db.engine
        mine = threading.get_ident()  # the robots' sweep uses the engine from its own thread
        selected: list[str] = []
        touched: list[str] = []

        def touch(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
            # The first statement after the selection of idle tables: as if an action on
            # ``kept`` committed just then (its row's time moves on).
            if threading.get_ident() != mine or touched:
                return
            if not selected:
                if "tables.updated_at <" in statement:
                    selected.append(statement)
                return
            touched.append(statement)
            mark = "?" if conn.dialect.paramstyle == "qmark" else "%s"
            cursor.execute(f"UPDATE tables SET updated_at = CURRENT_TIMESTAMP WHERE id = {mark}",
                           (kept,))

        event.listen(engine, "before_cursor_execute", touch)
        try:
            expired = expire_idle_tables(30)
        finally:
            event.remove(engine, "before_cursor_execute", touch)
        db.session.rollback()
        assert db.session.get(Table, kept) is not None
        assert db.session.get(Table, tid) is None
        assert expired == 1 and selected and touched
