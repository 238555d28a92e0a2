"""The player beyond one table: the device is the player (its ``devices`` row).

- **The name**: the last name the device sat or opened a table with (``Device.name``, written in
  that seat's transaction by :func:`took_seat`). Only that device reads it back: it prefills the
  sit form and ABRIR MESA. Changing it (Mis mesas) changes what is prefilled, not the seats taken.
- **Moving the profile** («Llevar mi perfil a otro teléfono»): a private link
  ``/llevar/<token>``, ``token = keyed("profile-move", device id, generation)``. Only the SHA-256
  of the live link is stored (``Device.move_hash``, to find the row); issuing a new one bumps the
  generation, so older links stop working. Using it re-keys the device row to the receiving
  browser's cookie: every seat, rating and record that names the device follows, and the old
  browser's cookie names nothing any more (it is a stranger). The link works once. Push
  subscriptions of the row are dropped: they point at the old browser's push endpoint.
  The receiving browser may have a profile of its own: with seats at unfinished tables the move is
  refused (nothing changes); otherwise that profile is let go (its row keeps its finished games
  under a cookie nobody holds) and the browser becomes the moved player.
- **Mis mesas**: every table the player sits at, in two queries (:func:`my_tables`).
- **One notification permission per device**: :func:`subscribe_device` keeps the device's one
  push subscription (``PushDevice``) and copies it to every seat the device holds;
  :func:`took_seat` copies it to each new seat, so tables joined later need no second prompt.
  Delivery (tables/push/delivery.py) keeps working on the per-seat rows.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, select, update

from .db import db, is_sqlite, reading, write_transaction
from .errors import (
    MOVE_LINK_USED,
    MOVE_RECEIVER_BUSY,
    MOVE_SAME_DEVICE,
)
from .identity import token_hash
from .kinds import DutyKind, SeatKind, TableStatus
from .live import publish_device_moved
from .models import (
    Action,
    ClockSeat,
    Device,
    PushDevice,
    PushSubscription,
    Seat,
    Table,
    utcnow,
)
from .seating import duties, is_robotic, robot_label
from .tokens import keyed

MOVE_TOKEN_LEN = 40
MOVE_PATH = "/llevar/"

# -------------------------------------------------------------------- the name


def took_seat(table_id: str, seat: int, device_id: int | None, name: str | None) -> None:
    """Inside the transaction that gave ``device_id`` a seat: remember the name it used, and give
    the seat the device's push subscription (no second permission prompt)."""
    if device_id is None:
        return
    if name:
        db.session.execute(update(Device).where(Device.id == device_id).values(name=name)
                           .execution_options(synchronize_session=False))
    sub = db.session.execute(
        select(PushDevice.endpoint, PushDevice.p256dh, PushDevice.auth)
        .where(PushDevice.device_id == device_id)).first()
    if sub is None:
        return
    db.session.execute(delete(PushSubscription).where(
        PushSubscription.table_id == table_id,
        (PushSubscription.device_id == device_id) | (PushSubscription.endpoint == sub.endpoint)))
    db.session.add(PushSubscription(table_id=table_id, seat=seat, device_id=device_id,
                                    endpoint=sub.endpoint, p256dh=sub.p256dh, auth=sub.auth,
                                    created_at=utcnow()))


def device_name(device_id: int | None) -> str:
    if device_id is None:
        return ""
    with reading() as conn:
        name = conn.execute(select(Device.name).where(Device.id == device_id)).scalar()
    return str(name or "")


def set_name(device: Callable[[], int], name: str) -> int:
    """The name to prefill from now on (seats already taken keep theirs); ``device()`` is asked
    inside the transaction (a browser's first name is the first thing kept for it)."""
    with write_transaction():
        device_id = device()
        db.session.execute(update(Device).where(Device.id == device_id).values(name=name)
                           .execution_options(synchronize_session=False))
    return device_id


# -------------------------------------------------------------------- one push subscription


