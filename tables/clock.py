"""A table never waits forever: the pace, decision deadlines, the stand-in robot.

The host chooses the pace when making the table:

- ``sin_reloj``: no countdown. Still, when a person has had a decision pending for 24 hours, the
  others may hand it to the stand-in («Que juegue un robot»).
- ``turno_1h`` / ``turno_12h`` / ``turno_24h`` (por turnos): each decision has that deadline. When
  it passes, the others may hand the seat to the stand-in. Nothing plays on its own.
- ``en_vivo``: a live table's clock. A few seconds of grace per decision (15 s to play a card,
  30 s to pass) and a reserve per hand (90 s) spent while thinking beyond the grace. When the
  reserve is spent, the others may hand the seat to the stand-in.

How it works:

- ``ClockSeat`` rows hold each seat's current decision (its *turn key*, equal for the whole
  decision), when it began, its grace deadline, when the time is up (``expires_at``) and the
  reserve left in this hand. The after-commit hook brings them up to date after every commit,
  under the table's lock (the action path inside its own transaction); ``Table.clock_version``
  tells the scheduler which tables a crash left behind, so a restart in the middle of a countdown
  keeps the original deadline.
- The one scheduler process claims each expired decision exactly once (``time_up_version`` is set
  under the table's lock) and writes a ``time_up`` log entry, which wakes every page: the button
  «Que juegue un robot» appears at the others' seats. Nothing depends on a page being open.
- The ``standin`` action (any other seated human, only once the time is up) sets
  ``seats.standin``: from then the robot worker plays that seat's decisions at the table's level
  (``seating.due_robot_seats``), labelled «ROBOT por Ana». It never closes the count, accuses,
  chats or asks for the rematch.
- The person takes the seat back on their next visit: a full read of the state from their device
  (opening the page or coming back to it; the long-poll of a page left open does not count) or any
  action of theirs. The stand-in stops at once, so the next decision that is theirs is theirs; the
  state shows them (only them) a short summary of what the stand-in played.
- Four absent humans: nobody can press the button, so nothing plays; the table waits and expires
  like any idle table (``time_up`` entries do not touch ``tables.updated_at``).
- ABANDONAR stays final for that game: a robot keeps the seat until the game ends; at the rematch
  the seat becomes *vacant* (a robot keeps it warm) and whoever opens the link may sit there.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any

from flask import Flask, current_app
from sqlalchemy import bindparam, insert, select, update

from rules import Game, card_label

from . import errors, live, snapshot
from .db import db
from .hooks import Commit, committed, register
from .kinds import DutyKind, SeatKind, TableStatus
from .models import DEFAULT_PACE, Action, ClockSeat, ClockTable, Seat, Table, utcnow
from .seating import (
    Ctx,
    Duty,
    is_person,
    load_game,
    load_seats,
    locked_table,
    timed_duties,
)
from .together import write as together_write

log = logging.getLogger("corazones.clock")


@dataclass(frozen=True)
class Pace:
    id: str
    label: str
    description: str
    #: Seconds of grace per decision (None: no countdown shown).
    grace: int | None
    #: Seconds of reserve per hand (en vivo only).
    reserve: int
    #: Seconds after which the others may call the stand-in (grace + reserve when None).
    standin_after: int | None = None


HOUR = 3600
LIVE_GRACE_PLAY = 15
LIVE_GRACE_PASS = 30
LIVE_RESERVE = 90
NO_CLOCK_HOURS = 24

PACES: dict[str, Pace] = {
    "sin_reloj": Pace("sin_reloj", "Sin reloj",
                      "Cada quien juega a su tiempo. Si alguien no juega en 24 horas, los demás "
                      "pueden pedir que juegue un robot por esa persona.",
                      None, 0, NO_CLOCK_HOURS * HOUR),
    "turno_1h": Pace("turno_1h", "Por turnos: 1 hora",
                     "Cada jugada tiene 1 hora. Después, los demás pueden pedir que juegue un "
                     "robot por esa persona.", HOUR, 0),
    "turno_12h": Pace("turno_12h", "Por turnos: 12 horas",
                      "Cada jugada tiene 12 horas. Después, los demás pueden pedir que juegue un "
                      "robot por esa persona.", 12 * HOUR, 0),
    "turno_24h": Pace("turno_24h", "Por turnos: 24 horas",
                      "Cada jugada tiene 24 horas. Después, los demás pueden pedir que juegue un "
                      "robot por esa persona.", 24 * HOUR, 0),
    "en_vivo": Pace("en_vivo", "En vivo",
                    f"Todos a la vez: {LIVE_GRACE_PLAY} segundos por carta ({LIVE_GRACE_PASS} "
                    f"para pasar) y {LIVE_RESERVE} segundos de reserva por mano. Cuando a alguien "
                    "se le acaba la reserva, los demás pueden pedir que juegue un robot.",
                    LIVE_GRACE_PLAY, LIVE_RESERVE),
}

#: The paces as every state lists them: one list shared by all states (read, never changed),
#: so a stream's comparison with the state it sent last finds it the same at once.
_PACES_SHOWN: list[dict[str, str]] = [{"id": p.id, "label": p.label, "description": p.description}
                                      for p in PACES.values()]


# -------------------------------------------------------------------- time and config


def now() -> datetime:
    """The clock's time (naive UTC). Tests inject ``CLOCK_NOW`` (a callable) in the config."""
    fn = current_app.config.get("CLOCK_NOW")
    return fn() if callable(fn) else utcnow()


