"""«Te toca»: Web Push when a human seat must act, one reminder later, and the VAPID keys.

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
- Where a push may go (tables/push_net.py): subscriptions name an https endpoint on a known push
  service, and the transport only connects to public addresses and never follows a redirect.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import os
import queue
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from flask import Flask, current_app
from sqlalchemy import (
    JSON,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    delete,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from .db import db, write_transaction
from .models import Action, Seat, Table, utcnow
from .push_net import ENDPOINT_MAX, BlockedAddress, guarded_session

log = logging.getLogger("corazones.push")

TTL_SECONDS = 24 * 3600
DEFAULT_REMINDER_MINUTES = 12 * 60
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

# -------------------------------------------------------------------- rows


class PushSubscription(db.Model):  # type: ignore[name-defined,misc]
    """One browser's push subscription for one seat of one table."""

    __tablename__ = "push_subscriptions"
    __table_args__ = (
        UniqueConstraint("table_id", "endpoint"),
        Index("ix_push_subscriptions_endpoint", "endpoint"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    device_id: Mapped[int] = mapped_column(ForeignKey("devices.id", ondelete="CASCADE"),
                                           index=True)
    endpoint: Mapped[str] = mapped_column(String(ENDPOINT_MAX))
    p256dh: Mapped[str] = mapped_column(String(200))
    auth: Mapped[str] = mapped_column(String(100))
    #: The table page of this device was open and visible until then (notify.js heartbeats).
    visible_until: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class PushTable(db.Model):  # type: ignore[name-defined,misc]
    """The host's push settings for a table (the reminder's delay)."""

    __tablename__ = "push_tables"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"),
                                          primary_key=True)
    reminder_minutes: Mapped[int] = mapped_column(Integer, default=DEFAULT_REMINDER_MINUTES)


class PushTurn(db.Model):  # type: ignore[name-defined,misc]
    """A seat's duty to act (one turn): at most a first push and one reminder."""

    __tablename__ = "push_turns"
    __table_args__ = (UniqueConstraint("table_id", "seat", "turn_key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    turn_key: Mapped[str] = mapped_column(String(64))
    what: Mapped[str] = mapped_column(String(16))
    began_version: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    #: Why the first push was or was not queued: queued | own_action | visible
    first: Mapped[str] = mapped_column(String(16), default="queued")
    remind_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True, index=True)
    reminded_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class PushOutbox(db.Model):  # type: ignore[name-defined,misc]
    """One push to deliver to one subscription (the first push or the reminder of a turn)."""

    __tablename__ = "push_outbox"
    __table_args__ = (
        UniqueConstraint("turn_id", "kind", "subscription_id"),
        Index("ix_push_outbox_due", "status", "due_at"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    turn_id: Mapped[int] = mapped_column(ForeignKey("push_turns.id", ondelete="CASCADE"))
    subscription_id: Mapped[int] = mapped_column(
        ForeignKey("push_subscriptions.id", ondelete="CASCADE"), index=True)
    table_id: Mapped[str] = mapped_column(String(40), index=True)
    kind: Mapped[str] = mapped_column(String(16))  # turn | reminder
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    #: pending | sent | failed | stale
    status: Mapped[str] = mapped_column(String(16), default="pending")
    due_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_until: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    sent_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    last_status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


# -------------------------------------------------------------------- VAPID keys


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def public_key_b64(key: ec.EllipticCurvePrivateKey) -> str:
    return b64url(key.public_key().public_bytes(serialization.Encoding.X962,
                                                serialization.PublicFormat.UncompressedPoint))


def _load_private(text_value: str) -> ec.EllipticCurvePrivateKey:
    raw = text_value.strip()
    if "BEGIN" in raw:
        key = serialization.load_pem_private_key(raw.encode(), password=None)
    else:
        data = b64url_decode(raw)
        if len(data) == 32:  # the raw private number (what most VAPID generators print)
            key = ec.derive_private_key(int.from_bytes(data, "big"), ec.SECP256R1())
        else:
            key = serialization.load_der_private_key(data, password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise ValueError("VAPID_PRIVATE_KEY is not an EC key")
    return key


def ensure_vapid_keys(app: Flask) -> tuple[ec.EllipticCurvePrivateKey, str]:
    """The VAPID key pair: ``VAPID_PRIVATE_KEY`` (environment or config: PEM, base64url DER or
    the raw 32 bytes in base64url), else ``instance/vapid_private.pem``, made on first run
    (atomically, so several processes starting together agree on one key)."""
    given = os.environ.get("VAPID_PRIVATE_KEY") or app.config.get("VAPID_PRIVATE_KEY") or ""
    if given:
        key = _load_private(str(given))
    else:
        path = os.path.join(app.instance_path, "vapid_private.pem")
        if not os.path.exists(path):
            new = ec.generate_private_key(ec.SECP256R1())
            pem = new.private_bytes(serialization.Encoding.PEM,
                                    serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption())
            tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(pem)
            try:
                os.link(tmp, path)  # fails if another process won the race: use theirs
            except FileExistsError:
                pass
            finally:
                os.unlink(tmp)
        with open(path, "rb") as f:
            key = _load_private(f.read().decode())
    return key, public_key_b64(key)


# -------------------------------------------------------------------- turns from a table's state


@dataclass(frozen=True)
class Duty:
    seat: int
    key: str
    what: str


def current_duties(table: Table, seats: list[Seat]) -> list[Duty]:
    """The human seats that must act now and the key of that turn (equal for the whole turn)."""
    from rules import COUNTING, PASSING, PLAYING

    from .service import active_humans, load_game

    humans = active_humans(seats)
    g = table.game_number
    if table.status == "finished":
        asked = [s for s in seats if s.seat in humans and s.wants_rematch]
        if not asked:
            return []
        return [Duty(s.seat, f"g{g}:rematch", "rematch") for s in seats
                if s.seat in humans and not s.wants_rematch]
    game = load_game(table)
    if table.status != "playing" or game is None:
        return []
    h = game.hand_number
    if game.phase == PASSING:
        return [Duty(s, f"g{g}:h{h}:pass", "pass") for s in game.to_act() if s in humans]
    if game.phase == PLAYING:
        n_trick, n_card = len(game.tricks), len(game.trick)
        return [Duty(s, f"g{g}:h{h}:play:{n_trick}:{n_card}", "play")
                for s in game.to_act() if s in humans]
    if game.phase == COUNTING:
        return [Duty(s, f"g{g}:h{h}:count", "count") for s in humans]
    return []


def topic_for(table_id: str, seat: int) -> str:
    """The Topic header (<= 32 URL-safe base64 characters): pushes for the same table and seat
    waiting at the push service replace each other. Keyed, so it does not reveal the table id."""
    key = current_app.config["SECRET_KEY"]
    mac = hmac.new(key.encode() if isinstance(key, str) else key,
                   f"push-topic:{table_id}:{seat}".encode(), hashlib.sha256)
    return b64url(mac.digest())[:32]


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


#: A short write transaction: the same queue for SQLite's writer as every other write (db.py).
write_tx = write_transaction


def _reminder_minutes(table_id: str) -> int:
    row = db.session.get(PushTable, table_id)
    return row.reminder_minutes if row is not None else DEFAULT_REMINDER_MINUTES


def _live_subscriptions(table_id: str, seat: Seat) -> list[PushSubscription]:
    if seat.kind != "human" or seat.left or seat.device_id is None:
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
    from .service import load_seats

    db.session.rollback()
    table = db.session.get(Table, table_id)
    if table is None:
        return 0
    seats = load_seats(table_id)
    duties = current_duties(table, seats)
    db.session.rollback()
    queued = 0
    for duty in duties:
        queued += _open_turn(table_id, duty)
    return queued


def _open_turn(table_id: str, duty: Duty) -> int:
    from .service import load_seats

    try:
        with write_tx():
            table = db.session.get(Table, table_id)
            if table is None:
                return 0
            seats = load_seats(table_id)
            if duty not in current_duties(table, seats):
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
    from .service import load_seats

    now = utcnow()
    ids = list(db.session.execute(
        select(PushTurn.id).where(PushTurn.reminded_at.is_(None), PushTurn.remind_at <= now)
        .order_by(PushTurn.remind_at).limit(limit)
    ).scalars())
    db.session.rollback()
    queued = 0
    for turn_id in ids:
        with write_tx():
            claimed = db.session.execute(
                update(PushTurn).where(PushTurn.id == turn_id, PushTurn.reminded_at.is_(None))
                .values(reminded_at=utcnow()).execution_options(synchronize_session=False)
            ).rowcount
            if claimed != 1:
                continue  # someone else claimed it
            turn = db.session.get(PushTurn, turn_id)
            assert turn is not None
            table = db.session.get(Table, turn.table_id)
            if table is None:
                continue
            seats = load_seats(table.id)
            duty = Duty(turn.seat, turn.turn_key, turn.what)
            if duty not in current_duties(table, seats):
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


def _retry_after(resp: Any, attempts: int, base: float = 5.0) -> float:
    """Seconds to wait: the push service's Retry-After (seconds or a date), else a backoff."""
    backoff = min(base * 2 ** max(attempts - 1, 0), 3600.0)
    value = resp.headers.get("Retry-After") if resp is not None else None
    if value:
        value = value.strip()
        if value.isdigit():
            return max(float(value), 1.0)
        try:
            when = parsedate_to_datetime(value)
            return max((when.timestamp() - time.time()), 1.0)
        except (TypeError, ValueError):
            pass
    return backoff


def _vapid(app: Flask) -> Any:
    from py_vapid import Vapid

    state: PushState = app.extensions["corazones_push"]
    return Vapid(state.private_key)


def _claim(row_id: int, lease: float) -> bool:
    now = utcnow()
    with write_tx():
        n = db.session.execute(
            update(PushOutbox)
            .where(PushOutbox.id == row_id, PushOutbox.status == "pending",
                   PushOutbox.due_at <= now,
                   (PushOutbox.lease_until.is_(None)) | (PushOutbox.lease_until < now))
            .values(lease_until=now + timedelta(seconds=lease),
                    attempts=PushOutbox.attempts + 1)
            .execution_options(synchronize_session=False)
        ).rowcount
    return bool(n == 1)


def _finish(row_id: int, **values: Any) -> None:
    with write_tx():
        db.session.execute(update(PushOutbox).where(PushOutbox.id == row_id).values(**values)
                           .execution_options(synchronize_session=False))


def deliver(row_id: int) -> str:
    """Claim one outbox row and send it. Returns what happened (for logs and tests)."""
    from pywebpush import WebPushException, webpush

    from .service import load_seats

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
        _finish(row_id, status="stale", lease_until=None)
        return "stale"
    seats = load_seats(table.id)
    now = utcnow()
    if Duty(turn.seat, turn.turn_key, turn.what) not in current_duties(table, seats) \
            or now - row.created_at > timedelta(seconds=TTL_SECONDS) \
            or seats[sub.seat].device_id != sub.device_id:
        _finish(row_id, status="stale", lease_until=None)
        return "stale"
    if sub.visible_until is not None and sub.visible_until > now:
        _finish(row_id, status="stale", lease_until=None)
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
                                             "Topic": topic_for(table.id, seat)}
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
        _finish(row_id, status="failed", lease_until=None, last_status=None)
        return "blocked"
    except Exception as err:  # connection refused, timeout, TLS ...
        error = f"{type(err).__name__}: {err}"
    status = getattr(resp, "status_code", None)
    if status is not None and status <= 202 and not error:
        _finish(row_id, status="sent", sent_at=utcnow(), lease_until=None, last_status=status)
        return "sent"
    if status in (404, 410):
        with write_tx():
            db.session.execute(delete(PushSubscription)
                               .where(PushSubscription.endpoint == endpoint))
        log.info("push subscription gone (%s): deleted", status)
        return "deleted"
    if status is None or status == 429 or status >= 500:
        if attempts >= MAX_ATTEMPTS:
            log.warning("push failed %d times, giving up: %s", attempts, error or status)
            _finish(row_id, status="failed", lease_until=None, last_status=status)
            return "failed"
        delay = _retry_after(resp, attempts, float(app.config.get("PUSH_BACKOFF", 5.0)))
        _finish(row_id, lease_until=None, last_status=status,
                due_at=utcnow() + timedelta(seconds=delay))
        log.info("push answered %s: retry in %.0f s", status or error, delay)
        return "retry"
    log.warning("push refused (%s): %s", status, error)
    _finish(row_id, status="failed", lease_until=None, last_status=status)
    return "failed"


def _session(app: Flask) -> Any:
    state: PushState = app.extensions["corazones_push"]
    if state.http is None:  # guarded connections, no proxy, redirects never followed
        state.http = guarded_session(app.config)
    return state.http


def drain(table_id: str | None = None, limit: int = 100) -> list[str]:
    """Send the due outbox rows (of one table, or all); returns each outcome."""
    now = utcnow()
    stmt = select(PushOutbox.id).where(PushOutbox.status == "pending", PushOutbox.due_at <= now)
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


# -------------------------------------------------------------------- the sender thread


class PushState:
    """Per app: the VAPID key and the sender thread (started on first use)."""

    def __init__(self, app: Flask, private_key: ec.EllipticCurvePrivateKey) -> None:
        self.app = app
        self.private_key = private_key
        self.queue: queue.Queue[str | None] = queue.Queue()
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()
        self.http: Any = None
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


def _after_commit(table_id: str, version: int, humans: list[int]) -> None:
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    state: PushState | None = app.extensions.get("corazones_push")
    if state is None or app.config.get("PUSH_SENDER", "thread") == "off":
        return
    if has_subscriptions(table_id):
        state.submit(table_id)


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


def init_push(app: Flask) -> None:
    """VAPID keys into the config, the after-commit hook, the routes (tables/push_routes.py)."""
    from .openapi import register_paths
    from .push_routes import bp, openapi_paths
    from .service import register_after_commit

    for key, default in (("PUSH_SWEEP", "5"), ("PUSH_TIMEOUT", "10"), ("PUSH_BACKOFF", "5")):
        app.config.setdefault(key, float(os.environ.get(key, default)))
    app.config.setdefault("PUSH_SENDER", os.environ.get("PUSH_SENDER", "thread"))
    # TEST-ONLY, off by default: also accept endpoints on a loopback IP literal (http or https,
    # any port) and let the push transport connect to loopback, for the tests' local push
    # service. Private, link-local and the other non-public addresses stay refused even then.
    # A production deployment never sets it.
    app.config.setdefault("PUSH_INSECURE_ENDPOINTS",
                          os.environ.get("PUSH_INSECURE_ENDPOINTS", "") == "1")
    if app.config["PUSH_INSECURE_ENDPOINTS"]:
        log.warning("PUSH_INSECURE_ENDPOINTS is on: pushes may go to loopback (tests only)")
    # PUSH_RESOLVER (config only): a function (host, port) -> addresses used instead of the
    # system resolver; every address it gives is still checked (tests use it).
    app.config.setdefault("PUSH_ENDPOINT_HOSTS", os.environ.get("PUSH_ENDPOINT_HOSTS", ""))
    app.config.setdefault("VAPID_SUBJECT",
                          os.environ.get("VAPID_SUBJECT", "mailto:corazones@example.com"))
    # Alembic's fileConfig (flask db upgrade) disables the loggers that exist before it runs.
    log.disabled = False
    private_key, public = ensure_vapid_keys(app)
    app.config["VAPID_PUBLIC_KEY"] = public
    app.extensions["corazones_push"] = PushState(app, private_key)
    register_after_commit(_after_commit)
    app.register_blueprint(bp)
    register_paths(openapi_paths())