def subscribe_device(device_id: int, endpoint: str, p256dh: str, auth: str) -> int:
    """Keep this device's one push subscription and give it to every seat it holds; returns how
    many seats got it. The same endpoint kept for another device (the browser's cookie changed)
    goes: a push endpoint belongs to one browser."""
    now = utcnow()
    with write_transaction():
        db.session.execute(delete(PushDevice).where(
            (PushDevice.device_id == device_id) | (PushDevice.endpoint == endpoint)))
        db.session.execute(delete(PushSubscription).where(
            (PushSubscription.device_id == device_id) | (PushSubscription.endpoint == endpoint)))
        db.session.add(PushDevice(device_id=device_id, endpoint=endpoint, p256dh=p256dh,
                                  auth=auth, created_at=now))
        seats = db.session.execute(
            select(Seat.table_id, Seat.seat).where(Seat.device_id == device_id,
                                                   Seat.kind == SeatKind.HUMAN,
                                                   Seat.left.is_(False))).all()
        for s in seats:
            db.session.add(PushSubscription(table_id=s.table_id, seat=s.seat,
                                            device_id=device_id, endpoint=endpoint,
                                            p256dh=p256dh, auth=auth, created_at=now))
    return len(seats)


def unsubscribe_device(device_id: int) -> None:
    """No notices on this device, at any table."""
    with write_transaction():
        _drop_push(device_id)


def device_subscribed(device_id: int | None) -> bool:
    if device_id is None:
        return False
    with reading() as conn:
        return conn.execute(select(PushDevice.device_id)
                            .where(PushDevice.device_id == device_id)).first() is not None


def _drop_push(device_id: int) -> None:
    db.session.execute(delete(PushDevice).where(PushDevice.device_id == device_id))
    db.session.execute(delete(PushSubscription).where(PushSubscription.device_id == device_id))


# -------------------------------------------------------------------- moving the profile


def move_token(device_id: int, gen: int) -> str:
    return keyed("profile-move", device_id, gen).hex()[:MOVE_TOKEN_LEN]


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def move_link(device_id: int | None) -> str | None:
    """The device's live profile-move link, or None (none issued, or used)."""
    if device_id is None:
        return None
    with reading() as conn:
        row = conn.execute(select(Device.move_gen, Device.move_hash)
                           .where(Device.id == device_id)).first()
    if row is None or row.move_hash is None:
        return None
    return MOVE_PATH + move_token(device_id, row.move_gen)


def issue_move_link(device_id: int) -> str:
    """A new link; every older one stops working."""
    with write_transaction():
        dev = db.session.get(Device, device_id, populate_existing=True)
        assert dev is not None
        dev.move_gen += 1
        token = move_token(dev.id, dev.move_gen)
        dev.move_hash = _digest(token)
    return MOVE_PATH + token


def void_move_link(device_id: int) -> None:
    with write_transaction():
        dev = db.session.get(Device, device_id, populate_existing=True)
        assert dev is not None
        dev.move_gen += 1
        dev.move_hash = None


def _well_formed(token: str) -> bool:
    return len(token) == MOVE_TOKEN_LEN and all(c in "0123456789abcdef" for c in token)


def _device_of_link(token: str, lock: bool) -> Device | None:
    if not _well_formed(token):
        return None
    stmt = select(Device).where(Device.move_hash == _digest(token))
    if lock and not is_sqlite():
        stmt = stmt.with_for_update()
    dev = db.session.execute(stmt.execution_options(populate_existing=True)).scalar_one_or_none()
    if dev is None or not hmac.compare_digest(move_token(dev.id, dev.move_gen), token):
        return None
    return dev


def _unfinished_seats(device_id: int) -> int:
    return len(db.session.execute(
        select(Seat.id).join(Table, Table.id == Seat.table_id)
        .where(Seat.device_id == device_id, Seat.kind == SeatKind.HUMAN, Seat.left.is_(False),
               Table.status != TableStatus.FINISHED)).all())


@dataclass(frozen=True)
class MovePreview:
    """What the receiving page shows before the tap: whose profile, and what this browser has."""

    name: str
    tables: int
    same_device: bool
    receiver_name: str
    receiver_busy: bool
    receiver_has_profile: bool


