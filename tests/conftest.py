"""Shared fixtures: a migrated database per session (SQLite file, or a fresh PostgreSQL schema when
DATABASE_URL points at PostgreSQL), an app per test, players with their own cookie jars, and real
server subprocesses for concurrency and restart tests."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.kit import ROOT, RUNNING, Player, RobotProcess, Server, close_app, make_app, pg_url


@pytest.fixture(scope="session")
def instance_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("instance")
    os.environ["CORAZONES_INSTANCE"] = str(path)
    os.environ["SCHEDULER"] = "off"
    return path


@contextmanager
def _new_database(folder: Path) -> Iterator[str]:
    """An empty database: a SQLite file in ``folder``, or a fresh PostgreSQL schema (dropped
    after) when DATABASE_URL points at PostgreSQL."""
    base = os.environ.get("DATABASE_URL", "")
    if base.startswith("postgresql"):
        import sqlalchemy as sa

        schema = "t_" + secrets.token_hex(6)
        engine = sa.create_engine(base)
        with engine.begin() as conn:
            conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
        url = pg_url(base, schema)
        try:
            yield url
        finally:
            with engine.begin() as conn:
                conn.exec_driver_sql(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            engine.dispose()
    else:
        yield "sqlite:///" + str(folder / "test.db")


def _migrate(database_url: str) -> str:
    from flask_migrate import upgrade

    from app import create_app

    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url,
                      "ROBOT_WORKER": "off", "SECRET_KEY": "test-secret"})
    with app.app_context():
        upgrade(directory=str(ROOT / "migrations"))
        from tables.db import db

        db.engine.dispose()
    return database_url


@pytest.fixture(scope="session")
def database_url(instance_dir: Path) -> Iterator[str]:
    with _new_database(instance_dir) as url:
        yield url


@pytest.fixture(scope="session")
def migrated(database_url: str) -> str:
    """The session's database, shared by the tests (each makes its own tables)."""
    return _migrate(database_url)


@pytest.fixture(scope="module")
def own_database(tmp_path_factory: pytest.TempPathFactory, instance_dir: Path) -> Iterator[str]:
    """A migrated database for one module alone: for tests of work that looks at every table of
    the database (what the robot processes do next), which other modules' tables, left in any
    order, must not change."""
    with _new_database(tmp_path_factory.mktemp("own")) as url:
        yield _migrate(url)


@pytest.fixture()
def app(migrated: str) -> Iterator[Any]:
    application = make_app(migrated)
    yield application
    close_app(application)


@pytest.fixture()
def player(app: Any) -> Any:
    return lambda: Player(app)


@pytest.fixture(scope="module")
def shared_server(migrated: str, instance_dir: Path) -> Iterator[Server]:
    """One server for a whole test module (tests that do not kill or reconfigure it). It runs no
    robots: a robot worker sweeps every table of the database, other tests' tables included."""
    s = Server(migrated, instance_dir, ROBOT_WORKER="off").start()
    yield s
    s.stop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A failed test's report shows what its server and robot processes wrote (the end of it)."""
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        for proc in RUNNING:
            report.sections.append((proc.title(), proc.output()[-8000:]))


@pytest.fixture(autouse=True)
def _robot_work_ends_with_the_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test's robot processes end with it, and so does its robots' work: the session's
    database is shared by the tests, and a table left with a robot's turn due would be played by
    the next test's robot worker (every test app runs one, sweeping the whole database), writing
    while that test reads and then writes by hand («database is locked» on SQLite)."""
    yield
    for proc in [p for p in RUNNING if isinstance(p, RobotProcess)]:
        proc.close()
    if "migrated" not in request.fixturenames:
        return
    import sqlalchemy as sa

    engine = sa.create_engine(request.getfixturevalue("migrated"))
    try:
        with engine.begin() as conn:
            conn.execute(sa.text("UPDATE tables SET robot_due = false WHERE robot_due"))
    finally:
        engine.dispose()


@pytest.fixture()
def server_factory(migrated: str, instance_dir: Path) -> Iterator[Any]:
    servers: list[Server] = []

    def start(**env: str) -> Server:
        s = Server(migrated, instance_dir, **env).start()
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.stop()


@pytest.fixture(scope="session")
def playwright_session() -> Iterator[Any]:
    """One Playwright for the whole run: its sync API refuses to start a second one while the
    first is open, so every browser test launches Chromium from this."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p
