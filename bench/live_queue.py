"""The Jugar en vivo benchmark (`make bench-live`): many people arriving at the queue at once.

It starts the production stack itself (deploy/stack.py: gunicorn web workers, a robot process and
the one scheduler, which also matches every second; Redis; PostgreSQL on a fresh schema, or SQLite
with ``--db sqlite``) with the queue's production settings (docs/LIVE.md). ``--players`` people
(400) get a device and a rating (normal around 1500, sd ``--sd``; set in the database before the
clock starts, as earlier rated games would have), then arrive at random moments within
``--arrival`` seconds (10): each taps JUGAR EN VIVO and then polls like the waiting page (every
2 s) until its answer says seated.

Reported: the time until each is seated (p50, p95, max), from the server's own rows
(``seated_at - joined_at``) and as the page saw it (join to the poll that said seated); the
tables formed (all people, with robots), the rating spread of each table's people (p50, p95, max),
whether anyone was seated twice or not at all, and errors. The last line printed is JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402
import sqlalchemy as sa  # noqa: E402

from deploy.stack import Stack, drop_pg_schema, new_pg_schema  # noqa: E402

PG_BASE = os.environ.get("BENCH_DATABASE_URL",
                         "postgresql+psycopg://postgres@127.0.0.1:5432/test")
POLL_EVERY = 2.0
#: openskill's start and the shown scale (tables/ratings.py).
MU0, CENTRE, SCALE = 25.0, 1500, 30.0


def pct(values: list[float], p: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    return round(s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))], 3)


class Person:
    def __init__(self, base: str, connector: aiohttp.BaseConnector, rating: float) -> None:
        self.base = base
        self.session = aiohttp.ClientSession(connector=connector, connector_owner=False,
                                             cookie_jar=aiohttp.CookieJar(unsafe=True),
                                             timeout=aiohttp.ClientTimeout(total=60))
        self.name = "V" + secrets.token_hex(5)
        self.rating = rating
        self.csrf = ""
        self.joined: float | None = None
        self.seen_seated: float | None = None
        self.table_id: str | None = None
        self.errors: list[str] = []
        self.retries = 0

    async def _post(self, path: str, body: Any = None) -> dict[str, Any]:
        """POST; a 503 (the database out of connections a moment) is retried as a page would."""
        for _ in range(20):
            async with self.session.post(self.base + path, json=body,
                                         headers={"X-CSRFToken": self.csrf}) as r:
                data = await r.json(content_type=None)
                if r.status == 503:
                    self.retries += 1
                    await asyncio.sleep(0.5)
                    continue
                if r.status != 200:
                    raise RuntimeError(f"{path} {r.status} {data}")
                return dict(data)
        raise RuntimeError(f"{path}: 503 twenty times")

    async def prepare(self) -> None:
        async with self.session.get(self.base + "/api/csrf") as r:
            self.csrf = (await r.json())["csrf_token"]
        await self._post("/api/me", {"name": self.name})

    async def play(self, delay: float, deadline: float) -> None:
        await asyncio.sleep(delay)
        self.joined = time.monotonic()
        try:
            q = await self._post("/api/live/queue", {"name": self.name})
            while q["status"] != "seated":
                if q["status"] != "waiting":
                    raise RuntimeError(f"dropped from the queue: {q}")
                if time.monotonic() > deadline:
                    raise RuntimeError("not seated before the deadline")
                await asyncio.sleep(POLL_EVERY)
                q = await self._post("/api/live/queue/poll")
            self.seen_seated = time.monotonic()
            self.table_id = q["table_id"]
        except Exception as err:  # noqa: BLE001 - counted and reported
            self.errors.append(str(err)[:200])


async def run_people(base: str, ratings: Sequence[float], arrival: float, engine: sa.Engine,
                     seed: int) -> list[Person]:
    connector = aiohttp.TCPConnector(limit=200)
    people = [Person(base, connector, r) for r in ratings]
    try:
        sem = asyncio.Semaphore(50)

        async def prep(p: Person) -> None:
            async with sem:
                await p.prepare()

        await asyncio.gather(*(prep(p) for p in people))
        mus = {p.name: MU0 + (p.rating - CENTRE) / SCALE for p in people}
        with engine.begin() as conn:
            rows = conn.execute(sa.text("SELECT id, name FROM devices WHERE name LIKE 'V%'")).all()
            now = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
            conn.execute(sa.text(
                "INSERT INTO rating_players (public_id, device_id, name, mu, sigma, games, "
                "created_at, updated_at) VALUES (:p, :d, :n, :mu, 3.0, 10, :t, :t)"),
                [{"p": secrets.token_urlsafe(9), "d": r.id, "n": r.name, "mu": mus[r.name],
                  "t": now} for r in rows if r.name in mus])
        rng = random.Random(seed)
        deadline = time.monotonic() + arrival + 300
        await asyncio.gather(*(p.play(rng.uniform(0, arrival), deadline) for p in people))
    finally:
        for p in people:
            await p.session.close()
        await connector.close()
    return people


def figures(people: list[Person], engine: sa.Engine) -> dict[str, Any]:
    names = {p.name for p in people}
    with engine.connect() as conn:
        entries = conn.execute(sa.text(
            "SELECT q.device_id, q.status, q.table_id, q.joined_at, q.seated_at, q.rating, "
            "d.name FROM live_queue q JOIN devices d ON d.id = q.device_id")).all()
        seats = conn.execute(sa.text(
            "SELECT s.table_id, s.kind, s.device_id FROM seats s JOIN tables t "
            "ON t.id = s.table_id WHERE t.public")).all()
    mine = [e for e in entries if e.name in names]
    waits = [(_dt(e.seated_at) - _dt(e.joined_at)).total_seconds() for e in mine
             if e.seated_at is not None]
    seen = [p.seen_seated - p.joined for p in people
            if p.seen_seated is not None and p.joined is not None]
    by_table: dict[str, list[float]] = defaultdict(list)
    for e in mine:
        if e.table_id:
            by_table[e.table_id].append(float(e.rating))
    spreads = [max(r) - min(r) for r in by_table.values()]
    per_device: dict[int, int] = defaultdict(int)
    for s in seats:
        if s.kind == "human" and s.device_id is not None:
            per_device[s.device_id] += 1
    twice = sum(1 for e in mine if per_device.get(e.device_id, 0) > 1)
    sizes = [len(r) for r in by_table.values()]
    return {
        "players": len(people), "seated": len(waits),
        "not_seated": len(people) - sum(1 for p in people if p.table_id),
        "seated_twice": twice,
        "errors": sum(len(p.errors) for p in people),
        "retried_503": sum(p.retries for p in people),
        "wait_p50_s": pct(waits, 50), "wait_p95_s": pct(waits, 95),
        "wait_max_s": round(max(waits), 3) if waits else None,
        "seen_p50_s": pct(seen, 50), "seen_p95_s": pct(seen, 95),
        "tables": len(by_table),
        "tables_of_four_people": sum(1 for n in sizes if n == 4),
        "tables_with_robots": sum(1 for n in sizes if n < 4),
        "people_with_robots": sum(n for n in sizes if n < 4),
        "spread_p50": pct(spreads, 50), "spread_p95": pct(spreads, 95),
        "spread_max": round(max(spreads), 1) if spreads else None,
        "spread_mean": round(statistics.fmean(spreads), 1) if spreads else None,
    }


def _dt(v: Any) -> Any:
    from datetime import datetime

    return v if isinstance(v, datetime) else datetime.fromisoformat(str(v))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=400)
    ap.add_argument("--arrival", type=float, default=10.0, help="seconds over which they arrive")
    ap.add_argument("--sd", type=float, default=200.0, help="the ratings' standard deviation")
    ap.add_argument("--db", choices=("postgresql", "sqlite"), default="postgresql")
    ap.add_argument("--web-workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=64)
    ap.add_argument("--seed", type=int, default=18)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    ratings = [round(rng.gauss(CENTRE, args.sd)) for _ in range(args.players)]
    tmp = Path(tempfile.mkdtemp(prefix="bench-live-"))
    schema = None
    if args.db == "sqlite":
        url = "sqlite:///" + str(tmp / "live.db")
    else:
        url, schema = new_pg_schema(PG_BASE)
    env = {"RATELIMIT_LIVE": "1000000 per minute", "RATELIMIT_CREATE": "1000000 per minute",
           "ROBOT_SWEEP": "1"}
    stack = Stack(url, tmp, web_workers=args.web_workers, threads=args.threads, env=env)
    engine = sa.create_engine(url)
    try:
        stack.start()
        cpu0 = stack.cpu()
        t0 = time.time()
        people = asyncio.run(run_people(stack.url, ratings, args.arrival, engine, args.seed))
        wall = time.time() - t0
        cpu1 = stack.cpu()
        out = figures(people, engine)
    finally:
        stack.stop()
        engine.dispose()
        if schema is not None:
            drop_pg_schema(PG_BASE, schema)
    out.update({"db": args.db, "arrival_s": args.arrival, "rating_sd": args.sd,
                "wall_s": round(wall, 1),
                "web_cpu_s": round(cpu1.get("web", 0) - cpu0.get("web", 0), 1),
                "scheduler_cpu_s": round(cpu1.get("scheduler", 0) - cpu0.get("scheduler", 0), 1)})
    errors = [e for p in people for e in p.errors][:5]
    if errors:
        print("errors (first 5):", *errors, sep="\n  ", flush=True)
    for k, v in out.items():
        print(f"{k:>24}: {v}")
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
