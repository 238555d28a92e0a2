"""bench/load.py's account of the whole machine over a run: the cores' busy, idle and stolen
shares, and the CPU of the services (PostgreSQL, Redis) that serve the stack from the same cores.
Real services: the PostgreSQL server and the Redis this machine runs."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import psycopg
import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import load  # noqa: E402

PG = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test").replace(
    "postgresql+psycopg://", "postgresql://")


def test_the_services_cpu_and_the_cores_shares_are_counted_over_the_window() -> None:
    machine = load.MachineCpu()
    # Work done inside each service, not in this process: a Lua loop in Redis, a series
    # counted in a PostgreSQL backend.
    redis.Redis.from_url("redis://127.0.0.1:6379/0").eval(
        "local i = 0 while i < 20000000 do i = i + 1 end return i", 0)
    with psycopg.connect(PG) as conn:  # open until counted: a backend gone is left out
        conn.execute("select count(*) from generate_series(1, 4000000)").fetchone()
        end = time.process_time() + 0.2
        while time.process_time() < end:  # and some here, for the cores' busy share
            pass
        got = machine.since()
    assert got["redis_cpu_s"] >= 0.1
    assert got["postgres_cpu_s"] >= 0.1
    assert got["busy_percent"] > 0
    shares = got["busy_percent"] + got["idle_percent"] + got["steal_percent"]
    assert 99.0 <= shares <= 101.0

