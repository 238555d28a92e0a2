"""Against real server processes and the real database: races, restarts, several processes."""

from __future__ import annotations

import os
import random
import secrets
import signal
import threading
import time
from typing import Any

import pytest
import sqlalchemy as sa

import robots
from rules import Game, Options
from tests.kit import HttpPlayer, wait_until

pytestmark = pytest.mark.db


def new_table(base: str, **fields: Any) -> tuple[str, HttpPlayer]:
    host = HttpPlayer(base)
    body = {"host_name": "Ana", "target": 50, "renege": "impedido"}
    body.update(fields)
    r = host.post("/api/tables", body)
    assert r.status_code == 201, r.text
    return str(r.json()["table_id"]), host


def race(calls: list[Any]) -> list[Any]:
    """Run the calls at the same moment from as many threads; their results in call order."""
    barrier = threading.Barrier(len(calls))
    out: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        barrier.wait()
        out[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def replay_matches_snapshot(database_url: str, tid: str) -> Game:
    """The log is the truth: replaying its rules actions gives exactly the stored snapshot."""
    engine = sa.create_engine(database_url)
    try:
        with engine.connect() as conn:
            t = conn.execute(sa.text("SELECT target, renege, game_number, game_json FROM tables "
                                     "WHERE id = :id"), {"id": tid}).one()
            rows = conn.execute(sa.text(
                "SELECT type, payload FROM actions WHERE table_id = :id AND game_number = :g "
                "ORDER BY version"), {"id": tid, "g": t.game_number}).all()
    finally:
        engine.dispose()
    import json

    kinds = {"deal", "choose_pass", "confirm_pass", "play", "accuse", "close_count"}
    payloads = [json.loads(p) if isinstance(p, str) else p for k, p in rows if k in kinds]
    game = Game.replay(Options(target=t.target, renege=t.renege), payloads)
    snap = json.loads(t.game_json) if isinstance(t.game_json, str) else t.game_json
    assert game == Game.from_json(snap)
    return game


def test_eight_visitors_claim_the_last_seat(shared_server):
    srv = shared_server
    tid, host = new_table(srv.url)
    host.act(tid, "add_robot", seat=1)
    host.act(tid, "add_robot", seat=2)
    visitors = [HttpPlayer(srv.url) for _ in range(8)]
    results = race([lambda v=v, i=i: v.act(tid, "sit", name=f"Visita {i}")
                    for i, v in enumerate(visitors)])
    codes = sorted(r.status_code for r in results)
    assert codes == [200] + [409] * 7, (codes, srv.stderr()[-3000:])
    assert all(r.json()["error"] == "table_full" for r in results if r.status_code == 409)
    seated = [v for v in visitors if v.state(tid)["me"]["seat"] == 3]
    assert len(seated) == 1
    assert host.state(tid)["table"]["seats"][3]["kind"] == "human"


def test_same_action_id_twice_at_once_is_applied_once(shared_server):
    srv = shared_server
    tid, host = new_table(srv.url)
    aid = secrets.token_hex(8)
    results = race([lambda: host.act(tid, "chat", text="una vez", action_id=aid)] * 2)
    assert [r.status_code for r in results] == [200, 200]
    assert results[0].json()["state"]["version"] == results[1].json()["state"]["version"]
    chat = host.state(tid)["chat"]
    assert [m["text"] for m in chat].count("una vez") == 1


def test_one_browsers_first_writes_at_once_make_one_device(shared_server, migrated):
    """Two taps or two tabs of a browser that has its cookie but no row yet: every request
    answers, and they all belong to the one device row written for that cookie."""
    import hashlib

    srv = shared_server
    browser = HttpPlayer(srv.url)  # the cookie, no row yet
    body = {"host_name": "Ana", "target": 50, "renege": "impedido"}
    results = race([lambda: browser.post("/api/tables", body)] * 6)
    assert [r.status_code for r in results] == [201] * 6, [r.text[:200] for r in results]
    for r in results:  # the host of each table is this browser
        assert browser.state(r.json()["table_id"])["me"]["seat"] == 0
    token = browser.s.cookies.get("corazones_device")
    assert token
    engine = sa.create_engine(migrated)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT count(*) FROM devices WHERE token_hash = :h"),
                                {"h": hashlib.sha256(token.encode()).hexdigest()}).scalar()
    finally:
        engine.dispose()
    assert rows == 1


