"""What a game action costs the web process in CPU, away from the load benchmark's noise.

Whole games at tables of four people are played through Flask's test client in this one process
(the same request path as a web worker's: routing, CSRF, the limiter, the action's transaction,
the answer), each player choosing a random legal action as ``bench/load.py``'s pages do
(``choose_action``). Only the action requests are measured, with the calling thread's CPU
clock (the test client runs the request in this thread; threads the app starts are not counted),
so the figure is the action path's own CPU, not the machine's queue. The players' choices
follow ``--seed``; the deals are the server's own draws (the fair deal), so two runs play
different games: back to back, the same code measured 1.95 and 2.20 ms a game action on SQLite,
and a change smaller than about a tenth needs several runs of each, interleaved, to show.

``--profile FILE`` writes a cProfile of the measured requests (``python -m pstats FILE``).

    make bench-action            # SQLite, then PostgreSQL (BENCH_DATABASE_URL's server)
    .venv/bin/python bench/action_cpu.py --db postgres --games 6 --profile /tmp/a.prof

The last line is JSON: by database, the actions by type with their CPU p50 and mean in ms, and the
mean of all. What it leaves out is the web worker's share of the rest of a change: the events sent
to the other pages, Redis, the gevent loop, gunicorn's HTTP (``make bench-load`` measures all of
it as web CPU a game action).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from load import choose_action  # noqa: E402  (bench/load.py, beside this file)


class _Page:
    """One player's browser: a cookie jar, a CSRF token, the last state it got."""

    def __init__(self, app: Any) -> None:
        self.client = app.test_client()
        self.csrf = self.client.get("/api/csrf").get_json()["csrf_token"]
        self.state: dict[str, Any] = {}

    def post(self, path: str, body: dict[str, Any]) -> Any:
        r = self.client.post(path, json=body, headers={"X-CSRFToken": self.csrf})
        if r.status_code not in (200, 201):
            raise RuntimeError(f"{path} {body.get('type')} -> {r.status_code} {r.get_json()}")
        return r.get_json()

    def refresh(self, tid: str) -> None:
        self.state = self.client.get(f"/api/tables/{tid}").get_json()["state"]


def _play_game(app: Any, rng: random.Random, costs: dict[str, list[float]],
               profiler: cProfile.Profile | None) -> None:
    pages = [_Page(app) for _ in range(4)]
    tid = pages[0].post("/api/tables", {"host_name": "Ana", "target": 50, "renege": "impedido",
                                        "deck": "reino", "robot_level": "normal"})["table_id"]
    for i, page in enumerate(pages[1:], 1):
        page.post(f"/api/tables/{tid}/actions",
                  {"type": "sit", "name": f"Jugador {i}", "action_id": uuid.uuid4().hex})
    pages[0].post(f"/api/tables/{tid}/actions", {"type": "start", "action_id": uuid.uuid4().hex})
    while True:
        for page in pages:
            page.refresh(tid)
        if pages[0].state["table"]["status"] == "finished":
            return
        moved = False
        for page in pages:
            body = choose_action(page.state, rng)
            if body is None:
                continue
            body["action_id"] = uuid.uuid4().hex
            path = f"/api/tables/{tid}/actions"
            if profiler is not None:
                profiler.enable()
            started = time.thread_time()
            answer = page.post(path, body)
            spent = time.thread_time() - started
            if profiler is not None:
                profiler.disable()
            costs.setdefault(body["type"], []).append(spent * 1000)
            page.state = answer["state"]
            moved = True
            break  # every other page's state may be out of date now
        if not moved:
            raise RuntimeError(f"nobody can act at {tid}")


def _app(url: str, instance: str) -> Any:
    """The app as a web worker runs it (CSRF, the limiter with limits no game reaches), on a
    migrated database, with no robot worker, scheduler or push sender in this process."""
    os.environ["CORAZONES_INSTANCE"] = instance
    os.environ["SCHEDULER"] = "off"
    from flask_migrate import upgrade

    from app import create_app

    app = create_app({
        "TESTING": True, "SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": secrets.token_hex(16),
        "ROBOT_WORKER": "off", "SCHEDULER": "off", "PUSH_SENDER": "off",
        "RATELIMIT_CREATE": "100000 per minute", "RATELIMIT_CHURN_DEVICE": "100000 per minute",
        "RATELIMIT_CHURN_TABLE": "100000 per minute", "MIGRATIONS_DIR": str(ROOT / "migrations"),
    })
    with app.app_context():
        upgrade(directory=str(ROOT / "migrations"))
    return app


def run(url: str, instance: str, games: int, seed: int, profile: str | None) -> dict[str, Any]:
    """Play ``games`` games on the database at ``url``; the CPU of their actions."""
    from tables.db import db

    app = _app(url, instance)
    rng = random.Random(seed)
    costs: dict[str, list[float]] = {}
    profiler = cProfile.Profile(time.thread_time) if profile else None
    try:
        for _ in range(games):
            _play_game(app, rng, costs, profiler)
    finally:
        with app.app_context():
            db.session.remove()
            db.engine.dispose()
    if profiler is not None and profile is not None:
        profiler.dump_stats(profile)
    every = [c for values in costs.values() for c in values]
    return {
        "actions": len(every), "cpu_ms_mean": round(statistics.fmean(every), 3),
        "cpu_ms_p50": round(statistics.median(every), 3),
        "by_type": {kind: {"n": len(v), "p50": round(statistics.median(v), 3),
                           "mean": round(statistics.fmean(v), 3)}
                    for kind, v in sorted(costs.items())},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pg", default=os.environ.get(
        "BENCH_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"),
        help="the PostgreSQL server (a fresh schema is made and dropped)")
    ap.add_argument("--profile", help="write a cProfile of the measured requests here "
                    "(one database: the last one run)")
    args = ap.parse_args()
    result: dict[str, Any] = {"games": args.games, "seed": args.seed,
                              "profiled": bool(args.profile)}
    with tempfile.TemporaryDirectory() as tmp:
        if args.db in ("sqlite", "both"):
            result["sqlite"] = run(f"sqlite:///{tmp}/bench.db", tmp, args.games, args.seed,
                                   args.profile)
        if args.db in ("postgres", "both"):
            from deploy.stack import drop_pg_schema, new_pg_schema

            url, schema = new_pg_schema(args.pg)
            try:
                result["postgresql"] = run(url, tmp, args.games, args.seed, args.profile)
            finally:
                drop_pg_schema(args.pg, schema)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
