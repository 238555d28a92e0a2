"""What every viewer of a table shares at one version, kept per process (a *snapshot*).

After each change the 4-5 pages of a table ask for its state at once. Reading the table, its seats,
chat, clock rows and log once per page cost ~13 SQL statements each, and that (not the rules) was
where the web processes' CPU went under load (docs/RELIABILITY.md). Now each process keeps the
latest snapshot of each table it served: the action that made a version primes it from the objects
it already holds (no query), another process makes it from the change sent with the notice (no
query), a process that missed both loads it in a few column-only queries (extending the log and
chat it had), and each page's state is built from it in memory, the viewer's deck included.

A snapshot is read-only once stored: the views, seats and log rows in it are shared by threads.
Everything in it is labelled with the version it was read at; on PostgreSQL (READ COMMITTED) a load
that saw the version move while reading is served once and not kept.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from sqlalchemy import select

from rules import Game, view_for

from . import fair_deal, jsonwire
from .db import is_sqlite, reading
from .kinds import CHAT_SHOWN, FAIR_LOG, SOCIAL_LOG
from .models import Action, ClockSeat, ClockTable, Seat, Table, Viewer

TABLE_FIELDS = ("id", "name", "target", "renege", "deck", "robot_level", "hand_level", "status",
                "game_number", "version", "state_version", "host_device_id", "robot_due",
                "rated", "public")
SEAT_FIELDS = ("seat", "kind", "name", "robot_name", "device_id", "left", "wants_rematch",
               "link_gen", "standin", "vacant")
#: Every column of a seat clock row but its ids: what the state shows, and what the next action's
#: clock bookkeeping starts from (tables/clock.py: sync_locked).
CLOCK_FIELDS = ("seat", "turn_key", "started_at", "deadline", "expires_at", "reserve_key",
                "reserve_left", "time_up_version", "standin_version", "summary")
LOG_FIELDS = ("version", "type", "seat", "game_number", "payload", "events", "at")
#: Log rows kept per snapshot: a page that is behind by more reads the rest from the database.
LOG_KEEP = 48
#: Tables kept per process (least recently used first out).
MAX_TABLES = 2000


@dataclass
class Snapshot:
    version: int
    table: Any  # TABLE_FIELDS as attributes
    seats: list[Any]  # SEAT_FIELDS as attributes, by seat
    game: Game | None
    pace: str | None  # the clock's pace id (None: the table has no clock row)
    clock: dict[int, Any]  # seat -> CLOCK_FIELDS as attributes
    chat: list[Any]  # the last CHAT_SHOWN social log rows, oldest first
    log: list[Any]  # the last LOG_KEEP log rows, oldest first, ending at ``version``
    decks: dict[int, str] = field(default_factory=dict)  # device -> the deck it chose here
    #: The fair deal's public half (``fair_deal.public_info``): commitments, revealed hands.
    fair: dict[str, Any] = field(default_factory=dict)
    _views: dict[int | None, dict[str, Any]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def view(self, seat: int | None) -> dict[str, Any] | None:
        """``rules.view_for`` of this version for ``seat``, computed once (do not mutate it)."""
        if self.game is None:
            return None
        got = self._views.get(seat)
        if got is None:
            got = view_for(self.game, seat)
            with self._lock:
                self._views.setdefault(seat, got)
        return got


_cache: OrderedDict[str, Snapshot] = OrderedDict()
_cache_lock = threading.Lock()


def _copy(obj: Any, names: Iterable[str]) -> SimpleNamespace:
    return SimpleNamespace(**{n: getattr(obj, n) for n in names})


def cached(table_id: str) -> Snapshot | None:
    with _cache_lock:
        snap = _cache.get(table_id)
        if snap is not None:
            _cache.move_to_end(table_id)
        return snap


def held(table_id: str, version: int) -> Snapshot | None:
    """This process's snapshot of the table at exactly ``version`` (None: another, or none): the
    only one a change made from ``version`` extends."""
    snap = cached(table_id)
    return snap if snap is not None and snap.version == version else None


def store(table_id: str, snap: Snapshot) -> None:
    """Keep ``snap`` unless a newer version of the table is kept already."""
    with _cache_lock:
        old = _cache.get(table_id)
        if old is not None and old.version >= snap.version:
            return
        _cache[table_id] = snap
        _cache.move_to_end(table_id)
        while len(_cache) > MAX_TABLES:
            _cache.popitem(last=False)


#: An action takes its table's stripe from before it locks the row until it has kept the snapshot
#: it made: the next action on the table in this process then starts from that snapshot. (Without
#: it, a thread that locked the row between another's commit and its store found no snapshot of
#: the version before, made none, and left the table's snapshot behind until a read loaded it.)
_commit_locks = [threading.Lock() for _ in range(1024)]


def in_commit_order(table_id: str) -> threading.Lock:
    """The lock that keeps this process's actions on ``table_id`` and their snapshots in order
    (take it before the table's row lock, never while holding another table's)."""
    return _commit_locks[hash(table_id) % len(_commit_locks)]


def forget(table_id: str | None = None) -> None:
    """Drop one table's snapshot (or all): e.g. after rows were changed behind the action path."""
    with _cache_lock:
        if table_id is None:
            _cache.clear()
        else:
            _cache.pop(table_id, None)


