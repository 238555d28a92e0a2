"""The database handle, SQLite set-up, and the one locked transaction every action runs in.

SQLite: WAL, a busy timeout, and ``BEGIN IMMEDIATE`` for action transactions (so two writers
queue on the database lock instead of failing when a deferred read transaction tries to upgrade).
PostgreSQL: ``SELECT ... FOR UPDATE`` on the table row.
"""

from __future__ import annotations

import contextvars
import fcntl
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Flask, current_app
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase


class Base(DeclarativeBase):
    pass


db = SQLAlchemy(model_class=Base)

_IMMEDIATE: contextvars.ContextVar[bool] = contextvars.ContextVar("immediate", default=False)
#: SQLite has one writer at a time. The threads of one process queue for it here, woken as soon
#: as the writer before them commits, instead of polling the database lock in SQLite's busy
#: handler (sleeps of up to 100 ms each): under load that polling made write waits reach the
#: busy timeout (bench/load.py, SQLite mode). Other processes still meet on the database lock.
_sqlite_writer = threading.RLock()
#: Across processes (gunicorn workers, robot processes, the scheduler) the writers queue on an
#: exclusive ``flock`` of a file beside the database: the kernel wakes the next one as soon as the
#: lock is let go. SQLite's own busy handler sleeps 1-100 ms between tries instead, so while one
#: process's threads handed the lock to each other, another process's writer slept and lost again
#: (bench/load.py, SQLite: 40-60 threads per worker queued behind a ``BEGIN IMMEDIATE`` in the busy
#: handler, actions took seconds with the web processes at half a core).
_flock_state = threading.local()
_flock_files: dict[str, int] = {}
_flock_files_lock = threading.Lock()


def _lock_fd(engine: Engine) -> int | None:
    path = engine.url.database
    if not path or path == ":memory:" or path.startswith("file:"):
        return None
    path = os.path.abspath(path) + "-writers.lock"
    with _flock_files_lock:
        fd = _flock_files.get(path)
        if fd is None:
            fd = _flock_files[path] = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        return fd


@contextmanager
def _writer_turn() -> Iterator[None]:
    if not is_sqlite():
        yield
        return
    with _sqlite_writer:
        depth = getattr(_flock_state, "depth", 0)
        fd = _lock_fd(db.engine) if depth == 0 else None
        if fd is not None:
            _flock_exclusive(fd)
            _flock_state.held = fd
        _flock_state.depth = depth + 1
        try:
            yield
        finally:
            _flock_state.depth = depth
            if fd is not None:
                if getattr(_flock_state, "held", None) == fd:  # not let go by the commit
                    fcntl.flock(fd, fcntl.LOCK_UN)
                _flock_state.held = None


def _commit(dbapi_conn: Any) -> None:
    """SQLite's COMMIT (the dialect's ``do_commit``). In a gevent web worker, a write transaction's
    COMMIT (the WAL written and synced: ``synchronous=FULL``, 2 ms and more) runs in a thread of
    gevent's pool instead of on the event loop, so the worker's other pages go on meanwhile; that
    thread lets go of the writers' file lock as soon as the commit is done, rather than when the
    loop comes back to this greenlet (another process's writer need not wait for this worker's
    loop). Elsewhere, and for reads, the COMMIT runs here."""
    fd = getattr(_flock_state, "held", None)
    if fd is None or not on_event_loop():
        dbapi_conn.commit()
        return
    import gevent

    _flock_state.held = None
    try:
        gevent.get_hub().threadpool.apply(_commit_and_let_go, (dbapi_conn, fd))
    except BaseException:
        _flock_state.held = fd  # still held: the transaction's end lets it go
        raise


def _commit_and_let_go(dbapi_conn: Any, fd: int) -> None:
    dbapi_conn.commit()
    fcntl.flock(fd, fcntl.LOCK_UN)


