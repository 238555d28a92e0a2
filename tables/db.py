"""The database handle, SQLite set-up, and the one locked transaction every action runs in.

SQLite: WAL, a busy timeout, and ``BEGIN IMMEDIATE`` for action transactions (so two writers
queue on the database lock instead of failing when a deferred read transaction tries to upgrade);
in a gevent web worker, the writers that queue for the worker's turn share one transaction and one
COMMIT (group commit: ``_Batch``).
PostgreSQL: ``SELECT ... FOR UPDATE`` on the table row.
"""

from __future__ import annotations

import contextvars
import fcntl
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Flask, current_app
from flask_sqlalchemy import SQLAlchemy
from flask_sqlalchemy.session import Session as FlaskSession
from sqlalchemy import create_engine, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import DeclarativeBase

from . import jsonwire


class Base(DeclarativeBase):
    pass


class _Session(FlaskSession):
    """Flask-SQLAlchemy's session, which picks the engine by the model's bind key, except while it
    is bound to a connection: a writer of a batch (:func:`_batched_write`) runs on the batch's."""

    def get_bind(self, mapper: Any = None, clause: Any = None, bind: Any = None,
                 **kwargs: Any) -> Any:
        if bind is None and isinstance(self.bind, Connection):
            return self.bind
        return super().get_bind(mapper=mapper, clause=clause, bind=bind, **kwargs)


db = SQLAlchemy(model_class=Base, session_options={"class_": _Session})

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


def pool_options(db_url: str, pool_size: int, max_overflow: int,
                 pool_timeout: float) -> dict[str, Any]:
    """Engine options of a serving process's two pools (the session's, and the reads' below).

    PostgreSQL: ``pool_size`` connections (``DB_POOL_SIZE``) stay open per pool, so a burst
    reuses them instead of opening a backend each (fork, authentication, catalog cache);
    ``max_overflow`` (``DB_MAX_OVERFLOW``) more only in a burst, closed when given back. A process
    therefore holds at most ``2 x (pool_size + max_overflow)`` connections: the machine's budget
    (deploy/budget.py) is the sum over its processes, and PostgreSQL's ``max_connections`` must
    hold every machine's plus a restart's overlap. A request that finds
    its pool busy waits up to ``pool_timeout`` s for a connection (a greenlet or thread waiting
    holds nothing), then answers 503 like a database that is out of reach.

    Its cursors build a result's column descriptions only when read (tables/pgcursor.py).

    JSON columns (the log's entries, the game's snapshot) are written and read with orjson
    (tables/jsonwire.py), as the answers are: the standard library's encoder was a percent of a
    web worker's CPU at the stress pace, in the action's own transaction."""
    options: dict[str, Any] = {"pool_recycle": 1800, "json_serializer": jsonwire.dumps,
                               "json_deserializer": jsonwire.loads}
    if db_url.startswith("postgresql"):
        from .pgcursor import LazyDescriptionCursor  # psycopg is only imported for PostgreSQL
        options["connect_args"] = {"cursor_factory": LazyDescriptionCursor}
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
    timeout) instead of failing when a read snapshot would have to be upgraded. Commits on exit:
    the block returns once its writes are durable. On SQLite in a gevent web worker the writes of
    the worker's writers that queue together share one COMMIT (:class:`_Batch`)."""
    if getattr(_batch_state, "member", False):
        yield  # a write inside a batched write: part of it
        return
    db.session.rollback()
    token = _IMMEDIATE.set(True)
    try:
        if on_event_loop() and is_sqlite():
            with _batched_write():
                yield
            return
        with _writer_turn():
            try:
                yield
                db.session.commit()
            except BaseException:
                db.session.rollback()
                raise
    finally:
        _IMMEDIATE.reset(token)


# -------------------------------------------------------------------- group commit (SQLite, gevent)

#: A batch is committed when no other writer of the worker waits for its turn, or once it holds
#: this many writes or has been open this long: its first writer waits for every later one's work.
BATCH_MAX_WRITES = 32
BATCH_MAX_SECONDS = 0.025
#: A writer whose batch is left open without a writer holding the turn (one that queued was
#: killed before its turn) commits it itself after waiting this long.
_BATCH_ORPHAN_SECONDS = 0.05

_batch_state = threading.local()  # greenlet-local in a gevent worker: ``member`` inside a batch


