"""The sender thread (one per process): takes tables from the after-commit hook, opens their
turns and sends what is due; and the scheduler's job (reminders, retries)."""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any

from flask import Flask, current_app

from ..db import db
from ..hooks import Commit
from .delivery import drain, has_subscriptions, reconcile, send_due_reminders

log = logging.getLogger("corazones.push")


class PushState:
    """Per app: the sender thread (started on first use) and its queue of tables."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.queue: queue.Queue[str | None] = queue.Queue()
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()
        self.stopped = False

    def submit(self, table_id: str) -> None:
        with self.lock:
            if self.stopped:
                return
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, daemon=True,
                                               name="corazones-push")
                self.thread.start()
        self.queue.put(table_id)

    def stop(self) -> None:
        with self.lock:
            self.stopped = True
        self.queue.put(None)
        if self.thread is not None:
            self.thread.join(timeout=10)

    def _run(self) -> None:
        sweep = float(self.app.config.get("PUSH_SWEEP", 5.0))
        with self.app.app_context():
            while True:
                try:
                    item = self.queue.get(timeout=sweep)
                except queue.Empty:
                    item = ""
                if item is None:
                    return
                try:
                    if item:
                        pending = {item}
                        while True:  # coalesce a burst of commits at one table
                            try:
                                more = self.queue.get_nowait()
                            except queue.Empty:
                                break
                            if more is None:
                                return
                            pending.add(more)
                        for tid in pending:
                            reconcile(tid)
                            drain(tid)
                    else:
                        drain()  # retries that came due
                except Exception:
                    db.session.rollback()
                    log.exception("push sender failed")
                finally:
                    db.session.remove()


def after_commit(commit: Commit) -> None:
    """The after-commit hook: a table with subscriptions goes to the sender thread (never the
    request's thread)."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    state: PushState | None = app.extensions.get("corazones_push")
    if state is None or app.config.get("PUSH_SENDER", "thread") == "off":
        return
    subscribed = commit.subscribed
    if subscribed is None:  # a commit that did not look inside its transaction
        subscribed = has_subscriptions(commit.table_id)
    if subscribed:
        state.submit(commit.table_id)


def scheduler_job(app: Flask) -> None:
    """The scheduler's push work: due reminders, then retries that came due."""
    with app.app_context():
        try:
            n = send_due_reminders()
            if n:
                log.info("queued %d reminders", n)
            drain()
        finally:
            db.session.remove()


def add_jobs(app: Flask, sched: Any) -> None:
    sched.add_job(scheduler_job, "interval", seconds=float(app.config.get("PUSH_SWEEP", 5.0)),
                  args=[app], id="push", coalesce=True, max_instances=1)


def stop_sender(app: Flask) -> None:
    state: PushState | None = app.extensions.get("corazones_push")
    if state is not None:
        state.stop()
