"""Waking the pages: an in-process condition, Redis pub/sub across processes, a version re-check.

``publish`` is called after each commit. ``wait_for_version`` is what a long-poll does: it wakes on
a local notify or on a Redis message from another process, and re-reads the table's version at
least every ``POLL_RECHECK`` seconds whatever happens (the floor when Redis is absent or down).
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import redis
from flask import Flask, current_app
from sqlalchemy import select

from .db import reading
from .hooks import Commit
from .identity import forget_hash, notices_changed
from .models import Table

log = logging.getLogger("corazones.live")

CHANNEL = "corazones:tables"
#: A message ``device-moved <sha256>`` on CHANNEL: every process forgets that cookie hash (a player
#: moved to another browser, tables/players.py). No table id has this form (they are 24 chars).
DEVICE_MOVED = "device-moved"

_lock = threading.RLock()
_cond = threading.Condition(_lock)  # guards _seen, _conds and _waiting
#: One condition per watched table (all on ``_cond``'s lock): a change wakes only that table's
#: long-polls, not every waiting thread of the process (with hundreds of pages open, waking them
#: all on each change cost more than the changes themselves: bench/load.py).
_conds: dict[str, threading.Condition] = {}
_waiting: dict[str, int] = {}
_seen: dict[str, int] = {}
#: The Redis subscription (``_epoch``) each entry of ``_seen`` was noted in (see known_version).
_seen_epoch: dict[str, int] = {}
_redis: Any = None
_receiver: Callable[[str, int, int, str], None] | None = None
_listener: threading.Thread | None = None
#: Bumped each time the Redis listener (re)subscribes; ``_listening`` while it is subscribed. A
#: long-poll that saw the same subscription from start to end missed no notice from another
#: process, so it re-reads the version only every ``REDIS_RECHECK`` s (not ``POLL_RECHECK``: with
#: 0.5 s and hundreds of pages open, those reads were most of an idle server's work).
_epoch = 0
_listening = False
REDIS_RECHECK = 10.0
#: The last changes of each table made by pages' actions, as their notices said: table ->
#: {version: (version before, origin)}, the last ``MADE_KEPT``. Guarded by ``_cond``.
_made: dict[str, dict[int, tuple[int, str]]] = {}
MADE_KEPT = 8
#: A page's id: what ``page_origin`` accepts (the pages send a random UUID), in this header of
#: the page's actions and this parameter of its stream.
_PAGE_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
PAGE_HEADER = "X-Page-Id"
PAGE_PARAM = "page"
_presence: dict[str, dict[str, float]] = {}
_presence_lock = threading.Lock()
PRESENCE_WINDOW = 60.0


def page_origin(device_id: int | None, page: str | None) -> str | None:
    """Who a page is, for the notices: its device and the id it gave itself when it loaded (two
    tabs of one browser are two pages). None for no device or a malformed id: the page's stream
    then sends every change, its own actions' too."""
    if device_id is None or page is None or not _PAGE_ID.fullmatch(page):
        return None
    return f"{device_id}.{page}"


def made_by(table_id: str, since: int, version: int, origin: str) -> bool:
    """True when every change of the table from ``since`` to ``version`` was made by the actions
    of the page ``origin`` (as far as this process's notices tell: False when unsure)."""
    with _cond:
        made = _made.get(table_id)
        while made is not None and version > since:
            step = made.get(version)
            if step is None or step[1] != origin:
                return False
            version = step[0]
    return made is not None and version == since


def _note_origin(table_id: str, before: int | None, version: int, origin: str | None) -> None:
    if origin is None or before is None:
        return
    with _cond:
        if len(_made) > 10000:
            _made.clear()
        made = _made.setdefault(table_id, {})
        made[version] = (before, origin)
        if len(made) > MADE_KEPT:
            del made[min(made)]


def _note(table_id: str, version: int) -> None:
    """A notice: a version committed now, known while Redis stays subscribed."""
    with _cond:
        _noted_read(table_id, version, _epoch if _listening else None)