# -------------------------------------------------------------------- made by an action


@dataclass(frozen=True)
class Change:
    """What one committed action made of its table, as plain data: the table row, the seats and
    the game as they are now, the clock if it moved (None: as before) and the new log rows
    (versions ``before + 1`` to ``version``). Any process holding the snapshot of ``before`` makes
    the new one from it (:func:`extend`), in memory: the process of the action at once, the others
    from the change sent with the notice (:func:`to_wire`, :func:`receive`)."""

    table_id: str
    before: int
    version: int
    table: SimpleNamespace  # TABLE_FIELDS
    seats: list[SimpleNamespace]  # SEAT_FIELDS, by seat
    game_json: dict[str, Any] | None
    clock: tuple[str, dict[int, SimpleNamespace]] | None  # (pace, seat -> CLOCK_FIELDS)
    rows: list[SimpleNamespace]  # LOG_FIELDS
    #: The game object itself, in the process that made it (not sent: the others parse the json).
    game: Game | None = None
    #: The fair deal's public half as the action left it (``fair_deal.public_info``), when the
    #: action logged a commitment or a reveal (None: as before).
    fair: dict[str, Any] | None = None
    #: Each viewer's deck as the action left them (:func:`read_decks`), when it logged a deck
    #: choice (None: as before).
    decks: dict[int, str] | None = None
    #: This process's snapshot of ``before`` when the change was made (``change_of``), if it
    #: held one: the notice leaves out what the change left as it has it (:func:`to_wire`), since
    #: a process applies a change only to its own snapshot of ``before``.
    prior: Snapshot | None = None


def change_of(
    table: Table, seats: list[Seat], game: Game | None, clock_state: tuple[str, dict[int, Any]]
    | None, rows: list[Action], before: int, fair: dict[str, Any] | None = None,
    decks: dict[int, str] | None = None,
) -> Change | None:
    """The change an action is about to commit, from the objects it holds (call inside its
    transaction: the commit expires them). ``fair``: the fair deal's public half as the action
    leaves it, which a commitment or a reveal needs (:func:`fair_changed`); ``decks``: the
    viewers' decks, which a deck choice needs (:func:`decks_changed`). None when a snapshot cannot
    be made from the one before: no row, or a change of either without it."""
    if not rows or (fair is None and fair_changed(rows)) \
            or (decks is None and decks_changed(rows)):
        return None
    clock = None if clock_state is None else (
        clock_state[0], {seat: _copy(r, CLOCK_FIELDS) for seat, r in clock_state[1].items()})
    return Change(
        table_id=table.id, before=before, version=table.version,
        table=_copy(table, TABLE_FIELDS), seats=[_copy(s, SEAT_FIELDS) for s in seats],
        game_json=table.game_json, clock=clock, rows=[_copy(r, LOG_FIELDS) for r in rows],
        game=game, fair=fair, decks=decks,
        prior=held(table.id, before),
    )


def _as_before(change: Change) -> tuple[bool, frozenset[int]]:
    """Whether the change left the seats as its ``prior`` has them, and the seats whose clock
    rows it left so (nothing, without a ``prior``)."""
    prior, clock = change.prior, change.clock
    if prior is None:
        return False, frozenset()
    same_seats = len(prior.seats) == len(change.seats) and all(
        vars(a) == vars(b) for a, b in zip(prior.seats, change.seats, strict=True))
    same_clock: frozenset[int] = frozenset()
    if clock is not None and clock[0] == prior.pace and clock[1].keys() == prior.clock.keys():
        same_clock = frozenset(seat for seat, r in clock[1].items()
                               if vars(r) == vars(prior.clock[seat]))
    return same_seats, same_clock


def fair_changed(rows: list[Any]) -> bool:
    """Whether log ``rows`` change the fair deal's public half (a commitment or a reveal)."""
    return any(r.type in FAIR_LOG for r in rows)


def decks_changed(rows: list[Any]) -> bool:
    """Whether log ``rows`` change a viewer's deck."""
    return any(r.type == "set_deck" for r in rows)


def read_decks(conn: Any, table_id: str) -> dict[int, str]:
    """Each viewer's deck at the table (device -> deck), read with ``conn``."""
    v = Viewer.__table__
    return {int(r.device_id): str(r.deck) for r in conn.execute(
        select(v.c.device_id, v.c.deck).where(v.c.table_id == table_id))}


