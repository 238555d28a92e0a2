"""The load benchmark (`make bench-load`): many tables at once against the production stack.

For each mode (SQLite, then PostgreSQL) it starts the stack itself (deploy/stack.py: the Procfile's
gunicorn web workers, robot processes and one scheduler, each started on its own so that the
benchmark can count each part's CPU; Redis carries live updates and robot kicks), measures
the floor (a trivial endpoint's throughput on the same server), then drives ``--tables`` tables at
once with HTTP clients that behave like players' pages. The tables start at random moments within
``--ramp`` seconds (200 tables dealt in the same instant is no steady state), play ``--warmup``
seconds, and then ``--duration`` seconds are measured (the whole run's action p95 is reported
too):

- most tables have four humans: each seat's page follows its table on a stream of server-sent
  events, as a browser's EventSource does (``--channel poll``: the long-poll), and when the state
  says it is its turn it thinks (``--think`` seconds) and sends a legal action with its version
  and a fresh action id (a lost connection retries the same id); like the table page, it names
  itself on its stream and its actions, so its own changes do not come back (``--page-ids``);
- some tables have one human and three robots at Normal, some at Difícil;
- spectators follow some tables the same way (every answer and event is checked for hidden cards).

Reported per mode: actions per second (all applied game actions, from the log), a human action's
latency (p50/p95/p99, client side; and the server's own time from the access log), the time for a
change to reach the other pages of its table (p50/p95: the event or the waiting long-poll that
brought it, measured from the action's commit time in the log), the events the streams carried
per game action, errors, robot decisions per second and robot CPU seconds per hand, CPU and peak
memory of each part, and the audit of every hand from the log (bench/load_audit.py). The last
line printed is JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import multiprocessing as mp
import os
import random
import re
import statistics
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from load_audit import audit_database, privacy_audit  # noqa: E402

import robots  # noqa: E402
from deploy import budget  # noqa: E402
from deploy.stack import (  # noqa: E402
    Stack,
    cpu_seconds,
    drop_pg_schema,
    new_pg_schema,
)
from tables import patches  # noqa: E402
from tables.db import APPLICATION_NAME  # noqa: E402

PG_BASE = os.environ.get("BENCH_DATABASE_URL",
                         "postgresql+psycopg://postgres@127.0.0.1:5432/test")
CARD = re.compile(r"^(10|[2-9TJQKA])[CDHS]$")
HUMAN_KINDS = ("humans", "normal", "dificil")
#: What the JSON line keeps of the stress pace's runs.
STRESS_KEYS = ("actions_per_s", "human_actions_per_s", "action_p50_ms", "action_p95_ms",
               "action_p99_ms", "update_p50_ms", "update_p95_ms", "errors",
               "robot_decisions_per_s", "web_cpu_percent", "web_cpu_ms_per_action",
               "server_action_p95_ms", "floor_rps", "channel")
GAME_TYPES = ("confirm_pass", "play", "close_count", "rematch", "accuse")


def cards_in(obj: Any, out: set[str]) -> set[str]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(k, str) and CARD.match(k):
                out.add(k)
            cards_in(v, out)
    elif isinstance(obj, list):
        for v in obj:
            cards_in(v, out)
    elif isinstance(obj, str) and CARD.match(obj):
        out.add(obj)
    return out


def pct(values: list[float], p: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    k = min(len(values) - 1, max(0, int(round(p / 100 * len(values) + 0.5)) - 1))
    return round(values[k], 1)


# ---------------------------------------------------------------------- the clients


def choose_action(st: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """What a page's player does now, from the state it last saw (None: nothing to do): a random
    legal card, three random cards to pass, SIGUIENTE MANO from the lowest person's seat,
    ¡REVANCHA! at the end."""
    me = st.get("me", {}).get("seat")
    table = st.get("table", {})
    view = st.get("view")
    if me is None or view is None:
        return None
    if table.get("status") == "finished":
        return None if st["me"].get("wants_rematch") else {"type": "rematch"}
    phase = view["phase"]
    if phase == "passing" and not view["pass_confirmed"][me]:
        return {"type": "confirm_pass", "cards": rng.sample(view["hand"], 3)}
    if phase == "playing" and view.get("turn") == me and view.get("legal"):
        return {"type": "play", "card": rng.choice(view["legal"]), "version": st["version"]}
    if phase == "counting":
        humans = [s["seat"] for s in table["seats"] if s["kind"] == "human" and not s["left"]]
        if humans and me == min(humans):
            return {"type": "close_count", "version": st["version"]}
    return None


class Seat:
    """One page: its own cookie jar, the state it last saw."""

    def __init__(self, run: Run, tid: str, kind: str, session: Any) -> None:
        self.run = run
        self.tid = tid
        self.kind = kind
        self.s = session
        self.csrf = ""
        self.state: dict[str, Any] = {}
        self.seat: int | None = None
        self.start_delay = 0.0  # the table's place in the ramp (all its pages start together)
        self.changed = asyncio.Event()  # set by the stream when a newer state arrives
        # the page's own id, as a browser's page has: its stream leaves out its actions' changes
        self.page = uuid.uuid4().hex

    async def get_csrf(self) -> None:
        async with self.s.get(self.run.url + "/api/csrf") as r:
            self.csrf = (await r.json())["csrf_token"]

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        headers = {"X-CSRFToken": self.csrf}
        if self.run.names_pages():
            headers["X-Page-Id"] = self.page
        async with self.s.post(self.run.url + path, json=body, headers=headers) as r:
            return r.status, await r.json(content_type=None)

    async def act(self, body: dict[str, Any], measure: bool = True) -> tuple[int, Any]:
        """Send one action; a broken connection retries the same action id (idempotent)."""
        body = {"action_id": uuid.uuid4().hex, **body}
        for attempt in range(20):
            t0 = time.monotonic()
            try:
                status, data = await self.post(f"/api/tables/{self.tid}/actions", body)
            except (TimeoutError, OSError, self.run.aiohttp.ClientError):
                self.run.retries += 1
                await asyncio.sleep(min(0.2 * (attempt + 1), 2))
                continue
            ms = (time.monotonic() - t0) * 1000
            if status == 200:
                if measure:
                    self.run.latency[self.kind].append((time.time(), ms))
                    self.run.latency_by_type[body["type"]].append((time.time(), ms))
                self.run.acked.append((self.tid, body["action_id"], body["type"]))
                self.state = data["state"]
                self.run.responses.append((self, self.seat, data))
                self.seat = self.state["me"]["seat"]
            elif status == 409 and data.get("error") == "stale":
                self.run.stale += 1
                self.state = data.get("state") or self.state
            elif status == 503:  # the database is unreachable: the page retries the same id
                self.run.unavailable += 1
                await asyncio.sleep(min(0.2 * (attempt + 1), 2))
                continue
            else:
                self.run.error(f"{body['type']} -> {status} {data.get('error')}")
                if isinstance(data, dict) and data.get("state"):
                    self.state = data["state"]
            return status, data
        self.run.error(f"{body['type']}: no answer after 20 tries")
        return 0, None

    def scan(self, data: dict[str, Any], seat: int | None) -> None:
        """Keep the cards this viewer (at ``seat``) was shown at each version, for the privacy
        audit after the run (load_audit.privacy_audit); log entries: no deck, no other seat's pass
        cards. Called after the run on every response kept (not in the event loop while it
        measures)."""
        state = data.get("state") or {}
        view = state.get("view") or {}
        if seat is None:
            for key in ("hand", "legal", "passed", "received", "pass_selected"):
                if key in view:
                    self.run.error(f"spectator got view[{key!r}]")
        for entry in data.get("log", []):
            if "deck" in entry or (entry.get("type") in ("choose_pass", "confirm_pass")
                                   and entry.get("seat") != seat and entry.get("cards")):
                self.run.error(f"seat {seat} got a secret in a {entry.get('type')} entry")
        if view and "version" in state:
            shown = {k: v for k, v in state.items() if k != "view"}
            shown["view"] = {k: v for k, v in view.items() if k != "history"}
            self.run.seen.append((self.tid, seat, state["version"],
                                  " ".join(sorted(cards_in(shown, set())))))

    async def poll(self) -> None:
        since = self.state.get("version", 0)
        started = time.time()
        try:
            async with self.s.get(f"{self.run.url}/api/tables/{self.tid}/poll",
                                  params={"since": str(since)}) as r:
                status = r.status
                data = await r.json(content_type=None)
        except (TimeoutError, OSError, self.run.aiohttp.ClientError):
            if not self.run.stopping:
                self.run.retries += 1
                await asyncio.sleep(0.5)
            return
        got = time.time()
        if status == 503:
            self.run.unavailable += 1
            await asyncio.sleep(0.5)
            return
        if status != 200:
            self.run.error(f"poll -> {status}")
            await asyncio.sleep(0.5)
            return
        self.take(data, started, got)

    def take(self, data: dict[str, Any], started: float, got: float) -> None:
        """A state the server pushed or answered: keep it, note when each change arrived."""
        self.run.responses.append((self, self.seat, data))
        if "state" not in data:  # a long-poll's time-out: nothing new (only the version)
            return
        had = self.state.get("version", 0)
        if data["state"].get("version", 0) <= had:
            return
        self.state = data["state"]
        for entry in data.get("log", []):
            if entry["version"] > had:  # the page's own change came with its answer
                self.run.deliveries.append((self.tid, entry["version"], started, got))
        self.changed.set()

    async def stream_loop(self) -> None:
        """Follow the table on its server-sent event stream as a browser's EventSource does:
        reconnect after a drop with the last id (Last-Event-ID), never miss a version; after the
        first whole state, merge each patch into the state the stream delivered last."""
        run = self.run
        await asyncio.sleep(self.start_delay)
        last: str | None = None
        while not run.stopping:
            headers = {"Accept": "text/event-stream"}
            if last is not None:
                headers["Last-Event-ID"] = last
            started = time.time()
            try:
                async with self.s.get(
                        f"{run.url}/api/tables/{self.tid}/stream",
                        params={"since": str(self.state.get("version", 0)), "patch": "1",
                                "page": self.page},
                        headers=headers,
                        timeout=run.aiohttp.ClientTimeout(total=None, sock_read=60)) as r:
                    if r.status != 200:
                        if r.status == 503:
                            run.unavailable += 1
                        else:
                            run.error(f"stream -> {r.status}")
                        await asyncio.sleep(1.0)
                        continue
                    event, data_lines = "", list[str]()
                    streamed: dict[str, Any] | None = None  # what the next patch is made from
                    async for raw in r.content:
                        run.stream_bytes += len(raw)
                        line = raw.decode().rstrip("\r\n")
                        if line == "":
                            if event in ("state", "patch") and data_lines:
                                run.stream_events += 1
                            if event == "state" and data_lines:
                                data = json.loads("\n".join(data_lines))
                                streamed = data["state"]
                                self.take(data, started, time.time())
                            elif event == "patch" and data_lines:
                                data = json.loads("\n".join(data_lines))
                                if streamed is None or streamed["version"] != data["base"]:
                                    run.error(f"patch on {data['base']}, stream at "
                                              f"{streamed and streamed['version']}")
                                    break
                                streamed = patches.apply(streamed, data["patch"])
                                self.take({"state": streamed, "log": data["log"]}, started,
                                          time.time())
                            event, data_lines = "", []
                        elif line.startswith("event:"):
                            event = line[6:].strip()
                        elif line.startswith("data:"):
                            data_lines.append(line[5:].lstrip(" "))
                        elif line.startswith("id:"):
                            last = line[3:].strip()
                        if run.stopping:
                            return
            except (TimeoutError, OSError, run.aiohttp.ClientError, asyncio.IncompleteReadError):
                if not run.stopping:
                    run.retries += 1
            await asyncio.sleep(1.0)  # the EventSource's retry

    async def wait_change(self) -> None:
        if self.run.channel == "poll":
            await self.poll()
            return
        self.changed.clear()
        try:
            await asyncio.wait_for(self.changed.wait(), 30)
        except TimeoutError:
            pass

    def my_action(self) -> dict[str, Any] | None:
        return choose_action(self.state, self.run.rng)

    async def play_loop(self) -> None:
        run = self.run
        await asyncio.sleep(self.start_delay)
        while not run.stopping:
            action = self.my_action()
            if action is None:
                await self.wait_change()
                continue
            lo, hi = run.think
            await asyncio.sleep(run.rng.uniform(lo, hi))
            if run.stopping:
                return
            await self.act(action)

    async def watch_loop(self) -> None:
        await asyncio.sleep(self.start_delay)
        while not self.run.stopping:
            await self.wait_change()


class Run:
    def __init__(self, url: str, think: tuple[float, float], seed: int,
                 channel: str = "stream", page_ids: str = "on") -> None:
        import aiohttp

        self.aiohttp = aiohttp
        #: How pages hear of changes: "stream" (server-sent events) or "poll" (the long-poll).
        self.channel = channel
        #: Whether the pages' actions name their page (X-Page-Id), so that their streams leave
        #: out their own changes: "on", "off", or "toggle:<seconds>" (on in every other block
        #: of that many seconds of the clock, the same blocks in every client process).
        self.page_ids = page_ids
        self.url = url
        self.think = think
        self.rng = random.Random(seed)
        self.stopping = False
        self.latency: dict[str, list[tuple[float, float]]] = defaultdict(list)
        #: The same measurements by the action's type (play, confirm_pass, close_count...).
        self.latency_by_type: dict[str, list[tuple[float, float]]] = defaultdict(list)
        self.deliveries: list[tuple[str, int, float, float]] = []
        self.acked: list[tuple[str, str, str]] = []
        self.seen: list[tuple[str, int | None, int, str]] = []
        #: Every response (page, its seat then, body), scanned after the run.
        self.responses: list[tuple[Seat, int | None, dict[str, Any]]] = []
        self.errors: list[str] = []
        self.stale = 0
        self.retries = 0
        self.unavailable = 0
        self.stream_bytes = 0  # every byte the pages' streams brought, and their states and patches
        self.stream_events = 0
        self.tables: dict[str, str] = {}

    def error(self, what: str) -> None:
        self.errors.append(what)

    def names_pages(self) -> bool:
        if self.page_ids.startswith("toggle:"):
            return page_block_on(time.time(), float(self.page_ids[7:]))
        return self.page_ids == "on"

    async def new_table(self, kind: str, spectator: bool, connector: Any) -> list[Seat]:
        def seat() -> Seat:
            session = self.aiohttp.ClientSession(
                connector=connector, connector_owner=False,
                cookie_jar=self.aiohttp.CookieJar(unsafe=True),
                timeout=self.aiohttp.ClientTimeout(total=60))
            return Seat(self, "", kind, session)

        host = seat()
        await host.get_csrf()
        level = "normal" if kind == "humans" else kind
        status, data = await host.post("/api/tables", {
            "host_name": "Ana", "target": 50, "renege": "impedido", "robot_level": level})
        if status != 201:
            raise RuntimeError(f"create -> {status} {data}")
        tid = data["table_id"]
        host.tid, host.state, host.seat = tid, data["state"], 0
        seats = [host]
        if kind == "humans":
            for i in range(1, 4):
                p = seat()
                p.tid = tid
                await p.get_csrf()
                status, data = await p.act({"type": "sit", "name": f"Jugador {i}"},
                                           measure=False)
                p.seat = i
                seats.append(p)
        else:
            for i in range(1, 4):
                await host.act({"type": "add_robot", "seat": i}, measure=False)
        await host.act({"type": "start"}, measure=False)
        if spectator:
            w = seat()
            w.tid = tid
            w.kind = "spectator"
            seats.append(w)
        for s in seats:
            if s.kind != "spectator":
                async with s.s.get(f"{self.url}/api/tables/{tid}") as r:
                    if r.status != 200 or r.content_type != "application/json":
                        raise RuntimeError(f"state -> {r.status} {r.content_type} "
                                           f"{(await r.text())[:120]}")
                    s.state = (await r.json())["state"]
                    s.seat = s.state["me"]["seat"]
        self.tables[tid] = kind
        return seats


def page_block_on(at: float, block: float) -> bool:
    """``--page-ids toggle``: whether the block of the clock holding ``at`` names the pages."""
    return int(at // block) % 2 == 0


async def _clients(url: str, specs: list[tuple[str, bool]], duration: float,
                   think: tuple[float, float], seed: int, barrier: Any = None,
                   ramp: float = 0.0, channel: str = "stream",
                   page_ids: str = "on") -> dict[str, Any]:
    import aiohttp

    run = Run(url, think, seed, channel, page_ids)
    connector = aiohttp.TCPConnector(limit=0, force_close=False, keepalive_timeout=60)
    all_seats: list[Seat] = []
    sem = asyncio.Semaphore(8)

    async def make(spec: tuple[str, bool]) -> None:
        async with sem:
            try:
                seats = await run.new_table(spec[0], spec[1], connector)
                delay = run.rng.uniform(0, ramp)
                for s in seats:
                    s.start_delay = delay
                all_seats.extend(seats)
            except Exception as err:
                run.error(f"table set-up failed: {err!r}"[:200])

    await asyncio.gather(*(make(s) for s in specs))
    if barrier is not None:  # every client process starts playing at the same moment
        await asyncio.get_running_loop().run_in_executor(None, barrier.wait)
    # No garbage collection while measuring: with every response kept, the collector paused a
    # client process up to 177 ms at a time, and every page it drives waited (measured as the
    # server's latency). A few minutes' cycles are collected after the run.
    gc.collect()
    gc.freeze()
    gc.disable()
    start_wall = time.time()
    tasks = [asyncio.create_task(s.watch_loop() if s.kind == "spectator" else s.play_loop())
             for s in all_seats]
    if run.channel == "stream":
        tasks += [asyncio.create_task(s.stream_loop()) for s in all_seats]
    await asyncio.sleep(duration)
    run.stopping = True
    end_wall = time.time()
    # No table could be set up (its errors are in the run's report): nothing to wait for.
    pending = (await asyncio.wait(tasks, timeout=8))[1] if tasks else set()
    for t in pending:
        t.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    for s in all_seats:
        await s.s.close()
    await connector.close()
    gc.enable()
    for page, seat, data in run.responses:
        page.scan(data, seat)
    run.responses.clear()
    return {"latency": run.latency, "latency_by_type": run.latency_by_type,
            "deliveries": run.deliveries, "acked": run.acked,
            "errors": run.errors, "stale": run.stale, "retries": run.retries,
            "stream_bytes": run.stream_bytes, "stream_events": run.stream_events,
            "unavailable": run.unavailable, "seen": run.seen,
            "tables": run.tables, "start": start_wall, "end": end_wall,
            "seats": len(all_seats)}


def _client_process(url: str, specs: list[tuple[str, bool]], duration: float,
                    think: tuple[float, float], seed: int, out: Any, barrier: Any,
                    ramp: float, channel: str, page_ids: str) -> None:
    try:
        cpu = time.process_time()
        result = asyncio.run(_clients(url, specs, duration, think, seed, barrier, ramp, channel,
                                      page_ids))
        result["cpu_s"] = time.process_time() - cpu  # the bench's clients' own share of the cores
        out.put(result)
    except BaseException as err:  # the parent must hear of it, not wait forever
        out.put({"fatal": repr(err)})
        raise


async def _floor(url: str, seconds: float, concurrency: int) -> float:
    import aiohttp

    count = 0
    end = time.monotonic() + seconds
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as s:
        async with s.get(url + "/api/csrf") as r:
            await r.read()

        async def worker() -> None:
            nonlocal count
            while time.monotonic() < end:
                async with s.get(url + "/api/csrf") as r:
                    await r.read()
                    if r.status == 200:
                        count += 1

        t0 = time.monotonic()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return count / (time.monotonic() - t0)


# ---------------------------------------------------------------------- open pages


async def _open_pages(url: str, pages: int, per_table: int, change_every: float, seed: int,
                      opened: Any, stop: Any) -> dict[str, Any]:
    """``pages`` streams held open on ``pages / per_table`` quiet tables (a lobby each, its host
    writing in the chat now and then: each table changes every ``change_every`` s on average).
    Returns when ``stop`` is set: each change's version and when each page received it."""
    import aiohttp

    rng = random.Random(seed)
    n_tables = max(1, pages // per_table)
    connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=60)
    host = aiohttp.ClientSession(connector=connector, connector_owner=False,
                                 cookie_jar=aiohttp.CookieJar(unsafe=True))
    viewers = aiohttp.ClientSession(connector=connector, connector_owner=False,
                                    cookie_jar=aiohttp.DummyCookieJar(),
                                    timeout=aiohttp.ClientTimeout(total=None, sock_read=90))
    async with host.get(url + "/api/csrf") as r:
        csrf = (await r.json())["csrf_token"]
    hdr = {"X-CSRFToken": csrf}
    tables: list[tuple[str, int]] = []
    errors: list[str] = []
    sem = asyncio.Semaphore(16)

    async def create() -> None:
        async with sem:
            async with host.post(url + "/api/tables", headers=hdr, json={
                    "host_name": "Ana", "target": 50, "renege": "impedido"}) as r:
                data = await r.json(content_type=None)
                if r.status == 201:
                    tables.append((data["table_id"], data["state"]["version"]))
                else:
                    errors.append(f"create -> {r.status}")

    await asyncio.gather(*(create() for _ in range(n_tables)))
    received: list[tuple[str, int, int, float]] = []  # table, page, event id, when
    hello = 0
    reconnects = 0
    all_open = asyncio.Event()
    closing = False

    async def view(tid: str, page: int, since: int) -> None:
        nonlocal hello, reconnects
        last: str | None = None
        first = True
        while not closing:
            headers = {"Last-Event-ID": last} if last else {}
            try:
                async with viewers.get(f"{url}/api/tables/{tid}/stream",
                                       params={"since": str(since)}, headers=headers) as r:
                    if r.status != 200:
                        errors.append(f"stream -> {r.status}")
                        await asyncio.sleep(1.0)
                        continue
                    event = ""
                    async for raw in r.content:
                        line = raw.decode().rstrip("\r\n")
                        if line.startswith("event:"):
                            event = line[6:].strip()
                        elif line.startswith("id:"):
                            last = line[3:].strip()
                        elif line == "":
                            if event == "hello" and first:
                                first = False
                                hello += 1
                                if hello == len(tables) * per_table:
                                    all_open.set()
                            elif event == "state" and last is not None:
                                received.append((tid, page, int(last), time.time()))
                            event = ""
            except (TimeoutError, OSError, aiohttp.ClientError, asyncio.IncompleteReadError):
                pass
            if not closing:
                reconnects += 1
                await asyncio.sleep(1.0)

    tasks = []
    for tid, version in tables:
        for page in range(per_table):
            tasks.append(asyncio.create_task(view(tid, page, version)))
            if len(tasks) % 100 == 0:
                await asyncio.sleep(0.05)  # the listen backlog: a few hundred at a time
    await asyncio.wait_for(all_open.wait(), 300)
    # No garbage collection while the changes are heard, as in the clients (_clients): holding
    # 5,000 streams, this process's full collections paused it 0.3-1.5 s, and every event it
    # read meanwhile counted as a page hearing its change late.
    gc.collect()
    gc.freeze()
    gc.disable()
    await asyncio.get_running_loop().run_in_executor(None, opened.set)
    changes: list[tuple[str, int, float]] = []  # table, the chat's version, when sent
    loop = asyncio.get_running_loop()
    while not await loop.run_in_executor(None, stop.wait, 0):
        tid = rng.choice(tables)[0]
        t0 = time.time()
        async with host.post(f"{url}/api/tables/{tid}/actions", headers=hdr, json={
                "type": "chat", "text": "¿Siguen ahí?", "action_id": uuid.uuid4().hex}) as r:
            data = await r.json(content_type=None)
            if r.status == 200:
                changes.append((tid, int(data["state"]["version"]), t0))
            else:
                errors.append(f"chat -> {r.status}")
        await asyncio.sleep(rng.expovariate(n_tables / change_every))
    await asyncio.sleep(3.0)  # the last changes reach their pages
    gc.enable()
    closing = True
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await host.close()
    await viewers.close()
    await connector.close()
    return {"tables": [t for t, _ in tables], "per_table": per_table, "received": received,
            "changes": changes, "opened": hello, "reconnects": reconnects, "errors": errors}