def _seconds(name: str, default: int) -> float:
    return float(current_app.config.get(name, default))


def grace_for(pace: Pace, what: str) -> float | None:
    if pace.id == "en_vivo":
        if what == DutyKind.PASS:
            return _seconds("CLOCK_LIVE_GRACE_PASS", LIVE_GRACE_PASS)
        return _seconds("CLOCK_LIVE_GRACE", LIVE_GRACE_PLAY)
    return float(pace.grace) if pace.grace is not None else None


def reserve_for(pace: Pace) -> float:
    return _seconds("CLOCK_LIVE_RESERVE", LIVE_RESERVE) if pace.id == "en_vivo" else 0.0


def standin_after(pace: Pace) -> float | None:
    if pace.id == "sin_reloj":
        return _seconds("CLOCK_NO_CLOCK_SECONDS", NO_CLOCK_HOURS * HOUR)
    return None


def validate_pace(body: Mapping[str, Any]) -> str:
    pace = body.get("pace", DEFAULT_PACE)
    if pace in (None, ""):
        return DEFAULT_PACE
    if not isinstance(pace, str) or pace not in PACES:
        raise errors.BAD_PACE.error()
    return pace


def create_rows(table_id: str, pace: str) -> None:
    """The clock rows of a new table (inside create_table's transaction)."""
    db.session.add(ClockTable(table_id=table_id, pace=pace))


def pace_of(table_id: str) -> Pace:
    row = db.session.get(ClockTable, table_id)
    return PACES.get(row.pace if row is not None else DEFAULT_PACE, PACES[DEFAULT_PACE])


# -------------------------------------------------------------------- decisions


#: ``db.session.info`` key: the tables whose seat clock rows this transaction loaded as objects
#: or wrote (an action's snapshot of the version before no longer has them as they are).
_TOUCHED = "clock_rows_touched"


def begin_action() -> None:
    """An action's transaction begins: no seat clock row touched yet (see ``sync_locked``)."""
    db.session.info.pop(_TOUCHED, None)


def _touch(table_id: str) -> None:
    db.session.info.setdefault(_TOUCHED, set()).add(table_id)


def _seat_rows(table_id: str) -> dict[int, ClockSeat]:
    _touch(table_id)  # the caller may change them as objects
    rows = db.session.execute(select(ClockSeat).where(ClockSeat.table_id == table_id)).scalars()
    return {r.seat: r for r in rows}


