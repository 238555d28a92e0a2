"""The per-process snapshot cache (tables/snapshot.py) never shows anything the database would not.

Every state and log a page gets from the cache (primed by the action that made the version,
made from the change another process sent with its notice, or extended from an older snapshot)
must equal what a process that never saw the table reads from the
database, for every seat and a spectator, at every step of a game with chat and more log entries
than a snapshot keeps."""

from __future__ import annotations

import json
import random
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import robots
from tables import clock, hooks, live, snapshot
from tables.db import db
from tables.models import utcnow
from tests.kit import Player, close_app, make_app, wait_until

REDIS = "redis://127.0.0.1:6379/0"
#: Actions played: enough for the log to outgrow a snapshot (LOG_KEEP) by more than 20.
STEPS = 90


def _steady(state: dict[str, Any]) -> dict[str, Any]:
    """The state without what depends on the moment of reading (the clock's now and reserve)."""
    clock = dict(state["table"]["clock"])
    clock.pop("now")
    clock["seats"] = [{k: v for k, v in s.items() if k != "reserve_left"} for s in clock["seats"]]
    table = dict(state["table"], clock=clock)
    return dict(state, table=table)


def _fresh(p: Player, url: str) -> dict[str, Any]:
    snapshot.forget()  # as a process that never saw this table
    r = p.client.get(url)
    assert r.status_code == 200, r.get_json()
    return dict(r.get_json())


def _cached(p: Player, url: str) -> dict[str, Any]:
    r = p.client.get(url)
    assert r.status_code == 200, r.get_json()
    return dict(r.get_json())


@contextmanager
def _app_sending_changes(migrated: str, **config: Any) -> Iterator[tuple[Any, list[str]]]:
    """An app with Redis on (every commit sends its change with the notice, as between real
    processes) and the list of the changes its commits sent, in order."""
    app = make_app(migrated, REDIS_URL=REDIS, ROBOT_WORKER="off", **config)
    sent: list[str] = []

    def keep(commit: hooks.Commit) -> None:
        if commit.change is not None:
            sent.append(commit.change)

    hooks.register(keep)
    try:
        yield app, sent
    finally:
        hooks.unregister(keep)
        close_app(app)


def test_cached_states_and_logs_equal_fresh_reads_at_every_step(migrated: str) -> None:
    with _app_sending_changes(migrated) as (app, sent):
        _play_and_compare(app, sent)


def _started_table(app: Any) -> tuple[str, list[Player], Player]:
    """A game of four people started at a new table: its id, the seats' players, a spectator."""
    host = Player(app)
    tid = host.create("Ana", target=50)
    players = [host]
    for i in range(1, 4):
        p = Player(app)
        p.act(tid, "sit", name=f"Jugador {i}")
        players.append(p)
    spectator = Player(app)
    host.act(tid, "start")
    return tid, players, spectator


def _made_elsewhere(tid: str, held: snapshot.Snapshot, wires: list[str],
                    viewers: list[Player]) -> snapshot.Snapshot:
    """As another process that held ``held``: the changes ``wires`` (in order, as the Redis
    listener hands them over) make its snapshot without a read, and every viewer's state and log
    from it equal a fresh read. Returns the snapshot made."""
    snapshot.forget(tid)
    snapshot.store(tid, held)
    for wire in wires:
        live._heard(wire)
    made = snapshot.cached(tid)
    assert made is not None and made.version == int(wires[-1].split(None, 2)[1])
    for viewer in viewers:
        got = _cached(viewer, f"/api/tables/{tid}/poll?since={held.version}")
        assert snapshot.cached(tid) is made  # served from it, not loaded
        want = _fresh(viewer, f"/api/tables/{tid}/poll?since={held.version}")
        assert _steady(got["state"]) == _steady(want["state"]) and got["log"] == want["log"]
        snapshot.forget(tid)
        snapshot.store(tid, made)
    return made


