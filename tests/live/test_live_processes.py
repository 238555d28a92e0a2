"""Jugar en vivo across two web processes on one database: many people queue at once, split over
both; every one is seated, each table's people within the window their wait allowed, nobody at two
tables, robots only where someone waited the limit; then a web process is killed while people
wait, and nobody is lost. Runs on SQLite and (marked db) again on PostgreSQL."""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import requests
import sqlalchemy as sa

from tables.matchmaking import Rules
from tables.models import utcnow
from tables.ratings import CENTRE, MODEL, SCALE
from tests.kit import HttpPlayer, Server

pytestmark = pytest.mark.db

#: Short waits so the test is quick; the rule is the same as in production (docs/LIVE.md).
ENV = {"LIVE_WAIT_LIMIT": "8", "LIVE_WINDOW_START": "100", "LIVE_WINDOW_GROW": "100",
       "LIVE_WINDOW_STEP": "2", "LIVE_STALE": "5", "LIVE_MATCH_EVERY": "0.2",
       "RATELIMIT_LIVE": "100000 per minute", "ROBOT_WORKER": "off"}
RULES = Rules(wait_limit=8.0, window_start=100.0, window_grow=100.0, window_step=2.0, stale=5.0)


class Client:
    """One person's browser: a device with a name and a rating, polling like the waiting page
    (every 0.5 s here), through whichever web process still answers."""

    def __init__(self, urls: list[str], engine: sa.Engine, rating: float) -> None:
        self.urls = list(urls)
        self.p = HttpPlayer(self.urls[0])
        self.name = "L" + secrets.token_hex(5)
        r = self.p.post("/api/me", {"name": self.name})
        assert r.status_code == 200, r.text
        with engine.begin() as conn:
            self.device_id = int(conn.execute(sa.text("SELECT id FROM devices WHERE name = :n"),
                                              {"n": self.name}).scalar_one())
            conn.execute(sa.text(
                "INSERT INTO rating_players (public_id, device_id, name, mu, sigma, games, "
                "created_at, updated_at) VALUES (:p, :d, :n, :mu, 3.0, 10, :t, :t)"),
                {"p": secrets.token_urlsafe(9), "d": self.device_id, "n": self.name,
                 "mu": MODEL.mu + (rating - CENTRE) / SCALE, "t": utcnow()})
        self.rating = rating
        self.table_id: str | None = None

    def _call(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        """The request on the first process that answers (a balancer would do the same)."""
        for _ in range(200):
            base = self.urls[0]
            try:
                r = self.p.s.request(method, base + path, json=body, timeout=30,
                                     headers={"X-CSRFToken": self.p.csrf})
                if r.status_code == 400 and r.json().get("error") == "csrf":
                    # a new process: the CSRF token signs with the same key; cookies stay
                    self.p.csrf = self.p.s.get(base + "/api/csrf", timeout=30).json()[
                        "csrf_token"]
                    continue
                assert r.status_code == 200, (r.status_code, r.text)
                return dict(r.json())
            except requests.ConnectionError:
                self.urls.append(self.urls.pop(0))  # that process is gone: the next one
                time.sleep(0.05)
        raise AssertionError("no process answered")

    def join(self) -> dict[str, Any]:
        return self._call("POST", "/api/live/queue", {"name": self.name})

    def wait_seated(self, timeout: float) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            q = self._call("POST", "/api/live/queue/poll")
            assert q["status"] in ("waiting", "seated"), q  # never dropped from the queue
            if q["status"] == "seated":
                self.table_id = str(q["table_id"])
                return self.table_id
            time.sleep(0.5)
        raise AssertionError(f"{self.name} was not seated")


def check_tables(engine: sa.Engine, clients: list[Client]) -> dict[str, Any]:
    """Every client at exactly one table; each table within its window; robots fill the rest."""
    devices = {c.device_id: c for c in clients}
    with engine.connect() as conn:
        entries = conn.execute(sa.text(
            "SELECT device_id, status, table_id, joined_at, seated_at, allowed_spread, rating "
            "FROM live_queue WHERE device_id IN (" + ",".join(map(str, devices)) + ")")).all()
        assert len(entries) == len(clients)
        tids = sorted({e.table_id for e in entries})
        seats = conn.execute(sa.text(
            "SELECT s.table_id, s.seat, s.kind, s.device_id FROM seats s "
            "WHERE s.table_id IN (" + ",".join(f"'{t}'" for t in tids) + ")")).all()
        # nobody sits at two unfinished live tables (any table, not only these)
        twice = conn.execute(sa.text(
            "SELECT s.device_id, COUNT(*) FROM seats s JOIN tables t ON t.id = s.table_id "
            "WHERE t.public AND s.kind = 'human' AND s.device_id IN ("
            + ",".join(map(str, devices)) + ") GROUP BY s.device_id HAVING COUNT(*) > 1")).all()
        publics = conn.execute(sa.text(
            "SELECT id, public, status FROM tables WHERE id IN ("
            + ",".join(f"'{t}'" for t in tids) + ")")).all()
    assert twice == []
    assert all(e.status == "seated" for e in entries)
    assert all(bool(t.public) and t.status == "playing" for t in publics)
    by_table: dict[str, list[Any]] = defaultdict(list)
    for e in entries:
        by_table[e.table_id].append(e)
    robots_tables = 0
    spreads = []
    for tid, group in by_table.items():
        table_seats = [s for s in seats if s.table_id == tid]
        humans = sorted(s.device_id for s in table_seats if s.kind == "human")
        assert humans == sorted(e.device_id for e in group), tid  # the queue's group sat
        assert len(table_seats) == 4 and all(s.kind in ("human", "robot") for s in table_seats)
        ratings = [e.rating for e in group]
        spread = max(ratings) - min(ratings)
        spreads.append(spread)
        seated_at = group[0].seated_at
        longest = max((_dt(seated_at) - _dt(e.joined_at)).total_seconds() for e in group)
        assert all(e.allowed_spread == group[0].allowed_spread for e in group)
        # within the window the longest wait allowed when the table formed
        allowed = group[0].allowed_spread
        assert spread <= allowed <= RULES.window(longest) + 1e-6, (tid, spread, group)
        if len(group) < 4:
            robots_tables += 1
            assert longest >= RULES.wait_limit - 0.01, (tid, longest)  # robots only after it
    return {"tables": len(by_table), "with_robots": robots_tables, "max_spread": max(spreads)}


def _dt(v: Any) -> Any:
    from datetime import datetime

    return v if isinstance(v, datetime) else datetime.fromisoformat(str(v))


@pytest.fixture()
def two_servers(migrated: str, instance_dir: Path) -> Any:
    eng = sa.create_engine(migrated)
    with eng.begin() as conn:  # an empty queue: other tests' people are not these tests'
        conn.execute(sa.text("DELETE FROM live_queue"))
    eng.dispose()
    servers = [Server(migrated, instance_dir, **ENV).start() for _ in range(2)]
    yield servers
    for s in servers:
        s.stop()


@pytest.fixture()
def engine(migrated: str) -> Any:
    eng = sa.create_engine(migrated)
    yield eng
    eng.dispose()


def test_many_people_queue_across_two_processes_and_all_are_seated_once(engine, two_servers):
    rng = random.Random(18)
    urls = [s.url for s in two_servers]
    # 34 people: clusters of similar ratings and a few far from everyone (robots fill theirs)
    ratings = ([1500 + rng.uniform(-40, 40) for _ in range(16)]
               + [1800 + rng.uniform(-40, 40) for _ in range(12)]
               + [1100, 2200, 2600, 900, 1950, 1350])
    with ThreadPoolExecutor(16) as pool:
        clients = list(pool.map(lambda ir: Client(urls[ir[0] % 2:] + urls[:ir[0] % 2], engine,
                                                  ir[1]), enumerate(ratings)))
    start = threading.Barrier(len(clients))

    def run(c: Client) -> str:
        start.wait()  # all at once
        assert c.join()["status"] in ("waiting", "seated")
        return c.wait_seated(timeout=120)

    with ThreadPoolExecutor(len(clients)) as pool:
        tables = list(pool.map(run, clients))
    assert all(tables)
    figures = check_tables(engine, clients)
    assert figures["with_robots"] >= 1  # the far ones played robots
    assert figures["tables"] < len(clients)  # people sat together


def test_a_web_process_killed_while_people_wait_loses_nobody(engine, two_servers):
    a, b = two_servers
    # ratings so far apart that nobody can sit before the wait limit: all are waiting at the kill
    clients = [Client([a.url, b.url], engine, 600 + 700 * i) for i in range(6)]
    for c in clients:
        assert c.join()["status"] == "waiting"  # each entry written through process A
    a.kill()
    with ThreadPoolExecutor(len(clients)) as pool:
        tables = list(pool.map(lambda c: c.wait_seated(timeout=120), clients))
    assert len(set(tables)) == len(clients)  # each alone with robots, once
    figures = check_tables(engine, clients)
    assert figures["with_robots"] == len(clients)