def _start_decision(row: Any, pace: Pace, duty: Duty, at: datetime) -> None:
    if row.reserve_key != duty.hand:  # the reserve is per hand
        row.reserve_key = duty.hand
        row.reserve_left = reserve_for(pace)
    row.turn_key = duty.key
    row.started_at = at
    row.time_up_version = None
    grace = grace_for(pace, duty.what)
    row.deadline = at + timedelta(seconds=grace) if grace is not None else None
    after = standin_after(pace)
    if after is not None:
        row.expires_at = at + timedelta(seconds=after)
    elif row.deadline is not None:
        row.expires_at = row.deadline + timedelta(seconds=max(row.reserve_left, 0.0))
    else:
        row.expires_at = None


def _end_decision(row: Any, at: datetime) -> None:
    """The seat decided (or the decision went away): charge the reserve for the time used."""
    if row.turn_key is not None and row.deadline is not None and row.reserve_key is not None:
        over = (at - row.deadline).total_seconds()
        if over > 0:
            row.reserve_left = max(0.0, row.reserve_left - over)
    row.turn_key = None
    row.started_at = row.deadline = row.expires_at = None
    row.time_up_version = None


#: Every column of a seat clock row but its ids (what sync_locked reads and writes).
SEAT_COLUMNS = snapshot.CLOCK_FIELDS
#: Table -> its pace id. A table's pace is chosen once, when it is made, and never changes.
_pace_ids: dict[str, str] = {}
_statements: dict[str, Any] = {}


def _stmt(name: str) -> Any:
    """sync_locked's statements, built once: building one (coercing every value, its cache key)
    cost more than running it (profiled)."""
    got = _statements.get(name)
    if got is None:
        c, cs = ClockTable.__table__, ClockSeat.__table__
        tid: Any = bindparam("p_tid")
        values: dict[str, Any] = {f: bindparam("p_" + f) for f in SEAT_COLUMNS if f != "seat"}
        _statements.update({
            "pace": select(c.c.pace).where(c.c.table_id == tid),
            "rows": select(*[cs.c[f] for f in SEAT_COLUMNS]).where(cs.c.table_id == tid),
            "update": update(cs).where(cs.c.table_id == tid, cs.c.seat == bindparam("p_seat"))
            .values(values),
            "insert": insert(cs).values(table_id=tid, seat=bindparam("p_seat"), **values),
        })
        got = _statements[name]
    return got