def publish(table_id: str, version: int, change: str | None = None, before: int | None = None,
            origin: str | None = None) -> None:
    """Wake the table's pages here and in every process. ``change`` (``"<table> <version>
    <before> [<origin>]\n..."``, tables/snapshot.py) rides with the notice: each process hands it
    to its receiver (:func:`on_change`) before its pages wake. ``origin`` and ``before``: the
    page whose action made the change from that version (:func:`made_by`)."""
    _note_origin(table_id, before, version, origin)
    _note(table_id, version)
    if _redis is not None:
        try:
            _redis.publish(CHANNEL, change if change is not None else f"{table_id} {version}")
        except Exception:  # Redis down: the periodic re-check still delivers
            pass


def publish_device_moved(digest: str) -> None:
    """Tell every process to forget a cookie hash (this one has already)."""
    forget_hash(digest)
    if _redis is not None:
        try:
            _redis.publish(CHANNEL, f"{DEVICE_MOVED} {digest}")
        except Exception:  # Redis down: other processes forget it within KNOWN_TTL (identity)
            pass


#: Seconds between two attempts of the listener to subscribe again.
RESUBSCRIBE_AFTER = 1.0


def _listen(url: str, stop: threading.Event | None = None) -> None:
    """Hear every process's notices for as long as the process lives (or until ``stop``). A
    lost subscription is logged once, when it is lost, and once more when it is back; meanwhile
    the pages fall back on reading the versions (``wait_for_version``, ``sweep``)."""
    lost = False
    while stop is None or not stop.is_set():
        try:
            client = redis.Redis.from_url(url)
            # redis-py types pubsub() and listen() in some releases and not in others.
            pubsub = client.pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call, unused-ignore]
            pubsub.subscribe(CHANNEL)
            _set_listening(True)
            if lost:
                log.warning("notices: subscribed to Redis again")
                lost = False
            for msg in pubsub.listen():  # type: ignore[no-untyped-call, unused-ignore]
                data = msg.get("data")
                if isinstance(data, bytes):
                    _heard(data.decode(errors="replace"))
        except Exception as err:
            if not lost:  # the error's kind only: a message could quote a change
                log.warning("notices: no Redis subscription (%s); the pages read the versions "
                            "until it is back", type(err).__name__)
                lost = True
            _set_listening(False)
            time.sleep(RESUBSCRIBE_AFTER)


def _heard(message: str) -> None:
    """One message of CHANNEL: ``<table> <version>``, the same with ``<before>`` (and the origin
    of a page's action) and a change after a newline, or ``device-moved <sha256>``."""
    head, _, body = message.partition("\n")
    parts = head.split()
    if len(parts) == 2 and parts[0] == DEVICE_MOVED:
        forget_hash(parts[1])
        return
    origin = parts.pop() if len(parts) == 4 else None
    if len(parts) not in (2, 3) or not all(p.isascii() and p.isdigit() for p in parts[1:]):
        return
    _note_origin(parts[0], int(parts[2]) if len(parts) == 3 else None, int(parts[1]), origin)
    if len(parts) == 3 and body and _receiver is not None:
        try:
            _receiver(parts[0], int(parts[1]), int(parts[2]), body)
        except Exception as err:  # a change that cannot be applied: the pages load the version
            # the kind of error only: its text could quote the change, hands and all
            log.warning("change of table %s not applied (%s)", parts[0], type(err).__name__)
    _note(parts[0], int(parts[1]))


def on_change(receiver: Callable[[str, int, int, str], None] | None) -> None:
    """Who applies the changes other processes send (``receiver(table, version, before, body)``,
    tables/snapshot.py ``receive``): called by the listener before the table's pages wake."""
    global _receiver
    _receiver = receiver


def shared() -> bool:
    """True when notices reach other processes (Redis): a change is worth sending with them."""
    return _redis is not None


def _set_listening(up: bool) -> None:
    global _epoch, _listening
    notices_changed(up)  # the cookie hashes known: moved-device notices may have been lost
    with _cond:
        _epoch += 1
        _listening = up
        for cond in _conds.values():  # notices may have been lost: every waiting poll re-reads
            cond.notify_all()


def after_commit(commit: Commit) -> None:
    """The after-commit hook: wake the table's pages in every process."""
    publish(commit.table_id, commit.version, commit.change, commit.before, commit.origin)


