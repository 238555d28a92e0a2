"""The server-sent event stream (tables/stream_routes.py) in process: each viewer's events are the
long-poll's answers (the same per-viewer filtering) through a whole hand, a reconnection with
Last-Event-ID misses nothing, and bad input is refused. Streams here end after ``STREAM_MAX``
(a fraction of a second), so a test reads each one to its end."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from typing import Any

import pytest

import robots
from tests.kit import Player, close_app, error, make_app
from tests.tables.test_tables_privacy import scan, server_game

STREAM = {"STREAM_MAX": 0.05, "STREAM_HEARTBEAT": 0.02}


@pytest.fixture()
def app(migrated: str) -> Iterator[Any]:
    a = make_app(migrated, **STREAM)
    yield a
    close_app(a)


def events(p: Player, tid: str, since: int | None = None,
           last_id: str | None = None) -> list[dict[str, Any]]:
    """One whole stream (it ends after STREAM_MAX): its events, each {field: value} (a comment
    line is kept under ':')."""
    url = f"/api/tables/{tid}/stream" + ("" if since is None else f"?since={since}")
    headers = {"Last-Event-ID": last_id} if last_id is not None else {}
    r = p.client.get(url, headers=headers)
    assert r.status_code == 200, r.get_data(as_text=True)[:300]
    assert r.mimetype == "text/event-stream"
    assert r.headers["Cache-Control"] == "no-store"
    return _blocks(r.get_data(as_text=True))


def _blocks(text: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for block in text.split("\n\n"):
        if not block:
            continue
        fields: dict[str, Any] = {}
        for line in block.split("\n"):
            name, _, value = line.partition(":")
            fields[name or ":"] = value[1:] if value.startswith(" ") else value
        out.append(fields)
    return out


def states(evs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    import json

    found = []
    for e in evs:
        if e.get("event") == "state":
            data = json.loads(e["data"])
            assert int(e["id"]) == data["state"]["version"]
            found.append(data)
    return found


def comparable(body: dict[str, Any]) -> dict[str, Any]:
    """An answer without the moment it was made (the clock's ``now``)."""
    state = dict(body["state"])
    state["table"] = dict(state["table"])
    state["table"]["clock"] = {k: v for k, v in state["table"]["clock"].items() if k != "now"}
    return {"state": state, "log": body["log"]}


def test_each_seats_and_a_spectators_stream_is_their_poll_answer_through_a_hand(app):
    rng = random.Random(5)
    ana = Player(app)
    tid = ana.create("Ana", target=50)
    players = [ana] + [Player(app) for _ in range(3)]
    for i, p in enumerate(players[1:], 1):
        p.act(tid, "sit", name=f"P{i}")
    watcher = Player(app)
    viewers = players + [watcher]
    since = [ana.state(tid)["version"]] * 5
    ana.act(tid, "start")
    public: list[set[str]] = [set() for _ in range(5)]
    compared = cards_seen = 0
    for _ in range(80):  # a hand: 4 confirmed passes and 52 cards, one viewer acting at a time
        game = server_game(app, tid)
        views = []
        for i, p in enumerate(viewers):
            got = states(events(p, tid, since[i]))
            assert len(got) == 1, f"viewer {i}: one event for the changes since {since[i]}"
            polled = p.client.get(f"/api/tables/{tid}/poll?since={since[i]}").get_json()
            assert comparable(got[0]) == comparable(polled)
            cards_seen += scan(app, tid, i if i < 4 else None, got[0], public[i], game)
            since[i] = got[0]["state"]["version"]
            views.append(got[0]["state"]["view"])
            compared += 1
        assert "hand" not in (views[4] or {})
        if views[0]["phase"] != "passing" and views[0]["phase"] != "playing":
            break
        seat = rng.choice(views[0]["to_act"])
        action = robots.decide(views[seat], "facil", rng)
        players[seat].act(tid, action.pop("type"), **action)
    assert views[0]["phase"] == "counting", "the hand was played out"
    assert compared >= 5 * 56 and cards_seen > 0


def test_a_reconnection_with_last_event_id_gets_every_change_it_missed(app):
    ana = Player(app)
    tid = ana.create("Ana")
    first = states(events(ana, tid, since=0))
    assert len(first) == 1
    last = first[0]["state"]["version"]
    for text in ("uno", "dos", "tres"):
        ana.act(tid, "chat", text=text)
    # Last-Event-ID (what the browser sends when it reconnects) wins over a stale ?since=
    got = states(events(ana, tid, since=0, last_id=str(last)))
    assert len(got) == 1
    log = got[0]["log"]
    assert [e["text"] for e in log if e["type"] == "chat"] == ["uno", "dos", "tres"]
    assert [e["version"] for e in log] == list(range(last + 1, got[0]["state"]["version"] + 1))
    # a page up to date hears nothing but the greeting and the heartbeat
    quiet = events(ana, tid, last_id=str(got[0]["state"]["version"]))
    assert quiet[0]["retry"] == "1000"
    assert quiet[0]["event"] == "hello" and int(quiet[0]["data"]) == got[0]["state"]["version"]
    assert states(quiet) == []
    assert any(":" in e and e[":"] == "ping" for e in quiet[1:])


@pytest.mark.parametrize("query, header", [
    ("?since=abc", None), ("?since=-1", None), ("?since=1234567890123", None),
    ("", "uno"), ("?since=3", "1e3"),
])
def test_a_bad_version_is_refused_in_spanish(app, query, header):
    ana = Player(app)
    tid = ana.create("Ana")
    headers = {"Last-Event-ID": header} if header is not None else {}
    error(ana.client.get(f"/api/tables/{tid}/stream{query}", headers=headers), 400, "bad_since")


def test_an_unknown_table_is_not_found(app):
    error(Player(app).client.get("/api/tables/nosuchtable/stream"), 404, "not_found")


def test_a_stream_whose_version_reads_find_the_pool_busy_stays_open():
    """Pages opened together reach their floor (the version re-read) together. When those reads
    find the PostgreSQL read pool busy (a pool of one, held here; a wait of 50 ms), each read
    gives up and the stream stays open on its notices and heartbeats, instead of ending in a
    traceback (what 1,111 quiet pages of bench/load.py did, each at once). PostgreSQL whatever
    DATABASE_URL says: SQLite reads have no pool to run dry."""
    from flask_migrate import upgrade

    from deploy.stack import drop_pg_schema, new_pg_schema
    from tables.db import pool_options, reading
    from tests.load.load_kit import PG_BASE

    url, schema = new_pg_schema(PG_BASE)
    app = make_app(url, STREAM_MAX=0.5, STREAM_HEARTBEAT=0.02, STREAM_RECHECK=0.01,
                   ROBOT_WORKER="off",
                   SQLALCHEMY_ENGINE_OPTIONS=pool_options(url, 1, 0, 0.05))
    try:
        with app.app_context():
            upgrade(directory="migrations")
        ana = Player(app)
        tid = ana.create("Ana")
        opened = ana.client.get(f"/api/tables/{tid}/stream?since=0", buffered=False)
        assert opened.status_code == 200  # opened (its reads done); its events not read yet
        taken, done = threading.Event(), threading.Event()

        def hold_the_read_pool() -> None:  # its only connection, until the stream has ended
            with app.app_context(), reading() as held:
                held.exec_driver_sql("SELECT 1")
                taken.set()
                done.wait(30)

        holder = threading.Thread(target=hold_the_read_pool, daemon=True)
        holder.start()
        assert taken.wait(10)
        try:
            busy = _blocks("".join(chunk.decode() for chunk in opened.response))
        finally:
            done.set()
            holder.join(10)
            opened.close()
        pings = [e for e in busy if e.get(":") == "ping"]
        assert len(pings) >= 3, busy  # it lived its STREAM_MAX, reading (and failing) each time
        assert len(states(busy)) == 1
        # the pool free again: the floor reads work and a change made meanwhile is heard
        version = ana.act(tid, "chat", text="hola").get_json()["state"]["version"]
        again = states(events(ana, tid, since=states(busy)[0]["state"]["version"]))
        assert [s["state"]["version"] for s in again] == [version]
    finally:
        close_app(app)
        drop_pg_schema(PG_BASE, schema)


@pytest.fixture()
def subscribed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """As if Redis were subscribed all along (every notice arrives), while commits publish
    nothing: each change made in the test is a notice lost on its way."""
    from tables import live

    saved = live._epoch, live._listening
    live._set_listening(True)
    try:
        yield
    finally:
        live._epoch, live._listening = saved


def test_one_sweep_reads_every_followed_tables_version_and_wakes_a_lost_notices_pages(
        app, subscribed, monkeypatch):
    from contextlib import ExitStack

    from sqlalchemy import event

    from tables import live
    from tables.db import db

    ana = Player(app)
    tids = [ana.create("Ana") for _ in range(3)]
    versions = {tid: ana.state(tid)["version"] for tid in tids}
    statements: list[str] = []

    def count(conn: Any, cursor: Any, sql: str, *args: Any) -> None:
        if sql.lstrip().upper().startswith("SELECT"):  # not SQLite's BEGIN
            statements.append(sql)

    with app.app_context():
        key = live._database()
        with ExitStack() as streams:
            for tid in tids + tids[:1]:  # two streams on the first table
                streams.enter_context(live.watching(tid))
            assert live._watched[key] == {tids[0]: 2, tids[1]: 1, tids[2]: 1}
            event.listen(db.engine, "before_cursor_execute", count)
            try:
                live._next_sweep.pop(key, None)
                assert live.sweep(600.0) == 0  # the first call sets the next one
                assert live.sweep(600.0) == 0 and statements == []  # not due: nothing read
                monkeypatch.setattr(live, "publish", lambda *a, **k: None)  # the notice is lost
                lost = ana.act(tids[0], "chat", text="hola").get_json()["state"]["version"]
                assert lost > versions[tids[0]]
                woken: list[int] = []
                waiter = threading.Thread(target=lambda: woken.append(live.wait_for_version(
                    tids[0], versions[tids[0]], 30.0, 600.0, lambda: 0,
                    known=versions[tids[0]], redis_recheck=float("inf"))))
                waiter.start()
                from tests.kit import wait_until

                wait_until(lambda: live._waiting.get(tids[0]))
                statements.clear()
                live._next_sweep[key] = 0.0  # due now
                assert live.sweep(600.0) == 3
                waiter.join(10)
            finally:
                event.remove(db.engine, "before_cursor_execute", count)
            assert woken == [lost]  # the lost change woke the waiting page
            assert len(statements) == 1  # three tables, four streams: one query
            assert live.known_version(tids[0]) == lost
            assert live.known_version(tids[1]) == versions[tids[1]]
        assert key not in live._watched  # every stream gone: nothing left to sweep


def test_a_stream_hears_a_change_whose_notice_was_lost_from_its_process_sweep(
        migrated, subscribed, monkeypatch):
    """Redis subscribed throughout, the database re-read per stream never (POLL_RECHECK 600):
    only the process's sweep (every STREAM_RECHECK) can find the change."""
    from tables import live
    from tests.kit import wait_until

    app = make_app(migrated, STREAM_MAX=3.0, STREAM_HEARTBEAT=0.05, STREAM_RECHECK=0.2,
                   POLL_RECHECK=600)
    try:
        ana = Player(app)
        tid = ana.create("Ana")
        version = ana.state(tid)["version"]
        got: list[list[dict[str, Any]]] = []
        watcher = Player(app)
        reader = threading.Thread(target=lambda: got.append(events(watcher, tid, since=version)))
        reader.start()
        wait_until(lambda: live._waiting.get(tid))
        monkeypatch.setattr(live, "publish", lambda *a, **k: None)  # the notice is lost
        lost = ana.act(tid, "chat", text="hola").get_json()["state"]["version"]
        reader.join(20)
        heard = states(got[0])
        assert [s["state"]["version"] for s in heard] == [lost]
        assert heard[0]["log"][-1]["text"] == "hola"
    finally:
        close_app(app)


def test_onlookers_woken_by_one_change_share_one_event(migrated, monkeypatch):
    """Spectators woken by the same change get the same event, built once a process: a whole
    state first, then patches from it. A spectator with another deck and a seated player each
    get their own, and an event is shared only for ``SHARED_FOR`` (its clock says "now")."""
    import json
    import time

    from tables import stream_routes

    # Streams wake on the notices alone (as with Redis): a stream's own re-read of the version
    # could see a change committed before its snapshot is kept and build its event from a load.
    app = make_app(migrated, STREAM_MAX=1.5, STREAM_HEARTBEAT=0.5, ROBOT_WORKER="off",
                   POLL_RECHECK=60.0)
    monkeypatch.setattr(stream_routes, "SHARED_FOR", 60.0)  # (threads of a busy test machine)
    built: list[int | None] = []
    build = stream_routes.state_and_log

    def counted(snap: Any, device_id: int | None, since: int | None, present: Any) -> Any:
        built.append(device_id)
        return build(snap, device_id, since, present)

    monkeypatch.setattr(stream_routes, "state_and_log", counted)
    try:
        ana = Player(app)
        tid = ana.create("Ana", target=50)
        beto = Player(app)
        beto.act(tid, "sit", name="Beto")
        for seat in (2, 3):
            ana.act(tid, "add_robot", seat=seat)
        ana.act(tid, "start")  # hands dealt (the robots, off here, change nothing)
        a, b, c = Player(app), Player(app), Player(app)  # c never acts: no device
        for p in (a, b):
            p.act(tid, "set_deck", deck="noche")
        since = ana.state(tid)["version"]
        got: dict[str, list[dict[str, Any]]] = {}

        def watch(name: str, p: Player) -> None:
            r = p.client.get(f"/api/tables/{tid}/stream?since={since}&patch=1")
            got[name] = [e for e in _blocks(r.get_data(as_text=True))
                         if e.get("event") in ("state", "patch")]

        threads = [threading.Thread(target=watch, args=(name, p))
                   for name, p in (("a", a), ("b", b), ("c", c), ("beto", beto))]
        for t in threads:
            t.start()
        time.sleep(0.4)
        ana.act(tid, "chat", text="uno")
        time.sleep(0.4)
        ana.act(tid, "chat", text="dos")
        for t in threads:
            t.join()

        assert [e["event"] for e in got["a"]] == ["state", "patch"]
        assert got["a"] == got["b"]  # the same text, the patch's base included
        # a and b one a change between them, c one a change, Beto none (his own state)
        assert len(built) == 4 and built.count(None) == 2
        first = json.loads(got["a"][0]["data"])["state"]
        assert first["me"]["deck"] == "noche" and "hand" not in first["view"]
        assert json.loads(got["c"][0]["data"])["state"]["me"]["deck"] != "noche"
        patch = json.loads(got["a"][1]["data"])
        assert patch["base"] == first["version"]
        assert [e["text"] for e in patch["log"] if e["type"] == "chat"] == ["dos"]
        beto_first = json.loads(got["beto"][0]["data"])["state"]
        assert beto_first["me"]["seat"] == 1 and len(beto_first["view"]["hand"]) == 13
        assert [e["event"] for e in got["beto"]] == ["state", "patch"]

        # Past SHARED_FOR, each stream builds its own: the same state but for the clock's now.
        monkeypatch.setattr(stream_routes, "SHARED_FOR", 0.0)
        built.clear()
        late = [comparable(states(events(p, tid, since))[0]) for p in (a, b)]
        assert len(built) == 2 and late[0] == late[1]
    finally:
        close_app(app)
