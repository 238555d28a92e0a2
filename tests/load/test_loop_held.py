"""A gevent web worker's transaction keeps the event loop from the statement that locks a table's
row to its commit (tables/db.py ``LOOP_HELD``), without ever stopping the worker for good."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.kit import ROOT
from tests.load.load_kit import PG_BASE, drop_pg_schema, new_pg_schema


def test_a_transaction_holding_the_row_lock_keeps_the_loop_and_never_stalls_the_worker() -> None:
    url, schema = new_pg_schema(PG_BASE)
    try:
        done = subprocess.run([sys.executable, "-m", "tests.load.loop_held_probe", url],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
    finally:
        drop_pg_schema(PG_BASE, schema)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    # 20 statements and the commit without a turn of the loop; the same statements in a
    # transaction that holds no table lock wait a turn each
    assert got["turns_while_held"] == 0
    assert got["turns_cooperative"] >= 20
    # the held statement waited for the suspended transaction's row, which could still finish
    assert got["finished"] == [True, True]
    assert got["order"] == ["other", "held"]
    assert got["name"] == "mía"
