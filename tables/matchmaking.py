"""Jugar en vivo: the queue, the matching, and the public tables it forms (docs/LIVE.md).

- **The queue is rows** (``LiveQueueEntry``, one per device), so every web process shares it and a
  killed process loses nobody: whoever waits keeps polling (any process), and the entry is there.
- **Alive**: the waiting page polls every ~2 s; each poll refreshes ``heartbeat_at``. An entry not
  refreshed for ``LIVE_STALE`` seconds (the page was closed) is never seated; CANCELAR deletes it.
- **Matching** runs under one lock: a write transaction that, on PostgreSQL, also holds a
  transaction-level advisory lock (``pg_try_advisory_xact_lock``: a second matcher skips instead of
  waiting), on SQLite the one writer. Whichever process gets there runs it: each queue poll may
  try (at most every ``LIVE_MATCH_EVERY`` s per process, and only when a read shows a table could
  form), and the scheduler every ``LIVE_SWEEP`` s. One transaction forms a few tables: each table,
  its seats, its first deal and the entries marked ``seated`` commit together or not at all, so
  nobody is seated twice, and a process killed mid-match leaves the queue as it was.
- **Who sits together** (:func:`plan`): the ratings are the shown numbers (1500 + 30 per unit of
  openskill's mu, tables/ratings.py). The longest waiting person first: the four closest in
  rating around them whose spread (highest minus lowest) fits the *window* their wait allows,
  ``LIVE_WINDOW_START`` points plus ``LIVE_WINDOW_GROW`` every ``LIVE_WINDOW_STEP`` seconds.
  Once someone has waited ``LIVE_WAIT_LIMIT`` seconds, the people within their window (up to
  three, closest first) sit with robots: the robots of the one level, and the names at it, whose
  ratings are closest to the people's mean.
- **The table**: public, «en vivo» pace, con clasificación, 50 points, renuncio impedido, no host.
"""

from __future__ import annotations

import logging
import math
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from flask import Flask, current_app
from sqlalchemy import and_, delete, func, select, text, update

from rules import Game

from . import actions, clock, errors, players
from .db import db, is_sqlite, reading, write_transaction
from .errors import ServiceError
from .kinds import DECKS, LEVELS, NAME_MAX, ROBOT_NAMES, SeatKind, TableStatus
from .models import Device, LiveQueueEntry, RatedPlayer, Seat, Table
from .names import clean_name, refuse_robot_like, refuse_taken_name
from .ratings import CENTRE, provisional, robot_key, shown
from .seating import Ctx, due_robot_seats, humans_to_act, is_robotic, robot_label
from .tokens import new_table_id

log = logging.getLogger("corazones.live")

WAITING, SEATED = "waiting", "seated"
#: The advisory lock every matcher takes on PostgreSQL (any fixed 64-bit number of our own).
MATCH_LOCK = 0x436F72617A6F6E
#: A live table's choices (nobody is there to choose): docs/LIVE.md says why.
LIVE_TARGET = 50
LIVE_RENEGE = "impedido"
LIVE_PACE = "en_vivo"
LIVE_TABLE_NAME = "Mesa en vivo"
#: The robots' level when two levels fit equally well (no robot rated yet: all start at 1500).
LEVEL_PREFERENCE = ("normal", "facil", "dificil")
#: Public tables listed in Mesas en vivo.
LIST_SIZE = 50


# -------------------------------------------------------------------- settings


@dataclass(frozen=True)
class Rules:
    wait_limit: float
    window_start: float
    window_grow: float
    window_step: float
    stale: float

    def window(self, waited: float) -> float:
        """The spread of ratings a table may have when its longest wait is ``waited`` seconds."""
        steps = math.floor(max(waited, 0.0) / self.window_step) if self.window_step > 0 else 0
        return self.window_start + self.window_grow * steps


def rules() -> Rules:
    cfg = current_app.config
    return Rules(float(cfg["LIVE_WAIT_LIMIT"]), float(cfg["LIVE_WINDOW_START"]),
                 float(cfg["LIVE_WINDOW_GROW"]), float(cfg["LIVE_WINDOW_STEP"]),
                 float(cfg["LIVE_STALE"]))


# -------------------------------------------------------------------- the plan (pure)


@dataclass(frozen=True)
class Waiting:
    id: int
    device_id: int
    name: str
    rating: float
    joined_at: datetime


@dataclass(frozen=True)
class Group:
    """Who sits together, how many robots fill the rest, and the window that allowed it."""

    people: tuple[Waiting, ...]
    robots: int
    window: float


