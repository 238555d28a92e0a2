"""«Te toca»: which turns deserve a push, the outbox of pushes, and their delivery.

How it fits together:

- ``PushSubscription`` rows: a browser's push endpoint for one seat of one table (per device).
- After every commit the ``after_commit`` hook hands the table to a sender thread (never the
  request thread). The sender reads the table's current state, works out which human seats must
  act and under which *turn key* (game, hand, phase, trick, position), and inserts one
  ``PushTurn`` row per (table, seat, turn key). The unique constraint makes that insert the claim:
  whichever process inserts it queues the first push (``PushOutbox`` rows, one per subscription)
  in the same transaction, so a turn gets its first push exactly once across processes.
- ``PushTurn.remind_at`` is the reminder's deadline (the host's delay, 12 hours by default). The
  one scheduler process claims due reminders with ``UPDATE ... WHERE reminded_at IS NULL`` and
  queues the second and last push for that turn, if the seat still has to act then.
- Outbox rows are sent by whoever claims them first (a lease, ``UPDATE ... WHERE lease_until``):
  the sender thread right away, the scheduler for retries. 404/410 delete the subscription by its
  endpoint; 429 and 5xx retry later honouring Retry-After; anything else is logged and dropped.
- Where a push may go (tables/push/net.py): subscriptions name an https endpoint on a known push
  service, and the transport only connects to public addresses and never follows a redirect.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec
from flask import Flask, current_app
from py_vapid import Vapid
from pywebpush import WebPushException, webpush
from sqlalchemy import delete, select, text, update
from sqlalchemy.exc import IntegrityError

from ..db import db, write_transaction
from ..kinds import DutyKind, OutboxStatus
from ..models import (
    DEFAULT_REMINDER_MINUTES,
    Action,
    PushOutbox,
    PushSubscription,
    PushTable,
    PushTurn,
    Seat,
    Table,
    utcnow,
)
from ..seating import Duty, duties, is_person, load_game, load_seats
from ..tokens import push_topic
from .net import BlockedAddress, guarded_session

log = logging.getLogger("corazones.push")

TTL_SECONDS = 24 * 3600
REMINDER_CHOICES_HOURS: tuple[int, ...] = (1, 3, 6, 12, 24, 48)
MAX_ATTEMPTS = 6
TITLE = "Te toca"

WHAT = {
    "pass": "elige tus 3 cartas y pasa",
    "play": "juega tu carta",
    "count": "mira la cuenta y toca SIGUIENTE MANO",
    "rematch": "te piden la revancha",
}


#: The log entry types that can begin each kind of turn: the latest one began it (its device
#: tells whether the seat's own action did, which deserves no push).
CAUSES: dict[str, tuple[str, ...]] = {
    "pass": ("deal",),
    "play": ("play", "confirm_pass", "deal", "accuse"),
    "count": ("play", "accuse"),
    "rematch": ("rematch",),
}



@dataclass
class Transport:
    """Per app: the key that signs pushes and the guarded HTTP session that carries them."""

    private_key: ec.EllipticCurvePrivateKey
    http: Any = None


def transport(app: Flask) -> Transport:
    found: Transport = app.extensions["corazones_push_transport"]
    return found


def push_duties(table: Table, seats: list[Seat]) -> list[Duty]:
    """The turns that deserve a push: every duty of a person playing their own seat (a stand-in
    plays for the others, and nobody needs waking for it)."""
    return [d for d in duties(table, seats, load_game(table)) if not seats[d.seat].standin]


def _still_due(table: Table, seats: list[Seat], seat: int, key: str) -> bool:
    return any(d.seat == seat and d.key == key for d in push_duties(table, seats))


def payload_for(table: Table, duty: Duty, kind: str) -> dict[str, Any]:
    """What the service worker shows. Never a card."""
    what = WHAT[duty.what]
    body = f"{table.name}: {what}"
    if kind == "reminder":
        body = f"{table.name}: sigue siendo tu turno, {what}"
    return {"title": TITLE, "body": body, "tag": f"corazones-{table.id}",
            "url": f"/t/{table.id}", "table": table.id, "seat": duty.seat,
            "turn": duty.key, "kind": kind}


# -------------------------------------------------------------------- transactions




def _reminder_minutes(table_id: str) -> int:
    row = db.session.get(PushTable, table_id)
    return row.reminder_minutes if row is not None else DEFAULT_REMINDER_MINUTES


def _live_subscriptions(table_id: str, seat: Seat) -> list[PushSubscription]:
    if not is_person(seat) or seat.device_id is None:
        return []
    return list(db.session.execute(
        select(PushSubscription).where(PushSubscription.table_id == table_id,
                                       PushSubscription.seat == seat.seat,
                                       PushSubscription.device_id == seat.device_id)
    ).scalars())


def _visible(subs: list[PushSubscription], now: datetime) -> bool:
    return any(s.visible_until is not None and s.visible_until > now for s in subs)


def has_subscriptions(table_id: str) -> bool:
    """Cheap check on a connection of its own (leaves the caller's session alone)."""
    with db.engine.connect() as conn:
        row = conn.execute(
            text("SELECT 1 FROM push_subscriptions WHERE table_id = :t LIMIT 1"), {"t": table_id}
        ).first()
    return row is not None


def reconcile(table_id: str) -> int:
    """Record the turns that began at this table and queue their first push; returns how many
    outbox rows were queued. Safe to run in any process, any number of times."""
    db.session.rollback()
    table = db.session.get(Table, table_id)
    if table is None:
        return 0
    seats = load_seats(table_id)
    owed = push_duties(table, seats)
    db.session.rollback()
    queued = 0
    for duty in owed:
        queued += _open_turn(table_id, duty)
    return queued


def _open_turn(table_id: str, duty: Duty) -> int:
    try:
        with write_transaction():
            table = db.session.get(Table, table_id)
            if table is None:
                return 0
            seats = load_seats(table_id)
            if not _still_due(table, seats, duty.seat, duty.key):
                return 0  # the turn ended meanwhile
            seat = seats[duty.seat]
            subs = _live_subscriptions(table_id, seat)
            if not subs:
                return 0
            exists = db.session.execute(
                select(PushTurn.id).where(PushTurn.table_id == table_id,
                                          PushTurn.seat == duty.seat,
                                          PushTurn.turn_key == duty.key)
            ).first()
            if exists is not None:
                return 0
            now = utcnow()
            actor = db.session.execute(
                select(Action.device_id).where(Action.table_id == table_id,
                                               Action.type.in_(CAUSES[duty.what]))
                .order_by(Action.version.desc()).limit(1)
            ).scalar_one_or_none()
            if actor is not None and actor == seat.device_id:
                first = "own_action"
            elif _visible(subs, now):
                first = "visible"
            else:
                first = "queued"
            turn = PushTurn(table_id=table_id, seat=duty.seat, turn_key=duty.key,
                            what=duty.what, began_version=table.version, created_at=now,
                            first=first,
                            remind_at=now + timedelta(minutes=_reminder_minutes(table_id)))
            db.session.add(turn)
            db.session.flush()  # the unique (table, seat, turn) insert is the claim
            n = 0
            if first == "queued":
                payload = payload_for(table, duty, "turn")
                for sub in subs:
                    db.session.add(PushOutbox(turn_id=turn.id, subscription_id=sub.id,
                                              table_id=table_id, kind="turn",
                                              payload=payload, due_at=now))
                    n += 1
            return n
    except IntegrityError:
        db.session.rollback()
        return 0  # another process opened this turn first


def send_due_reminders(limit: int = 200) -> int:
    """Claim reminders whose deadline passed and queue them (the scheduler's job)."""
    now = utcnow()
    ids = list(db.session.execute(
        select(PushTurn.id).where(PushTurn.reminded_at.is_(None), PushTurn.remind_at <= now)
        .order_by(PushTurn.remind_at).limit(limit)
    ).scalars())
    db.session.rollback()
    queued = 0
    for turn_id in ids:
        with write_transaction():
            claimed = rowcount(db.session.execute(
                update(PushTurn).where(PushTurn.id == turn_id, PushTurn.reminded_at.is_(None))
                .values(reminded_at=utcnow()).execution_options(synchronize_session=False)
            ))
            if claimed != 1:
                continue  # someone else claimed it
            turn = db.session.get(PushTurn, turn_id)
            assert turn is not None
            table = db.session.get(Table, turn.table_id)
            if table is None:
                continue
            seats = load_seats(table.id)
            duty = Duty(turn.seat, turn.turn_key, DutyKind(turn.what))
            if not _still_due(table, seats, turn.seat, turn.turn_key):
                continue  # the turn is over: no reminder
            subs = _live_subscriptions(table.id, seats[turn.seat])
            if _visible(subs, utcnow()):
                continue
            payload = payload_for(table, duty, "reminder")
            for sub in subs:
                db.session.add(PushOutbox(turn_id=turn.id, subscription_id=sub.id,
                                          table_id=table.id, kind="reminder",
                                          payload=payload, due_at=utcnow()))
                queued += 1
    return queued


# -------------------------------------------------------------------- delivery


def rowcount(result: Any) -> int:
    """How many rows an UPDATE matched (the claim of a row is an UPDATE that matched one)."""
    return int(result.rowcount)


def _retry_after(resp: Any, attempts: int, base: float = 5.0) -> float:
    """Seconds to wait: the push service's Retry-After (seconds or a date), else a backoff."""
    backoff = min(base * 2.0 ** max(attempts - 1, 0), 3600.0)
    raw = resp.headers.get("Retry-After") if resp is not None else None
    if isinstance(raw, str) and raw.strip():
        value = raw.strip()
        if value.isdigit():
            return max(float(value), 1.0)
        try:
            when = parsedate_to_datetime(value)
            return max(float(when.timestamp() - time.time()), 1.0)
        except (TypeError, ValueError):
            pass
    return backoff


def _vapid(app: Flask) -> Any:
    return Vapid(transport(app).private_key)


def _claim(row_id: int, lease: float) -> bool:
    now = utcnow()
    with write_transaction():
        n = rowcount(db.session.execute(
            update(PushOutbox)
            .where(PushOutbox.id == row_id, PushOutbox.status == OutboxStatus.PENDING,
                   PushOutbox.due_at <= now,
                   (PushOutbox.lease_until.is_(None)) | (PushOutbox.lease_until < now))
            .values(lease_until=now + timedelta(seconds=lease),
                    attempts=PushOutbox.attempts + 1)
            .execution_options(synchronize_session=False)
        ))
    return bool(n == 1)


def _finish(row_id: int, **values: Any) -> None:
    with write_transaction():
        db.session.execute(update(PushOutbox).where(PushOutbox.id == row_id).values(**values)
                           .execution_options(synchronize_session=False))


def deliver(row_id: int) -> str:
    """Claim one outbox row and send it. Returns what happened (for logs and tests)."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    if not _claim(row_id, lease=60.0):
        return "not_claimed"
    row = db.session.get(PushOutbox, row_id)
    if row is None:
        return "gone"
    sub = db.session.get(PushSubscription, row.subscription_id)
    turn = db.session.get(PushTurn, row.turn_id)
    table = db.session.get(Table, row.table_id)
    if sub is None or turn is None or table is None:
        _finish(row_id, status=OutboxStatus.STALE, lease_until=None)
        return "stale"
    seats = load_seats(table.id)
    now = utcnow()
    if not _still_due(table, seats, turn.seat, turn.turn_key) \
            or now - row.created_at > timedelta(seconds=TTL_SECONDS) \
            or seats[sub.seat].device_id != sub.device_id:
        _finish(row_id, status=OutboxStatus.STALE, lease_until=None)
        return "stale"
    if sub.visible_until is not None and sub.visible_until > now:
        _finish(row_id, status=OutboxStatus.STALE, lease_until=None)
        return "visible"
    info = {"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}}
    data = json.dumps(row.payload, ensure_ascii=False, separators=(",", ":"))
    endpoint, attempts, seat = sub.endpoint, row.attempts, sub.seat
    db.session.rollback()  # hold no transaction (nor connection) during the HTTP request
    claims: dict[str, str | int] = {  # a new dict each time: pywebpush writes into it
        "sub": str(app.config.get("VAPID_SUBJECT") or "mailto:corazones@example.com"),
        "exp": int(time.time()) + 12 * 3600,
    }
    headers: dict[str, str | int | float] = {"Urgency": "high",
                                             "Topic": push_topic(table.id, seat)}
    resp: Any = None
    error = ""
    try:
        resp = webpush(info, data=data, vapid_private_key=_vapid(app), vapid_claims=claims,
                       ttl=TTL_SECONDS, headers=headers,
                       timeout=float(app.config.get("PUSH_TIMEOUT", 10)),
                       requests_session=_session(app))
    except WebPushException as err:
        resp = err.response
        error = str(err).splitlines()[0]
    except BlockedAddress as err:  # a non-public address: a failure, not retried
        log.warning("push refused before connecting: %s", err)
        _finish(row_id, status=OutboxStatus.FAILED, lease_until=None, last_status=None)
        return "blocked"
    except Exception as err:  # connection refused, timeout, TLS ...
        error = f"{type(err).__name__}: {err}"
    status = getattr(resp, "status_code", None)
    if status is not None and status <= 202 and not error:
        _finish(row_id, status=OutboxStatus.SENT, sent_at=utcnow(), lease_until=None,
                last_status=status)
        return "sent"
    if status in (404, 410):
        with write_transaction():
            db.session.execute(delete(PushSubscription)
                               .where(PushSubscription.endpoint == endpoint))
        log.info("push subscription gone (%s): deleted", status)
        return "deleted"
    if status is None or status == 429 or status >= 500:
        if attempts >= MAX_ATTEMPTS:
            log.warning("push failed %d times, giving up: %s", attempts, error or status)
            _finish(row_id, status=OutboxStatus.FAILED, lease_until=None, last_status=status)
            return "failed"
        delay = _retry_after(resp, attempts, float(app.config.get("PUSH_BACKOFF", 5.0)))
        _finish(row_id, lease_until=None, last_status=status,
                due_at=utcnow() + timedelta(seconds=delay))
        log.info("push answered %s: retry in %.0f s", status or error, delay)
        return "retry"
    log.warning("push refused (%s): %s", status, error)
    _finish(row_id, status=OutboxStatus.FAILED, lease_until=None, last_status=status)
    return "failed"


def _session(app: Flask) -> Any:
    carrier = transport(app)
    if carrier.http is None:  # guarded connections, no proxy, redirects never followed
        carrier.http = guarded_session(app.config)
    return carrier.http


def drain(table_id: str | None = None, limit: int = 100) -> list[str]:
    """Send the due outbox rows (of one table, or all); returns each outcome."""
    now = utcnow()
    stmt = select(PushOutbox.id).where(PushOutbox.status == OutboxStatus.PENDING,
                                       PushOutbox.due_at <= now)
    if table_id is not None:
        stmt = stmt.where(PushOutbox.table_id == table_id)
    ids = list(db.session.execute(stmt.order_by(PushOutbox.id).limit(limit)).scalars())
    db.session.rollback()
    out = []
    for row_id in ids:
        try:
            out.append(deliver(row_id))
        except Exception:
            db.session.rollback()
            log.exception("push delivery crashed")
            out.append("error")
    return out