def _play_and_compare(app: Any, sent: list[str]) -> None:
    received = 0
    tid, players, spectator = _started_table(app)
    host = players[0]
    rng = random.Random(11)
    checked = 0
    for step in range(STEPS):
        # Someone acts: the answer comes from the snapshot this action primed.
        st = host.state(tid)
        view = st["view"]
        held = snapshot.cached(tid)
        assert held is not None and held.version == st["version"]
        if view["phase"] == "counting":
            answer = host.act(tid, "close_count", version=st["version"]).get_json()
        else:
            seat = view["to_act"][0]
            p = players[seat]
            mine = p.state(tid)["view"]
            action = robots.decide(mine, "facil", rng)
            answer = p.act(tid, action.pop("type"), version=st["version"], **action).get_json()
        if step % 7 == 3:  # chat now and then: the chat list is extended from the log
            answer = players[step % 4].act(tid, "chat", text=f"mensaje {step}").get_json()
        version = answer["state"]["version"]
        if step % 4 == 2:  # as another process that held the version before: the changes sent
            # with the notices (as the Redis listener hands them over) make the new snapshot
            changes = [w for w in sent if int(w.split(None, 3)[2]) >= held.version]
            assert changes, step
            made = _made_elsewhere(tid, held, changes, players + [spectator])
            assert made.version == version, step  # no read needed
            received += 1
        if step % 2:  # as a process that held the version before and missed the action (and
            # the chat): its next read extends the older snapshot from the log
            snapshot.forget(tid)
            snapshot.store(tid, held)
            got = _cached(players[step % 4], f"/api/tables/{tid}?since={held.version}")
            want = _fresh(players[step % 4], f"/api/tables/{tid}?since={held.version}")
            assert _steady(got["state"]) == _steady(want["state"]) and got["log"] == want["log"]
            snapshot.forget(tid)
            snapshot.store(tid, held)
        # the action's own answer (built from the snapshot it primed) is a fresh read too
        mine = answer["state"]["me"]["seat"]
        fresh_mine = _fresh(players[mine], f"/api/tables/{tid}")["state"]
        assert fresh_mine["version"] == version  # no robots here: nothing else moved
        a, b = _steady(answer["state"]), _steady(fresh_mine)
        assert a == b, {k: (a["table"][k], b["table"][k]) for k in a["table"]
                        if a["table"][k] != b["table"].get(k)}
        for who, viewer in enumerate(players + [spectator]):
            for since in (version - 1, version - 3, max(0, version - 70), 0):
                url = f"/api/tables/{tid}/poll?since={since}"
                got, want = _cached(viewer, url), _fresh(viewer, url)
                assert _steady(got["state"]) == _steady(want["state"]), (step, who, since)
                assert got["log"] == want["log"], (step, who, since)
                # ...and again from the snapshot the fresh read just stored
                again = _cached(viewer, url)
                assert _steady(again["state"]) == _steady(want["state"])
                checked += 1
            full, fresh_full = _cached(viewer, f"/api/tables/{tid}"), \
                _fresh(viewer, f"/api/tables/{tid}")
            assert _steady(full["state"]) == _steady(fresh_full["state"])
    assert version > snapshot.LOG_KEEP + 20  # the log outgrew a snapshot: both paths were read
    assert checked == STEPS * 5 * 4
    assert received == len(range(2, STEPS, 4))
    # The spectator never got a hand, the seats only their own.
    assert "hand" not in _cached(spectator, f"/api/tables/{tid}")["state"]["view"]


def test_a_poll_that_times_out_sends_only_the_version(app):
    host = Player(app)
    tid = host.create("Ana")
    v = host.state(tid)["version"]
    body = host.client.get(f"/api/tables/{tid}/poll?since={v}").get_json()
    assert body == {"version": v, "log": []}
    # a page that is behind gets the state at once
    body = host.client.get(f"/api/tables/{tid}/poll?since={v - 1}").get_json()
    assert body["state"]["version"] == v and [e["version"] for e in body["log"]] == [v]


