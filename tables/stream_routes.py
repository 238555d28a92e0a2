"""Server-sent events: a page's table pushed to it on one long-lived response.

``GET /api/tables/<id>/stream?since=<version>`` answers ``text/event-stream``. Each change of the
table after ``since`` is one ``state`` event whose ``id`` is the table's version and whose data is
exactly what the long-poll answers this viewer (``read_state``: the same per-viewer filtering, so a
stream shows nothing the poll would not). A browser's EventSource reconnects by itself after a
dropped connection, a killed web process or the end of a stream (``STREAM_MAX``), sending the last
id it got as ``Last-Event-ID``; the stream then starts from that version, so every change is either
delivered or recovered (the state is whole, the log covers what happened after the id).

With ``?patch=1`` (the table page asks for it) every event after the stream's first is a
``patch``: ``{"base", "version", "patch", "log"}``, where ``patch`` turns the state this stream
sent last (at version ``base``) into the new one (tables/patches.py): about a quarter of the bytes.
The page keeps the state its stream last delivered to apply the next patch to. Onlookers (no seat,
not the host) woken by one change get one event built once a process for all who chose the same
deck, a whole state or the patch from the state they were all sent last (``_onlookers_event``).

With ``?page=<id>`` (the id the page gave itself, also sent as the ``X-Page-Id`` header of its
actions), changes made by that page's own actions alone are not sent: the actions' answers
carried them to the page. The next event is the patch from the state the stream sent last, with
the log since that state (the page's own entries too: that event may arrive before the answer
does). A page that lost its action's answer sends the action again with the same id (applied
once, answered again) and, when that answer is lost too, reads the table again.

A comment every ``STREAM_HEARTBEAT`` seconds keeps proxies from closing an idle stream, tells the
server a closed page is gone, and refreshes the viewer's presence. Waiting for a change holds no
database connection and reads nothing: the stream waits on the process's notices (tables/live.py,
Redis across processes), which name each committed version. While Redis stays subscribed the floor
for a notice lost on its way is one query a process every ``STREAM_RECHECK`` seconds, reading the
versions of every table its streams follow (``live.sweep``); without Redis each stream reads its
table's version every ``POLL_RECHECK``. The long-poll (``/poll``) stays for browsers and proxies
that drop streams.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, stream_with_context
from sqlalchemy.exc import SQLAlchemyError

from . import admission, errors, jsonwire, live, patches, snapshot
from .db import db
from .errors import ServiceError
from .identity import current_device_id, presence_key
from .kinds import LOG_MAX
from .state import cached_state, onlooker_key, read_state, state_and_log

bp = Blueprint("stream", __name__)

#: What the browser waits before reconnecting a dropped stream (the ``retry`` field).
RECONNECT_MS = 1000


@dataclass(frozen=True)
class _Shared:
    """The last event this process built for a table's onlookers (viewers with no seat who do
    not host, ``state.onlooker_key``), with what it was built from. The base is held, so the
    identity check with a stream's last state never meets a reused id."""

    built: float  # time.monotonic() when it was built: its clock says "now" then
    version: int  # of the snapshot it was built from (a version is one content)
    logged: int  # the event's log starts after this version
    base: dict[str, Any] | None  # the state the event patches (None: a whole state)
    event: str
    state: dict[str, Any]  # the state it carries, the next event's base (read, never changed)


#: (table, onlookers' key) -> their last event: a table watched by many spectators costs one
#: state, one patch and one encoding a change and process, not one a page. (Two states each.)
_shared: dict[tuple[str, tuple[str, int]], _Shared] = {}
SHARED_KEPT = 2000
#: Seconds an onlookers' event is shared: the page sets its clock by the state's "now", so a
#: stream opened later builds its own (the onlookers woken by one change come within this).
SHARED_FOR = 0.25
_build_locks = [threading.Lock() for _ in range(256)]


def _onlookers_event(table_id: str, device_id: int | None, logged: int,
                     present: set[str] | None, at_least: int, sent: dict[str, Any] | None,
                     ) -> tuple[str, dict[str, Any]] | None:
    """The event (and its state) for an onlooker whose stream sent ``sent`` last, from this
    process's snapshot: the one built for another onlooker when everything it depends on is
    the same, else built now and kept. None when the viewer is no onlooker or the snapshot does
    not answer with no query (the caller builds the viewer's own)."""
    snap = snapshot.cached(table_id)
    if snap is None or snap.version < at_least or not snapshot.holds_log(snap, logged, LOG_MAX):
        return None
    key = onlooker_key(snap, device_id, present)
    if key is None:
        return None

    def kept() -> _Shared | None:
        hit = _shared.get((table_id, key))
        if hit is not None and time.monotonic() - hit.built <= SHARED_FOR \
                and hit.version == snap.version and hit.logged == logged and hit.base is sent:
            return hit
        return None

    hit = kept()
    if hit is None:
        # One build at a time a table: the onlookers woken together take the first's (a gevent
        # worker never waits here: an event is built without yielding; threads would).
        with _build_locks[hash(table_id) % len(_build_locks)]:
            hit = kept()
            if hit is None:
                data = state_and_log(snap, device_id, logged, present)
                hit = _Shared(time.monotonic(), snap.version, logged, sent, _event(data, sent),
                              data["state"])
                if len(_shared) >= SHARED_KEPT:
                    _shared.clear()
                _shared[(table_id, key)] = hit
    return hit.event, hit.state