def play_to(players: list[HttpPlayer], tid: str, rng: random.Random, stop: Any) -> dict[str, Any]:
    """Play robot choices through the four human seats until ``stop(view)``."""
    for _ in range(400):
        view = players[0].state(tid)["view"]
        if stop(view):
            return dict(view)
        seat = view["to_act"][0]
        mine = players[seat].state(tid)["view"]
        action = robots.decide(mine, "facil", rng)
        r = players[seat].act(tid, action.pop("type"), **action)
        assert r.status_code == 200, r.text
    raise AssertionError("did not reach the wanted position")


def test_accusation_racing_the_last_card_and_two_taps_of_next_hand(shared_server, migrated):
    srv = shared_server
    tid, host = new_table(srv.url, renege="permitido")
    players = [host] + [HttpPlayer(srv.url) for _ in range(3)]
    for i, p in enumerate(players[1:], 1):
        assert p.act(tid, "sit", name=f"P{i}").status_code == 200
    host.act(tid, "start")
    rng = random.Random(5)
    view = play_to(players, tid, rng,
                   lambda v: v["phase"] == "playing" and sum(v["cards_left"]) == 1)
    last = view["turn"]
    accuser = (last + 1) % 4
    card = players[last].state(tid)["view"]["hand"][0]
    play_r, accuse_r = race([
        lambda: players[last].act(tid, "play", card=card),
        lambda: players[accuser].act(tid, "accuse", accused=last),
    ])
    assert accuse_r.status_code == 200, accuse_r.text
    assert play_r.status_code in (200, 409), play_r.text
    if play_r.status_code == 409:
        assert play_r.json()["error"] == "wrong_phase"
    view = host.state(tid)["view"]
    assert view["phase"] == "counting"
    result = view["hand_result"]
    assert result["accusation"]["accuser"] == accuser and result["accusation"]["accused"] == last
    assert sorted(result["scores"]) == [0, 0, 0, 26]
    assert view["cards_left"] == [0, 0, 0, 0] if play_r.status_code == 200 else [0, 0, 0, 1]
    replay_matches_snapshot(migrated, tid)
    # two taps of SIGUIENTE MANO at once start one hand
    version = host.state(tid)["version"]
    taps = race([lambda: players[0].act(tid, "close_count", version=version),
                 lambda: players[2].act(tid, "close_count", version=version)])
    assert sorted(r.status_code for r in taps) == [200, 409]
    view = host.state(tid)["view"]
    assert view["hand_number"] == 2 and len(view["history"]) == 1
    game = replay_matches_snapshot(migrated, tid)
    assert game.hand_number == 2


def test_sigkill_mid_game_loses_nothing_and_robots_resume(server_factory, migrated):
    slow = server_factory(ROBOT_DELAY="6")
    tid, host = new_table(slow.url)
    for seat in (1, 2, 3):
        host.act(tid, "add_robot", seat=seat)
    assert host.act(tid, "start").status_code == 200
    hand = host.state(tid)["view"]["hand"]
    acked = []
    for i in range(3):
        r = host.act(tid, "chat", text=f"mensaje {i}")
        assert r.status_code == 200
        acked.append(r.json()["state"]["version"])
    r = host.act(tid, "confirm_pass", cards=hand[:3])
    assert r.status_code == 200
    acked.append(r.json()["state"]["version"])
    assert r.json()["state"]["view"]["pass_confirmed"][1:] != [True, True, True]
    assert slow.proc is not None
    os.kill(slow.proc.pid, signal.SIGKILL)
    slow.proc.wait(timeout=10)

    fresh = server_factory()
    again = HttpPlayer(fresh.url)
    again.s.cookies.update(host.s.cookies)  # the same browser comes back
    st = again.state(tid)
    assert st["me"]["seat"] == 0 and st["version"] >= max(acked)
    assert [m["text"] for m in st["chat"]][-3:] == ["mensaje 0", "mensaje 1", "mensaje 2"]
    assert st["view"]["pass_confirmed"][0] and st["view"]["passed"] == sorted(
        hand[:3], key=hand.index)
    # the robots whose turn it was now play, with no page asking
    st = wait_until(lambda: _robots_done(again.state(tid)), 45)
    assert st["view"]["phase"] == "playing" and 0 in st["view"]["to_act"]
    replay_matches_snapshot(migrated, tid)