def plan(entries: Sequence[Waiting], at: datetime, r: Rules) -> list[Group]:
    """The tables the queue forms now, longest waiting first (no database: tests call it)."""
    ordered = sorted(entries, key=lambda e: (e.joined_at, e.id))
    taken: set[int] = set()
    groups: list[Group] = []
    for anchor in ordered:
        if anchor.id in taken:
            continue
        waited = (at - anchor.joined_at).total_seconds()
        window = r.window(waited)
        pool = sorted((e for e in ordered if e.id not in taken), key=lambda e: (e.rating, e.id))
        i = pool.index(anchor)
        best: tuple[float, list[Waiting]] | None = None
        # The four with the smallest spread that include the anchor are neighbours in rating.
        for start in range(max(0, i - 3), i + 1):
            chunk = pool[start:start + 4]
            if len(chunk) < 4:
                continue
            spread = chunk[-1].rating - chunk[0].rating
            if spread <= window and (best is None or spread < best[0]):
                best = (spread, chunk)
        if best is not None:
            groups.append(Group(tuple(best[1]), 0, window))
            taken.update(e.id for e in best[1])
            continue
        if waited < r.wait_limit:
            continue
        chosen = [anchor]
        for e in sorted((e for e in pool if e is not anchor),
                        key=lambda e: (abs(e.rating - anchor.rating), e.joined_at)):
            if len(chosen) == 3:
                break
            ratings = [c.rating for c in chosen] + [e.rating]
            if max(ratings) - min(ratings) <= window:
                chosen.append(e)
        groups.append(Group(tuple(chosen), 4 - len(chosen), window))
        taken.update(e.id for e in chosen)
    return groups


def choose_robots(people: Sequence[float], count: int, rated: dict[str, float]
                  ) -> tuple[str, list[str]]:
    """The level and the ``count`` robot names whose ratings (``rated``: robot key -> shown
    rating; a robot never rated is at 1500) are closest to the people's mean."""
    target = sum(people) / len(people)
    best: tuple[float, int, str, list[str]] | None = None
    for level in LEVELS:
        def gap(name: str, level: str = level) -> float:
            return abs(rated.get(robot_key(name, level), float(CENTRE)) - target)

        names = sorted(ROBOT_NAMES, key=lambda n: (gap(n), ROBOT_NAMES.index(n)))[:count]
        cost = sum(gap(n) for n in names)
        rank = LEVEL_PREFERENCE.index(level) if level in LEVEL_PREFERENCE else len(LEVELS)
        if best is None or (cost, rank) < (best[0], best[1]):
            best = (cost, rank, level, names)
    assert best is not None
    return best[2], best[3]


# -------------------------------------------------------------------- the queue


def now() -> datetime:
    return clock.now()


def _rating_of(device_id: int) -> float:
    mu = db.session.execute(
        select(RatedPlayer.mu).where(RatedPlayer.device_id == device_id)).scalar()
    return float(shown(mu)) if mu is not None else float(CENTRE)


def _live_table_of(device_id: int) -> str | None:
    """The unfinished live table this person sits at (left seats excepted), if any."""
    return db.session.execute(
        select(Seat.table_id).join(Table, Table.id == Seat.table_id)
        .where(Seat.device_id == device_id, Seat.kind == SeatKind.HUMAN,
               Seat.left.is_(False), Table.public.is_(True),
               Table.status != TableStatus.FINISHED)
        .order_by(Table.created_at.desc()).limit(1)).scalar()


def _locked_entry(device_id: int) -> LiveQueueEntry | None:
    stmt = select(LiveQueueEntry).where(LiveQueueEntry.device_id == device_id)
    if not is_sqlite():
        stmt = stmt.with_for_update()
    return db.session.execute(
        stmt.execution_options(populate_existing=True)).scalar_one_or_none()


