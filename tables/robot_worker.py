"""Robots take their turns here, through the same action path as a human.

After a commit that leaves a robot to act, ``kick(table_id)`` hands the table to this process's
worker thread. The worker reads the robot seat's view with no lock held, asks ``robots.decide``
and submits with the version it saw; a stale version only means: read again and retry. The table
row's ``robot_due`` flag makes the work durable: the worker sweeps for due tables at start and
every ``ROBOT_SWEEP`` seconds, so a restart (or another process's crash) loses no robot turn.
``flask robots`` runs the same loop as a separate process (production).

With search processes (``ROBOT_SEARCH_PROCS``) a table is worked on in one of two lanes: the
tables whose robots search (Difícil) on as many threads as there are search processes plus one,
the others (Fácil, Normal: well under a millisecond a card) on ``ROBOT_THREADS`` threads of their
own. A Normal robot's turn never waits for a thread that waits for a search: with one pool, the
Normal tables queued behind Difícil tables whose threads all waited for the one search process
(docs/RELIABILITY_RUNS.md, run Y).
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import queue
import random
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

import redis
from flask import Flask, current_app

import robots
from rules import COUNTING, PASSING, view_for

from . import analysis, live
from .actions import perform
from .db import db
from .errors import ServiceError
from .hint_jobs import HintServer, compute_hint
from .hooks import Commit
from .lifecycle import die_with_parent, step_back
from .maintenance import pending_robot_tables
from .models import Table
from .seating import due_robot_seats, load_game, load_seats

_worker: RobotWorker | None = None
#: Redis list of table ids whose robots must act, pushed by processes that run no worker; each id
#: is taken by one ``flask robots`` process (more processes, more robot capacity). One list per
#: database (see :func:`queue_key`).
QUEUE = "corazones:robots"
QUEUE_MAX = 10000


def _search_init(nice: int, parent_pid: int) -> None:
    """A search process: dies with the robot process that started it (even a SIGKILLed one, so
    neither it nor multiprocessing's resource tracker outlives it), leaves Ctrl-C to its parent,
    and has lower priority than the processes that serve people (when ``nice``)."""
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if nice > 0:
        step_back(nice)


def _search(view: dict[str, Any], level: str, seed: int) -> dict[str, Any]:
    """``robots.decide`` in a search process (the seed stands for the worker's rng)."""
    return dict(robots.decide(view, level, random.Random(seed)))


def _review(record: dict[str, Any], decision: dict[str, Any],
            worlds: int) -> tuple[dict[str, Any], float]:
    """One decision's Análisis (in the analysis process when there is one) and its CPU seconds."""
    start = time.process_time()
    result = analysis.review_decision(record, decision, worlds)
    return result, time.process_time() - start


#: Levels whose decisions go to the search processes when there are any (Fácil and Normal decide
#: in well under a millisecond: sending them to another process would cost more than it saves).
SEARCHED_LEVELS = ("dificil",)
#: How many tables' lanes this process remembers (a table's level changes only between games).
LANES_KEPT = 10000


def queue_key(app: Flask) -> str:
    url = str(app.config.get("SQLALCHEMY_DATABASE_URI", ""))
    return f"{QUEUE}:{hashlib.sha256(url.encode()).hexdigest()[:16]}"


class RobotWorker:
    def __init__(self, app: Flask) -> None:
        self.app = app
        self.queue: queue.Queue[str] = queue.Queue()
        # A few threads, so one table's slow (Difícil) robot does not hold up the other tables;
        # one table is never worked on by two threads of this process at once.
        self.pool = ThreadPoolExecutor(max_workers=int(app.config.get("ROBOT_THREADS", 2)),
                                       thread_name_prefix="corazones-robot")
        self.inflight: dict[str, bool] = {}
        # The searched lane (module docstring): a table's lane as its last read said (True:
        # its robots search); a table not known yet starts in the other lane, which hands it on.
        self.searched_pool: ThreadPoolExecutor | None = None
        self.searched: dict[str, bool] = {}
        self.lock = threading.Lock()
        self.stop_event = threading.Event()
        self.sweep = float(app.config.get("ROBOT_SWEEP", 5.0))
        self.delay = float(app.config.get("ROBOT_DELAY", 0.0))
        self.rng = random.Random()
        self.thread = threading.Thread(target=self.run, daemon=True, name="corazones-robots")
        # ROBOT_SEARCH_PROCS > 0: Difícil searches run in that many processes of their own, at
        # ROBOT_NICE lower priority. This process then only reads, writes and waits, so its
        # threads hold the table's lock (SQLite: the one write lock) for the write alone, not
        # while sharing the GIL with searches (under load on SQLite, with the searches in its
        # threads, it held the lock 12.7 ms for 3.2 ms of its own CPU), and the searches give
        # way to the web processes when the cores are busy.
        self.search_procs = int(app.config.get("ROBOT_SEARCH_PROCS", 0))
        self.search_nice = int(app.config.get("ROBOT_NICE", 0))
        self.searcher: Executor | None = None
        self.searcher_lock = threading.Lock()
        if self.search_procs > 0:
            # One thread more than the processes: a search process is not idle while the thread
            # that waited for it reads the table or writes the card.
            self.searched_pool = ThreadPoolExecutor(max_workers=self.search_procs + 1,
                                                    thread_name_prefix="corazones-robot-search")
        # Análisis (tables/analysis.py): one decision at a time, only while no robot turn is
        # due, in ANALYSIS_PROCS processes at ANALYSIS_NICE (0 processes: in this one).
        self.analysis_thread = threading.Thread(target=self._analysis_loop, daemon=True,
                                                name="corazones-analysis")
        self.analysis_wake = threading.Event()
        self.analysis_poll = float(app.config.get("ANALYSIS_POLL", 2.0))
        self.analysis_procs = int(app.config.get("ANALYSIS_PROCS", 1))
        self.analysis_nice = int(app.config.get("ANALYSIS_NICE", 19))
        self.analysis_lease = float(app.config.get("ANALYSIS_LEASE", analysis.LEASE_SECONDS))
        self.analysis_job: int | None = None
        self.analyser: Executor | None = None
        # La Pista: asked by the web processes, computed here (tables/hint_jobs.py).
        self.hints = HintServer(app, self.hint)

    def start(self) -> None:
        self.thread.start()
        self.analysis_thread.start()
        url = self.app.config.get("REDIS_URL")
        if url:
            threading.Thread(target=self._take_from_redis, args=(url,), daemon=True,
                             name="corazones-robot-queue").start()
            threading.Thread(target=self.hints.serve_redis, args=(url, self.stop_event),
                             daemon=True, name="corazones-hint-queue").start()

    def _take_from_redis(self, url: str) -> None:
        """Kicks from processes that run no worker (see :func:`kick`)."""
        while not self.stop_event.is_set():
            try:
                client = redis.Redis.from_url(url)
                while not self.stop_event.is_set():
                    item = client.blpop([queue_key(self.app)], timeout=1)
                    if item:
                        value = item[1]
                        self.queue.put(value.decode() if isinstance(value, bytes) else value)
            except Exception:
                time.sleep(1.0)

    def stop(self) -> None:
        self.stop_event.set()
        self.analysis_wake.set()
        self.queue.put("")
        if self.thread.is_alive():
            self.thread.join(timeout=10)
        if self.analysis_thread.is_alive():
            self.analysis_thread.join(timeout=30)
        if self.analyser is not None:
            self.analyser.shutdown(wait=False, cancel_futures=True)
            self.analyser = None
        self.hints.stop()
        self.pool.shutdown(wait=True, cancel_futures=True)
        if self.searched_pool is not None:
            self.searched_pool.shutdown(wait=True, cancel_futures=True)
        with self.searcher_lock:
            if self.searcher is not None:
                self.searcher.shutdown(wait=False, cancel_futures=True)
                self.searcher = None

    def decide(self, view: dict[str, Any], level: str) -> dict[str, Any]:
        """``robots.decide`` for one seat: in a search process for Difícil when there are any,
        here otherwise (and if the search processes fail: a robot never stalls a table)."""
        if self.search_procs <= 0 or level not in SEARCHED_LEVELS:
            return dict(robots.decide(view, level, self.rng))
        seed = self.rng.getrandbits(63)
        return self._searched(_search, (view, level, seed),
                              lambda: dict(robots.decide(view, level, random.Random(seed))))

    def hint(self, view: dict[str, Any]) -> dict[str, Any]:
        """La Pista for ``view``: Difícil's whole search, so in a search process when there are
        any (here it would hold this process's GIL while its threads write robot turns)."""
        if self.search_procs <= 0:
            return compute_hint(view)
        return self._searched(compute_hint, (view,), lambda: compute_hint(view))

    def _searched(self, fn: Callable[..., dict[str, Any]], args: tuple[Any, ...],
                  here: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """``fn(*args)`` in a search process; ``here()`` if the search processes fail (a broken
        pool is replaced next time). A ValueError (nothing to decide) is the caller's."""
        try:
            with self.searcher_lock:
                if self.searcher is None:
                    # spawn: this process has threads (a fork could copy a held lock). The
                    # pool starts its processes from the robot and hint threads, which live as
                    # long as the worker: the parent-death signal is tied to the starting thread.
                    self.searcher = ProcessPoolExecutor(
                        self.search_procs, mp_context=multiprocessing.get_context("spawn"),
                        initializer=_search_init, initargs=(self.search_nice, os.getpid()))
                searcher = self.searcher
            return searcher.submit(fn, *args).result(timeout=60)
        except ValueError:
            raise
        except Exception:  # a broken pool: decide here, start a new pool next time
            self.app.logger.exception("robot search process failed; deciding in-process")
            with self.searcher_lock:
                if self.searcher is not None:
                    self.searcher.shutdown(wait=False, cancel_futures=True)
                    self.searcher = None
            return here()

    def kick(self, table_id: str) -> None:
        self.queue.put(table_id)

    # ---------------------------------------------------------------- Análisis, after robots

    def robots_busy(self) -> bool:
        """A robot turn is due or being played (here, or at any table of the database)."""
        with self.lock:
            if self.inflight:
                return True
        if not self.queue.empty():
            return True
        return bool(pending_robot_tables(limit=1))

    def analysis_step(self) -> bool:
        """Review one decision of a waiting analysis, unless a robot turn is due anywhere (robot
        turns always come first). True when a decision was reviewed."""
        with self.app.app_context():
            try:
                if self.robots_busy():
                    return False
                aid = self.analysis_job if self.analysis_job is not None \
                    else analysis.claim(lease=self.analysis_lease)
                if aid is None:
                    return False
                nxt = analysis.next_decision(aid)
                if nxt is None:
                    self.analysis_job = None
                    return False
                i, decision, record, worlds = nxt
                try:
                    result, cpu = self._review(record, decision, worlds)
                except Exception:  # a bug in one review must not stop the analysis forever
                    self.app.logger.exception("analysis %s failed at decision %s", aid, i)
                    result, cpu = {"kind": decision["kind"], "failed": True, "marked": False,
                                   "forced": False, "reason": None, "options": []}, 0.0
                more = analysis.save_result(aid, i, result, cpu, self.analysis_lease)
                self.analysis_job = aid if more else None
                return True
            finally:
                db.session.remove()

    def _review(self, record: dict[str, Any], decision: dict[str, Any],
                worlds: int) -> tuple[dict[str, Any], float]:
        if self.analysis_procs <= 0:
            return _review(record, decision, worlds)
        if self.analyser is None:
            self.analyser = ProcessPoolExecutor(
                self.analysis_procs, mp_context=multiprocessing.get_context("spawn"),
                initializer=_search_init, initargs=(self.analysis_nice, os.getpid()))
        try:
            return self.analyser.submit(_review, record, decision, worlds).result(timeout=600)
        except Exception:
            self.analyser.shutdown(wait=False, cancel_futures=True)
            self.analyser = None
            raise

    def _analysis_loop(self) -> None:
        while not self.stop_event.is_set():
            try:
                worked = self.analysis_step()
            except Exception:
                self.app.logger.exception("analysis step failed")
                worked = False
            if not worked:
                self.analysis_wake.wait(self.analysis_poll)
                self.analysis_wake.clear()

    def run(self) -> None:
        last_sweep = 0.0
        while not self.stop_event.is_set():
            if time.monotonic() - last_sweep >= self.sweep:
                last_sweep = time.monotonic()
                self._sweep()
            try:
                table_id = self.queue.get(timeout=self.sweep)
            except queue.Empty:
                continue
            if not table_id or self.stop_event.is_set():
                continue
            with self.lock:
                if table_id in self.inflight:
                    self.inflight[table_id] = True  # look again when the current run ends
                    continue
                self.inflight[table_id] = False
            try:
                self._submit(table_id, self.searched.get(table_id, False))
            except RuntimeError:  # shutting down
                return

    def _submit(self, table_id: str, searched: bool) -> None:
        """Work on ``table_id`` in its lane (``searched``: the searching robots' threads)."""
        if searched and self.searched_pool is not None:
            self.searched_pool.submit(self._run_table, table_id, True)
        else:
            self.pool.submit(self._run_table, table_id, False)

    def _run_table(self, table_id: str, searched: bool) -> None:
        while True:
            self.play(table_id, lane=searched)
            if self.searched_pool is not None \
                    and self.searched.get(table_id, searched) != searched:
                # The table belongs to the other lane: still in flight, it goes on there.
                try:
                    self._submit(table_id, not searched)
                    return
                except RuntimeError:  # shutting down
                    pass
            with self.lock:
                if not self.inflight.get(table_id):
                    self.inflight.pop(table_id, None)
                    return
                self.inflight[table_id] = False

    def _note_lane(self, table_id: str, searched: bool) -> None:
        """Remember ``table_id``'s lane (forgetting the table read longest ago when full)."""
        with self.lock:
            self.searched.pop(table_id, None)
            if len(self.searched) >= LANES_KEPT:
                del self.searched[next(iter(self.searched))]
            self.searched[table_id] = searched

    def _sweep(self) -> None:
        try:
            with self.app.app_context():
                for tid in pending_robot_tables():
                    self.queue.put(tid)
        except Exception:
            self.app.logger.exception("robot sweep failed")

    def play(self, table_id: str, max_moves: int = 2000, lane: bool | None = None) -> int:
        """Take every robot turn due at ``table_id``; returns how many actions were applied.
        ``lane``: the lane this thread serves (module docstring); a table found to belong to the
        other one is left for it (``searched`` says which) before its robots decide."""
        done = 0
        idle = 0
        with self.app.app_context():
            try:
                while done < max_moves and idle < 5 and not self.stop_event.is_set():
                    moved = self._one_round(table_id, lane)
                    if moved < 0:
                        break
                    idle = 0 if moved else idle + 1
                    done += moved
            except Exception:
                self.app.logger.exception("robot turn failed at table %s", table_id)
            finally:
                db.session.remove()
        return done

    def _one_round(self, table_id: str, lane: bool | None = None) -> int:
        """Act once for each robot seat due now. -1 when no robot is due, or when the table
        belongs to the other lane than ``lane``."""
        db.session.rollback()
        table = db.session.get(Table, table_id)
        if table is None or not table.robot_due:
            db.session.rollback()
            return -1
        seats = load_seats(table_id)
        game = load_game(table)
        due = due_robot_seats(table, seats, game)
        level = table.hand_level
        version = table.state_version
        db.session.rollback()  # think with no transaction open
        if not due or game is None:
            return -1
        if self.searched_pool is not None:
            searched = level in SEARCHED_LEVELS
            self._note_lane(table_id, searched)
            if lane is not None and lane != searched:
                return -1
        moved = 0
        for seat in due:
            action: dict[str, Any]
            view = view_for(game, seat)
            if game.phase == COUNTING:
                action = {"type": "close_count"}
            else:
                try:
                    action = self.decide(view, level)
                except Exception:  # a robot's bug must not stall the table
                    self.app.logger.exception("robots.decide failed at table %s", table_id)
                    action = fallback_action(view)
            if self.delay:
                time.sleep(self.delay)
            action["version"] = version  # no action_id: a robot never retries the same move
            try:
                perform(table_id, None, action, robot_seat=seat)
                moved += 1
            except ServiceError as err:
                if err.code in ("stale", "wrong_phase", "not_your_turn", "already_passed",
                                "not_robot", "humans_close", "not_found"):
                    return moved  # the table moved on: read it again
                # the robot chose something the rules refuse: play a plain legal move instead
                self.app.logger.error("robot move refused at table %s: %s", table_id, err.code)
                fallback = fallback_action(view)
                fallback["version"] = version
                try:
                    perform(table_id, None, fallback, robot_seat=seat)
                    moved += 1
                except ServiceError:
                    return moved
            if game.phase != PASSING:
                break  # one play changes the turn: read again
        return moved


def fallback_action(view: dict[str, Any]) -> dict[str, Any]:
    """A plain legal move for the seat of ``view`` (when a robot's own choice failed)."""
    if view.get("phase") == PASSING:
        return {"type": "confirm_pass", "cards": list(view["hand"])[:3]}
    clean = [c for c in view.get("legal", []) if c not in set(view.get("renege_cards") or ())]
    return {"type": "play", "card": (clean or list(view.get("legal", [])))[0]}


def start_worker(app: Flask) -> RobotWorker:
    global _worker
    worker = RobotWorker(app)
    _worker = worker
    app.extensions["corazones_robots"] = worker
    worker.start()
    return worker


def kick(table_id: str) -> None:
    """Hand ``table_id``'s robot turn to this process's worker or, when this process runs none
    (gunicorn web processes), to the Redis queue the ``flask robots`` processes take work from."""
    worker = current_app.extensions.get("corazones_robots", _worker)
    if worker is not None:
        worker.kick(table_id)
        return
    if live._redis is not None:
        try:
            key = queue_key(current_app)
            pipe = live._redis.pipeline(transaction=False)
            pipe.rpush(key, table_id)
            pipe.ltrim(key, -QUEUE_MAX, -1)
            pipe.execute()
        except Exception:  # Redis down: the workers' sweep still finds the table
            pass


def wake_analysis() -> None:
    """An analysis was asked: this process's worker (if it runs one) looks now. Robot processes
    elsewhere find it at their next look (``ANALYSIS_POLL`` seconds)."""
    worker = current_app.extensions.get("corazones_robots", _worker)
    if worker is not None:
        worker.analysis_wake.set()


def after_commit(commit: Commit) -> None:
    """The after-commit hook: a commit that left a robot's turn due hands the table on."""
    if commit.robot_due:
        kick(commit.table_id)
