"""The fair deal at a table (docs/FAIR_DEAL.md): commitments out before each deal, a page's seed
used for its own seat, the server shuffling for silent and robot seats, seeds revealed only when
the count closes, every hand's record verified by ``rules.deal`` (and its command line), refusals
that change nothing, retries, and a restart between a commitment and its deal."""

from __future__ import annotations

import json
import random
import secrets
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
import requests

import robots
from rules.deal import commit, derive_deck, server_seat_seed, table_reference, verify
from tables import snapshot
from tables.db import db, write_transaction
from tables.maintenance import expire_idle_tables
from tables.models import Action, DealSeeds, Table
from tests.kit import ROOT, HttpPlayer, Player, close_app, error, lobby, make_app, wait_until

pytestmark = pytest.mark.db


def log_rows(app: Any, tid: str, *types: str) -> list[Action]:
    with app.app_context():
        q = db.session.query(Action).filter(Action.table_id == tid)
        if types:
            q = q.filter(Action.type.in_(types))
        rows = q.order_by(Action.version).all()
        db.session.expunge_all()
        db.session.rollback()
        return rows


def seeds_row(app: Any, tid: str, game: int, hand: int) -> DealSeeds | None:
    with app.app_context():
        row = db.session.query(DealSeeds).filter_by(table_id=tid, game=game, hand=hand) \
            .one_or_none()
        db.session.expunge_all()
        db.session.rollback()
        return row


def table_version(app: Any, tid: str) -> int:
    with app.app_context():
        t = db.session.get(Table, tid)
        assert t is not None
        v = int(t.version)
        db.session.rollback()
        return v


def send_seed(p: Player, tid: str, seeds: dict[tuple[int, int], str]) -> bool:
    """What the page does: its own seed for the pending hand, once (kept like localStorage)."""
    st = p.state(tid)
    nxt, seat = st["fair_deal"]["next"], st["me"]["seat"]
    if nxt is None or nxt["seats"][seat]["commitment"] is not None:
        return False
    seed = secrets.token_hex(32)
    seeds[(nxt["game"], nxt["hand"])] = seed
    p.act(tid, "deal_seed", game=nxt["game"], hand=nxt["hand"], seed=seed)
    return True


def play_out(players: list[Player], tid: str, rng: random.Random,
             seeds: dict[tuple[int, int], str], checks: Any = None) -> dict[str, Any]:
    """Play the game to its end with robot choices for the people; seat 0's page sends a seed for
    every hand as soon as it can (the other people's pages never do)."""
    for _ in range(3000):
        send_seed(players[0], tid, seeds)

        def someone() -> tuple[int, dict[str, Any]] | None:
            for i, p in enumerate(players):
                st = p.state(tid)
                v = st["view"]
                if v["phase"] in ("game_over", "counting") or i in v["to_act"]:
                    return i, st
            return None

        i, st = wait_until(someone, 30)
        v = st["view"]
        if v["phase"] == "game_over":
            return st
        if checks is not None:
            checks(st)
        if v["phase"] == "counting":
            players[i].act(tid, "close_count")
        else:
            action = robots.decide(v, "facil", rng)
            players[i].act(tid, action.pop("type"), **action)
    raise AssertionError("the game did not end")


