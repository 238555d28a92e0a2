"""Helpers of the Jugar en vivo tests: an app with a clock the test moves, players who queue, and
ratings set for their devices."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select, update

from tables.db import db, write_transaction
from tables.models import Device, LiveQueueEntry, RatedPlayer, Seat, Table, utcnow
from tables.ratings import CENTRE, MODEL, SCALE
from tests.kit import Player, make_app

#: The queue's settings in these tests (the defaults, spelled out: the tests reason with them).
LIVE = {"LIVE_WAIT_LIMIT": 20.0, "LIVE_WINDOW_START": 100.0, "LIVE_WINDOW_GROW": 100.0,
        "LIVE_WINDOW_STEP": 4.0, "LIVE_STALE": 6.0, "LIVE_MATCH_EVERY": 0.0,
        "RATELIMIT_LIVE": "10000 per minute"}


class FakeClock:
    """The service's clock (``CLOCK_NOW``): moves only when the test says so."""

    def __init__(self) -> None:
        self.at = utcnow()

    def __call__(self) -> datetime:
        return self.at

    def advance(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


def live_app(database_url: str, clock: FakeClock | None = None, **config: Any) -> Any:
    cfg: dict[str, Any] = {"ROBOT_WORKER": "off", **LIVE}
    if clock is not None:
        cfg["CLOCK_NOW"] = clock
    cfg.update(config)
    app = make_app(database_url, **cfg)
    with app.app_context():  # every test starts with an empty queue
        db.session.execute(delete(LiveQueueEntry))
        db.session.commit()
    return app


class Queuer(Player):
    """A browser that queues for a live table (its device made first, its rating set)."""

    def __init__(self, app: Any, rating: float | None = None, name: str | None = None) -> None:
        super().__init__(app)
        self.name = name or "P" + secrets.token_hex(4)
        r = self.post("/api/me", {"name": self.name})
        assert r.status_code == 200, r.get_json()
        with app.app_context(), write_transaction():
            self.device_id = int(db.session.execute(
                select(Device.id).where(Device.name == self.name)).scalar_one())
            if rating is not None:
                set_rating(self.device_id, rating)

    def join(self, expect: int = 200) -> dict[str, Any]:
        r = self.post("/api/live/queue", {"name": self.name})
        assert r.status_code == expect, r.get_json()
        return dict(r.get_json())

    def poll(self) -> dict[str, Any]:
        r = self.post("/api/live/queue/poll")
        assert r.status_code == 200, r.get_json()
        return dict(r.get_json())

    def cancel(self) -> dict[str, Any]:
        r = self.client.delete("/api/live/queue", headers={"X-CSRFToken": self.csrf})
        assert r.status_code == 200, r.get_json()
        return dict(r.get_json())


def set_rating(device_id: int, rating: float, games: int = 10) -> None:
    """(Inside an app context.) The device's rated player at ``rating`` (the shown number)."""
    mu = MODEL.mu + (rating - CENTRE) / SCALE
    got = db.session.execute(select(RatedPlayer).where(RatedPlayer.device_id == device_id)
                             ).scalar_one_or_none()
    if got is None:
        db.session.add(RatedPlayer(public_id=secrets.token_urlsafe(9), device_id=device_id,
                                   name="", mu=mu, sigma=3.0, games=games))
    else:
        db.session.execute(update(RatedPlayer).where(RatedPlayer.id == got.id)
                           .values(mu=mu, games=games))


def entry(app: Any, device_id: int) -> LiveQueueEntry | None:
    with app.app_context():
        row = db.session.execute(select(LiveQueueEntry)
                                 .where(LiveQueueEntry.device_id == device_id)).scalar_one_or_none()
        if row is not None:
            db.session.expunge(row)
        db.session.rollback()
        return row


def table_of(app: Any, table_id: str) -> tuple[Table, list[Seat]]:
    with app.app_context():
        t = db.session.get(Table, table_id)
        assert t is not None
        seats = list(db.session.execute(select(Seat).where(Seat.table_id == table_id)
                                        .order_by(Seat.seat)).scalars())
        for obj in [t, *seats]:
            db.session.expunge(obj)
        db.session.rollback()
        return t, seats
