"""How many requests of one web process do their work at the same time.

On an event-loop worker (gevent) every open page is a greenlet, and a request that has begun its
work yields to the loop at each database or Redis round trip. With hundreds of greenlets ready to
build answers, it then waits behind all of them every time, holding its pooled connection (and,
on SQLite, the writers' lock) meanwhile: under load the pools ran dry and an action took seconds
although the process had CPU to spare (bench/load.py at 1-3 s a decision). So at most
``WEB_ACTIVE`` requests of a process work at once; the others wait their turn (first come, first
served) before they start, holding nothing. A page that waits for a change (a stream between its
events, a long-poll, La Pista waiting for a robot process) gives its place back while it waits.

Threads (Werkzeug's server, gthread workers) are already bounded by their count: there this is
off and every call below does nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from flask import Flask, g

from .db import on_event_loop

_places: threading.Semaphore | None = None
#: A stream's events have places of their own: they neither wait behind the actions nor hold
#: them back (as many again as the requests').
_event_places: threading.Semaphore | None = None


def init_admission(app: Flask) -> None:
    """Register first, so that every check before a route (CSRF, limits) runs in its place."""
    global _places, _event_places
    size = int(app.config["WEB_ACTIVE"])
    if size <= 0 or not on_event_loop():
        return
    if _places is None:
        _places = threading.Semaphore(size)  # gevent's, once patched: waiters go in order
        _event_places = threading.Semaphore(size)

    @app.before_request
    def _take() -> None:
        take()

    @app.teardown_request
    def _give(_err: BaseException | None) -> None:
        give_back()


def take() -> None:
    """Wait for a place (a request holds at most one)."""
    if _places is not None and not g.get("_working", False):
        _places.acquire()
        g._working = True


def give_back() -> None:
    if _places is not None and g.pop("_working", False):
        _places.release()


@contextmanager
def waiting() -> Iterator[None]:
    """Around a wait for something outside the process: the place is free meanwhile."""
    held = _places is not None and bool(g.get("_working", False))
    if held:
        give_back()
    try:
        yield
    finally:
        if held:
            take()


@contextmanager
def event() -> Iterator[None]:
    """Around the work of one of a stream's events (outside the request's own span)."""
    if _event_places is None:
        yield
        return
    with _event_places:
        yield