def _open_pages_process(url: str, pages: int, per_table: int, change_every: float, seed: int,
                        out: Any, opened: Any, stop: Any) -> None:
    try:
        out.put(asyncio.run(_open_pages(url, pages, per_table, change_every, seed, opened, stop)))
    except BaseException as err:
        out.put({"fatal": repr(err)})
        opened.set()
        raise


#: The process names (``/proc/<pid>/comm``) of the services the stack uses, which share the cores
#: with it: PostgreSQL's server and backends, Redis.
SERVICE_COMMS = {"postgres": "postgres", "redis-server": "redis"}


def _service_cpu() -> dict[int, tuple[str, float]]:
    """Every service process's name (a ``SERVICE_COMMS`` value) and CPU seconds so far."""
    out: dict[int, tuple[str, float]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/comm") as f:
                name = SERVICE_COMMS.get(f.read().strip())
        except OSError:
            continue
        if name is not None:
            out[int(entry)] = (name, cpu_seconds(int(entry)))
    return out


def _machine_jiffies() -> list[int]:
    """The whole machine's CPU time so far, from ``/proc/stat``: user, nice, system, idle, iowait,
    irq, softirq, steal (ticks, every core)."""
    with open("/proc/stat") as f:
        return [int(x) for x in f.readline().split()[1:9]]


class MachineCpu:
    """What the machine's cores did over a window: the share busy, idle and stolen by the
    hypervisor (a virtual machine's neighbours), and the CPU seconds of PostgreSQL's and Redis's
    processes, which serve the stack from the same cores (a process started within the window
    counts from zero; one that ended within it is left out)."""

    def __init__(self) -> None:
        self.jiffies = _machine_jiffies()
        self.services = _service_cpu()

    def since(self) -> dict[str, float]:
        now = [b - a for a, b in zip(self.jiffies, _machine_jiffies(), strict=True)]
        total = max(1, sum(now))
        user, nice, system, idle, iowait, irq, softirq, steal = now
        out = {"busy_percent": round(100 * (user + nice + system + irq + softirq) / total, 1),
               "idle_percent": round(100 * (idle + iowait) / total, 1),
               "steal_percent": round(100 * steal / total, 1)}
        for name in SERVICE_COMMS.values():
            out[f"{name}_cpu_s"] = 0.0
        for pid, (name, seconds) in _service_cpu().items():
            before = self.services.get(pid)
            out[f"{name}_cpu_s"] += seconds - (before[1] if before is not None else 0.0)
        for name in SERVICE_COMMS.values():
            out[f"{name}_cpu_s"] = round(out[f"{name}_cpu_s"], 1)
        return out


#: Ten million additions at a module's level (its names global), as the runs' notes measured
#: them with ``python3 -c`` (in a function, with local names, the same loop takes half as long).
_LOOP = compile("total = 0\nfor i in range(10_000_000):\n    total += i\n", "<loop>", "exec")


def machine_loop_s() -> float:
    """The CPU seconds a plain Python loop of ten million additions takes here, the least of
    three: how fast this machine is at the moment (0.46-0.48 s on the fastest one measured, about
    1 s on one at half speed; docs/RELIABILITY.md, «Capacity at a glance»)."""
    best = math.inf
    for _ in range(3):
        start = time.process_time()
        exec(_LOOP, {})  # a fresh module namespace: the names are global there
        best = min(best, time.process_time() - start)
    return round(best, 3)


def _rss_mb(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) / 1024
        except OSError:
            pass
    return total


def _open_pages_report(result: dict[str, Any], commits: dict[tuple[str, int], float],
                       rss_before: float, rss_after: float) -> dict[str, Any]:
    """Each chat on a quiet table: did every page of that table hear it, and how soon after its
    commit (from the log). A page hears a change with the first event whose id (the table's
    version) is at or above the chat's version: one event may carry several changes."""
    events: dict[tuple[str, int], list[tuple[int, float]]] = defaultdict(list)
    for tid, page, version, at in result["received"]:
        events[(tid, page)].append((version, at))
    delays: list[float] = []
    expected = missing = 0
    slowest: dict[str, Any] | None = None  # the change with the latest page, every page's delay
    late_changes = 0
    for tid, version, sent in result["changes"]:
        committed = commits.get((tid, version), sent)
        pages_ms: list[float] = []
        for page in range(result["per_table"]):
            expected += 1
            heard = [at for v, at in events.get((tid, page), []) if v >= version]
            if heard:
                pages_ms.append((min(heard) - committed) * 1000)
            else:
                missing += 1
        delays.extend(pages_ms)
        late_changes += any(d > 1000 for d in pages_ms)
        if pages_ms and (slowest is None or max(pages_ms) > slowest["max_ms"]):
            slowest = {"max_ms": round(max(pages_ms), 1), "version": version,
                       "committed_at": round(committed, 3),
                       "sent_to_commit_ms": round((committed - sent) * 1000, 1),
                       "pages_ms": sorted(round(d, 1) for d in pages_ms)}
    quiet = set(result["tables"])
    pages = result["opened"]
    return {"open_pages": pages, "quiet_tables": len(quiet), "changes": len(result["changes"]),
            "deliveries_expected": expected, "deliveries_missing": missing,
            "delivery_p50_ms": pct(delays, 50), "delivery_p95_ms": pct(delays, 95),
            "delivery_max_ms": round(max(delays), 1) if delays else None,
            "within_1s_percent": round(100 * sum(d <= 1000 for d in delays) / len(delays), 2)
            if delays else None,
            "changes_heard_late": late_changes, "slowest_change": slowest,
            "reconnects": result["reconnects"], "errors": len(result["errors"]),
            "error_samples": sorted(set(result["errors"]))[:5],
            "web_rss_mb_before": round(rss_before, 1), "web_rss_mb_open": round(rss_after, 1),
            "memory_kb_per_open_page": round(1024 * (rss_after - rss_before) / pages, 1)
            if pages else None}


# ---------------------------------------------------------------------- one mode


def _by_type(results: list[dict[str, Any]], start: float, end: float) -> dict[str, list[Any]]:
    """The window's human actions by type: [count, p50, p95] (ms)."""
    by: dict[str, list[float]] = defaultdict(list)
    for r in results:
        for kind, rows in r["latency_by_type"].items():
            by[kind].extend(ms for at, ms in rows if start <= at <= end)
    return {k: [len(v), pct(v, 50), pct(v, 95)] for k, v in sorted(by.items())}


def table_specs(n: int, robots_share: float, spectator_share: float) -> list[tuple[str, bool]]:
    k = int(round(n * robots_share / 2))
    kinds = ["normal"] * k + ["dificil"] * k + ["humans"] * (n - 2 * k)
    every = max(1, int(round(1 / spectator_share))) if spectator_share > 0 else 0
    return [(kind, bool(every) and i % every == 0) for i, kind in enumerate(kinds)]


def _log_rows(url: str, start: float, end: float, began: float) -> dict[str, Any]:
    """From the log: commit times of versions, applied actions in the window, robot work (also
    over the whole run from ``began``, the interval the CPU times cover)."""
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    commits: dict[tuple[str, int], float] = {}
    plays: list[tuple[str, int, float, str]] = []  # robots' cards in the window
    by_level = {"normal": 0, "dificil": 0}
    counts: dict[str, Any] = {"actions": 0, "robot_decisions": 0, "robot_hands": 0,
                              "robot_decisions_by_level": by_level,
                              "run_robot_decisions": 0, "run_robot_hands": 0, "run_actions": 0}
    try:
        with engine.connect() as conn:
            robot_seats = {(r.table_id, r.seat) for r in conn.execute(sa.text(
                "SELECT table_id, seat FROM seats WHERE kind = 'robot'"))}
            levels: dict[str, str] = dict(conn.execute(sa.text(
                "SELECT id, robot_level FROM tables")).all())
            for r in conn.execute(sa.text("SELECT table_id, version, type, seat, at FROM actions")):
                at = r.at if isinstance(r.at, datetime) else datetime.fromisoformat(str(r.at))
                ts = at.replace(tzinfo=UTC).timestamp()
                commits[(r.table_id, r.version)] = ts
                robot_table = any((r.table_id, s) in robot_seats for s in range(4))
                if began <= ts <= end and r.type in GAME_TYPES:
                    counts["run_actions"] += 1
                if began <= ts <= end and robot_table:
                    if (r.table_id, r.seat) in robot_seats and r.type in ("confirm_pass", "play"):
                        counts["run_robot_decisions"] += 1
                    if r.type == "close_count":
                        counts["run_robot_hands"] += 1
                if not start <= ts <= end:
                    continue
                if r.type in GAME_TYPES:
                    counts["actions"] += 1
                if (r.table_id, r.seat) in robot_seats and r.type in ("confirm_pass", "play"):
                    counts["robot_decisions"] += 1
                    lv = levels.get(r.table_id, "normal")
                    counts["robot_decisions_by_level"][lv] = \
                        counts["robot_decisions_by_level"].get(lv, 0) + 1
                    if r.type == "play":
                        plays.append((r.table_id, r.version, ts, lv))
                if r.type == "close_count" and robot_table:
                    counts["robot_hands"] += 1
    finally:
        engine.dispose()
    # A robot's card is timed from the version before it: the change that gave it the turn, or a
    # later one (a chat line) that came between, which only shortens the figure.
    moves = [(ts, (ts - commits[(tid, version - 1)]) * 1000, level)
             for tid, version, ts, level in plays if (tid, version - 1) in commits]
    return {"commits": commits, "robot_moves": moves, **counts}


#: An access log line (gunicorn.conf.py's format): when the answer was logged, method and path,
#: status, microseconds.
_ACCESS_LINE = re.compile(r'\[([^\]]+)\] "(\w+) (\S+) [^"]*" (\d{3}) \S+ (\d+)$')


def _access_log(path: Path, start: float, end: float) -> dict[str, Any]:
    """Server-side time of each action request answered within the measured window (gunicorn
    ``%(D)s``; the log's stamp has whole seconds), and 5xx answers over the whole run."""
    times: list[float] = []
    server_errors = 0
    if not path.exists():
        return {"server_action_p50_ms": None, "server_action_p95_ms": None, "server_5xx": 0}
    for line in path.read_text(errors="replace").splitlines():
        m = _ACCESS_LINE.search(line)
        if not m:
            continue
        stamp, method, target = m.group(1), m.group(2), m.group(3)
        status, micros = int(m.group(4)), int(m.group(5))
        if status >= 500:
            server_errors += 1
        if method == "POST" and target.endswith("/actions") and status == 200:
            at = datetime.strptime(stamp, "%d/%b/%Y:%H:%M:%S %z").timestamp()
            if int(start) <= at <= end:
                times.append(micros / 1000)
    return {"server_action_p50_ms": pct(times, 50), "server_action_p95_ms": pct(times, 95),
            "server_5xx": server_errors}


class ConnectionSampler:
    """PostgreSQL connections while the run goes: the server's client backends (every process
    of every machine, the bench's own reads included) and each machine's processes' own
    connections, sampled every 0.25 s; the peaks are reported beside the budget
    (deploy/budget.py). (Reading the kernel's socket table for each process instead cost this
    process a third of a core with 730 pages, and more with 5,000 open ones.)"""

    def __init__(self, stacks: list[Stack]) -> None:
        import threading

        import psycopg

        self.stacks = stacks
        self.peak_server = 0
        self.peak_machines = [0] * len(stacks)
        self.peak_process = {"web": 0, "robots": 0, "scheduler": 0}
        self._stop = threading.Event()
        self._conn = psycopg.connect(PG_BASE.replace("postgresql+psycopg", "postgresql"),
                                     autocommit=True)
        row = self._conn.execute("SHOW max_connections").fetchone()
        self.max_connections = int(row[0]) if row else 0
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from deploy.stack import proc_children

        # Each connection names its process (tables/db.py: application_name "corazones <pid>"):
        # one query counts them all. The processes of each part are looked up again every 5 s.
        parts: list[dict[str, list[list[int]]]] = []
        parts_at = 0.0
        while not self._stop.wait(0.25):
            if time.monotonic() - parts_at > 5.0:
                parts = [{"web": [[p] for p in (proc_children(st.web.pid) if st.web else [])],
                          "robots": [[r.pid, *proc_children(r.pid)] for r in st.robots],
                          "scheduler": [[st.sched.pid]] if st.sched else []}
                         for st in self.stacks]
                parts_at = time.monotonic()
            rows = self._conn.execute(
                "SELECT application_name, count(*) FROM pg_stat_activity "
                "WHERE backend_type = 'client backend' GROUP BY 1").fetchall()
            self.peak_server = max(self.peak_server, sum(int(n) for _, n in rows))
            by_pid = {int(name.split()[1]): int(n) for name, n in rows
                      if name.startswith(APPLICATION_NAME + " ")}
            for i, machine in enumerate(parts):
                on_machine = 0
                for kind, groups in machine.items():
                    for pids in groups:
                        held = sum(by_pid.get(p, 0) for p in pids)
                        self.peak_process[kind] = max(self.peak_process[kind], held)
                        on_machine += held
                self.peak_machines[i] = max(self.peak_machines[i], on_machine)

    def report(self) -> dict[str, Any]:
        self._stop.set()
        self._thread.join(timeout=5)
        self._conn.close()
        machines = [budget.Machine(scheduler=st.sched is not None or i == 0)
                    for i, st in enumerate(self.stacks)]
        return {"machines": len(self.stacks), "max_connections": self.max_connections,
                "peak_server_connections": self.peak_server,
                "peak_per_machine": self.peak_machines,
                "peak_per_process": self.peak_process,
                "budget_per_machine": [m.connections() for m in machines],
                "budget_per_process": {k: budget.process_connections(k) for k in budget.POOLS},
                "needed_with_restart": budget.needed(machines),
                "fits": self.peak_server <= self.max_connections - budget.PG_RESERVED
                and all(p <= m.connections() for p, m in zip(self.peak_machines, machines,
                                                               strict=True))}


def run_mode(mode: str, args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix=f"corazones-load-{mode}-"))
    schema = None
    if mode == "sqlite":
        url = "sqlite:///" + str(tmp / "load.db")
    else:
        url, schema = new_pg_schema(PG_BASE)
    env = {"RATELIMIT_CREATE": "1000000 per minute", "RATELIMIT_CHAT": "1000000 per minute",
           "RATELIMIT_CHURN_DEVICE": "1000000 per minute",
           "RATELIMIT_CHURN_TABLE": "1000000 per minute",
           "POLL_TIMEOUT": "25", "POLL_RECHECK": str(args.recheck),
           "ROBOT_SWEEP": "1", "GUNICORN_ACCESSLOG": str(tmp / "access.log")}
    if mode == "sqlite":
        # One search process on SQLite (the Procfile's two are PostgreSQL's): every process
        # shares SQLite's one writer, and with two people's actions waited p95 156-303 ms
        # against 92 with one (docs/RELIABILITY_RUNS.md, run Y).
        env["ROBOT_SEARCH_PROCS"] = os.environ.get("ROBOT_SEARCH_PROCS", "1")
    if mode == "sqlite" and args.sqlite_shape == "single":
        # SQLite's shape: one process holds the one writer (robots and scheduler in threads), so
        # every writer queues on the process's lock instead of SQLite's sleeping busy handler.
        env.update({"ROBOT_WORKER": "thread", "SCHEDULER": "inprocess",
                    "ROBOT_NICE": os.environ.get("ROBOT_NICE", "10")})
        stack = Stack(url, tmp, web_workers=1, threads=args.threads * args.web_workers,
                      robot_procs=0, robot_threads=args.robot_threads, scheduler=False, env=env)
    else:
        stack = Stack(url, tmp, web_workers=args.web_workers, threads=args.threads,
                      robot_procs=args.robot_procs, robot_threads=args.robot_threads, env=env)
    second: Stack | None = None
    sampler: ConnectionSampler | None = None
    try:
        stack.start()
        if mode == "postgres" and args.second_machine:
            # A second machine's worth of processes (2 web workers and a robot process; the
            # deployment's one scheduler runs on the first) on the same database; the quiet
            # pages, if any, are served by it.
            second = Stack(url, tmp / "second", web_workers=args.web_workers, threads=args.threads,
                           robot_procs=args.robot_procs, robot_threads=args.robot_threads,
                           scheduler=False, env=env)
            second.start()
        if mode == "postgres":
            sampler = ConnectionSampler([stack] + ([second] if second else []))
        floor = asyncio.run(_floor(stack.url, args.floor_seconds, 16))
        print(f"[{mode}] floor: {floor:.0f} requests/s on GET /api/csrf", flush=True)
        specs = table_specs(args.tables, args.robots_share, args.spectator_share)
        parts = [specs[i::args.clients] for i in range(args.clients)]
        ctx = mp.get_context("fork")
        queue: Any = ctx.Queue()
        open_proc = None
        if args.open_pages:
            # The quiet pages open first, so the web processes' memory before and after tells
            # what an open page costs; they stay open while the tables below play.
            open_queue: Any = ctx.Queue()
            opened, stop_open = ctx.Event(), ctx.Event()
            quiet = second or stack
            rss_before = _rss_mb(quiet.web_pids())
            open_proc = ctx.Process(target=_open_pages_process, args=(
                quiet.url, args.open_pages, args.pages_per_table, args.quiet_every,
                args.seed + 100, open_queue, opened, stop_open))
            open_proc.start()
            opened.wait(timeout=600)
            time.sleep(2.0)
            rss_open = _rss_mb(quiet.web_pids())
            print(f"[{mode}] {args.open_pages} quiet pages open: web RSS {rss_before:.0f} -> "
                  f"{rss_open:.0f} MB", flush=True)
        parts = [part for part in parts if part]
        barrier = ctx.Barrier(len(parts))
        procs = [ctx.Process(
            target=_client_process,
            args=(stack.url, part, args.warmup + args.duration,
                  (args.think_min, args.think_max), args.seed + i, queue, barrier, args.ramp,
                  args.channel, args.page_ids))
            for i, part in enumerate(parts)]
        cpu0 = stack.cpu()
        machine = MachineCpu()
        bench_cpu0 = time.process_time()  # this process: the connection sampler, mostly
        open_cpu0 = cpu_seconds(open_proc.pid or 0) if open_proc is not None else 0.0
        t0 = time.time()
        for p in procs:
            p.start()
        results = [queue.get(timeout=args.duration + 600) for _ in procs]
        fatal = [r["fatal"] for r in results if "fatal" in r]
        if fatal:
            raise RuntimeError(f"a client process failed: {fatal}")
        for p in procs:
            p.join(timeout=30)
        cpu1 = stack.cpu()
        machine_cpu = machine.since()
        # the bench's own processes, measured from zero: they share the cores with the server
        bench_cpu = {"bench_main": time.process_time() - bench_cpu0,
                     "bench_clients": sum(r.get("cpu_s", 0.0) for r in results)}
        if open_proc is not None:
            bench_cpu["bench_open_pages"] = cpu_seconds(open_proc.pid or 0) - open_cpu0
        cpu1.update(bench_cpu)
        cpu0.update(dict.fromkeys(bench_cpu, 0.0))
        wall = time.time() - t0
        memory = stack.peak_memory_mb()
        open_result = None
        if open_proc is not None:
            stop_open.set()
            open_result = open_queue.get(timeout=300)
            open_proc.join(timeout=30)
            if "fatal" in open_result:
                raise RuntimeError(f"the open pages failed: {open_result['fatal']}")
        connections = sampler.report() if sampler is not None else None
        sampler = None
    finally:
        if sampler is not None:
            sampler.report()
        if second is not None:
            second.stop()
        stack.stop()
    began = max(r["start"] for r in results)
    start = began + args.warmup  # the measured window: after the ramp and the warm-up
    end = min(r["end"] for r in results)
    window = end - start
    acked = [a for r in results for a in r["acked"]]
    tables = {k: v for r in results for k, v in r["tables"].items()}
    log = _log_rows(url, start, end, began)
    audit = audit_database(url, acked)
    privacy = privacy_audit(url, [x for r in results for x in r["seen"]])
    delays: dict[str, list[float]] = {k: [] for k in HUMAN_KINDS}
    for r in results:
        for tid, version, started, got in r["deliveries"]:
            at = log["commits"].get((tid, version))
            if at is None or started > at or not start <= at <= end:
                continue  # only pages that were waiting when the change was made
            delays.setdefault(tables[tid], []).append((got - at) * 1000)
    latency = {k: [ms for r in results for at, ms in r["latency"].get(k, []) if start <= at <= end]
               for k in HUMAN_KINDS}
    # The whole run, warm-up included (every table starting within the ramp), for comparison.
    with_start = [ms for r in results for lat in r["latency"].values() for at, ms in lat
                  if began <= at <= end]
    all_lat = [x for v in latency.values() for x in v]
    if args.dump_latency:  # the window's human actions and robot cards with their times
        stamped = sorted((at, ms) for r in results for k in HUMAN_KINDS
                         for at, ms in r["latency"].get(k, []) if start <= at <= end)
        Path(args.dump_latency).write_text(json.dumps(
            {"human": stamped, "robot": sorted(log["robot_moves"])}))
        if args.page_ids.startswith("toggle:"):  # the blocks, as paired_sched.py toggle writes
            block = float(args.page_ids[7:])
            firsts = range(int(start // block), int(end // block) + 1)
            Path(args.dump_latency + ".toggles.json").write_text(json.dumps(
                [[k * block, int(page_block_on(k * block, block))] for k in firsts]))
    all_delays = [x for v in delays.values() for x in v]
    errors = [e for r in results for e in r["errors"]]
    server = _access_log(tmp / "access.log", start, end)
    robot_cpu = cpu1["robots"] - cpu0["robots"]
    robot_cards = {lv: [ms for _, ms, level in log["robot_moves"] if level == lv]
                   for lv in ("normal", "dificil")}
    out = {
        "tables": len(tables), "pages": sum(r["seats"] for r in results),
        "window_s": round(window, 1), "warmup_s": args.warmup, "ramp_s": args.ramp,
        "actions_per_s": round(log["actions"] / window, 1),
        "human_actions_per_s": round(len(all_lat) / window, 1),
        "action_p50_ms": pct(all_lat, 50), "action_p95_ms": pct(all_lat, 95),
        "action_p99_ms": pct(all_lat, 99),
        "action_p95_ms_by_table": {k: pct(v, 95) for k, v in latency.items()},
        "action_n_p50_p95_ms_by_type": _by_type(results, start, end),
        "action_p95_ms_with_warmup": pct(with_start, 95),
        "update_p50_ms": pct(all_delays, 50), "update_p95_ms": pct(all_delays, 95),
        "update_p95_ms_by_table": {k: pct(v, 95) for k, v in delays.items()},
        "updates_measured": len(all_delays),
        "errors": len(errors) + server["server_5xx"],
        "unavailable_503_seen": sum(r["unavailable"] for r in results),
        "error_samples": sorted(set(errors))[:5],
        "stale_refusals": sum(r["stale"] for r in results),
        "retries": sum(r["retries"] for r in results),
        # what a page's stream carries per change it hears (the whole run, warm-up included)
        "stream_bytes_per_event": round(sum(r["stream_bytes"] for r in results)
                                        / max(1, sum(r["stream_events"] for r in results))),
        # events the pages' streams carried per game action applied (the whole run)
        "stream_events_per_action": round(sum(r["stream_events"] for r in results)
                                          / max(1, log["run_actions"]), 2),
        "robot_decisions_per_s": round(log["robot_decisions"] / window, 1),
        "robot_decisions_by_level": log["robot_decisions_by_level"],
        # how long a robot's card took after the change that gave it the turn
        "robot_card_p50_ms_by_level": {lv: pct(cards, 50) for lv, cards in robot_cards.items()},
        "robot_card_p95_ms_by_level": {lv: pct(cards, 95) for lv, cards in robot_cards.items()},
        "robot_hands": log["robot_hands"],
        # CPU over the whole run (robot processes and their search processes) per decision and
        # per hand closed at a robot table in the run; with no hand closed (a calm pace: a hand
        # is ~8 minutes), per hand is estimated as 42 decisions (3 robots x 13 plays + a pass).
        "robot_cpu_ms_per_decision": round(1000 * robot_cpu / log["run_robot_decisions"], 1)
        if log["run_robot_decisions"] else None,
        "robot_hands_in_run": log["run_robot_hands"],
        "robot_cpu_s_per_hand": round(robot_cpu / log["run_robot_hands"], 2)
        if log["run_robot_hands"] else None,
        "robot_cpu_s_per_hand_estimated": round(42 * robot_cpu / log["run_robot_decisions"], 2)
        if log["run_robot_decisions"] else None,
        "cpu_s": {k: round(cpu1[k] - cpu0[k], 1) for k in cpu1},
        "web_cpu_percent": round(100 * (cpu1["web"] - cpu0["web"]) / wall, 1),
        # the whole machine over the same time as cpu_s (the clients' run), services included
        "machine_cpu": machine_cpu,
        "peak_memory_mb": {k: round(v, 1) for k, v in memory.items()},
        "web_cpu_ms_per_action": round(1000 * (cpu1["web"] - cpu0["web"]) / log["run_actions"], 2)
        if log["run_actions"] else None,
        "server_action_p50_ms": server["server_action_p50_ms"],
        "server_action_p95_ms": server["server_action_p95_ms"],
        "floor_rps": round(floor, 1),
        "audit": audit.as_dict(),
        "audit_problems": audit.problems[:5],
        "privacy": {"responses_checked": privacy.acked_checked,
                    "leaks": len(privacy.problems)},
        "privacy_problems": privacy.problems[:5],
    }
    out["channel"] = args.channel
    if connections is not None:
        out["connections"] = connections
    if open_result is not None:
        out["open_pages"] = _open_pages_report(open_result, log["commits"], rss_before, rss_open)
    if schema:
        drop_pg_schema(PG_BASE, schema)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=int(os.environ.get("LOAD_TABLES", 200)))
    ap.add_argument("--duration", type=float, default=float(os.environ.get("LOAD_DURATION", 120)),
                    help="the measured window, after the warm-up")
    ap.add_argument("--ramp", type=float, default=10.0,
                    help="tables start playing at random moments within this many seconds "
                         "(not all 200 in the same instant)")
    ap.add_argument("--warmup", type=float, default=None,
                    help="seconds played before the measured window (default: the ramp plus "
                         "twice the longest think)")
    ap.add_argument("--modes", default=os.environ.get("LOAD_MODES", "sqlite,postgres"))
    # The pace the targets are judged at: a person playing live on a phone takes 5-15 s per
    # decision (the en vivo clock grants 15 s per card, 30 s to pass). docs/RELIABILITY.md.
    ap.add_argument("--think-min", type=float, default=5.0)
    ap.add_argument("--think-max", type=float, default=15.0)
    ap.add_argument("--stress", default="1,3,60",
                    help="then the same modes at a stress pace: 'think min,think max,duration' "
                         "(reported apart, not judged); '' to skip")
    ap.add_argument("--robots-share", type=float, default=0.2,
                    help="share of tables with one human and three robots (half Normal, "
                         "half Difícil)")
    ap.add_argument("--spectator-share", type=float, default=0.25)
    ap.add_argument("--web-workers", type=int, default=2)
    ap.add_argument("--sqlite-shape", choices=("single", "multi"), default="multi",
                    help="SQLite mode: the PostgreSQL mode's processes (multi), or one process "
                         "with robot and scheduler threads (single: slower, robots starve)")
    ap.add_argument("--threads", type=int, default=1000)
    ap.add_argument("--robot-procs", type=int, default=1)
    ap.add_argument("--robot-threads", type=int, default=4)
    ap.add_argument("--recheck", type=float, default=5.0,
                    help="POLL_RECHECK: with Redis pub/sub the version re-check is only a floor")
    ap.add_argument("--clients", type=int, default=2, help="client processes")
    ap.add_argument("--channel", choices=("stream", "poll"), default="stream",
                    help="how the pages hear of changes: server-sent events or the long-poll")
    ap.add_argument("--page-ids", default="on",
                    help="the pages' actions name their page (X-Page-Id), so their streams "
                         "leave out their own changes: on, off, or toggle:<seconds> (on and off "
                         "in alternate blocks; with --dump-latency the blocks are written beside "
                         "it as <file>.toggles.json for bench/paired_sched.py compare)")
    ap.add_argument("--open-pages", type=int, default=0,
                    help="quiet pages held open on streams while the tables play (e.g. 5000)")
    ap.add_argument("--pages-per-table", type=int, default=10)
    ap.add_argument("--quiet-every", type=float, default=60.0,
                    help="seconds between two changes of one quiet table (on average)")
    ap.add_argument("--second-machine", action="store_true",
                    help="PostgreSQL: start a second machine's processes on the same database "
                         "(it serves the open pages) and report the connections of both")
    ap.add_argument("--floor-seconds", type=float, default=5.0)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--dump-latency", default="",
                    help="write the measured window's human actions and robot cards to this "
                         "file as JSON {human: [[unix time, ms], ...], robot: [[unix time, ms "
                         "since the version before, level], ...]} (to compare moments of a run)")
    args = ap.parse_args()
    if args.warmup is None:
        args.warmup = args.ramp + 2 * args.think_max
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"{os.cpu_count()} CPUs; {args.tables} tables for {args.duration:.0f} s, think "
          f"{args.think_min}-{args.think_max} s; stress pace: {args.stress or 'none'}",
          flush=True)
    report: dict[str, Any] = {"tables": args.tables, "duration_s": args.duration,
                              "warmup_s": args.warmup, "ramp_s": args.ramp,
                              "think_s": [args.think_min, args.think_max],
                              "load_average_before": [round(x, 2) for x in load],
                              # the robot processes import the same modules as this one
                              "robots_compiled": robots.COMPILED,
                              "machine": {"cpus": os.cpu_count(),
                                          "loop_10m_s": machine_loop_s()}}
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    for mode in modes:
        res = run_mode(mode, args)
        report[mode] = res
        print(f"\n[{mode}] " + "\n  ".join(f"{k}: {v}" for k, v in res.items()), flush=True)
    floors = [report[m]["floor_rps"] for m in ("sqlite", "postgres") if m in report]
    report["floor_rps"] = round(statistics.mean(floors), 1) if floors else None
    targets = []
    for m in ("sqlite", "postgres"):
        r = report.get(m)
        if r:
            difficult = (r["action_p95_ms_by_table"].get("dificil"),
                         r["update_p95_ms_by_table"].get("dificil"))
            targets.append((r["action_p95_ms"] or 1e9) <= 50
                           and (difficult[0] is None or difficult[0] <= 50)
                           and (r["update_p95_ms"] or 1e9) <= 1000
                           and (difficult[1] is None or difficult[1] <= 1000)
                           and r["errors"] == 0 and r["audit"]["problems"] == 0
                           and r["privacy"]["leaks"] == 0)
    report["targets_met"] = all(targets) if targets else False
    if args.stress:
        lo, hi, seconds = (float(x) for x in args.stress.split(","))
        stress_args = argparse.Namespace(**{**vars(args), "think_min": lo, "think_max": hi,
                                            "duration": seconds,
                                            "warmup": args.ramp + 2 * hi})
        report["stress"] = {"think_s": [lo, hi], "duration_s": seconds}
        for mode in modes:
            res = run_mode(mode, stress_args)
            print(f"\n[{mode}, stress pace {lo:g}-{hi:g} s] "
                  + "\n  ".join(f"{k}: {v}" for k, v in res.items()), flush=True)
            report["stress"][mode] = {**{k: res[k] for k in STRESS_KEYS},
                                      "audit_problems": res["audit"]["problems"],
                                      "leaks": res["privacy"]["leaks"]}
            for extra in ("open_pages", "connections"):
                if extra in res:
                    report["stress"][mode][extra] = res[extra]
        # The stress pace's targets: a human action's p95 <= 50 ms, a change at the other pages
        # p95 <= 250 ms, nothing lost or leaked; every quiet page hears its table within 1 s.
        judged = []
        for mode in modes:
            r = report["stress"][mode]
            quiet = r.get("open_pages")
            judged.append((r["action_p95_ms"] or 1e9) <= 50 and (r["update_p95_ms"] or 1e9) <= 250
                          and r["errors"] == 0 and r["audit_problems"] == 0 and r["leaks"] == 0
                          and (quiet is None or (quiet["deliveries_missing"] == 0
                                                 and (quiet["delivery_max_ms"] or 1e9) <= 1000)))
        report["stress"]["targets_met"] = all(judged)
    report["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(report, separators=(", ", ": ")))


if __name__ == "__main__":
    main()