def init_live(app: Flask) -> None:
    global _redis, _listener
    url = app.config.get("REDIS_URL")
    if url and _redis is None:
        _redis = redis.Redis.from_url(url)
        _listener = threading.Thread(target=_listen, args=(url,), daemon=True,
                                     name="corazones-live")
        _listener.start()


def read_version(table_id: str) -> int | None:
    """The table's committed version from the database (None: no such table)."""
    t = Table.__table__
    with reading() as conn:
        v = conn.execute(select(t.c.version).where(t.c.id == table_id)).scalar()
    return None if v is None else int(v)


def read_versions(table_ids: list[str]) -> dict[str, int]:
    """The committed versions of these tables (those that exist), ``SWEEP_CHUNK`` a query."""
    t = Table.__table__
    out: dict[str, int] = {}
    with reading() as conn:
        for i in range(0, len(table_ids), SWEEP_CHUNK):
            chunk = table_ids[i:i + SWEEP_CHUNK]
            rows = conn.execute(select(t.c.id, t.c.version).where(t.c.id.in_(chunk)))
            out.update((str(tid), int(v)) for tid, v in rows)
    return out


def _noted_read(table_id: str, version: int, epoch: int | None) -> None:
    """A committed version, from a notice or a read of the database: newer than the notices
    told, it wakes the table's pages (from a read: its notice was lost on its way); learnt while
    Redis stayed subscribed (``epoch``, taken before a read), it is known (see
    :func:`known_version`)."""
    with _cond:
        seen = _seen.get(table_id, 0)
        valid = epoch is not None and _listening and _epoch == epoch
        if version < seen or (version == seen and not valid):
            return
        if len(_seen) > 10000:
            _seen.clear()
            _seen_epoch.clear()
        _seen[table_id] = version
        _seen_epoch[table_id] = epoch if valid and epoch is not None else -1
        cond = _conds.get(table_id)
        if version > seen and cond is not None:
            cond.notify_all()


#: The tables this process's streams follow, per app (its database): table -> open streams.
#: While Redis stays subscribed every commit of any process comes as a notice; the floor for a
#: notice lost on its way is one read of all their versions now and then (:func:`sweep`), not one
#: read per stream (5,000 open pages read 83 times a second with a floor each).
_watched: dict[Flask, dict[str, int]] = {}
_next_sweep: dict[Flask, float] = {}
_watch_lock = threading.Lock()
SWEEP_CHUNK = 500


def _database() -> Flask:
    """The app whose database the caller reads (each stream calls this at every wake-up: the app
    object itself, a context lookup, not its engine's URL rendered each time)."""
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    return app


@contextmanager
def watching(table_id: str) -> Iterator[None]:
    """A stream follows the table for the length of the block (the app's context is active)."""
    key = _database()
    with _watch_lock:
        tables = _watched.setdefault(key, {})
        tables[table_id] = tables.get(table_id, 0) + 1
    try:
        yield
    finally:
        with _watch_lock:
            tables = _watched.get(key, {})
            left = tables.pop(table_id, 1) - 1
            if left > 0:
                tables[table_id] = left
            elif not tables:
                _watched.pop(key, None)
                _next_sweep.pop(key, None)


def sweep(every: float) -> int:
    """When ``every`` s have passed since the last sweep of this database in this process, read
    the versions of every table its streams follow (one query per ``SWEEP_CHUNK``) and note them
    as notices (:func:`_noted_read`): a change whose notice was lost wakes its pages. Any stream
    calls it each time it wakes; one of them reads for all. Returns the tables read (0: not due).
    A failed read raises (the next sweep is due ``every`` s later)."""
    key = _database()
    now = time.monotonic()
    with _watch_lock:
        due = _next_sweep.setdefault(key, now + every)
        if now < due:
            return 0
        _next_sweep[key] = now + every
        ids = list(_watched.get(key, ()))
    if not ids:
        return 0
    with _cond:
        epoch = _epoch if _listening else None
    for table_id, version in read_versions(ids).items():
        _noted_read(table_id, version, epoch)
    return len(ids)