def join(device: Callable[[], int], raw_name: Any) -> int:
    """JUGAR EN VIVO: put ``device()`` in the queue (or keep it there); returns the device id.
    A person at an unfinished live table is not queued: the answer sends them back to it."""
    if raw_name is None or raw_name == "":
        raise errors.LIVE_NEEDS_NAME.error()
    name = clean_name(raw_name)
    refuse_robot_like(name)
    at = now()
    with write_transaction():
        device_id = device()
        if _live_table_of(device_id) is not None:
            return device_id
        entry = _locked_entry(device_id)
        rating = _rating_of(device_id)
        if entry is None:
            db.session.add(LiveQueueEntry(device_id=device_id, name=name, rating=rating,
                                          joined_at=at, heartbeat_at=at, status=WAITING))
        elif entry.status == WAITING:
            entry.name, entry.rating, entry.heartbeat_at = name, rating, at
        else:  # seated before, at a table now finished or left: a new wait
            entry.name, entry.rating, entry.status = name, rating, WAITING
            entry.joined_at = entry.heartbeat_at = at
            entry.table_id, entry.seated_at, entry.allowed_spread = None, None, None
        db.session.execute(update(Device).where(Device.id == device_id).values(name=name)
                           .execution_options(synchronize_session=False))
    return device_id


def heartbeat(device_id: int | None) -> None:
    """The waiting page is open: its entry stays alive."""
    if device_id is None:
        return
    with write_transaction():
        db.session.execute(
            update(LiveQueueEntry)
            .where(LiveQueueEntry.device_id == device_id, LiveQueueEntry.status == WAITING)
            .values(heartbeat_at=now()).execution_options(synchronize_session=False))


def cancel(device_id: int | None) -> None:
    """CANCELAR: out of the queue at once (an entry already seated stays: its table is real)."""
    if device_id is None:
        return
    with write_transaction():
        db.session.execute(
            delete(LiveQueueEntry)
            .where(LiveQueueEntry.device_id == device_id, LiveQueueEntry.status == WAITING)
            .execution_options(synchronize_session=False))


def status(device_id: int | None) -> dict[str, Any]:
    """What the waiting page shows: waiting (for how long, how many are looking), seated (where)
    or none."""
    r = rules()
    at = now()
    out: dict[str, Any] = {"status": "none", "waited_seconds": None, "looking": 0,
                           "wait_limit": r.wait_limit, "rating": None, "table_id": None,
                           "url": None}
    q = LiveQueueEntry.__table__.c
    with reading() as conn:
        out["looking"] = int(conn.execute(
            select(func.count()).select_from(LiveQueueEntry.__table__)
            .where(q.status == WAITING, q.heartbeat_at >= at - timedelta(seconds=r.stale))
        ).scalar() or 0)
        if device_id is None:
            return out
        entry = conn.execute(select(LiveQueueEntry.__table__)
                             .where(q.device_id == device_id)).first()
        live = None
        if entry is None or entry.status == SEATED:
            s, t = Seat.__table__.c, Table.__table__.c
            live = conn.execute(
                select(s.table_id).select_from(Seat.__table__.join(
                    Table.__table__, t.id == s.table_id))
                .where(s.device_id == device_id, s.kind == SeatKind.HUMAN, s.left.is_(False),
                       t.public.is_(True), t.status != TableStatus.FINISHED)
                .order_by(t.created_at.desc()).limit(1)).scalar()
    if live is not None:
        out.update(status="seated", table_id=live, url=f"/t/{live}")
        if entry is not None and entry.status == SEATED:
            out["rating"] = round(entry.rating)
    elif entry is not None and entry.status == WAITING:
        out.update(status="waiting", rating=round(entry.rating),
                   waited_seconds=max(0, int((at - entry.joined_at).total_seconds())))
    return out


# -------------------------------------------------------------------- matching


def _fresh_waiting(at: datetime, stale: float, lock: bool) -> list[Waiting]:
    stmt = (select(LiveQueueEntry)
            .where(LiveQueueEntry.status == WAITING,
                   LiveQueueEntry.heartbeat_at >= at - timedelta(seconds=stale))
            .order_by(LiveQueueEntry.joined_at, LiveQueueEntry.id))
    if lock and not is_sqlite():
        stmt = stmt.with_for_update()
    rows = db.session.execute(stmt.execution_options(populate_existing=True)).scalars()
    return [Waiting(e.id, e.device_id, e.name, e.rating, e.joined_at) for e in rows]


def could_form(at: datetime | None = None) -> bool:
    """A read: would the queue form a table now? (Spares polls the write lock when not.)"""
    r = rules()
    at = at or now()
    q = LiveQueueEntry.__table__.c
    with reading() as conn:
        rows = conn.execute(
            select(q.id, q.device_id, q.name, q.rating, q.joined_at)
            .where(q.status == WAITING, q.heartbeat_at >= at - timedelta(seconds=r.stale))).all()
    return bool(plan([Waiting(x.id, x.device_id, x.name, x.rating, x.joined_at) for x in rows],
                     at, r))