def _since() -> int:
    """The version the page has: ``Last-Event-ID`` on a reconnection, else ``?since=``."""
    raw = request.headers.get("Last-Event-ID") or request.args.get("since") or "0"
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 12:
        raise errors.BAD_SINCE.error()
    return int(raw)


def _event(data: dict[str, Any], sent: dict[str, Any] | None = None) -> str:
    """A ``state`` event, or the ``patch`` from ``sent`` (the state this stream sent last)."""
    version = int(data["state"]["version"])
    patch = patches.diff(sent, data["state"]) if sent is not None else None
    if sent is None or patch is None:
        body = jsonwire.dumps(data)
        return f"id: {version}\nevent: state\ndata: {body}\n\n"
    body = jsonwire.dumps({"base": sent["version"], "version": version, "patch": patch,
                           "log": data["log"]})
    return f"id: {version}\nevent: patch\ndata: {body}\n\n"


def _read_or_zero(read: Callable[[], int | None]) -> int:
    """A read the stream makes while it waits (its version, or the process's sweep: the floor for
    a notice lost on its way); 0 when the read fails (the pools busy, the database away): the
    stream stays open on the notices, and the next floor reads again. It takes no event place:
    behind 5,000 open pages' reads in the events' places, their events waited (bench/load.py:
    94.9% of deliveries within 1 s, against 99.3% without)."""
    try:
        return read() or 0  # ``reading()`` gives its connection back (SQLite: rolls back)
    except SQLAlchemyError:
        return 0


@bp.get("/api/tables/<table_id>/stream")
def api_stream(table_id: str) -> Response | tuple[Response, int]:
    try:
        since = _since()
        as_patches = request.args.get("patch") == "1"
        device_id = current_device_id()
        mine = live.page_origin(device_id, request.args.get(live.PAGE_PARAM))
        who = presence_key()
        known = live.current_version(table_id)
        if known is None:
            raise errors.NOT_FOUND.error()
        db.session.rollback()  # the device's lookup: hold no connection while the stream is open
    except ServiceError as err:
        return jsonify(err.body()), err.status
    cfg = current_app.config
    heartbeat = float(cfg["STREAM_HEARTBEAT"])
    recheck = float(cfg["POLL_RECHECK"])
    floor = float(cfg["STREAM_RECHECK"])
    lifetime = float(cfg["STREAM_MAX"])

    def follow() -> Iterator[str]:
        version = known
        seen = since  # the version the page has (from this stream, or its own actions' answers)
        logged = since  # the version this stream's last event brought: its next log starts there
        sent: dict[str, Any] | None = None  # the state this stream sent last (with ?patch=1)
        # The first event: the page knows the stream gets through (a proxy that buffers streams
        # holds it back, and the page falls back to the long-poll).
        yield f"retry: {RECONNECT_MS}\nevent: hello\ndata: {version}\n\n"
        live.touch(table_id, who)
        end = time.monotonic() + lifetime
        while True:
            if mine is not None and version > seen and live.made_by(table_id, seen, version, mine):
                # This page's own actions made the changes, and their answers carried them: not
                # sent again. The next event still builds on the state this stream sent last (the
                # page's patch base), and its log starts there too: a later change's event may
                # reach the page before its own answer does, and the page animates from the log.
                seen = version
            if version > seen:
                try:
                    present = live.present(table_id)
                    # Built from this process's snapshot (the common case: the change came with
                    # its notice), an event needs no place: it runs to its end without yielding
                    # and holds no connection. A place's hand-over waits a turn of the event loop,
                    # and behind the places the events of a busy worker queued for seconds.
                    shared = _onlookers_event(table_id, device_id, logged, present, version,
                                              sent)
                    if shared is not None:
                        event, state = shared
                    else:
                        data = cached_state(table_id, device_id, logged, present, version)
                        if data is None:  # the snapshot is loaded: a place, as a request's
                            with admission.event():
                                data = read_state(table_id, device_id, since=logged,
                                                  present=present, at_least=version)
                        event, state = _event(data, sent), data["state"]
                except ServiceError:  # the table expired while the page looked at it
                    return
                finally:
                    db.session.rollback()
                seen = logged = int(state["version"])
                if as_patches:
                    sent = state
                yield event
            left = end - time.monotonic()
            if left <= 0:
                return
            # The floor for a notice lost on its way: the versions of every table this process's
            # streams follow, read in one query every STREAM_RECHECK s by whichever stream wakes
            # first after it (a newer version wakes its pages as a notice would).
            _read_or_zero(lambda: live.sweep(floor))
            # From the notices: a quiet table's pages read nothing while they wait.
            now_known = _read_or_zero(lambda: live.current_version(table_id))
            version = live.wait_for_version(
                table_id, seen, min(heartbeat, left), recheck,
                lambda: _read_or_zero(lambda: live.read_version(table_id)), known=now_known,
                redis_recheck=math.inf)
            if version <= seen:
                live.touch(table_id, who)
                yield ": ping\n\n"

    def events() -> Iterator[str]:
        with live.watching(table_id):  # the process's sweep reads its version while it is open
            yield from follow()

    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    # The stream's own work takes a place event by event (``admission.event``): between events it
    # waits for a change and holds none.
    admission.give_back()
    return Response(stream_with_context(events()), mimetype="text/event-stream", headers=headers)