def _robots_done(state: dict[str, Any]) -> dict[str, Any] | None:
    v = state["view"]
    if v["phase"] == "playing" and v["to_act"] == [0]:
        return state
    return None


def test_several_processes_share_live_updates_and_rate_limits(server_factory):
    # the database re-check and the time-out outlast the test: only a notice ends A's poll
    env = {"REDIS_URL": "redis://127.0.0.1:6379/0", "POLL_RECHECK": "600", "POLL_TIMEOUT": "600",
           "RATELIMIT_CREATE": "4 per minute", "RATELIMIT_KEY_PREFIX": "t" + secrets.token_hex(6)}
    a = server_factory(**env)
    b = server_factory(**env)
    tid, host = new_table(b.url)
    watcher = HttpPlayer(a.url)
    for i in range(8):
        version = watcher.state(tid)["version"]
        box: dict[str, Any] = {}

        def poll(version: int = version, box: dict[str, Any] = box) -> None:
            r = watcher.s.get(f"{a.url}/api/tables/{tid}/poll?since={version}", timeout=120)
            box["body"] = r.json()

        th = threading.Thread(target=poll)
        th.start()
        # A's wait is in another process, out of sight: this pause lets the request get there
        # first. A poll that comes late answers at once (the round proves less, never fails).
        time.sleep(0.15)
        assert host.act(tid, "chat", text=f"hola {i}").status_code == 200
        th.join(timeout=60)
        assert not th.is_alive(), "server A never heard of the change made on server B"
        assert box["body"]["log"][-1]["text"] == f"hola {i}"
    # table creation is limited across both processes: 4 per minute in all (1 made above)
    codes = [HttpPlayer(srv.url).post("/api/tables", {"host_name": "Ana"}).status_code
             for srv in (a, b, a, b)]
    assert codes == [201, 201, 201, 429]


def test_a_stream_hears_each_change_made_in_another_process(server_factory):
    """Only Redis's notices can wake server A's stream (its database re-reads outlast the test),
    through many heartbeats of a quiet table; every change made on server B arrives, in order."""
    import json

    env = {"REDIS_URL": "redis://127.0.0.1:6379/0", "POLL_RECHECK": "600",
           "STREAM_RECHECK": "600", "STREAM_HEARTBEAT": "0.2", "STREAM_MAX": "600",
           "RATELIMIT_KEY_PREFIX": "t" + secrets.token_hex(6)}
    a = server_factory(**env)
    b = server_factory(**env)
    tid, host = new_table(b.url)
    watcher = HttpPlayer(a.url)
    version = watcher.state(tid)["version"]
    r = watcher.s.get(f"{a.url}/api/tables/{tid}/stream", params={"since": version},
                      stream=True, timeout=(5, 60))
    lines = r.iter_lines(chunk_size=1, decode_unicode=True)
    heard: list[str] = []
    pings = 0
    event = ""
    for i in range(5):
        time.sleep(0.5)  # a quiet table: heartbeats go by
        assert host.act(tid, "chat", text=f"hola {i}").status_code == 200
        for line in lines:
            if line.startswith(":"):
                pings += 1
            elif line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:") and event == "state":
                heard += [e["text"] for e in json.loads(line[5:])["log"] if e["type"] == "chat"]
                break
    r.close()
    assert heard == [f"hola {i}" for i in range(5)]
    assert pings >= 5