def test_a_long_poll_rereads_the_version_rarely_while_redis_delivers_every_notice():
    from tables import live

    reads: list[float] = []

    def read_version() -> int:
        reads.append(time.monotonic())
        return 5

    saved = live._epoch, live._listening
    try:
        live._set_listening(False)  # no Redis: the floor re-reads every POLL_RECHECK
        assert live.wait_for_version("t-floor", 5, 1.0, 0.1, read_version, known=5) == 5
        without = len(reads)
        reads.clear()
        live._set_listening(True)  # subscribed for the whole wait: no notice can be lost
        assert live.wait_for_version("t-redis", 5, 1.0, 0.1, read_version, known=5) == 5
        with_redis = len(reads)
        reads.clear()
        # a caller whose floor is elsewhere (a stream's: its process's sweep): a time-out within
        # redis_recheck reads nothing
        live._set_listening(True)
        assert live.wait_for_version("t-ping", 5, 1.0, 0.1, read_version, known=5,
                                     redis_recheck=60.0) == 5
        ping = len(reads)
        # past the floor's interval, the time-out looks once
        live._set_listening(True)
        assert live.wait_for_version("t-late", 5, 1.0, 0.1, read_version, known=5,
                                     redis_recheck=0.5) == 5
        late = len(reads) - ping
        reads.clear()
        live._set_listening(True)
        threading.Timer(0.3, live._set_listening, args=(True,)).start()  # a reconnect
        assert live.wait_for_version("t-again", 5, 1.0, 0.1, read_version, known=5) == 5
        after_reconnect = len(reads)
        # a notice is still returned at once, without a read
        reads.clear()
        def publish_once_waiting() -> None:
            wait_until(lambda: live._waiting.get("t-notice"))
            live.publish("t-notice", 6)

        threading.Thread(target=publish_once_waiting, daemon=True).start()
        # 6 is only known from the notice (the database says 5), and it ends a 600 s wait
        assert live.wait_for_version("t-notice", 5, 600.0, 0.1, read_version, known=5) == 6
        assert reads == []
    finally:
        live._epoch, live._listening = saved
    assert without >= 6, without  # ~every 0.1 s for 1 s
    assert with_redis == 0, with_redis  # a time-out sooner than REDIS_RECHECK: no look
    assert ping == 0, ping
    assert 1 <= late <= 3, late  # at 0.5 s and at the time-out
    # the floor again once the subscription changed (and no spinning on the database)
    assert 4 <= after_reconnect <= 12, after_reconnect


def test_known_version_trusts_notices_only_within_one_redis_subscription():
    """A poll skips reading the version only when the notices can tell it (live.known_version)."""
    from tables import live

    saved = live._epoch, live._listening
    try:
        live._set_listening(True)
        assert live.known_version("t-kv") is None  # never noticed here: read it
        live.publish("t-kv", 7)
        assert live.known_version("t-kv") == 7
        live.publish("t-kv", 8)
        assert live.known_version("t-kv") == 8
        live._set_listening(True)  # a reconnect: notices may have been lost in between
        assert live.known_version("t-kv") is None
        live.publish("t-kv", 9)
        assert live.known_version("t-kv") == 9
        live._set_listening(False)  # no subscription: nothing can be trusted
        assert live.known_version("t-kv") is None
        live.publish("t-kv", 10)  # noted while not listening
        live._set_listening(True)
        assert live.known_version("t-kv") is None
    finally:
        live._epoch, live._listening = saved


def test_a_deck_change_is_logged_renews_the_snapshot_and_is_no_state_change(app):
    """set_deck wakes the pages (a log entry) so every process's snapshot holds the new deck; it
    does not make a play sent from the version before it stale; the same deck logs nothing."""
    host = Player(app)
    tid = host.create("Ana")
    watcher = Player(app)
    v0 = watcher.state(tid)["version"]
    st = watcher.act(tid, "set_deck", deck="noche").get_json()["state"]
    assert st["version"] == v0 + 1 and st["me"]["deck"] == "noche"
    body = host.client.get(f"/api/tables/{tid}?since={v0}").get_json()
    assert [e["type"] for e in body["log"]] == ["set_deck"]
    assert set(body["log"][0]) == {"type", "seat", "version", "game_number", "events", "at"}
    assert body["state"]["me"]["deck"] == "reino"  # the host's own deck did not change
    # a process that never saw the table reads the same decks from the database
    assert _fresh(watcher, f"/api/tables/{tid}")["state"]["me"]["deck"] == "noche"
    assert _fresh(host, f"/api/tables/{tid}")["state"]["me"]["deck"] == "reino"
    # choosing the deck one has changes nothing
    st = watcher.act(tid, "set_deck", deck="noche").get_json()["state"]
    assert st["version"] == v0 + 1
    # the stale check ignores it: a lobby action sent from the version before it is applied
    r = host.act(tid, "set_level", expect=None, robot_level="facil", version=v0)
    assert r.status_code == 200, r.get_json()


