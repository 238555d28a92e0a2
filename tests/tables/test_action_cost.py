"""What one card costs the database: the statements of the action's transaction, in order.

Every statement is a round trip made while the table's lock is held (on a gevent worker, a turn
of the event loop as well), so a new one is a cost every action pays; this list says which.
"""

from __future__ import annotations

import gc
import random
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event, select

import robots
from tests.kit import Player, lobby

pytestmark = pytest.mark.db

#: A card played at a table of four people, after the pass: the table row and its seats locked
#: and read with, in the same statement, the action id's earlier use and whether anyone takes
#: pushes; the log entry; the table row (its version and the clocks'); the two seat clocks that
#: changed written at once (the rows as they were come from the snapshot of the version before).
CARD = [
    ("SELECT", "tables"), ("INSERT", "actions"), ("UPDATE", "tables"), ("UPDATE", "clock_seats"),
]
#: PostgreSQL: the writes are one statement, the table row's UPDATE with the log entry and the
#: seat clocks as data-modifying WITH parts (tables/together.py).
CARD_TOGETHER = [("SELECT", "tables"), ("UPDATE", "tables")]
TOGETHER_PARTS = [("INSERT", "actions"), ("UPDATE", "clock_seats"), ("UPDATE", "clock_seats")]
#: The count closed at a table of four people, the next hand dealt (SQLite): the table and seats
#: locked; the closed hand's seed row and the next hand's, read together; then one flush: the
#: log entries (the close, the reveal, the seats' commitments the server made, the deal, the
#: commitment for the hand after), the closed hand's seeds revealed, the dealt hand's seeds
#: written, the commitment's new row, the table row, the seat clocks. The public half of the
#: fair deal the notice carries is made from the rows the action holds: not read back.
CLOSED_COUNT = [
    ("SELECT", "tables"), ("SELECT", "deal_seeds"), ("INSERT", "actions"),
    ("UPDATE", "deal_seeds"), ("UPDATE", "deal_seeds"), ("INSERT", "deal_seeds"),
    ("UPDATE", "tables"), ("UPDATE", "clock_seats"),
]
#: PostgreSQL: the writes are one statement (tables/together.py), its parts below.
CLOSED_COUNT_TOGETHER = [("SELECT", "tables"), ("SELECT", "deal_seeds"), ("UPDATE", "tables")]
CLOSED_COUNT_PARTS = [("INSERT", "actions")] * 8 + [
    ("INSERT", "deal_seeds"), ("UPDATE", "deal_seeds"), ("UPDATE", "deal_seeds")]


def _outer(sql: str) -> str:
    """The statement without its parenthesised parts (subqueries, column lists)."""
    out, depth = [], 0
    for ch in sql:
        depth += ch == "("
        if depth == 0:
            out.append(ch)
        depth -= ch == ")"
    return "".join(out)


def _shape(sql: str) -> tuple[str, str] | None:
    """(verb, the table it reads or writes, outside any subquery); None for the transaction's
    own statements (BEGIN, COMMIT)."""
    outer = _outer(sql).strip()
    if outer.upper().startswith("WITH"):  # the statement after its WITH parts
        outer = outer[re.search(r"\b(SELECT|INSERT|UPDATE|DELETE)\b", outer).start():]  # type: ignore[union-attr]
    verb = outer.split(None, 1)[0].upper()
    if verb in ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"):
        return None
    where = {"SELECT": r"\bFROM\s+(\w+)", "INSERT": r"\bINTO\s+(\w+)",
             "UPDATE": r"^UPDATE\s+(\w+)", "DELETE": r"\bFROM\s+(\w+)"}[verb]
    found = re.search(where, outer, re.IGNORECASE)
    assert found, sql
    return verb, found.group(1)


def _parts(sql: str) -> list[tuple[str, str]]:
    """The data-modifying WITH parts of a statement: (verb, table), in order."""
    found = re.finditer(r"\bAS\s*\(\s*(INSERT\s+INTO|UPDATE)\s+(\w+)", sql, re.IGNORECASE)
    return [(m.group(1).split()[0].upper(), m.group(2)) for m in found]


