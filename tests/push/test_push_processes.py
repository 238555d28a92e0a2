"""Exactly one push per turn with three web processes and the scheduler running; a reminder that
fell due while the scheduler was stopped is sent once after it starts (and not again after a
second restart)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tables.models import utcnow
from tests.kit import ROOT, HttpPlayer, wait_until
from tests.push.pushkit import PushService, Subscriber

ENV = {"PUSH_INSECURE_ENDPOINTS": "1", "PUSH_SWEEP": "0.3", "PUSH_BACKOFF": "0.5",
       "ROBOT_DELAY": "0"}


class Scheduler:
    """``flask --app app scheduler``: the one scheduler process."""

    def __init__(self, database_url: str, instance: Path) -> None:
        self.env = dict(os.environ)
        self.env.update(ENV)
        self.env.update({"DATABASE_URL": database_url, "CORAZONES_INSTANCE": str(instance),
                         "SCHEDULER": "off", "SECRET_KEY": "test-secret", "ROBOT_SWEEP": "0.5"})
        self.proc = subprocess.Popen([sys.executable, "-m", "flask", "--app", "app", "scheduler"],
                                     cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Roaming:
    """One person whose requests go to a different web process each time (shared cookies)."""

    def __init__(self, servers: list[Any]) -> None:
        self.servers = servers
        self.p = HttpPlayer(servers[0].url)
        self.n = 0

    def _next(self) -> None:
        self.n += 1
        self.p.base = self.servers[self.n % len(self.servers)].url

    def act(self, tid: str, kind: str, **fields: Any) -> Any:
        self._next()
        r = self.p.act(tid, kind, **fields)
        assert r.status_code == 200, (kind, r.status_code, r.text)
        return r.json()

    def post(self, path: str, body: Any) -> Any:
        self._next()
        r = self.p.post(path, body)
        assert r.status_code == 200, (path, r.status_code, r.text)
        return r.json()

    def get(self, path: str) -> Any:
        self._next()
        return self.p.s.get(self.p.base + path, timeout=10).json()


def _pushes(svc: PushService, sub: Subscriber) -> list[dict[str, Any]]:
    return [sub.decrypt(r) for r in svc.to(sub.path)]


@pytest.mark.db
@pytest.mark.slow
def test_one_push_per_turn_across_processes_and_reminder_after_restart(
        push_service: PushService, server_factory: Any, migrated: str,
        instance_dir: Path) -> None:
    servers = [server_factory(**ENV) for _ in range(3)]
    sched = Scheduler(migrated, instance_dir)
    scheds = [sched]
    try:
        ana, beto = Roaming(servers), Roaming(servers)
        r = ana.p.post("/api/tables", {"host_name": "Ana", "target": 50})
        assert r.status_code == 201
        tid = r.json()["table_id"]
        beto.act(tid, "sit", name="Beto")
        ana.act(tid, "add_robot", seat=2)
        ana.act(tid, "add_robot", seat=3)
        people = {0: ana, 1: beto}
        subs = {0: Subscriber(push_service, "ana"), 1: Subscriber(push_service, "beto")}
        for seat, person in people.items():
            person.post(f"/api/tables/{tid}/push", {"subscription": subs[seat].subscription()})
            person.post(f"/api/tables/{tid}/push/presence", {"visible": False})
        ana.act(tid, "start")

        expected: dict[int, list[str]] = {0: [], 1: ["g1:h1:pass"]}  # Ana started: not her
        push_service.wait_for(subs[1].path)  # Beto's «pasa tus cartas», before he passes
        for person in people.values():
            v = person.get(f"/api/tables/{tid}")["state"]["view"]
            person.act(tid, "confirm_pass", cards=v["hand"][:3])
        def observe() -> tuple[int, str]:
            """Wait until a person must play; check the push that turn deserves arrived."""
            def human_turn() -> dict[str, Any] | None:
                st = ana.get(f"/api/tables/{tid}")["state"]
                v = st["view"]
                return st if v["phase"] == "playing" and set(v["to_act"]) & set(people) else None

            st = wait_until(human_turn, 30)
            v = st["view"]
            seat = v["to_act"][0]
            key = f"g1:h1:play:{len(v['tricks'])}:{len(v['trick'])}"
            last = ana.get(f"/api/tables/{tid}?since={st['version'] - 1}")["log"][-1]
            if last.get("seat") != seat:  # someone else made it this seat's turn
                expected[seat].append(key)
                wait_until(lambda: key in [p["turn"] for p in _pushes(push_service, subs[seat])],
                           30)
            return seat, key

        for _ in range(10):
            seat, _key = observe()
            me = people[seat].get(f"/api/tables/{tid}")["state"]["view"]
            people[seat].act(tid, "play", card=me["legal"][0])
        seat, key = observe()  # it is this seat's turn now: the reminder's turn below
        time.sleep(1.0)  # a check that nothing more comes: several sweeps of every sender
        for s in people:
            got = [(p["turn"], p["kind"]) for p in _pushes(push_service, subs[s])]
            assert all(n == 1 for n in Counter(got).values()), got
            assert sorted(t for t, _ in got) == sorted(expected[s]), (s, got)
        assert len(expected[0]) + len(expected[1]) >= 4

        # Stop the scheduler and let the reminder of the current turn fall due meanwhile.
        sched.stop()
        engine = sa.create_engine(migrated)
        try:
            with engine.begin() as conn:
                n = conn.execute(sa.text(
                    "UPDATE push_turns SET remind_at = :t "
                    "WHERE table_id = :tid AND seat = :s AND turn_key = :k"),
                    {"t": utcnow() - timedelta(hours=1), "tid": tid, "s": seat, "k": key},
                ).rowcount
            assert n == 1
        finally:
            engine.dispose()
        time.sleep(1.0)  # a check that nothing comes: several sweeps of the web processes
        reminders = [p for p in _pushes(push_service, subs[seat]) if p["kind"] == "reminder"]
        assert reminders == []  # web processes never send reminders; the scheduler is down
        scheds.append(Scheduler(migrated, instance_dir))
        wait_until(lambda: [p for p in _pushes(push_service, subs[seat])
                            if p["kind"] == "reminder"], 30)
        scheds[-1].stop()
        scheds.append(Scheduler(migrated, instance_dir))  # a second restart sends nothing more
        time.sleep(4.0)  # a check that nothing more comes: the new scheduler's first sweeps
        mine = [p for p in _pushes(push_service, subs[seat]) if p["turn"] == key]
        assert [p["kind"] for p in mine] == (["turn", "reminder"] if key in expected[seat]
                                             else ["reminder"])
        assert json.dumps(mine[-1]).count("sigue siendo tu turno") == 1
    finally:
        for s in scheds:
            s.stop()