def extend(prior: Snapshot | None, change: Change | None) -> Snapshot | None:
    """The snapshot of ``change.version`` made from ``prior`` (no query). None unless ``prior``
    is the snapshot of the version just before the change (its chat and log tail would need
    queries: the next read loads it)."""
    if change is None or prior is None or prior.version != change.before:
        return None
    pace, clock = (prior.pace, prior.clock) if change.clock is None else change.clock
    log = (prior.log + change.rows)[-LOG_KEEP:]
    chat = prior.chat
    social = [r for r in change.rows if r.type in SOCIAL_LOG]
    if social:
        chat = (prior.chat + social)[-CHAT_SHOWN:]
    game = change.game
    if game is None and change.game_json is not None:
        game = Game.from_json(change.game_json)
    return Snapshot(
        version=change.version, table=change.table, seats=change.seats, game=game, pace=pace,
        clock=clock, chat=chat, log=log,
        decks=prior.decks if change.decks is None else change.decks,
        fair=prior.fair if change.fair is None else change.fair,
    )


def keep(table_id: str, change: Change | None) -> None:
    """After a commit made outside the action path: the snapshot of the version before that this
    process held when the change was made (``Change.prior``), extended by ``change``, is kept."""
    made = extend(change.prior, change) if change is not None else None
    if made is not None:
        store(table_id, made)


#: Fields sent as ISO text (every other field is already JSON: numbers, text, booleans, JSON).
_MOMENTS = ("started_at", "deadline", "expires_at", "at")


def _plain(ns: SimpleNamespace) -> dict[str, Any]:
    out = dict(vars(ns))
    for name in _MOMENTS:
        if isinstance(out.get(name), datetime):
            out[name] = out[name].isoformat()
    return out


def _back(fields: dict[str, Any]) -> SimpleNamespace:
    for name in _MOMENTS:
        if isinstance(fields.get(name), str):
            fields[name] = datetime.fromisoformat(fields[name])
    return SimpleNamespace(**fields)


def to_wire(change: Change, origin: str | None = None) -> str:
    """``"<table> <version> <before>\n<json>"``: the header says, before any parsing, whether
    a process holds the snapshot the change applies to; ``origin``, the page whose action made
    the change (``live.page_origin``), follows ``<before>`` when given."""
    same_seats, same_clock = _as_before(change)
    body = {
        "table": _plain(change.table),
        "seats": None if same_seats else [_plain(s) for s in change.seats],
        "game": change.game_json,
        "clock": None if change.clock is None else
        [change.clock[0], [[seat, _plain(r)] for seat, r in change.clock[1].items()
                           if seat not in same_clock]],
        "clock_part": bool(same_clock),
        "rows": [_plain(r) for r in change.rows],
        "fair": change.fair,
        "decks": None if change.decks is None else list(change.decks.items()),
    }
    head = f"{change.table_id} {change.version} {change.before}"
    if origin is not None:
        head += f" {origin}"
    return head + "\n" + jsonwire.dumps(body)


def receive(table_id: str, version: int, before: int, body: str) -> None:
    """Another process's change (``to_wire``): keep the snapshot it makes if this process holds
    the one of ``before`` (else nothing: the next read loads it, as without the change)."""
    prior = held(table_id, before)
    if prior is None:
        return
    data = jsonwire.loads(body)
    clock = None
    if data["clock"] is not None:
        moved = {int(seat): _back(r) for seat, r in data["clock"][1]}
        # The rows left out are those of the snapshot of ``before``: this process's own.
        clock = (str(data["clock"][0]), {**prior.clock, **moved} if data.get("clock_part")
                 else moved)
    seats = prior.seats if data["seats"] is None else [_back(s) for s in data["seats"]]
    change = Change(
        table_id=table_id, before=before, version=version, table=_back(data["table"]),
        seats=seats, game_json=data["game"], clock=clock,
        rows=[_back(r) for r in data["rows"]], fair=data.get("fair"),
        decks=None if data.get("decks") is None else {
            int(device): str(deck) for device, deck in data["decks"]},
    )
    snap = extend(prior, change)
    if snap is not None:
        store(table_id, snap)


# -------------------------------------------------------------------- read from the database


def _version(conn: Any, table_id: str) -> int | None:
    t = Table.__table__
    v = conn.execute(select(t.c.version).where(t.c.id == table_id)).scalar_one_or_none()
    return None if v is None else int(v)


def _rows(conn: Any, stmt: Any) -> list[SimpleNamespace]:
    return [SimpleNamespace(**r._mapping) for r in conn.execute(stmt)]