def sync_locked(table: Table, seats: list[Seat], game: Game | None,
                known: tuple[str | None, dict[int, Any]] | None = None, *,
                together: bool = False) -> tuple[str, dict[int, Any]]:
    """Bring the seat clocks up to date with the table (caller holds the table's lock); returns
    the pace and the seat rows as they now are (for tables/snapshot.py).

    ``known``: the pace and the seat rows (SEAT_COLUMNS) as the snapshot of the version before
    this action has them, which saves reading them. Ignored when this action's transaction
    (since ``begin_action``) loaded the rows as objects or wrote them: they may differ now.

    ``together``: with ``known`` rows, the clocks' writes go in one statement with the session's
    pending log, table and seat rows where it can (tables/together.py), instead of a flush and
    a statement of their own.
    """
    # Prebuilt Core statements, not ORM objects: this runs inside every action's lock, where
    # loading and flushing the seat rows as objects was half of the work held under it
    # (profiled: 1.3 of 2.4 s in _perform_locked). The pace is read once per process.
    session = db.session
    table.clock_version = table.version  # written with the table row's own UPDATE, just below
    tid = {"p_tid": table.id}
    known_pace = known[0] if known is not None else None
    if known is None or known_pace is None \
            or table.id in session.info.get(_TOUCHED, ()) or not all(
                hasattr(r, f) for r in known[1].values() for f in SEAT_COLUMNS):
        known = None  # (the last: a snapshot from a process that kept fewer fields)
    together = together and known is not None
    if not together:
        session.flush()  # ORM changes to these rows made earlier in this transaction (take back)
    pace_id = known_pace if known is not None else _pace_ids.get(table.id)
    if pace_id is None:
        pace_id = session.execute(_stmt("pace"), tid).scalar_one_or_none()
        if pace_id is None:  # a table made before the clock existed
            pace_id = DEFAULT_PACE
            session.execute(insert(ClockTable.__table__).values(
                table_id=table.id, pace=pace_id))
        if len(_pace_ids) > 20000:
            _pace_ids.clear()
        _pace_ids[table.id] = pace_id
    pace = PACES.get(pace_id, PACES[DEFAULT_PACE])
    duties = timed_duties(table, seats, game)
    if known is not None:  # copies: the snapshot is shared with other threads
        rows: dict[int, Any] = {seat: SimpleNamespace(**{f: getattr(r, f) for f in SEAT_COLUMNS})
                                for seat, r in known[1].items()}
    else:
        rows = {r.seat: SimpleNamespace(**r._mapping)
                for r in session.execute(_stmt("rows"), tid)}
    at = now()
    writes: dict[str, list[dict[str, Any]]] = {"insert": [], "update": []}
    for seat in range(4):
        row = rows.get(seat)
        duty = duties.get(seat)
        key = duty.key if duty is not None else None
        new = row is None
        if row is None:
            if duty is None:
                continue
            row = SimpleNamespace(**dict.fromkeys(SEAT_COLUMNS))
            row.seat, row.reserve_left = seat, 0.0
        if row.turn_key == key:
            continue
        _end_decision(row, at)
        if duty is not None:
            _start_decision(row, pace, duty, at)
        params = {"p_" + f: getattr(row, f) for f in SEAT_COLUMNS}
        writes["insert" if new else "update"].append({**tid, **params})
        rows[seat] = row
    if together and together_write(table, writes):
        if writes["insert"] or writes["update"]:
            _touch(table.id)
    else:
        if together:
            session.flush()
        for kind, batch in writes.items():  # one round trip each (executemany: pipelined)
            if batch:
                session.execute(_stmt(kind), batch)
                _touch(table.id)
    if writes["insert"] or writes["update"]:  # seat rows held as objects are out of date now
        for obj in list(session.identity_map.values()):
            if isinstance(obj, ClockSeat) and obj.table_id == table.id:
                session.expire(obj)
    _synced[table.id] = table.version
    if len(_synced) > 10000:
        _synced.clear()
    return pace_id, rows


def seat_clock_locked(table: Table, seats: list[Seat], game: Game | None,
                      seat: int) -> ClockSeat | None:
    """One seat's clock row, brought up to date (caller holds the table's lock)."""
    sync_locked(table, seats, game)
    return _seat_rows(table.id).get(seat)


def sync(table_id: str) -> None:
    """Bring one table's clocks up to date, in a transaction of its own."""
    with locked_table(table_id) as table:
        if table is None:
            return
        if table.clock_version == table.version:
            return
        seats = load_seats(table_id)
        sync_locked(table, seats, load_game(table))


#: Table -> the version whose clocks this process brought up to date inside that version's own
#: transaction (the action path does): its after-commit hook has nothing left to do.
_synced: dict[str, int] = {}


def after_commit(commit: Commit) -> None:
    """The after-commit hook: the decisions that began or ended with this commit."""
    table_id, version = commit.table_id, commit.version
    if _synced.get(table_id, -1) >= version:
        return
    seen = db.session.execute(
        select(Table.clock_version).where(Table.id == table_id)
    ).scalar_one_or_none()
    db.session.rollback()
    if seen is not None and seen >= version:
        return
    sync(table_id)


# -------------------------------------------------------------------- time up (the scheduler)