def test_a_change_sent_through_redis_makes_the_next_snapshot_where_the_one_before_is_held(
        migrated: str) -> None:
    """The real listener: another process's change (here published to Redis by hand, as that
    process would) gives this process the new snapshot before its pages wake, with no read. A
    change that does not parse is dropped and its notice still wakes the pages."""
    with _app_sending_changes(migrated) as (app, sent):
        host = Player(app)
        tid = host.create("Ana")
        held = snapshot.cached(tid)
        assert held is not None
        version = host.act(tid, "chat", text="hola").get_json()["state"]["version"]
        wire = sent[-1]
        assert wire.startswith(f"{tid} {version} {held.version}\n")
        assert "hola" in wire
        snapshot.forget(tid)
        snapshot.store(tid, held)
        wait_until(live.shared)
        wait_until(lambda: live._listening)
        live._redis.publish(live.CHANNEL, wire)
        wait_until(lambda: (snapshot.cached(tid) or held).version == version)
        made = snapshot.cached(tid)
        assert made is not None and [r.payload.get("text") for r in made.chat][-1:] == ["hola"]
        # Redis delivers in order: once a last notice is heard, neither the action's own
        # message nor this one can still land on the steps below
        last = f"t-{secrets.token_hex(10)}"
        live._redis.publish(live.CHANNEL, f"{last} 1")
        wait_until(lambda: live._seen.get(last) == 1)
        # held a different version: the change is not applied (the next read loads)
        snapshot.forget(tid)
        live._heard(wire)
        assert snapshot.cached(tid) is None
        # a broken change: nothing kept, the version still noted
        snapshot.store(tid, held)
        live._heard(f"{tid} {version + 1} {held.version}\n{{not json")
        assert snapshot.cached(tid) is held
        assert live._seen[tid] == version + 1


def test_the_page_that_made_a_change_travels_with_its_notice(migrated: str) -> None:
    """An action sent with the page's id (``X-Page-Id``) names its device and page in its
    notice, after the version it came from; a process that hears it knows which page made the
    change (its stream leaves it out there) and still applies the change to its snapshot. A
    malformed id names no page; nothing else in the head changes."""
    with _app_sending_changes(migrated) as (app, sent):
        host = Player(app)
        tid = host.create("Ana")
        held = snapshot.cached(tid)
        assert held is not None
        page = "pagina-0123456789"
        r = host.client.post(f"/api/tables/{tid}/actions", json={
            "type": "chat", "text": "hola", "action_id": "a" * 20},
            headers={"X-CSRFToken": host.csrf, "X-Page-Id": page})
        assert r.status_code == 200, r.get_json()
        version = r.get_json()["state"]["version"]
        head = sent[-1].partition("\n")[0].split()
        assert head[:3] == [tid, str(version), str(held.version)]
        origin = head[3]
        assert origin.endswith(f".{page}") and origin.split(".")[0].isdigit()
        assert live.made_by(tid, held.version, version, origin)
        assert not live.made_by(tid, held.version, version, origin + "x")
        assert not live.made_by(tid, held.version - 1, version, origin)  # not its change alone
        # another process hears it: the same answer there, and the snapshot moves on
        live._made.pop(tid, None)
        snapshot.forget(tid)
        snapshot.store(tid, held)
        live._heard(sent[-1])
        assert live.made_by(tid, held.version, version, origin)
        made = snapshot.cached(tid)
        assert made is not None and made.version == version
        # a page id the server does not take: no origin in the head
        r = host.client.post(f"/api/tables/{tid}/actions", json={
            "type": "chat", "text": "otra", "action_id": "b" * 20},
            headers={"X-CSRFToken": host.csrf, "X-Page-Id": "no valgo"})
        assert r.status_code == 200, r.get_json()
        assert len(sent[-1].partition("\n")[0].split()) == 3
        assert not live.made_by(tid, version, version + 1, origin)