def current_version(table_id: str) -> int | None:
    """The table's committed version: from the notices when they can tell (no query), else from
    the database (None: no such table). A version read while Redis stayed subscribed is noted as
    known: every later commit of the table, in any process, comes as a notice, so the pages of a
    quiet table need no further read to know they are up to date."""
    version = known_version(table_id)
    if version is not None:
        return version
    with _cond:
        epoch = _epoch if _listening else None
    version = read_version(table_id)
    if version is not None:
        _noted_read(table_id, version, epoch)
    return version


def known_version(table_id: str) -> int | None:
    """The table's current version as far as the notices tell, without reading the database; None
    when they cannot tell. Only while Redis stays subscribed since the last notice of the table
    was noted: every commit in any process since then would have been noticed too (a notice in
    flight wakes the poll when it lands; a lost publish is caught by the periodic re-read)."""
    with _cond:
        if not _listening:
            return None
        version = _seen.get(table_id)
        if version is None or _seen_epoch.get(table_id) != _epoch:
            return None
        return version


def wait_for_version(
    table_id: str, since: int, timeout: float, recheck: float, read_version: Callable[[], int],
    known: int | None = None, redis_recheck: float = REDIS_RECHECK,
) -> int:
    """Block until the table's version exceeds ``since`` or ``timeout`` passes; returns it.

    ``known``: the version the caller just read. A notice (a commit in this process, or Redis)
    names a committed version, so it is returned without reading the database again; the database
    is re-read every ``recheck`` seconds, the floor when notices are lost (every
    ``redis_recheck`` s at the least while Redis stays subscribed), and once more at the time-out
    unless Redis stayed subscribed and the version was read or known less than ``redis_recheck``
    s before (a stream, whose floor is its process's :func:`sweep`, passes ``math.inf``: it reads
    nothing at a ping)."""
    deadline = time.monotonic() + timeout
    version = last = known
    read_at = time.monotonic()
    with _cond:
        epoch = _epoch if _listening else None
    while True:
        with _cond:
            noted = _seen.get(table_id, 0)  # before the read: a later notice wakes us at once
            subscribed = epoch is not None and _listening and _epoch == epoch
        if noted > since:
            return noted
        if version is None:
            if (last is not None and subscribed and time.monotonic() >= deadline
                    and time.monotonic() - read_at < redis_recheck):
                # The time-out within the floor's interval, Redis subscribed all along: no notice
                # was lost, so the version is the one known (a stream's pings read nothing).
                return last
            version = last = read_version()
            read_at = time.monotonic()
        if version > since:
            return version
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return version
        with _cond:
            if epoch is not None and not (_listening and _epoch == epoch):
                epoch = None  # the subscription changed: the floor for the rest of this poll
        # Redis delivered every notice so far: the database is re-read only now and then.
        step = recheck if epoch is None else max(recheck, redis_recheck)
        end = time.monotonic() + min(step, remaining)
        with _cond:
            cond = _conds.get(table_id)
            if cond is None:
                cond = _conds[table_id] = threading.Condition(_lock)
            _waiting[table_id] = _waiting.get(table_id, 0) + 1
            try:
                # wait for a new notice, or a change of the Redis subscription (never spin)
                while _seen.get(table_id, 0) == noted and (epoch is None or _epoch == epoch):
                    left = end - time.monotonic()
                    if left <= 0:
                        break
                    cond.wait(left)
            finally:
                _waiting[table_id] -= 1
                if not _waiting[table_id]:
                    del _waiting[table_id], _conds[table_id]
        version = None


#: Presence renewals waiting to reach Redis: table -> who -> when. Somebody new is written at
#: once (other processes count them within their ``PRESENT_TTL``); a page still there renews its
#: entry every ``STREAM_HEARTBEAT`` or so, and those renewals go in one pipeline a process every
#: ``PRESENCE_FLUSH`` s (one per stream's ping was 200 round trips a second at 5,000 open pages).
#: A renewal waits at most until the next touch of the process after that: well within the window.
_presence_due: dict[str, dict[str, float]] = {}
_presence_flushed = 0.0
PRESENCE_FLUSH = 5.0