@dataclass(frozen=True)
class Formed:
    table_id: str
    version: int
    humans: list[int]
    robot_due: bool
    group: Group


def _robot_ratings() -> dict[str, float]:
    rows = db.session.execute(select(RatedPlayer.robot_key, RatedPlayer.mu)
                              .where(RatedPlayer.robot_key.is_not(None))).all()
    return {str(k): float(shown(mu)) for k, mu in rows}


def _seat_name(name: str, seats: list[Seat]) -> str:
    """The name as is, or with a number when another seat already shows one like it."""
    for n in range(1, 10):
        candidate = name if n == 1 else f"{name[:NAME_MAX - 2]} {n}"
        try:
            refuse_taken_name(candidate, seats)
            return candidate
        except ServiceError:
            continue
    return f"Jugador {secrets.randbelow(1000)}"


def _open_table(group: Group, at: datetime) -> Formed:
    """The table of ``group``, seated and dealt (inside the matcher's transaction)."""
    level, robot_names = ("normal", []) if group.robots == 0 else choose_robots(
        [p.rating for p in group.people], group.robots, _robot_ratings())
    table = Table(
        id=new_table_id(None), name=LIVE_TABLE_NAME, target=LIVE_TARGET, renege=LIVE_RENEGE,
        deck=DECKS[0], robot_level=level, hand_level=level, status=TableStatus.LOBBY,
        game_number=0, version=0, state_version=0, game_json=None, robot_due=False,
        host_device_id=None, rated=True, public=True, created_at=at, updated_at=at)
    db.session.add(table)
    db.session.flush()
    occupants: list[Waiting | str] = [*group.people, *robot_names]
    secrets.SystemRandom().shuffle(occupants)
    seats = [Seat(table_id=table.id, seat=i, kind=SeatKind.EMPTY, name="", robot_name="",
                  left=False, wants_rematch=False, link_gen=0) for i in range(4)]
    db.session.add_all(seats)
    clock.create_rows(table.id, LIVE_PACE)
    db.session.flush()
    ctx = Ctx(table, seats, None, None, None, None)
    ctx.log("create", None, {"type": "create", "name": LIVE_TABLE_NAME})
    for s, who in zip(seats, occupants, strict=True):
        if isinstance(who, str):
            s.kind, s.robot_name = SeatKind.ROBOT, who
            ctx.log("add_robot", s.seat, {"type": "add_robot", "seat": s.seat, "name": who})
        else:
            name = _seat_name(who.name, seats)
            s.kind, s.name, s.device_id = SeatKind.HUMAN, name, who.device_id
            ctx.log("sit", s.seat, {"type": "sit", "seat": s.seat, "name": name})
            players.took_seat(table.id, s.seat, who.device_id, None)
    actions.start_locked(ctx)
    game: Game | None = ctx.game
    if game is not None:
        table.game_json = game.to_json()
    table.robot_due = bool(due_robot_seats(table, seats, game))
    humans = humans_to_act(table, seats, game)
    db.session.flush()
    return Formed(table.id, table.version, humans, table.robot_due, group)


def _form_some(limit: int = 8) -> list[Formed]:
    """One transaction under the matching lock: form the first ``limit`` tables the queue allows
    now (one plan, disjoint groups; all commit together or none)."""
    r = rules()
    formed: list[Formed] = []
    with write_transaction():
        if not is_sqlite() and not db.session.execute(
                text("SELECT pg_try_advisory_xact_lock(:k)"), {"k": MATCH_LOCK}).scalar():
            return []  # another process is matching right now
        at = now()
        for group in plan(_fresh_waiting(at, r.stale, lock=True), at, r)[:limit]:
            table = _open_table(group, at)
            ids = [p.id for p in group.people]
            done = _count(db.session.execute(
                update(LiveQueueEntry)
                .where(LiveQueueEntry.id.in_(ids), LiveQueueEntry.status == WAITING)
                .values(status=SEATED, table_id=table.table_id, seated_at=at,
                        allowed_spread=group.window)
                .execution_options(synchronize_session=False)))
            if done != len(ids):  # cannot happen under the lock; never seat a changed entry
                raise RuntimeError("live queue changed under the matching lock")
            formed.append(table)
    return formed


def _count(result: Any) -> int:
    """The rows an UPDATE or DELETE touched."""
    return int(result.rowcount or 0)


_pass_lock = threading.Lock()
_last_pass = 0.0