def load(table_id: str) -> Snapshot | None:
    """Read the table's current snapshot (None: no such table) in one read transaction, extending
    what this process holds. Keeps it unless the version moved while reading (PostgreSQL)."""
    t, s, a = Table.__table__, Seat.__table__, Action.__table__
    ct, cs = ClockTable.__table__, ClockSeat.__table__
    prior = cached(table_id)
    with reading() as conn:
        row = conn.execute(
            select(*[t.c[f] for f in TABLE_FIELDS], t.c.game_json, t.c.clock_version)
            .where(t.c.id == table_id)
        ).one_or_none()
        if row is None:
            return None
        m = row._mapping
        version = int(m["version"])
        if prior is not None and prior.version == version:
            return prior
        table = SimpleNamespace(**{f: m[f] for f in TABLE_FIELDS})
        game = Game.from_json(m["game_json"]) if m["game_json"] else None
        seats = _rows(conn, select(*[s.c[f] for f in SEAT_FIELDS])
                      .where(s.c.table_id == table_id).order_by(s.c.seat))
        crow = conn.execute(select(ct.c.pace).where(ct.c.table_id == table_id)).one_or_none()
        pace = crow.pace if crow is not None else None
        # Clock rows behind the version (a crash between a commit and the clock's bookkeeping):
        # the scheduler brings them up to date without a new version, so do not keep these.
        steady = crow is None or m["clock_version"] >= version
        clock = {r.seat: r for r in _rows(
            conn, select(*[cs.c[f] for f in CLOCK_FIELDS]).where(cs.c.table_id == table_id))}
        cols = [a.c[f] for f in LOG_FIELDS]
        chat_n = CHAT_SHOWN
        if prior is not None and version - LOG_KEEP <= prior.version < version:
            new = _rows(conn, select(*cols).where(a.c.table_id == table_id,
                                                  a.c.version > prior.version,
                                                  a.c.version <= version).order_by(a.c.version))
            log = (prior.log + new)[-LOG_KEEP:]
            social = [r for r in new if r.type in SOCIAL_LOG]
            chat = (prior.chat + social)[-chat_n:] if social else prior.chat
        else:
            log = _rows(conn, select(*cols).where(a.c.table_id == table_id,
                                                  a.c.version <= version)
                        .order_by(a.c.version.desc()).limit(LOG_KEEP))[::-1]
            chat = _rows(conn, select(*cols).where(a.c.table_id == table_id,
                                                   a.c.version <= version,
                                                   a.c.type.in_(SOCIAL_LOG))
                         .order_by(a.c.version.desc()).limit(chat_n))[::-1]
        decks = read_decks(conn, table_id)
        fair = fair_deal.public_info(conn, table_id, int(table.game_number))
        # PostgreSQL reads each statement at its own moment: keep it only if nothing moved.
        steady = steady and (is_sqlite() or _version(conn, table_id) == version)
    snap = Snapshot(version=version, table=table, seats=seats, game=game, pace=pace, clock=clock,
                    chat=chat, log=log, decks=decks, fair=fair)
    if steady:
        store(table_id, snap)
    return snap


#: Loads of one table's snapshot happen one at a time per process (striped locks): when a change
#: made in another process wakes the 4-5 pages of the table here at once, one of them loads the
#: new snapshot and the others take it, instead of each loading it (on PostgreSQL each load is 6-7
#: round trips; at 200 tables, 1-3 s per decision, update delivery p95 was 3.5 s).
_load_locks = [threading.Lock() for _ in range(256)]


def current(table_id: str, at_least: int | None = None) -> Snapshot | None:
    """The table's snapshot at its current version (at least ``at_least`` when given, which the
    caller read from the database: no query on a hit). None: no such table."""
    if at_least is None:
        return load(table_id)  # one read of the row; the kept snapshot if the version is the same
    snap = cached(table_id)
    if snap is not None and snap.version >= at_least:
        return snap
    with _load_locks[hash(table_id) % len(_load_locks)]:
        snap = cached(table_id)  # loaded by another page of the table while this one waited
        if snap is not None and snap.version >= at_least:
            return snap
        return load(table_id)


def holds_log(snap: Snapshot, since: int, limit: int) -> bool:
    """Whether :func:`log_rows` answers from the snapshot alone (no query)."""
    if since >= snap.version:
        return True
    lo = max(since, snap.version - limit)
    return bool(snap.log) and snap.log[0].version <= lo + 1


def log_rows(snap: Snapshot, since: int, limit: int) -> list[Any]:
    """The log rows after ``since`` up to the snapshot's version (at most ``limit``, the last)."""
    if since >= snap.version:
        return []
    lo = max(since, snap.version - limit)
    if holds_log(snap, since, limit):
        return [r for r in snap.log if r.version > lo]
    a = Action.__table__
    with reading() as conn:
        return _rows(conn, select(*[a.c[f] for f in LOG_FIELDS])
                     .where(a.c.table_id == snap.table.id, a.c.version > lo,
                            a.c.version <= snap.version).order_by(a.c.version))