def test_robots_passing_at_once_leave_the_snapshot_at_the_tables_version(
        migrated: str, monkeypatch: Any) -> None:
    """Three robots pass at the same moment (three threads of one process, as the robot worker's):
    each action starts from the snapshot the one before it kept, so the process ends holding the
    table's current version without any read. Keeping a snapshot is slowed here so that a thread
    would lock the row between another's commit and its keeping, were they not kept in order."""
    from sqlalchemy import select

    from tables import actions
    from tables.db import db
    from tables.models import Table

    app = make_app(migrated, ROBOT_WORKER="off")
    store = snapshot.store

    def slow_store(table_id: str, snap: snapshot.Snapshot) -> None:
        time.sleep(0.05)
        store(table_id, snap)

    try:
        host = Player(app)
        tid = host.create("Ana")
        for seat in (1, 2, 3):
            host.act(tid, "add_robot", seat=seat)
        host.act(tid, "start")
        before = host.state(tid)["version"]
        held = snapshot.cached(tid)
        assert held is not None and held.version == before
        monkeypatch.setattr(snapshot, "store", slow_store)
        rng = random.Random(3)
        passes = {seat: robots.decide(held.view(seat), "normal", rng) for seat in (1, 2, 3)}
        ready = threading.Barrier(3)
        failed: list[BaseException] = []

        def robot(seat: int) -> None:
            try:
                with app.app_context():
                    ready.wait()
                    actions.perform(tid, None, dict(passes[seat]), robot_seat=seat)
                    db.session.remove()
            except BaseException as e:  # reported below, in the test's thread
                failed.append(e)

        threads = [threading.Thread(target=robot, args=(seat,)) for seat in (1, 2, 3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not failed, failed
        with app.app_context():
            version = db.session.execute(select(Table.version).where(Table.id == tid)).scalar()
            db.session.rollback()
        assert version == before + 3
        kept = snapshot.cached(tid)
        assert kept is not None and kept.version == version
        seen = kept.view(0)
        assert seen is not None and seen["pass_confirmed"][1:] == [True, True, True]
    finally:
        close_app(app)


def test_a_commitment_and_a_reveal_travel_with_their_notices(migrated: str) -> None:
    """The fair deal's entries (a page's commitment, the reveal when the count closes, the next
    hand's commitment) change what every viewer sees of the fair deal: their change carries its
    public half, so another process holding the version before makes the new snapshot without a
    read, and every viewer's state from it equals a fresh read."""
    with _app_sending_changes(migrated) as (app, sent):
        tid, players, spectator = _started_table(app)
        host = players[0]
        rng = random.Random(5)
        kinds: set[str] = set()
        for _ in range(200):
            st = host.state(tid)
            held = snapshot.cached(tid)
            assert held is not None and held.version == st["version"]
            nxt = st["fair_deal"]["next"]
            view = st["view"]
            if nxt is not None and nxt["seats"][0]["commitment"] is None:
                host.act(tid, "deal_seed", game=nxt["game"], hand=nxt["hand"],
                         seed=secrets.token_hex(32))
            elif view["phase"] == "counting":
                host.act(tid, "close_count", version=st["version"])
            else:
                seat = view["to_act"][0]
                mine = players[seat].state(tid)["view"]
                action = robots.decide(mine, "facil", rng)
                players[seat].act(tid, action.pop("type"), version=st["version"], **action)
            wire = sent[-1]
            head, body = wire.split("\n", 1)
            assert head.split()[2] == str(held.version)  # every change went with its notice
            fair = json.loads(body)["fair"]
            if fair is None:
                continue
            kinds |= {r["type"] for r in json.loads(body)["rows"]}
            made = _made_elsewhere(tid, held, [wire], players + [spectator])
            assert made.fair == fair
            if {"seat_commit", "deal_reveal"} <= kinds:
                break
        assert {"seat_commit", "deal_reveal", "deal_commit"} <= kinds, kinds


def test_a_deck_choice_travels_with_its_notice(migrated: str) -> None:
    """A viewer's deck choice carries every viewer's deck: another process holding the version
    before makes the new snapshot without a read, and serves each viewer the deck it chose."""
    with _app_sending_changes(migrated) as (app, sent):
        tid, players, spectator = _started_table(app)
        held = snapshot.cached(tid)
        assert held is not None
        version = spectator.act(tid, "set_deck", deck="noche").get_json()["state"]["version"]
        head, body = sent[-1].split("\n", 1)
        assert head.split()[1:3] == [str(version), str(held.version)]
        decks = json.loads(body)["decks"]
        assert decks is not None and "noche" in [deck for _, deck in decks]
        made = _made_elsewhere(tid, held, [sent[-1]], players + [spectator])
        assert made.decks == {int(device): deck for device, deck in decks}
        assert _cached(spectator, f"/api/tables/{tid}")["state"]["me"]["deck"] == "noche"
        assert _cached(players[1], f"/api/tables/{tid}")["state"]["me"]["deck"] != "noche"


def test_a_time_up_and_a_moved_seat_travel_with_their_notices(migrated: str) -> None:
    """The clock's time-ups (the scheduler's, outside the action path) and a seat moved to
    another device by its link carry their changes too: another process holding the version
    before makes the new snapshot from them, and every viewer's state from it is a fresh read."""
    now = [utcnow().replace(microsecond=0)]
    with _app_sending_changes(migrated, CLOCK_NOW=lambda: now[0]) as (app, sent):
        tid, players, spectator = _started_table(app)
        held = snapshot.cached(tid)
        assert held is not None
        now[0] += timedelta(days=2)  # every seat's passing decision expires
        sent.clear()
        with app.app_context():
            try:
                assert clock.run_once() >= 4
            finally:
                db.session.remove()
        ups = [w for w in sent if w.startswith(f"{tid} ")]  # (other tests' tables expire too)
        assert [json.loads(w.split("\n", 1)[1])["rows"][0]["type"] for w in ups] \
            == ["time_up"] * 4
        mine = snapshot.cached(tid)  # the process of the time-ups kept its own snapshot
        made = _made_elsewhere(tid, held, ups, players + [spectator])
        assert mine is not None and mine.version == made.version
        assert all(made.clock[seat].time_up_version is not None for seat in range(4))

        held, phone = made, Player(app)
        link = players[1].state(tid)["me"]["seat_link"]
        assert phone.client.post(link, data={"csrf_token": phone.csrf}).status_code == 302
        head = sent[-1].split("\n", 1)[0].split()
        assert head[2] == str(held.version)
        made = _made_elsewhere(tid, held, [sent[-1]], players + [spectator, phone])
        assert made.seats[1].device_id != held.seats[1].device_id
        assert phone.state(tid)["me"]["seat"] == 1 and players[1].state(tid)["me"]["seat"] is None


def test_a_notice_leaves_out_the_seats_and_clock_rows_the_snapshot_before_holds(
        migrated: str) -> None:
    """A pass moves the game and the passer's clock row: the notice carries those, and leaves
    the seats and the other clock rows to the snapshot of the version before, which the process
    that applies it holds; the snapshot it makes shows every viewer a fresh read."""
    with _app_sending_changes(migrated) as (app, sent):
        tid, players, spectator = _started_table(app)
        held = snapshot.cached(tid)
        assert held is not None and held.clock
        sent.clear()
        view = players[2].state(tid)["view"]
        action = robots.decide(view, "facil", random.Random(4))
        players[2].act(tid, action.pop("type"), version=held.version, **action)
        wire = next(w for w in sent if w.startswith(f"{tid} "))
        body = json.loads(wire.split("\n", 1)[1])
        assert body["seats"] is None
        assert body["clock_part"] and [seat for seat, _ in body["clock"][1]] == [2]
        made = _made_elsewhere(tid, held, [wire], players + [spectator])
        assert made.seats is held.seats
        assert {s: vars(r) for s, r in made.clock.items() if s != 2} \
            == {s: vars(r) for s, r in held.clock.items() if s != 2}
        assert vars(made.clock[2]) != vars(held.clock[2])