def _flock_exclusive(fd: int) -> None:
    """Take the writers' file lock, waiting for another process's writer to let it go. In a gevent
    web worker the wait happens in a real thread of gevent's pool: a blocking ``flock`` on the
    event loop's own thread would stop every other page of the worker meanwhile."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    if on_event_loop():
        import gevent

        gevent.get_hub().threadpool.apply(fcntl.flock, (fd, fcntl.LOCK_EX))
    else:
        fcntl.flock(fd, fcntl.LOCK_EX)  # releases the GIL while it waits


def on_event_loop() -> bool:
    """True in a gevent worker (the standard library patched): greenlets, not threads."""
    monkey = sys.modules.get("gevent.monkey")
    return monkey is not None and bool(monkey.is_module_patched("threading"))


def is_sqlite(engine: Engine | None = None) -> bool:
    return (engine or db.engine).dialect.name == "sqlite"


def _setup_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Let SQLAlchemy (not the sqlite3 module) emit BEGIN, so we can choose IMMEDIATE.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA busy_timeout=15000")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA synchronous=FULL")  # an acknowledged action survives a power cut
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if _IMMEDIATE.get() else "BEGIN")

    engine.dialect.do_commit = _commit  # type: ignore[method-assign, assignment]


#: The prefix of every connection's ``application_name`` (followed by the process id).
APPLICATION_NAME = "corazones"


def _name_connections(engine: Engine) -> None:
    """Each PostgreSQL connection carries its process in ``application_name`` (``corazones
    <pid>``, read when it opens: a forked worker names itself), so pg_stat_activity tells which
    process holds which connection: an operator's view of the budget (deploy/budget.py), and how
    bench/load.py counts each process's connections without reading the kernel's socket table."""

    @event.listens_for(engine, "do_connect")
    def _named(_dialect: Any, _record: Any, _cargs: Any, cparams: Any) -> None:
        cparams.setdefault("application_name", f"{APPLICATION_NAME} {os.getpid()}")


def init_db(app: Flask) -> None:
    db.init_app(app)
    with app.app_context():
        engine = db.engine
        if engine.dialect.name == "sqlite":
            _setup_sqlite(engine)
        elif engine.dialect.name == "postgresql":
            _name_connections(engine)


def pool_options(db_url: str, pool_size: int = 4, max_overflow: int = 1,
                 pool_timeout: float = 10.0) -> dict[str, Any]:
    """Engine options of a serving process's two pools (the session's, and the reads' below).

    PostgreSQL: ``pool_size`` connections (``DB_POOL_SIZE``) stay open per pool, so a burst
    reuses them instead of opening a backend each (fork, authentication, catalog cache);
    ``max_overflow`` (``DB_MAX_OVERFLOW``) more only in a burst, closed when given back. A process
    therefore holds at most ``2 x (pool_size + max_overflow)`` connections: the machine's budget
    (deploy/budget.py) is the sum over its processes, and PostgreSQL's ``max_connections`` must
    hold every machine's plus a restart's overlap. A request that finds
    its pool busy waits up to ``pool_timeout`` s for a connection (a greenlet or thread waiting
    holds nothing), then answers 503 like a database that is out of reach."""
    options: dict[str, Any] = {"pool_recycle": 1800}
    if db_url.startswith("postgresql"):
        options["pool_size"] = pool_size
        options["max_overflow"] = max_overflow
        options["pool_timeout"] = pool_timeout
    return options


#: PostgreSQL: an autocommit engine per database URL for the reads outside any write, with a pool
#: of its own. A read there is one round trip (through the session: BEGIN, the query, ROLLBACK).
#: Its own pool, because a thread may hold its session's connection while it reads: sharing one
#: pool, such threads starved it (they waited for a second connection while holding the first).
_read_engines: dict[str, Engine] = {}
_read_engines_lock = threading.Lock()


def _read_engine(engine: Engine) -> Engine:
    key = engine.url.render_as_string(hide_password=False)
    with _read_engines_lock:
        eng = _read_engines.get(key)
        if eng is None:
            eng = _read_engines[key] = create_engine(
                engine.url, isolation_level="AUTOCOMMIT",
                **current_app.config["SQLALCHEMY_ENGINE_OPTIONS"])
            if eng.dialect.name == "postgresql":
                _name_connections(eng)
        return eng


def dispose_read_pool(engine: Engine) -> None:
    """Close the read pool of ``engine``'s database (an app going away; made again on use)."""
    key = engine.url.render_as_string(hide_password=False)
    with _read_engines_lock:
        eng = _read_engines.pop(key, None)
    if eng is not None:
        eng.dispose()


@contextmanager
def reading() -> Iterator[Any]:
    """Where to run reads outside any write transaction (``.execute`` of Core statements).

    SQLite: the session, rolled back after (one read transaction: the reads inside see one
    snapshot; nothing to gain from autocommit in-process). PostgreSQL: an autocommit connection
    of the read pool, given back on exit (READ COMMITTED reads each statement at its own moment
    either way)."""
    engine = db.engine
    if is_sqlite(engine):
        db.session.rollback()
        try:
            yield db.session
        finally:
            db.session.rollback()
        return
    with _read_engine(engine).connect() as conn:
        yield conn


@contextmanager
def write_transaction() -> Iterator[None]:
    """A write transaction that takes SQLite's write lock at BEGIN, so it waits its turn (busy
    timeout) instead of failing when a read snapshot would have to be upgraded. Commits on exit."""
    db.session.rollback()
    token = _IMMEDIATE.set(True)
    try:
        with _writer_turn():
            try:
                yield
                db.session.commit()
            except BaseException:
                db.session.rollback()
                raise
    finally:
        _IMMEDIATE.reset(token)
