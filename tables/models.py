"""Every row of the service: devices, tables, seats, the action log (the truth), per-viewer
preferences, the turn clock's rows and push notifications' rows."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from .db import db
from .kinds import OutboxStatus, SeatKind, TableStatus

#: A table's pace when none was chosen (tables/clock.py has the paces).
DEFAULT_PACE = "sin_reloj"
#: The reminder's delay when the host chose none.
DEFAULT_REMINDER_MINUTES = 12 * 60
#: The longest push endpoint kept.
ENDPOINT_MAX = 1000


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Device(db.Model):  # type: ignore[name-defined,misc]
    """A browser, known by a long random cookie of which only the SHA-256 is stored."""

    __tablename__ = "devices"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    # The player this device is (tables/players.py): the last name it sat or opened a table
    # with, and its profile-move link (a generation; the SHA-256 of the live link, or None).
    name: Mapped[str] = mapped_column(String(40), default="", server_default="")
    move_gen: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    move_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, unique=True)


class Table(db.Model):  # type: ignore[name-defined,misc]
    __tablename__ = "tables"
    __table_args__ = (Index("ix_tables_public_status", "public", "status"),)
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    target: Mapped[int] = mapped_column(Integer)
    renege: Mapped[str] = mapped_column(String(16))
    deck: Mapped[str] = mapped_column(String(16))
    robot_level: Mapped[str] = mapped_column(String(16))
    #: The level the robots use in the current hand (the host's choice applies from the next deal).
    hand_level: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), default=TableStatus.LOBBY)
    game_number: Mapped[int] = mapped_column(Integer, default=0)
    #: Bumped by every log entry; pages poll on it.
    version: Mapped[int] = mapped_column(Integer, default=0)
    #: The version of the last change that is not chat: the stale check compares with it.
    state_version: Mapped[int] = mapped_column(Integer, default=0)
    #: JSON snapshot of rules.Game for the current game (the log rows are the truth).
    game_json: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    #: True while a robot must act: any robot worker (or a restart) picks it up.
    robot_due: Mapped[bool] = mapped_column(Boolean, default=False, index=True)
    host_device_id: Mapped[int | None] = mapped_column(
        ForeignKey("devices.id", ondelete="SET NULL"), nullable=True
    )
    #: «con clasificación» (True): a finished game moves ratings (tables/ratings.py); «amistosa».
    rated: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)
    #: A table «Jugar en vivo» formed (tables/matchmaking.py): listed in Mesas en vivo, open to
    #: spectators, nobody sits by link. Only the matcher sets it; link tables never are.
    public: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: The version the seat clocks (ClockSeat) were last brought up to, in the same row as the
    #: version so that the action's own UPDATE keeps it: below ``version``, a commit left the
    #: clocks behind (a crash before its after-commit hook) and the scheduler catches up.
    clock_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class Seat(db.Model):  # type: ignore[name-defined,misc]
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("table_id", "seat"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8), default=SeatKind.EMPTY)
    name: Mapped[str] = mapped_column(String(40), default="")
    robot_name: Mapped[str] = mapped_column(String(16), default="")
    device_id: Mapped[int | None] = mapped_column(
        ForeignKey("devices.id", ondelete="SET NULL"), nullable=True, index=True
    )
    #: A human who left during a game: a robot plays the seat until the game ends.
    left: Mapped[bool] = mapped_column(Boolean, default=False)
    wants_rematch: Mapped[bool] = mapped_column(Boolean, default=False)
    #: Generation of the private seat link; the host reissues by bumping it.
    link_gen: Mapped[int] = mapped_column(Integer, default=0)
    #: A stand-in robot plays this (absent) person's decisions until they come back (clock.py).
    standin: Mapped[bool] = mapped_column(Boolean, default=False)
    #: A robot keeps this seat (left in an earlier game) until someone opens the link and sits.
    vacant: Mapped[bool] = mapped_column(Boolean, default=False)


class Action(db.Model):  # type: ignore[name-defined,misc]
    """One log entry. ``payload`` is the full action (deck, pass cards): never sent as is."""

    __tablename__ = "actions"
    __table_args__ = (
        UniqueConstraint("table_id", "version"),
        Index("ix_actions_client", "table_id", "action_id"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    game_number: Mapped[int] = mapped_column(Integer, default=0)
    type: Mapped[str] = mapped_column(String(20))
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: The client action id (idempotency); several rows of one request share it.
    action_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    device_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: SHA-256 of the request that carried ``action_id``: only the same request is a retry.
    request_digest: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: The version the client sent with the action (answers a retry the same way).
    base_version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    events: Mapped[list[Any]] = mapped_column(JSON)
    at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Viewer(db.Model):  # type: ignore[name-defined,misc]
    """A device's own preferences at one table (the deck design it sees)."""

    __tablename__ = "viewers"
    __table_args__ = (UniqueConstraint("table_id", "device_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    device_id: Mapped[int] = mapped_column(ForeignKey("devices.id", ondelete="CASCADE"))
    deck: Mapped[str] = mapped_column(String(16))


# -------------------------------------------------------------------- the turn clock


class ClockTable(db.Model):  # type: ignore[name-defined,misc]
    """A table's pace (the version its clocks were brought up to is ``Table.clock_version``)."""

    __tablename__ = "clock_tables"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"),
                                          primary_key=True)
    pace: Mapped[str] = mapped_column(String(16), default=DEFAULT_PACE)


class ClockSeat(db.Model):  # type: ignore[name-defined,misc]
    """One seat's current decision and its deadlines."""

    __tablename__ = "clock_seats"
    __table_args__ = (UniqueConstraint("table_id", "seat"),
                      Index("ix_clock_seats_due", "time_up_version", "expires_at"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    #: The decision this seat owes now (None: none), e.g. ``g1:h2:play:5:1``.
    turn_key: Mapped[str | None] = mapped_column(String(64), nullable=True)
    started_at: Mapped[datetime | None] = mapped_column(nullable=True)
    #: End of the grace (the decision's deadline por turnos).
    deadline: Mapped[datetime | None] = mapped_column(nullable=True)
    #: From then the others may call the stand-in (grace + reserve en vivo).
    expires_at: Mapped[datetime | None] = mapped_column(nullable=True)
    #: The hand (``g1:h2``) the reserve belongs to, and how many seconds are left of it.
    reserve_key: Mapped[str | None] = mapped_column(String(32), nullable=True)
    reserve_left: Mapped[float] = mapped_column(Float, default=0.0)
    #: The log version of this decision's ``time_up`` entry (the scheduler's claim).
    time_up_version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: The log version at which the stand-in began to play for this seat.
    standin_version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: What the stand-in played, for the person (shown to them only).
    summary: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


# -------------------------------------------------------------------- push notifications


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
    status: Mapped[str] = mapped_column(String(16), default=OutboxStatus.PENDING)
    due_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_until: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    sent_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    last_status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


# -------------------------------------------------------------------- players


class PushDevice(db.Model):  # type: ignore[name-defined,misc]
    """A device's one push subscription: every seat it holds gets a copy (``PushSubscription``
    rows), now and whenever it sits at another table (tables/players.py)."""

    __tablename__ = "push_devices"
    device_id: Mapped[int] = mapped_column(ForeignKey("devices.id", ondelete="CASCADE"),
                                           primary_key=True)
    endpoint: Mapped[str] = mapped_column(String(ENDPOINT_MAX), index=True)
    p256dh: Mapped[str] = mapped_column(String(200))
    auth: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

# -------------------------------------------------------------------- ratings


class RatedPlayer(db.Model):  # type: ignore[name-defined,misc]
    """One rated player: a device (a person) or a robot of one name and level («Carmen ·
    Difícil»). ``public_id`` is random: the only way others name the player (never the device)."""

    __tablename__ = "rating_players"
    __table_args__ = (Index("ix_rating_players_board", "games", "mu"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    public_id: Mapped[str] = mapped_column(String(24), unique=True)
    device_id: Mapped[int | None] = mapped_column(
        ForeignKey("devices.id", ondelete="SET NULL"), nullable=True, unique=True)
    #: ``robot:<name>:<level>`` for a robot; None for a person.
    robot_key: Mapped[str | None] = mapped_column(String(40), nullable=True, unique=True)
    #: The name shown: the person's name at their last rated game, or «Carmen · Difícil».
    name: Mapped[str] = mapped_column(String(60), default="")
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    #: Rated games played (provisional below tables.ratings.PROVISIONAL_GAMES).
    games: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class RatingChange(db.Model):  # type: ignore[name-defined,misc]
    """What one rated game did to one player's rating. Unique per (table, game, player): the
    claim that makes a game's update happen once. ``table_id`` has no foreign key: the history
    outlives an expired table (and is never shown with it: table links stay private)."""

    __tablename__ = "rating_changes"
    __table_args__ = (
        UniqueConstraint("table_id", "game_number", "player_id"),
        Index("ix_rating_changes_player", "player_id", "id"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("rating_players.id", ondelete="CASCADE"))
    table_id: Mapped[str] = mapped_column(String(40))
    game_number: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    total: Mapped[int] = mapped_column(Integer)
    #: 1 = best; equal totals share a place; whoever left with ABANDONAR is last.
    place: Mapped[int] = mapped_column(Integer)
    left: Mapped[bool] = mapped_column(Boolean, default=False)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    #: The player's rated games counting this one.
    games: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

# -------------------------------------------------------------------- records


class GameRecord(db.Model):  # type: ignore[name-defined,misc]
    """A finished game kept whole (tables/records.py, docs/RECORDS.md).

    ``table_id`` is no foreign key on purpose: a record outlives its table (an expired table's
    games stay readable by whoever holds its link)."""

    __tablename__ = "game_records"
    __table_args__ = (UniqueConstraint("table_id", "game_number"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(String(40), index=True)
    game_number: Mapped[int] = mapped_column(Integer)
    #: The record format's version (docs/RECORDS.md).
    version: Mapped[int] = mapped_column(Integer, default=1)
    record: Mapped[dict[str, Any]] = mapped_column(JSON)
    #: What a list of games shows (players, totals, winners, hands), without the whole record.
    summary: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


# -------------------------------------------------------------------- the fair deal


class DealSeeds(db.Model):  # type: ignore[name-defined,misc]
    """The secret half of one hand's fair deal (tables/fair_deal.py, docs/FAIR_DEAL.md): the
    server's seed and each seat's, private until the hand's count closes. The public half (the
    commitments) is in the log. Written under the table's lock with the log entries it goes with,
    so every web process and a restart see the same seeds."""

    __tablename__ = "deal_seeds"
    __table_args__ = (UniqueConstraint("table_id", "game", "hand"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    game: Mapped[int] = mapped_column(Integer)
    hand: Mapped[int] = mapped_column(Integer)
    #: 64 lowercase hex digits each.
    server_seed: Mapped[str] = mapped_column(String(64))
    server_commitment: Mapped[str] = mapped_column(String(64))
    #: Four entries by seat: the seed (hex) or None while that seat has none.
    seat_seeds: Mapped[list[Any]] = mapped_column(JSON)
    seat_commitments: Mapped[list[Any]] = mapped_column(JSON)
    #: Four entries by seat: "player", "server" (a robot, or a page that sent nothing) or None.
    by: Mapped[list[Any]] = mapped_column(JSON)
    #: The log versions of the entries the record cites: ``server``, ``seats`` (four), ``deal``,
    #: ``closed``, ``revealed`` (their times are read from those log rows).
    stamps: Mapped[dict[str, Any]] = mapped_column(JSON)
    dealt: Mapped[bool] = mapped_column(Boolean, default=False)
    revealed: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


# -------------------------------------------------------------------- Jugar en vivo


class LiveQueueEntry(db.Model):  # type: ignore[name-defined,misc]
    """A device looking for a live table (tables/matchmaking.py, docs/LIVE.md). One per device:
    ``waiting`` until the matcher seats it (``seated``, with its ``table_id``); CANCELAR deletes
    it. ``heartbeat_at`` is refreshed by the waiting page's polls: an entry not refreshed for a
    few seconds (the page was closed) is never seated."""

    __tablename__ = "live_queue"
    __table_args__ = (Index("ix_live_queue_status", "status", "heartbeat_at"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    device_id: Mapped[int] = mapped_column(ForeignKey("devices.id", ondelete="CASCADE"),
                                           unique=True)
    #: The name the person sits with.
    name: Mapped[str] = mapped_column(String(40))
    #: The shown rating (1500 + 30 per unit of openskill mu) when the person joined.
    rating: Mapped[float] = mapped_column(Float)
    joined_at: Mapped[datetime] = mapped_column(DateTime)
    heartbeat_at: Mapped[datetime] = mapped_column(DateTime)
    #: waiting | seated
    status: Mapped[str] = mapped_column(String(16), default="waiting")
    #: The table it was seated at (no foreign key: the entry may outlive an expired table).
    table_id: Mapped[str | None] = mapped_column(String(40), nullable=True)
    seated_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    #: The rating window (spread of the table's people) the wait allowed when it was seated.
    allowed_spread: Mapped[float | None] = mapped_column(Float, nullable=True)


# -------------------------------------------------------------------- Análisis


class GameAnalysis(db.Model):  # type: ignore[name-defined,misc]
    """Difícil's review of one player's decisions in one finished game (tables/analysis.py,
    docs/ANALYSIS.md). One per (table, game, device): asked once, kept. ``decisions`` is fixed
    when it is asked (which pass and cards were this device's own); ``results`` grows one entry
    per decision as robot processes work on it, so a process that dies loses at most one.
    ``table_id`` is no foreign key: like the record, the analysis outlives its table."""

    __tablename__ = "game_analyses"
    __table_args__ = (
        UniqueConstraint("table_id", "game_number", "device_id"),
        Index("ix_game_analyses_work", "status", "lease_until"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(String(40))
    game_number: Mapped[int] = mapped_column(Integer)
    device_id: Mapped[int] = mapped_column(Integer, index=True)
    seat: Mapped[int] = mapped_column(Integer)
    #: queued | running | done
    status: Mapped[str] = mapped_column(String(16), default="queued")
    #: [{"kind": "pass"|"play", "hand": n, "index": k}]: this device's own decisions, in order.
    decisions: Mapped[list[Any]] = mapped_column(JSON)
    #: One review per decision done so far (robots/review.py), in the order of ``decisions``.
    results: Mapped[list[Any]] = mapped_column(JSON)
    #: Deals sampled per decision.
    worlds: Mapped[int] = mapped_column(Integer)
    #: A robot process works on it until then; past it, another process takes it over.
    lease_until: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    #: CPU seconds spent so far (docs/ANALYSIS.md's figures).
    cpu_seconds: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