def test_a_whole_game_every_hand_verifies(app: Any, tmp_path: Path) -> None:
    tid, players = lobby(app, humans=2, target=50)  # Ana and Jugador 1, two robots
    ref = table_reference(tid)
    ana = players[0]
    st = ana.state(tid)
    fair = st["fair_deal"]
    # The lobby: the first hand's server commitment is out; no seat has one yet.
    assert fair["table"] == ref and tid not in json.dumps(fair)
    assert fair["next"]["game"] == 1 and fair["next"]["hand"] == 1
    assert [s["commitment"] for s in fair["next"]["seats"]] == [None] * 4
    assert fair["revealed"] == []
    seeds: dict[tuple[int, int], str] = {}
    assert send_seed(ana, tid, seeds)
    nxt = ana.state(tid)["fair_deal"]["next"]
    assert nxt["seats"][0] == {"seat": 0, "by": "player", "commitment": commit(
        bytes.fromhex(seeds[(1, 1)]), ref, 1, 1, 0)}
    assert not send_seed(ana, tid, seeds)  # once per seat and hand
    ana.act(tid, "start")

    hands_seen: list[int] = []

    def during(st: dict[str, Any]) -> None:
        h = st["view"]["hand_number"]
        if h not in hands_seen:  # the hand in play is not revealed, nor the next one
            hands_seen.append(h)
            for n in (h, h + 1):
                r = players[1].client.get(f"/api/tables/{tid}/deals/1/{n}")
                error(r, 404, "deal_not_revealed")
            assert st["fair_deal"]["revealed"] == [
                {"game": 1, "hand": n, "url": f"/api/tables/{tid}/deals/1/{n}"}
                for n in range(1, h)]

    final = play_out(players, tid, random.Random(3), seeds, during)
    hands = len(final["view"]["history"])
    assert hands >= 2 and hands_seen == list(range(1, hands + 1))
    # Game over: the rematch's commitment is out, the unused next hand's is void.
    assert final["fair_deal"]["next"]["game"] == 2 and final["fair_deal"]["next"]["hand"] == 1
    assert seeds_row(app, tid, 1, hands + 1) is None

    deals = [r for r in log_rows(app, tid, "deal") if r.game_number == 1]
    assert len(deals) == hands
    spectator = Player(app)
    records = []
    for h in range(1, hands + 1):
        r = spectator.client.get(f"/api/tables/{tid}/deals/1/{h}")
        assert r.status_code == 200, r.get_json()
        record = r.get_json()
        records.append(record)
        assert verify(record) == []
        assert record["table"] == ref and (record["game"], record["hand"]) == (1, h)
        assert record["deck"] == deals[h - 1].payload["deck"]  # the deck that was played
        by = {s["seat"]: s for s in record["seats"]}
        assert by[0]["by"] == "player" and by[0]["seed"] == seeds[(1, h)]
        assert [by[s]["by"] for s in (1, 2, 3)] == ["server"] * 3
        server = bytes.fromhex(record["server"]["seed"])
        assert by[1]["seed"] == server_seat_seed(server, ref, 1, h, 1).hex()
        seat_seeds = [bytes.fromhex(by[s]["seed"]) for s in range(4)]
        assert record["deck"] == derive_deck(server, seat_seeds, ref, 1, h)
        assert tid not in json.dumps(record)

    # The log: the server's commitment, then the seats', then the deal; the reveal right after
    # the count closed.
    rows = [r for r in log_rows(app, tid, "deal_commit", "seat_commit", "deal", "close_count",
                                "deal_reveal")]
    for h, record in enumerate(records, 1):
        stamps = {"server": record["server"]["published"]["version"],
                  "deal": record["deal"]["version"], "closed": record["closed"]["version"],
                  "revealed": record["revealed"]["version"]}
        kinds = {r.version: r for r in rows}
        assert kinds[stamps["server"]].type == "deal_commit"
        assert kinds[stamps["server"]].payload["commitment"] == record["server"]["commitment"]
        assert kinds[stamps["deal"]].type == "deal"
        assert kinds[stamps["closed"]].type == "close_count"
        assert kinds[stamps["revealed"]].type == "deal_reveal"
        assert stamps["revealed"] == stamps["closed"] + 1
        for s in record["seats"]:
            entry = kinds[s["published"]["version"]]
            assert entry.type == "seat_commit" and entry.payload["commitment"] == s["commitment"]
            assert "seed" not in entry.payload
            assert stamps["server"] < s["published"]["version"] < stamps["deal"]
        if h > 1:  # published in the transaction that dealt the hand before
            assert stamps["server"] == records[h - 2]["deal"]["version"] + 1

    # A client's action id names one entry per type (the server's own entries carry none).
    ids = [(r.action_id, r.type) for r in log_rows(app, tid) if r.action_id is not None]
    assert len(ids) == len(set(ids))
    assert all(r.action_id is None for r in rows if r.type in ("deal_commit", "deal_reveal")
               or r.payload.get("by") == "server")

    # The game's record: each hand's deal record and who shuffled.
    game = ana.client.get(f"/api/tables/{tid}/games/1").get_json()
    for h, hand in enumerate(game["hands"], 1):
        assert hand["fair_deal"]["record"] == records[h - 1]
        assert [s["label"] for s in hand["fair_deal"]["shuffled_by"]] == [
            "Ana", "el servidor por Jugador 1", "el servidor", "el servidor"]

    # Outside the site: the command line says so.
    path = tmp_path / "reparto.json"
    path.write_text(json.dumps(records[-1]), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "rules.deal", "verify", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "reparto verificado", out
    tampered = dict(records[-1], deck=records[-1]["deck"][::-1])
    path.write_text(json.dumps(tampered), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "rules.deal", "verify", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "Mazo: la carta 1" in out.stdout

    # The rematch deals from the commitment published at game over, with Ana's seed (her page
    # sent it during the end scene).
    send_seed(ana, tid, seeds)
    assert (2, 1) in seeds
    for p in players:
        p.act(tid, "rematch")
    assert ana.state(tid)["table"]["game_number"] == 2
    row = seeds_row(app, tid, 2, 1)
    assert row is not None and row.dealt and row.seat_seeds[0] == seeds[(2, 1)]
    assert row.by == ["player", "server", "server", "server"]

    # The table expires: its seeds go with it; a finished game's deals stay readable.
    with app.app_context():
        def age_and_expire() -> int:
            with write_transaction():  # the robots play game 2 meanwhile: queue as writers do
                t = db.session.get(Table, tid)
                assert t is not None
                t.updated_at = t.updated_at.replace(year=2000)
            return expire_idle_tables(30)  # 0 when a robot's move came in between: again

        assert wait_until(lambda: age_and_expire() >= 1, 20, 0.0)
        assert db.session.query(DealSeeds).filter_by(table_id=tid).count() == 0
        db.session.rollback()
    for h, record in enumerate(records, 1):
        assert spectator.client.get(f"/api/tables/{tid}/deals/1/{h}").get_json() == record
    error(spectator.client.get(f"/api/tables/{tid}/deals/2/1"), 404, "deal_not_revealed")


def test_refusals_change_nothing_and_retries_answer_the_same(app: Any) -> None:
    tid, players = lobby(app, humans=2, robots_=0)
    ana, bea = players
    watcher = Player(app)
    good = secrets.token_hex(32)
    before = table_version(app, tid)
    bad_bodies: list[dict[str, Any]] = [
        {"game": 1, "hand": 1, "seed": good.upper()},
        {"game": 1, "hand": 1, "seed": good[:-1]},
        {"game": 1, "hand": 1, "seed": good + "0"},
        {"game": 1, "hand": 1, "seed": int("1" * 20)},
        {"game": 1, "hand": 1},
        {"game": "1", "hand": 1, "seed": good},
        {"game": 1, "hand": 0, "seed": good},
        {"game": 1, "hand": True, "seed": good},
        {"game": 1, "hand": 2**40, "seed": good},
    ]
    for body in bad_bodies:
        body_err = error(ana.act(tid, "deal_seed", expect=None, **body), 400, "bad_seed")
        assert "64 cifras hexadecimales" in body_err["message"]
    error(watcher.act(tid, "deal_seed", expect=None, game=1, hand=1, seed=good), 403,
          "not_seated")
    error(ana.act(tid, "deal_seed", expect=None, game=1, hand=2, seed=good), 409,
          "seed_too_early")
    assert table_version(app, tid) == before
    row = seeds_row(app, tid, 1, 1)
    assert row is not None and row.seat_seeds == [None] * 4

    # A retry of the same request answers the same and changes nothing more.
    body = {"type": "deal_seed", "action_id": uuid.uuid4().hex, "game": 1, "hand": 1,
            "seed": good}
    first = ana.post(f"/api/tables/{tid}/actions", body)
    assert first.status_code == 200
    again = ana.post(f"/api/tables/{tid}/actions", body)
    assert again.status_code == 200
    a, b = again.get_json(), first.get_json()  # (the clock's «now» in the state moves on)
    assert a["log"] == b["log"] and [e["type"] for e in a["log"]] == ["seat_commit"]
    assert a["state"]["version"] == b["state"]["version"]
    assert a["state"]["fair_deal"] == b["state"]["fair_deal"]
    assert len([r for r in log_rows(app, tid, "seat_commit")]) == 1
    # The same id with another seed, or another request for the same hand: refused.
    error(ana.post(f"/api/tables/{tid}/actions", {**body, "seed": secrets.token_hex(32)}), 409,
          "action_id_reused")
    sent = error(ana.act(tid, "deal_seed", expect=None, game=1, hand=1,
                         seed=secrets.token_hex(32)), 409, "seed_already_sent")
    assert sent["message"] == "Ya mandaste tu semilla para esta mano"
    row = seeds_row(app, tid, 1, 1)
    assert row is not None and row.seat_seeds == [good, None, None, None]
    assert good not in first.get_data(as_text=True)

    # A seed from the lobby does not make another person's decision stale.
    version = bea.state(tid)["version"]
    bea.act(tid, "deal_seed", game=1, hand=1, seed=secrets.token_hex(32))
    ana.act(tid, "add_robot", seat=2, version=version)

    # Once dealt, a seed for that hand comes too late (and changes nothing).
    ana.act(tid, "add_robot", seat=3)
    ana.act(tid, "start")
    commits = len(log_rows(app, tid, "seat_commit"))  # (the robots pass meanwhile)
    late = error(bea.act(tid, "deal_seed", expect=None, game=1, hand=1,
                         seed=secrets.token_hex(32)), 409, "seed_too_late")
    assert late["message"] == "Esa mano ya se repartió"
    assert len(log_rows(app, tid, "seat_commit")) == commits
    row = seeds_row(app, tid, 1, 1)
    assert row is not None and row.dealt and row.by == ["player", "player", "server", "server"]
    deal = log_rows(app, tid, "deal")[-1]
    ref = table_reference(tid)
    assert deal.payload["deck"] == derive_deck(
        bytes.fromhex(row.server_seed), [bytes.fromhex(s) for s in row.seat_seeds], ref, 1, 1)
    # The deal record is not out while the hand is played.
    error(watcher.client.get(f"/api/tables/{tid}/deals/1/1"), 404, "deal_not_revealed")
    error(watcher.client.get(f"/api/tables/{tid}/deals/x/1"), 404, "deal_not_revealed")
    error(watcher.client.get(f"/api/tables/{'n' * 30}/deals/1/1"), 404, "not_found")


def test_accused_hand_is_revealed_only_when_its_count_closes(app: Any) -> None:
    """Permitido: a renege, an accusation that ends the hand, and still no seed until the count
    is closed (knowing the deal would make any accusation risk-free)."""
    tid, players = lobby(app, humans=4, renege="permitido")
    players[0].act(tid, "start")
    rng = random.Random(5)
    accused = None
    for _ in range(400):
        states = [p.state(tid) for p in players]
        v = states[0]["view"]
        if v["phase"] == "counting":
            break
        seat = v["to_act"][0] if v["phase"] == "playing" else rng.choice(v["to_act"])
        mine = states[seat]["view"]
        if accused is not None and mine.get("can_accuse"):
            players[seat].act(tid, "accuse", accused=accused)
            continue
        if v["phase"] == "playing" and mine["renege_cards"] and accused is None:
            players[seat].act(tid, "play", card=mine["renege_cards"][0])
            accused = seat
            continue
        action = robots.decide(mine, "facil", rng)
        players[seat].act(tid, action.pop("type"), **action)
    view = players[0].state(tid)["view"]
    assert view["phase"] == "counting" and view["hand_number"] == 1
    assert log_rows(app, tid, "accuse"), "the test meant to accuse"
    assert log_rows(app, tid, "deal_reveal") == []
    error(players[1].client.get(f"/api/tables/{tid}/deals/1/1"), 404, "deal_not_revealed")
    players[2].act(tid, "close_count")
    reveal = log_rows(app, tid, "deal_reveal")
    assert len(reveal) == 1 and reveal[0].payload["hand"] == 1
    record = players[1].client.get(f"/api/tables/{tid}/deals/1/1").get_json()
    assert verify(record) == [] and record["revealed"]["version"] == reveal[0].version


def test_a_restart_between_commitment_and_deal_keeps_the_seeds(migrated: str) -> None:
    """The seeds live in the database, written with their commitments: a new app (a restarted
    or another web process) deals from the very same ones."""
    first = make_app(migrated)
    try:
        tid, players = lobby(first, humans=2, robots_=2)
        seed = secrets.token_hex(32)
        players[1].act(tid, "deal_seed", game=1, hand=1, seed=seed)
        pending = seeds_row(first, tid, 1, 1)
        assert pending is not None
        cookies = [p.client.get_cookie("corazones_device") for p in players]
    finally:
        close_app(first)
    snapshot.forget()  # nothing kept in memory either: a fresh process
    second = make_app(migrated)
    try:
        host = Player(second)
        assert cookies[0] is not None
        host.client.set_cookie(cookies[0].key, cookies[0].value)
        host.act(tid, "start")
        row = seeds_row(second, tid, 1, 1)
        assert row is not None and row.dealt
        assert row.server_seed == pending.server_seed
        assert row.seat_seeds[1] == seed and row.by[1] == "player"
        deal = log_rows(second, tid, "deal")[-1]
        ref = table_reference(tid)
        assert deal.payload["deck"] == derive_deck(
            bytes.fromhex(row.server_seed), [bytes.fromhex(s) for s in row.seat_seeds],
            ref, 1, 1)
    finally:
        close_app(second)


def test_two_web_processes_deal_and_reveal_the_same_seeds(server_factory: Any) -> None:
    """Seeds sent to one process, the deal made by another, the record read from the first:
    one hand, four people, every request alternating between the two processes."""
    a, b = server_factory(ROBOT_WORKER="off"), server_factory(ROBOT_WORKER="off")
    host = HttpPlayer(a.url)
    r = host.post("/api/tables", {"host_name": "Ana", "target": 50})
    assert r.status_code == 201, r.text
    tid = r.json()["table_id"]
    people = [host]
    for i in range(1, 4):
        p = HttpPlayer(a.url)
        assert p.act(tid, "sit", name=f"P{i}").status_code == 200
        people.append(p)
    for p in people:  # each person's requests go to the other process from now on
        p.base = b.url if p.base == a.url else a.url
    seeds = {}
    for seat in (0, 2):
        seeds[seat] = secrets.token_hex(32)
        r = people[seat].act(tid, "deal_seed", game=1, hand=1, seed=seeds[seat])
        assert r.status_code == 200, r.text
    fair = people[1].state(tid)["fair_deal"]
    assert [s["by"] for s in fair["next"]["seats"]] == ["player", None, "player", None]
    assert host.act(tid, "start").status_code == 200
    rng = random.Random(9)
    for _ in range(200):
        states = [p.state(tid) for p in people]
        v = states[0]["view"]
        if v["phase"] == "counting":
            break
        seat = v["to_act"][0]
        action = robots.decide(states[seat]["view"], "facil", rng)
        kind = action.pop("type")
        assert people[seat].act(tid, kind, **action).status_code == 200
        people[seat].base = b.url if people[seat].base == a.url else a.url
    assert people[1].state(tid)["view"]["phase"] == "counting"
    early = requests.get(f"{a.url}/api/tables/{tid}/deals/1/1", timeout=60)
    assert early.status_code == 404 and early.json()["error"] == "deal_not_revealed"
    assert people[3].act(tid, "close_count").status_code == 200
    for server in (a, b):
        record = requests.get(f"{server.url}/api/tables/{tid}/deals/1/1", timeout=60).json()
        assert verify(record) == []
        by = {s["seat"]: s for s in record["seats"]}
        assert [by[s]["by"] for s in range(4)] == ["player", "server", "player", "server"]
        assert by[0]["seed"] == seeds[0] and by[2]["seed"] == seeds[2]


def test_the_public_half_an_action_makes_is_the_one_a_read_gives(
        app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """An action that publishes or reveals makes the fair deal's public half from the half before
    it and the seed rows it holds (``public_info_after``), with no query: at every turn of a whole
    game, its game over and the rematch's first hand, what the page gets is what reading the
    rows gives."""
    from tables import fair_deal
    from tables.db import reading

    made: list[bool] = []
    after = fair_deal.public_info_after

    def counted(ctx: Any, before: Any) -> Any:
        out = after(ctx, before)
        made.append(out is not None)
        return out

    monkeypatch.setattr(fair_deal, "public_info_after", counted)
    tid, players = lobby(app, humans=4, target=50)  # nobody acts but the test's pages
    seeds: dict[tuple[int, int], str] = {}
    compared = 0

    def same_as_read(st: dict[str, Any]) -> None:
        nonlocal compared
        with app.app_context(), reading() as conn:
            read = fair_deal.public_info(conn, tid, int(st["table"]["game_number"]))
        assert st["fair_deal"] == read, (st["version"], st["fair_deal"], read)
        compared += 1

    send_seed(players[0], tid, seeds)
    players[0].act(tid, "start")
    final = play_out(players, tid, random.Random(5), seeds, same_as_read)
    same_as_read(final)  # game over: the unused hand's seeds dropped, the rematch's published
    send_seed(players[0], tid, seeds)
    for p in players:
        p.act(tid, "rematch")
    st = players[0].state(tid)
    assert st["table"]["game_number"] == 2
    same_as_read(st)
    hands = len(final["view"]["history"])
    assert compared > 52 * hands
    # Each hand: the seat seed's commitment, and its close (reveal, deal, next commitment) made
    # without a read; only the game over (its unused seeds deleted) reads.
    assert made.count(True) >= 2 * hands and made.count(False) <= 1, made