def _first_to_play(app: Any) -> tuple[str, Player]:
    tid, players = lobby(app, humans=4, robots_=0)
    players[0].act(tid, "start")
    for p in players:
        p.act(tid, "confirm_pass", cards=p.state(tid)["view"]["hand"][:3])
    for p in players:
        view = p.state(tid)["view"]
        if view["seat"] in view["to_act"]:
            assert "2C" in view["hand"]
            return tid, p
    raise AssertionError("nobody holds the 2♣")


@contextmanager
def _statements(app: Any) -> Iterator[dict[str, list[str]]]:
    """The statements this thread sends while inside: ``writer`` (the session's engine) and
    ``reader`` (PostgreSQL's read pool)."""
    from tables.db import _read_engine, db, is_sqlite

    with app.app_context():
        writer = db.engine
        reader = None if is_sqlite() else _read_engine(db.engine)
    seen: dict[str, list[str]] = {"writer": [], "reader": []}
    # The test client runs the request in this thread; the app's other threads (the robots'
    # sweep, which reads tables and seats every ROBOT_SWEEP s) use the same engines.
    mine = threading.get_ident()

    def on(name: str) -> Any:
        def note(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
            if threading.get_ident() == mine:
                seen[name].append(statement)
        return note

    listeners = [(writer, on("writer"))] + ([(reader, on("reader"))] if reader else [])
    for engine, fn in listeners:
        event.listen(engine, "before_cursor_execute", fn)
    try:
        yield seen
    finally:
        for engine, fn in listeners:
            event.remove(engine, "before_cursor_execute", fn)


def _on_sqlite(app: Any) -> bool:
    from tables.db import db, is_sqlite

    with app.app_context():
        return is_sqlite(db.engine)


def test_a_card_is_one_transaction_of_few_statements(app: Any) -> None:
    tid, holder = _first_to_play(app)
    with _statements(app) as seen:
        answer = holder.act(tid, "play", card="2C").get_json()
    assert answer["state"]["view"]["trick"][0]["card"] == "2C"
    shapes = [s for s in map(_shape, seen["writer"]) if s is not None]
    if _on_sqlite(app):
        assert shapes == CARD, "\n".join(seen["writer"])
    else:
        assert shapes == CARD_TOGETHER, "\n".join(seen["writer"])
        written = next(s for s in seen["writer"] if _shape(s) == ("UPDATE", "tables"))
        assert _parts(written) == TOGETHER_PARTS, written
    locked = next(s for s in seen["writer"] if _shape(s) == ("SELECT", "tables"))
    assert all(name in locked for name in ("seats", "actions", "push_subscriptions")), locked
    # The answer is built from the change itself: no read after the commit.
    assert seen["reader"] == []
    assert all("clock_tables" not in s for s in seen["writer"])


def test_the_one_statement_carries_only_log_rows_and_changed_rows(app: Any) -> None:
    """Anything else pending in the session (here a new device) and nothing is sent: the flush
    writes it all as before. Otherwise the statement writes the changed columns (PostgreSQL;
    SQLite always flushes), and the commit sends nothing more than a change the statement did
    not carry (another table's row)."""
    from tables import together
    from tables.db import db, write_transaction
    from tables.models import Device, Seat, Table

    tid, _players = lobby(app, humans=1, robots_=0)
    other_tid, _others = lobby(app, humans=1, robots_=0)
    sqlite = _on_sqlite(app)
    with app.app_context():
        table = db.session.get_one(Table, tid)
        table.name = "Mesa de prueba"
        db.session.add(Device(token_hash="0" * 64))
        with _statements(app) as seen:
            assert together.write(table, {}) is False
        assert seen["writer"] == []
        db.session.rollback()

        # SQLite's write lock from BEGIN, as an action takes it: the session's database is shared,
        # and another test's robots, played by this app's robot thread, may write meanwhile (a
        # read snapshot upgraded after their commit fails at once with «database is locked»)
        with write_transaction():
            table = db.session.get_one(Table, tid)
            seat = db.session.scalars(select(Seat).where(Seat.table_id == tid)).first()
            assert seat is not None
            table.name = "Mesa de Berta"
            seat.name = seat.name  # set, not changed: nothing to write
            with _statements(app) as seen:
                assert together.write(table, {}) is not sqlite
                # Nothing is left for a flush to look at (SQLite: the flush writes it all).
                assert bool(db.session.dirty) is sqlite
                db.session.commit()
        written = [s for s in map(_shape, seen["writer"]) if s is not None]
        assert written == [("UPDATE", "tables")], seen["writer"]  # once, not again at commit
        db.session.expire_all()
        assert db.session.get_one(Table, tid).name == "Mesa de Berta"
        assert db.session.query(Device).filter_by(token_hash="0" * 64).count() == 0

        # A change the statement does not carry (another table's row) is left for the flush.
        with write_transaction():
            table = db.session.get_one(Table, tid)
            other = db.session.get_one(Table, other_tid)
            table.name = "Mesa de Carmen"
            other.name = "Mesa de Tito"
            with _statements(app) as seen:
                assert together.write(table, {}) is not sqlite
                assert list(db.session.dirty) == [other] or sqlite
                db.session.commit()
        written = [s for s in map(_shape, seen["writer"]) if s is not None]
        # PostgreSQL: the statement, then the commit's flush; SQLite: the flush alone, one
        # executemany for both rows.
        assert written == [("UPDATE", "tables")] * (1 if sqlite else 2), seen["writer"]
        db.session.expire_all()
        assert db.session.get_one(Table, tid).name == "Mesa de Carmen"
        assert db.session.get_one(Table, other_tid).name == "Mesa de Tito"


def test_a_closed_count_reads_the_seeds_once_and_writes_once(app: Any) -> None:
    """Closing the count deals the next hand: the seed rows are read in one query and nothing is
    written before the action's one flush (each query that flushed the log cost three more round
    trips: eighteen statements on PostgreSQL, where they are three now)."""
    tid, players = lobby(app, humans=4, robots_=0)
    players[0].act(tid, "start")
    rng = random.Random(5)
    view = players[0].state(tid)["view"]
    while view["phase"] != "counting":
        p = players[view["to_act"][0]]
        action = robots.decide(p.state(tid)["view"], "facil", rng)
        p.act(tid, action.pop("type"), **action)
        view = players[0].state(tid)["view"]
    with _statements(app) as seen:
        answer = players[0].act(tid, "close_count").get_json()
    assert answer["state"]["view"]["phase"] == "passing"
    assert answer["state"]["view"]["hand_number"] == view["hand_number"] + 1
    shapes = [s for s in map(_shape, seen["writer"]) if s is not None]
    if _on_sqlite(app):  # SQLite inserts the log entries one by one (in-process: no round trips)
        shapes = [s for i, s in enumerate(shapes)
                  if not (s == ("INSERT", "actions") == shapes[i - 1])]
        assert shapes == CLOSED_COUNT, "\n".join(seen["writer"])
        return
    assert shapes == CLOSED_COUNT_TOGETHER, "\n".join(seen["writer"])
    written = next(s for s in seen["writer"] if _shape(s) == ("UPDATE", "tables"))
    parts = _parts(written)
    assert [p for p in parts if p[1] != "clock_seats"] == CLOSED_COUNT_PARTS, written
    assert ("UPDATE", "clock_seats") in parts, written
    # The public half shows the seed rows the statement wrote: the closed hand revealed, the
    # commitment for the hand after the one dealt (tests/tables/test_fair_deal.py verifies every
    # hand's deal from the seeds written this way, and the half against a read of the rows).
    fair = answer["state"]["fair_deal"]
    assert fair["next"]["hand"] == view["hand_number"] + 2
    assert [r["hand"] for r in fair["revealed"]][-1] == view["hand_number"]


def test_a_card_leaves_no_row_to_the_garbage_collector(app: Any) -> None:
    """The rows an action loads are freed when its request drops them: none is held in a
    reference cycle (left to the collector, whose pauses stop every page of the worker)."""
    from sqlalchemy.orm.state import AttributeState, InstanceState

    tid, holder = _first_to_play(app)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        answer = holder.act(tid, "play", card="2C").get_json()
        gc.collect()
        kept = [type(o).__name__ for o in gc.garbage
                if isinstance(o, (InstanceState, AttributeState))]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert answer["state"]["view"]["trick"][0]["card"] == "2C"
    assert kept == []
