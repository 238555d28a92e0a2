"""The PostgreSQL cursor whose description builds its columns only when read (tables/pgcursor.py):
everything that reads them gets what psycopg's own cursor gives, and the serving engines use it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from sqlalchemy.engine import make_url

from tables.pgcursor import LazyDescription, LazyDescriptionCursor
from tests.kit import lobby

#: The suite's PostgreSQL server (the SQLite pass runs these too: the cursor is PostgreSQL's).
PG_BASE = os.environ.get("LOAD_TEST_DATABASE_URL",
                         "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _conninfo() -> str:
    url = make_url(PG_BASE)
    return psycopg.conninfo.make_conninfo(
        host=url.host or "", port=url.port or 5432, user=url.username or "",
        password=url.password or "", dbname=url.database or "")


@pytest.fixture()
def cursors() -> Iterator[tuple[Any, Any]]:
    with psycopg.connect(_conninfo()) as plain, \
            psycopg.connect(_conninfo(), cursor_factory=LazyDescriptionCursor) as lazy:
        yield plain.cursor(), lazy.cursor()


def _described(description: Any) -> list[tuple[Any, ...]]:
    return [(c.name, c.type_code, c.display_size, c.internal_size, c.precision, c.scale,
             c.null_ok, c.type_display) for c in description]


QUERIES = [
    "SELECT 1 AS a, 'x'::text AS b, 2.5::numeric(6,2) AS c,"
    " '2026-12-07 10:00+00'::timestamptz AS d, '{}'::jsonb AS e, ARRAY[1,2] AS f,"
    " NULL::varchar(12) AS g",
    "SELECT",  # rows of no columns: an empty description, not None
    "SELECT generate_series(1, 3) AS n",
]


@pytest.mark.parametrize("query", QUERIES)
def test_the_lazy_description_is_psycopgs_own(cursors: tuple[Any, Any], query: str) -> None:
    plain, lazy = cursors
    plain.execute(query)
    lazy.execute(query)
    mine = lazy.description
    assert isinstance(mine, LazyDescription)
    assert len(mine) == len(plain.description)
    assert bool(mine) == bool(plain.description)
    assert _described(mine) == _described(plain.description)
    assert [c.name for c in mine[:2]] == [c.name for c in plain.description[:2]]
    assert mine == list(mine)
    assert lazy.fetchall() == plain.fetchall()


def test_no_rows_no_description(cursors: tuple[Any, Any]) -> None:
    plain, lazy = cursors
    for cur in (plain, lazy):
        cur.execute("CREATE TEMPORARY TABLE t (x int)")
        assert cur.description is None
        cur.execute("INSERT INTO t VALUES (1)")
        assert cur.description is None


def test_a_description_read_late_describes_its_own_result(cursors: tuple[Any, Any]) -> None:
    """Its columns come from the result it was made for, even once the cursor ran another."""
    _, lazy = cursors
    lazy.execute("SELECT 1 AS first, 'x'::text AS second")
    earlier = lazy.description
    lazy.execute("SELECT now() AS later")
    assert [c.name for c in earlier] == ["first", "second"]
    assert [c.type_code for c in earlier] == [23, 25]  # int4, text
    assert [c.name for c in lazy.description] == ["later"]


def test_no_column_is_built_until_one_is_read(cursors: tuple[Any, Any]) -> None:
    _, lazy = cursors
    lazy.execute("SELECT " + ", ".join(f"{i} AS c{i}" for i in range(64)))
    description = lazy.description
    assert description is not None and len(description) == 64
    assert description._columns is None
    assert description[63].name == "c63"
    assert description._columns is not None


@pytest.mark.db
def test_the_serving_engine_uses_it_and_an_action_reads_right(app: Any) -> None:
    """On PostgreSQL every connection of the app's pools makes these cursors, and a whole lobby
    and first pass through them (the locking statement's sixty columns included) read right."""
    from tables.db import db, is_sqlite

    with app.app_context():
        if is_sqlite():
            assert "connect_args" not in app.config["SQLALCHEMY_ENGINE_OPTIONS"]
            return
        raw = db.engine.raw_connection()
        try:
            assert isinstance(raw.driver_connection.cursor(), LazyDescriptionCursor)
        finally:
            raw.close()
    tid, players = lobby(app, humans=4, robots_=0)
    players[0].act(tid, "start")
    for p in players:
        p.act(tid, "confirm_pass", cards=p.state(tid)["view"]["hand"][:3])
    views = [p.state(tid)["view"] for p in players]
    assert sorted(v["seat"] for v in views) == [0, 1, 2, 3]
    assert all(len(v["hand"]) == 13 for v in views)
    assert len({c for v in views for c in v["hand"]}) == 52
    assert sum("2C" in v["hand"] and v["seat"] in v["to_act"] for v in views) == 1


@pytest.mark.parametrize("url", [PG_BASE, "sqlite:///:memory:"])
def test_an_apps_engine_options_are_its_databases(monkeypatch: pytest.MonkeyPatch, url: str
                                                  ) -> None:
    """An app given its database in its config (the tests, the benchmarks) gets that database's
    engine options, whatever DATABASE_URL says."""
    from tests.kit import close_app, make_app

    other = "sqlite:///:memory:" if url.startswith("postgresql") else PG_BASE
    monkeypatch.setenv("DATABASE_URL", other)
    app = make_app(url, ROBOT_WORKER="off", PUSH_SENDER="off")
    try:
        options = app.config["SQLALCHEMY_ENGINE_OPTIONS"]
        if url.startswith("postgresql"):
            assert options["connect_args"] == {"cursor_factory": LazyDescriptionCursor}
            assert options["pool_size"] == app.config["DB_POOL_SIZE"]
        else:
            assert "connect_args" not in options and "pool_size" not in options
    finally:
        close_app(app)
