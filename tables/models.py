"""The rows: devices, tables, seats, the action log (the truth) and per-viewer preferences."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from .db import db


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Device(db.Model):  # type: ignore[name-defined,misc]
    """A browser, known by a long random cookie of which only the SHA-256 is stored."""

    __tablename__ = "devices"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Table(db.Model):  # type: ignore[name-defined,misc]
    __tablename__ = "tables"
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    target: Mapped[int] = mapped_column(Integer)
    renege: Mapped[str] = mapped_column(String(16))
    deck: Mapped[str] = mapped_column(String(16))
    robot_level: Mapped[str] = mapped_column(String(16))
    #: The level the robots use in the current hand (the host's choice applies from the next deal).
    hand_level: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), default="lobby")
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
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)


class Seat(db.Model):  # type: ignore[name-defined,misc]
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("table_id", "seat"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8), default="empty")  # empty | human | robot
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