def touch(table_id: str, who: str) -> None:
    """Note that ``who`` ("dev:<id>" or "ip:<address>") is looking at the table now."""
    global _presence_flushed
    now = time.time()
    with _presence_lock:
        seen = _presence.setdefault(table_id, {})
        last = seen.get(who, 0.0)
        seen[who] = now
        new = now - last > PRESENCE_WINDOW
        if new:  # somebody new (or back): count them at once
            _present_cache.pop(table_id, None)
        if len(seen) > 500:
            for k, t in list(seen.items()):
                if now - t > PRESENCE_WINDOW:
                    del seen[k]
        if _redis is None:
            return
        batch: dict[str, dict[str, float]] = {}
        if new:
            batch[table_id] = {who: now}
        elif now - last > PRESENCE_WINDOW / 6:
            _presence_due.setdefault(table_id, {})[who] = now
        if _presence_due and now - _presence_flushed >= PRESENCE_FLUSH:
            for tid, renewed in _presence_due.items():
                batch.setdefault(tid, {}).update(renewed)
            _presence_due.clear()
            _presence_flushed = now
    if batch:
        _write_presence(batch, now)


def _write_presence(batch: dict[str, dict[str, float]], now: float) -> None:
    try:
        pipe = _redis.pipeline(transaction=False)
        for table_id, who in batch.items():
            key = f"corazones:presence:{table_id}"
            pipe.zadd(key, who)
            pipe.zremrangebyscore(key, 0, now - PRESENCE_WINDOW)
            pipe.expire(key, int(PRESENCE_WINDOW * 2))
        pipe.execute()
    except Exception:  # Redis down: this process still counts its own viewers
        pass


#: present() answers from here for ``PRESENT_TTL`` s: after each change every page of the table
#: asks at once, and the count of spectators need not be fresher than that. Somebody new in this
#: process is counted at once (``touch`` drops the entry); in another process, within the TTL.
#: Someone gone stays counted for ``PRESENCE_WINDOW`` anyway. (At 2 s, the Redis read behind it
#: was 5% of a web worker's CPU at the live pace: nearly every change of a table asked again.)
_present_cache: dict[str, tuple[float, set[str]]] = {}
PRESENT_TTL = 10.0
#: When a table's entry runs out, the entries of the other tables asked about within the TTL
#: that are past half of theirs are read again with it, in one pipeline (at most this many): a
#: process reads who is watching its tables in one round trip every ``PRESENT_TTL`` s or so,
#: not one per table (at the stress pace, a Redis round trip in one action out of five). A
#: table with no entry (new here, or somebody new just came) is read alone: no look at the
#: others for it.
_present_asked: dict[str, float] = {}
PRESENT_BATCH = 500


def present(table_id: str) -> set[str]:
    """Who looked at the table in the last minute, in any process (through Redis when set)."""
    now = time.time()
    _present_asked[table_id] = now
    hit = _present_cache.get(table_id)
    if hit is not None and now - hit[0] < PRESENT_TTL:
        return hit[1]
    due = [table_id]
    if hit is not None:  # ran out: the others due come with it (a table new here comes alone)
        for tid, (at, _) in list(_present_cache.items()):
            if len(due) >= PRESENT_BATCH:
                break
            if tid != table_id and now - at >= PRESENT_TTL / 2 \
                    and now - _present_asked.get(tid, 0.0) < PRESENT_TTL:
                due.append(tid)
    read = _present_now(due, now)
    if len(_present_asked) > 5000:  # every table in the cache was asked about
        _present_cache.clear()
        _present_asked.clear()
    for tid, out in read.items():
        _present_cache[tid] = (now, out)
    return read[table_id]


def _present_now(table_ids: list[str], now: float) -> dict[str, set[str]]:
    """Who is watching each of these tables: this process's viewers, and Redis's in one
    pipeline (Redis away: this process's alone)."""
    with _presence_lock:
        out = {tid: {k for k, t in _presence.get(tid, {}).items() if now - t <= PRESENCE_WINDOW}
               for tid in table_ids}
    if _redis is not None:
        try:
            pipe = _redis.pipeline(transaction=False)
            for tid in table_ids:
                pipe.zrangebyscore(f"corazones:presence:{tid}", now - PRESENCE_WINDOW, "+inf")
            for tid, keys in zip(table_ids, pipe.execute(), strict=True):
                out[tid] |= {k.decode() if isinstance(k, bytes) else str(k) for k in keys}
        except Exception:
            pass
    return out
