"""Run by tests/load/test_loop_held.py in a process of its own, patched by gevent as a web worker
is (gunicorn.conf.py): what an action's transaction does to the event loop from the statement
that locks a table's row to its commit. Prints one JSON line."""

from gevent import monkey

monkey.patch_all()

import importlib  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from typing import Any  # noqa: E402

import gevent  # noqa: E402
from flask_migrate import upgrade  # noqa: E402
from sqlalchemy import text  # noqa: E402

from tables.db import db, write_transaction  # noqa: E402
from tables.seating import locked_table  # noqa: E402
from tests.kit import ROOT, Player, make_app  # noqa: E402

STATEMENTS = 20
db_module = importlib.import_module("tables.db")


def main(url: str) -> dict[str, Any]:
    app = make_app(url, ROBOT_WORKER="off")
    with app.app_context():
        upgrade(directory=str(ROOT / "migrations"))
    first, second = Player(app).create("Ana"), Player(app).create("Bea")
    turns = [0]

    def ticker() -> None:  # counts the turns the event loop gives the other greenlets
        while True:
            turns[0] += 1
            gevent.sleep(0)

    def statements() -> None:
        for _ in range(STATEMENTS):
            db.session.execute(text("SELECT 1"))

    def held() -> int:
        with app.app_context():
            with locked_table(first) as table:
                assert table is not None
                before = turns[0]
                statements()
            return turns[0] - before  # the commit included

    def cooperative() -> int:
        with app.app_context(), write_transaction():
            before = turns[0]
            statements()
            return turns[0] - before

    tick = gevent.spawn(ticker)
    # A tick far longer than any of these statements: every turn counted is a yield
    db_module.HELD_TICK = 5.0
    out: dict[str, Any] = {"turns_while_held": gevent.spawn(held).get(timeout=60),
                           "turns_cooperative": gevent.spawn(cooperative).get(timeout=60)}
    db_module.HELD_TICK = 0.002

    # A held statement that waits for a row lock of another greenlet's transaction, suspended
    # at a round trip of its own: the ticks let that one finish, and both commit.
    order: list[str] = []
    locked = gevent.event.Event()

    def other() -> None:
        with app.app_context(), write_transaction():
            db.session.execute(text("UPDATE tables SET name = 'otra' WHERE id = :t"),
                               {"t": second})
            locked.set()
            gevent.sleep(0.3)  # suspended while it holds the row
            order.append("other")

    def waiting_while_held() -> None:
        locked.wait()
        with app.app_context(), locked_table(first):
            db.session.execute(text("UPDATE tables SET name = 'mía' WHERE id = :t"),
                               {"t": second})
            order.append("held")

    jobs = [gevent.spawn(other), gevent.spawn(waiting_while_held)]
    gevent.joinall(jobs, timeout=30)
    with app.app_context():
        name = db.session.execute(text("SELECT name FROM tables WHERE id = :t"),
                                  {"t": second}).scalar_one()
        db.session.rollback()
    out.update({"finished": [j.ready() and j.successful() for j in jobs], "order": order,
                "name": name})
    tick.kill()
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