def preview_move(token: str, receiver_device_id: int | None) -> MovePreview:
    """Reads only (a link preview in a chat app must not use the link up)."""
    db.session.rollback()
    try:
        dev = _device_of_link(token, lock=False)
        if dev is None:
            raise MOVE_LINK_USED.error()
        mine = receiver_device_id
        receiver = db.session.get(Device, mine) if mine is not None else None
        out = MovePreview(
            name=dev.name, tables=_unfinished_seats(dev.id), same_device=mine == dev.id,
            receiver_name=receiver.name if receiver is not None else "",
            receiver_busy=receiver is not None and mine != dev.id
            and _unfinished_seats(receiver.id) > 0,
            receiver_has_profile=receiver is not None and mine != dev.id)
    finally:
        db.session.rollback()
    return out


def take_profile(token: str, receiver_token: str) -> int:
    """Move the player whose link is ``token`` to the browser whose cookie is
    ``receiver_token``; returns the device id (now that browser's). Once per link."""
    receiver_hash = token_hash(receiver_token)
    with write_transaction():
        dev = _device_of_link(token, lock=True)
        if dev is None:
            raise MOVE_LINK_USED.error()
        if dev.token_hash == receiver_hash:
            raise MOVE_SAME_DEVICE.error()
        other = db.session.execute(
            select(Device).where(Device.token_hash == receiver_hash)).scalar_one_or_none()
        if other is not None:
            if _unfinished_seats(other.id) > 0:
                raise MOVE_RECEIVER_BUSY.error(name=other.name or "otra persona")
            # Let the browser's own profile go: its row stays (finished games, ratings) under
            # a cookie hash nobody holds.
            _drop_push(other.id)
            db.session.execute(update(Device).where(Device.id == other.id)
                               .values(token_hash=token_hash("retired:" + secrets.token_hex(32)),
                                       move_hash=None, move_gen=Device.move_gen + 1)
                               .execution_options(synchronize_session=False))
            db.session.flush()
        old_hash, device_id = dev.token_hash, dev.id
        _drop_push(device_id)  # they name the old browser's push endpoint
        db.session.execute(update(Device).where(Device.id == device_id)
                           .values(token_hash=receiver_hash, move_hash=None,
                                   move_gen=Device.move_gen + 1)
                           .execution_options(synchronize_session=False))
    publish_device_moved(old_hash)
    publish_device_moved(receiver_hash)
    return device_id


# -------------------------------------------------------------------- Mis mesas

GROUPS = ("turn", "playing", "lobby", "finished")


def _iso(at: datetime | None) -> str | None:
    return None if at is None else at.replace(microsecond=0).isoformat() + "Z"


def _duty_of_clock(turn_key: str | None) -> str | None:
    """The decision a seat's clock row names (``g1:h2:pass``, ``g1:h2:play:5:1``)."""
    if not turn_key:
        return None
    parts = turn_key.split(":")
    return parts[2] if len(parts) > 2 and parts[2] in (DutyKind.PASS, DutyKind.PLAY) else None


@dataclass
class _T:
    """The columns duties() reads of a table."""

    status: str
    game_number: int