class _Batch:
    """One write transaction of a gevent worker's SQLite connection, shared by the writers that
    queue for the worker's turn while it is open, each in a savepoint of its own. A worker's
    writers run one after another anyway (SQLite has one writer); sharing the transaction, a queue
    of writers pays once for what each write paid alone: the wait for the other processes' writes
    (the file lock), the COMMIT's sync, and the event loop's round to the thread that did them. A
    writer's block returns only after the batch's COMMIT (its writes are durable); a writer whose
    block fails undoes its savepoint only, and the others' writes stand. If the COMMIT fails,
    every writer of the batch gets the error (nothing of the batch was written)."""

    def __init__(self, conn: Connection, fd: int | None) -> None:
        self.conn = conn
        self.fd = fd
        self.opened = time.monotonic()
        self.writes = 0
        self.done = threading.Event()  # gevent's Event once patched
        self.error: BaseException | None = None

    def full(self) -> bool:
        return (self.writes >= BATCH_MAX_WRITES
                or time.monotonic() - self.opened >= BATCH_MAX_SECONDS)

    def commit(self) -> None:
        """COMMIT (through the dialect's ``do_commit``: the sync in gevent's thread pool, which lets
        go of the file lock), then wake every writer of the batch. Called holding the turn; never
        raises: a failed COMMIT is kept in ``error`` for the batch's writers."""
        global _open_batch
        _open_batch = None
        try:
            _flock_state.held = self.fd
            try:
                if not self.conn.connection.dbapi_connection.in_transaction:  # type: ignore[union-attr]
                    # SQLite rolls a transaction back by itself on some errors (a full disk, an
                    # I/O error): the savepoints released in it are gone, and a COMMIT would not
                    # say so.
                    raise RuntimeError("the batch's transaction was rolled back before its COMMIT")
                self.conn.commit()
            finally:
                if self.fd is not None and getattr(_flock_state, "held", None) == self.fd:
                    fcntl.flock(self.fd, fcntl.LOCK_UN)  # the commit failed before letting go
                _flock_state.held = None
        except BaseException as err:
            self.error = err
            try:
                self.conn.rollback()
            except Exception:
                pass
        finally:
            try:
                self.conn.close()
            except Exception:
                pass
            self.done.set()


_open_batch: _Batch | None = None
_writers_waiting = 0


def _open() -> _Batch:
    fd = _lock_fd(db.engine)
    if fd is not None:
        _flock_exclusive(fd)
    try:
        conn = db.engine.connect()
        try:
            conn.begin()  # BEGIN IMMEDIATE: the _IMMEDIATE flag is set
        except BaseException:
            conn.close()
            raise
    except BaseException:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
        raise
    return _Batch(conn, fd)


@contextmanager
def _batched_write() -> Iterator[None]:
    """One writer of a gevent worker on SQLite: its turn, its savepoint in the open batch (or a
    new one), then the turn handed on and the wait for the batch's COMMIT."""
    global _open_batch, _writers_waiting
    _writers_waiting += 1
    try:
        _sqlite_writer.acquire()
    finally:
        _writers_waiting -= 1
    try:
        batch = _open_batch
        if batch is None:
            batch = _open_batch = _open()
    except BaseException:
        _sqlite_writer.release()
        raise
    # The request's own session (its objects stay its own), bound to the batch's connection for
    # the block: its transaction is a savepoint there.
    session = db.session()
    bind, mode = session.bind, session.join_transaction_mode
    session.bind, session.join_transaction_mode = batch.conn, "create_savepoint"
    _batch_state.member = True
    written = False
    try:
        yield
        session.commit()  # releases the savepoint; the batch commits it with the others
        written = True
    finally:
        try:
            if not written:
                session.rollback()  # this writer's savepoint only
        finally:
            _batch_state.member = False
            # Reads after the block (expired attributes, the answer) take the pool's connections.
            session.bind, session.join_transaction_mode = bind, mode
            _hand_on(batch)
    _wait_for(batch)


def _hand_on(batch: _Batch) -> None:
    """A writer is done with the batch: commit it if no other writer of the worker waits for the
    turn (or the batch is full), else hand the turn to the next one. Never raises."""
    batch.writes += 1
    try:
        if _writers_waiting == 0 or batch.full():
            batch.commit()
    finally:
        _sqlite_writer.release()


def _wait_for(batch: _Batch) -> None:
    """Return once the batch is committed; raise if its COMMIT failed. A batch left open with no
    writer at the turn (the one that queued behind was killed before its turn) is committed here."""
    while not batch.done.wait(_BATCH_ORPHAN_SECONDS):
        if _open_batch is batch and _sqlite_writer.acquire(blocking=False):
            try:
                if _open_batch is batch:
                    batch.commit()
            finally:
                _sqlite_writer.release()
    if batch.error is not None:
        raise sa_exc.OperationalError("COMMIT", None, batch.error) from batch.error