def claim_time_up(table_id: str, seat: int) -> bool:
    """Mark this seat's decision as timed out, once; True if this call did it. The change goes
    with its notice (the other processes make the new snapshot from it, as after an action)."""
    with snapshot.in_commit_order(table_id):
        with locked_table(table_id) as table:
            if table is None:
                return False
            seats = load_seats(table_id)
            game = load_game(table)
            pace_id, _ = sync_locked(table, seats, game)
            rows = _seat_rows(table_id)
            row = rows.get(seat)
            s = seats[seat]
            if row is None or row.turn_key is None or row.time_up_version is not None \
                    or row.expires_at is None or row.expires_at > now() \
                    or not is_person(s) or s.standin:
                return False
            before = table.version
            ctx = Ctx(table, seats, game, None, None, None)
            version = ctx.log_aside("time_up", seat,
                                    {"type": "time_up", "seat": seat, "name": s.name})
            row.time_up_version = version
            table.clock_version = version
            change = snapshot.change_of(table, seats, game, (pace_id, rows), ctx.rows, before)
        snapshot.keep(table_id, change)
    wire = snapshot.to_wire(change) if change is not None and live.shared() else None
    committed(Commit(table_id, version, change=wire))
    return True


def due_time_ups(limit: int = 200) -> list[tuple[str, int]]:
    at = now()
    rows = db.session.execute(
        select(ClockSeat.table_id, ClockSeat.seat)
        .where(ClockSeat.time_up_version.is_(None), ClockSeat.turn_key.is_not(None),
               ClockSeat.expires_at.is_not(None), ClockSeat.expires_at <= at)
        .order_by(ClockSeat.expires_at).limit(limit)
    ).all()
    db.session.rollback()
    return [(str(r[0]), int(r[1])) for r in rows]


def lagging_tables(limit: int = 200) -> list[str]:
    """Playing tables whose clocks missed a commit (a crash between commit and hook)."""
    rows = db.session.execute(
        select(Table.id)
        .where(Table.status == TableStatus.PLAYING, Table.clock_version < Table.version)
        .limit(limit)
    ).scalars()
    out = list(rows)
    db.session.rollback()
    return out


def run_once() -> int:
    """One pass of the scheduler's clock work; returns how many decisions timed out now."""
    for tid in lagging_tables():
        try:
            sync(tid)
        except Exception:
            db.session.rollback()
            log.exception("clock sync failed at table %s", tid)
    n = 0
    for tid, seat in due_time_ups():
        try:
            n += claim_time_up(tid, seat)
        except Exception:
            db.session.rollback()
            log.exception("time up failed at table %s", tid)
    return n


def scheduler_job(app: Flask) -> int:
    with app.app_context():
        try:
            return run_once()
        finally:
            db.session.remove()


def add_jobs(app: Flask, sched: Any) -> None:
    sched.add_job(scheduler_job, "interval", seconds=float(app.config.get("CLOCK_SWEEP", 1.0)),
                  args=[app], id="clock", coalesce=True, max_instances=1)


def take_back_locked(ctx: Ctx, seat: Seat) -> None:
    """The person is back: the stand-in stops; their summary is ready (caller holds the lock)."""
    t = ctx.table
    row = _seat_rows(t.id).get(seat.seat)
    seat.standin = False
    since = row.standin_version if row is not None and row.standin_version is not None \
        else t.version
    summary = summarize(t.id, seat.seat, since, t.game_number)
    ctx.log("take_back", seat.seat, {"type": "take_back", "seat": seat.seat, "name": seat.name})
    if row is not None:
        summary["id"] = t.version
        row.summary = summary
        row.standin_version = None
        duty = timed_duties(t, ctx.seats, ctx.game).get(seat.seat)
        if row.turn_key is not None and duty is not None:  # a fresh clock for the decision
            _start_decision(row, pace_of(t.id), duty, now())