def my_tables(device_id: int | None, now: datetime | None = None) -> dict[str, Any]:
    """Every table the device sits at, «Te toca» first, then playing, lobby, finished.

    Two queries whatever the number of tables: the device's seats with their tables, their seat
    clocks and the time of each table's last change (the log row at ``state_version``); then
    every seat of those tables (names, and who asked for a rematch). Who must act is what
    ``seating.duties`` says: for passing and playing, the seat clock holds the key of the duty
    ``duties`` gave at the table's last commit (``ClockSeat.turn_key``, ``started_at``: since
    when); the count is owed by every person while the game counts; a rematch, by calling
    ``duties`` on the finished table's seats."""
    out: dict[str, Any] = {"waiting": 0, "tables": [], "counts": dict.fromkeys(GROUPS, 0)}
    if device_id is None:
        return out
    now = now or utcnow()
    s, t, c, a = Seat.__table__, Table.__table__, ClockSeat.__table__, Action.__table__
    phase = t.c.game_json["phase"].as_string()
    mine_q = (
        select(s.c.table_id, s.c.seat, s.c.standin, t.c.name, t.c.status, t.c.game_number,
               t.c.host_device_id, t.c.created_at, t.c.updated_at, phase.label("phase"),
               c.c.turn_key, c.c.started_at, a.c.at.label("changed_at"))
        .select_from(
            s.join(t, t.c.id == s.c.table_id)
            .outerjoin(c, and_(c.c.table_id == s.c.table_id, c.c.seat == s.c.seat))
            .outerjoin(a, and_(a.c.table_id == t.c.id, a.c.version == t.c.state_version)))
        .where(s.c.device_id == device_id, s.c.kind == SeatKind.HUMAN, s.c.left.is_(False))
    )
    mine_ids = (select(s.c.table_id).where(s.c.device_id == device_id,
                                           s.c.kind == SeatKind.HUMAN, s.c.left.is_(False)))
    all_q = (select(s.c.table_id, s.c.seat, s.c.kind, s.c.name, s.c.robot_name, s.c.left,
                    s.c.wants_rematch, s.c.standin)
             .where(s.c.table_id.in_(mine_ids)))
    with reading() as conn:
        mine = conn.execute(mine_q).all()
        if not mine:
            return out
        everyone: dict[str, list[Any]] = {}
        for row in conn.execute(all_q):
            everyone.setdefault(row.table_id, []).append(row)
    entries = []
    for m in mine:
        seats = sorted(everyone.get(m.table_id, []), key=lambda r: r.seat)
        duty: str | None = None
        since: datetime | None = None
        if m.status == TableStatus.PLAYING:
            if m.phase == "counting":
                duty, since = DutyKind.COUNT, m.changed_at
            else:
                duty, since = _duty_of_clock(m.turn_key), m.started_at
        elif m.status == TableStatus.FINISHED and len(seats) == 4:
            if any(d.seat == m.seat for d in duties(_T(m.status, m.game_number), seats, None)):
                duty, since = DutyKind.REMATCH, m.changed_at
        standin = bool(m.standin) and duty in (DutyKind.PASS, DutyKind.PLAY)
        if duty is not None and not standin:
            group = "turn"
        elif m.status == TableStatus.PLAYING:
            group = "playing"
        elif m.status == TableStatus.LOBBY:
            group = "lobby"
        else:
            group = "finished"
        last = m.changed_at or m.updated_at
        since = since or last if group == "turn" else None
        finished_games = m.game_number if m.status == TableStatus.FINISHED \
            else max(m.game_number - 1, 0)
        entries.append({
            "table_id": m.table_id,
            "name": m.name,
            "url": f"/t/{m.table_id}",
            "status": m.status,
            "group": group,
            "seat": m.seat,
            "duty": duty if group == "turn" else None,
            "standin": standin,
            "is_host": m.host_device_id == device_id,
            "game_number": m.game_number,
            "waiting_since": _iso(since),
            "waited_seconds": max(0, int((now - since).total_seconds()))
            if since is not None else None,
            "last_change": _iso(last),
            "players": [_label(r) for r in seats if r.seat != m.seat and r.kind != SeatKind.EMPTY],
            "empty_seats": sum(1 for r in seats if r.kind == SeatKind.EMPTY),
            "games": [{"number": n, "url": f"/t/{m.table_id}/partidas/{n}"}
                      for n in range(finished_games, 0, -1)],
            "_sort": (GROUPS.index(group),
                      # «Te toca»: who has waited longest first; the rest: latest change first
                      since.timestamp() if group == "turn" and since is not None
                      else -(last or m.created_at).timestamp()),
        })
    entries.sort(key=lambda e: e.pop("_sort"))
    for e in entries:
        out["counts"][e["group"]] += 1
    out["waiting"] = out["counts"]["turn"]
    out["tables"] = entries
    return out


def _label(row: Any) -> str:
    if is_robotic(row):
        return robot_label(row.robot_name)
    return str(row.name)