def match(limit: int = 500) -> int:
    """Form every table the queue allows now (a few per transaction); returns how many."""
    n = 0
    while n < limit:
        formed = _form_some()
        for f in formed:
            actions.after_commit(f.table_id, f.version, f.humans, f.robot_due)
        n += len(formed)
        if not formed:
            break
    return n


def maybe_match() -> int:
    """A poll's turn at matching: at most one pass per process every ``LIVE_MATCH_EVERY`` s,
    and only when a read shows a table could form."""
    global _last_pass
    every = float(current_app.config["LIVE_MATCH_EVERY"])
    if time.monotonic() - _last_pass < every or not _pass_lock.acquire(blocking=False):
        return 0
    try:
        _last_pass = time.monotonic()
        if not could_form():
            return 0
        return match()
    except Exception:  # the poll still answers; the scheduler's pass or the next poll retries
        db.session.rollback()
        log.exception("live matching failed")
        return 0
    finally:
        _pass_lock.release()


def forget_old(at: datetime | None = None) -> int:
    """Entries nobody polled for ``LIVE_FORGET`` seconds go (their pages are long closed)."""
    at = at or now()
    cutoff = at - timedelta(seconds=float(current_app.config["LIVE_FORGET"]))
    with write_transaction():
        return _count(db.session.execute(
            delete(LiveQueueEntry)
            .where(LiveQueueEntry.status == WAITING, LiveQueueEntry.heartbeat_at < cutoff)
            .execution_options(synchronize_session=False)))


def scheduler_job(app: Flask) -> int:
    with app.app_context():
        try:
            forget_old()
            return match()
        except Exception:
            db.session.rollback()
            log.exception("live matching failed")
            return 0
        finally:
            db.session.remove()


def add_jobs(app: Flask, sched: Any) -> None:
    sched.add_job(scheduler_job, "interval", seconds=float(app.config["LIVE_SWEEP"]),
                  args=[app], id="live", coalesce=True, max_instances=1)


# -------------------------------------------------------------------- Mesas en vivo


def live_tables(limit: int = LIST_SIZE) -> list[dict[str, Any]]:
    """The public tables playing now: players (names, ratings, robot marks), hand and totals.
    Link tables never appear; nothing hidden (hands, passes) is read."""
    t, s = Table.__table__.c, Seat.__table__.c
    with reading() as conn:
        tables = conn.execute(
            select(t.id, t.name, t.hand_level, t.game_number, t.created_at,
                   t.game_json["hand_number"].as_integer().label("hand"),
                   t.game_json["totals"].label("totals"))
            .where(and_(t.public.is_(True), t.status == TableStatus.PLAYING))
            .order_by(t.created_at.desc(), t.id).limit(limit)).all()
        if not tables:
            return []
        ids = [x.id for x in tables]
        seats = conn.execute(select(s.table_id, s.seat, s.kind, s.name, s.robot_name, s.left,
                                    s.device_id).where(s.table_id.in_(ids))).all()
        devices = {x.device_id for x in seats if x.device_id is not None}
        keys = {robot_key(x.robot_name, tb.hand_level) for tb in tables for x in seats
                if x.table_id == tb.id and x.robot_name}
        p = RatedPlayer.__table__.c
        rated = conn.execute(select(p.device_id, p.robot_key, p.mu, p.games, p.public_id)
                             .where((p.device_id.in_(devices)) | (p.robot_key.in_(keys)))).all()
    by_device = {x.device_id: x for x in rated if x.device_id is not None}
    by_robot = {x.robot_key: x for x in rated if x.robot_key is not None}
    out = []
    for tb in tables:
        totals = list(tb.totals or [0, 0, 0, 0])
        people = []
        for x in sorted((x for x in seats if x.table_id == tb.id), key=lambda x: x.seat):
            robot = is_robotic(x)
            rp = by_robot.get(robot_key(x.robot_name, tb.hand_level)) if robot \
                else by_device.get(x.device_id)
            people.append({
                "seat": x.seat, "name": robot_label(x.robot_name) if robot else x.name,
                "robot": robot,
                "rating": shown(rp.mu) if rp is not None else CENTRE,
                "provisional": provisional(rp.games) if rp is not None else True,
                "player": rp.public_id if rp is not None else None,
                "total": int(totals[x.seat]) if x.seat < len(totals) else 0})
        out.append({"table_id": tb.id, "name": tb.name, "url": f"/t/{tb.id}",
                    "game_number": tb.game_number, "hand": int(tb.hand or 1),
                    "players": people})
    return out