def summarize(table_id: str, seat: int, since: int, game_number: int) -> dict[str, Any]:
    """What the stand-in did for ``seat`` after log version ``since``, in Spanish."""
    rows = db.session.execute(
        select(Action).where(Action.table_id == table_id, Action.version > since,
                             Action.seat == seat, Action.device_id.is_(None),
                             Action.type.in_(("confirm_pass", "play")))
        .order_by(Action.version)
    ).scalars()
    plays: list[str] = []
    passed: list[str] = []
    for r in rows:
        if r.type == "play" and r.payload.get("card"):
            plays.append(str(r.payload["card"]))
        elif r.type == "confirm_pass":
            passed.extend(str(c) for c in r.payload.get("cards") or [])
    bits = []
    if passed:
        bits.append("pasó " + " ".join(card_label(c) for c in passed))
    if plays:
        bits.append("jugó " + ", ".join(card_label(c) for c in plays))
    if bits:
        text = "Mientras no estabas, el robot " + " y ".join(bits) + "."
    else:
        text = "Mientras no estabas, el robot no llegó a jugar."
    return {"plays": plays, "passed": passed, "text": text, "game_number": game_number}


# -------------------------------------------------------------------- state


def _iso(at: datetime | None) -> str | None:
    if at is None:
        return None
    return at.isoformat(timespec="milliseconds") + "Z"


def add_to_state(state: dict[str, Any], table: Any, seats: list[Any], game: Game | None,
                 my_seat: int | None, pace_id: str | None, rows: Mapping[int, Any]) -> None:
    """The clock in ``state``: ``table.pace``, ``table.paces``, ``table.clock`` and
    ``me.standin_summary``; each seat's ``standin`` and ``vacant``. ``pace_id`` and ``rows`` (the
    seat rows by seat) come from the table's snapshot (tables/snapshot.py)."""
    pace = PACES.get(pace_id or DEFAULT_PACE, PACES[DEFAULT_PACE])
    at = now()
    duties = timed_duties(table, seats, game)
    clock_seats = []
    for s in seats:
        row = rows.get(s.seat)
        duty = duties.get(s.seat)
        key = duty.key if duty is not None else None
        entry: dict[str, Any] = {"seat": s.seat, "waiting": key is not None,
                                 "standin": bool(s.standin)}
        if row is not None and key is not None and row.turn_key == key:
            reserve = row.reserve_left
            if row.deadline is not None and at > row.deadline and pace.reserve:
                reserve = max(0.0, reserve - (at - row.deadline).total_seconds())
            time_up = row.expires_at is not None and row.expires_at <= at
            entry.update({
                "started_at": _iso(row.started_at), "deadline": _iso(row.deadline),
                "expires_at": _iso(row.expires_at), "reserve_left": round(reserve, 1),
                "time_up": time_up,
                "can_standin": time_up and not s.standin and my_seat is not None
                and my_seat != s.seat and is_person(s),
            })
        clock_seats.append(entry)
    t = state["table"]
    t["pace"] = pace.id
    t["pace_label"] = pace.label
    t["paces"] = _PACES_SHOWN
    t["clock"] = {"now": _iso(at), "grace": grace_for(pace, DutyKind.PLAY),
                  "reserve": reserve_for(pace), "seats": clock_seats}
    for js, s in zip(t["seats"], seats, strict=True):
        js["standin"] = bool(s.standin)
        js["vacant"] = bool(s.vacant)
        if s.standin:
            js["label"] = f"ROBOT por {s.name}"
    summary = None
    if my_seat is not None:
        row = rows.get(my_seat)
        if row is not None and row.summary and row.summary.get("game_number") == table.game_number:
            summary = dict(row.summary)
    state["me"]["standin_summary"] = summary
    if my_seat is None and table.status != TableStatus.LOBBY and any(
            s.kind == SeatKind.ROBOT and s.vacant for s in seats):
        state["me"]["can_sit"] = True


def init_clock(app: Flask) -> None:
    register(after_commit)
