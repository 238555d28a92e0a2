"""Mis mesas with 200 tables for one player: the server time of the page and of its API.

One player (one device) opens ``--tables`` tables (200 by default) through the HTTP API (Flask's
test client, the real app): three robots join each and the game starts at most of them, so they
spread over the four groups of Mis mesas: «Te toca» (the player must pass), playing (the player
has passed; the robots' passes wait: no robot worker runs), in the lobby, and finished (a quarter
of the started tables are marked finished in the database: playing 50 games out would only make
the set-up slow, and the page reads the same columns either way). Then ``GET /mis-mesas`` and
``GET /api/me/tables`` are timed ``--rounds`` times each, inside the process: server time, no
network. On SQLite (a fresh file) and on PostgreSQL (a fresh schema of ``--pg``, dropped after).

    make bench-mismesas       # or: nice -n 19 .venv/bin/python bench/mis_mesas.py

The last line printed is JSON: {"tables", "rounds", "target_ms", "sqlite": {...},
"postgresql": {...}}, each with p50/p95 server milliseconds of the page and of the API.
"""

from __future__ import annotations

import argparse
import json
import os
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

TARGET_MS = 100.0


def _app(url: str, instance: str) -> Any:
    os.environ["CORAZONES_INSTANCE"] = instance
    os.environ["SCHEDULER"] = "off"
    from flask_migrate import upgrade

    from app import create_app

    app = create_app({
        "TESTING": True, "SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": secrets.token_hex(16),
        "ROBOT_WORKER": "off", "SCHEDULER": "off", "PUSH_SENDER": "off",
        "RATELIMIT_ENABLED": False, "MIGRATIONS_DIR": str(ROOT / "migrations"),
    })
    with app.app_context():
        upgrade(directory=str(ROOT / "migrations"))
    return app


def _populate(app: Any, tables: int) -> Any:
    client = app.test_client()
    csrf = client.get("/api/csrf").get_json()["csrf_token"]

    def post(url: str, body: dict[str, Any]) -> Any:
        r = client.post(url, json=body, headers={"X-CSRFToken": csrf})
        assert r.status_code in (200, 201), (url, r.status_code, r.get_json())
        return r.get_json()

    def act(tid: str, kind: str, **fields: Any) -> Any:
        return post(f"/api/tables/{tid}/actions",
                    {"type": kind, "action_id": uuid.uuid4().hex, **fields})

    finished: list[str] = []
    for i in range(tables):
        tid = post("/api/tables", {"host_name": "Ana", "target": 50,
                                   "name": f"Mesa {i + 1}"})["table_id"]
        kind = i % 8
        if kind == 0:
            continue  # the lobby
        for seat in (1, 2, 3):
            act(tid, "add_robot", seat=seat)
        st = act(tid, "start")["state"]
        if kind in (1, 2):  # the player passed: playing, waiting for the robots
            act(tid, "confirm_pass", cards=st["view"]["hand"][:3])
        elif kind == 3:
            finished.append(tid)
    if finished:
        from sqlalchemy import update

        from tables.db import db
        from tables.models import Table

        with app.app_context():
            db.session.execute(update(Table).where(Table.id.in_(finished))
                               .values(status="finished"))
            db.session.commit()
    return client


def _time(client: Any, url: str, rounds: int) -> dict[str, float]:
    for _ in range(5):  # warm up: templates compiled, statements cached, pages in memory
        assert client.get(url).status_code == 200
    ms = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        r = client.get(url)
        ms.append((time.perf_counter() - t0) * 1000)
        assert r.status_code == 200
    ms.sort()
    return {"p50": round(statistics.median(ms), 2),
            "p95": round(ms[min(len(ms) - 1, int(len(ms) * 0.95))], 2),
            "max": round(ms[-1], 2)}


def run(url: str, instance: str, tables: int, rounds: int) -> dict[str, Any]:
    app = _app(url, instance)
    t0 = time.perf_counter()
    client = _populate(app, tables)
    setup = time.perf_counter() - t0
    counts = client.get("/api/me/tables").get_json()["counts"]
    assert sum(counts.values()) == tables, counts
    page = _time(client, "/mis-mesas", rounds)
    api = _time(client, "/api/me/tables", rounds)
    home = _time(client, "/", rounds)
    from tables.db import db

    with app.app_context():
        db.session.remove()
        db.engine.dispose()
    out = {"page_p50_ms": page["p50"], "page_p95_ms": page["p95"],
           "api_p50_ms": api["p50"], "api_p95_ms": api["p95"],
           "home_p50_ms": home["p50"], "home_p95_ms": home["p95"],
           "groups": counts, "setup_s": round(setup, 1)}
    out["under_target"] = max(page["p95"], api["p95"], home["p95"]) < TARGET_MS
    print(json.dumps({"db": url.split(":", 1)[0], **out}), file=sys.stderr)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--pg", default=os.environ.get(
        "BENCH_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"),
        help="PostgreSQL server ('' to skip)")
    args = ap.parse_args()
    result: dict[str, Any] = {"tables": args.tables, "rounds": args.rounds,
                              "target_ms": TARGET_MS}
    with tempfile.TemporaryDirectory() as tmp:
        result["sqlite"] = run(f"sqlite:///{tmp}/bench.db", tmp, args.tables, args.rounds)
        if args.pg:
            from deploy.stack import drop_pg_schema, new_pg_schema

            url, schema = new_pg_schema(args.pg)
            try:
                result["postgresql"] = run(url, tmp, args.tables, args.rounds)
            finally:
                drop_pg_schema(args.pg, schema)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
