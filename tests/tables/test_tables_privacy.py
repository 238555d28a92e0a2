"""Whole games played by robot choices through four human seats, with every response every seat
and a spectator receives scanned for a card its viewer may not see (both renege modes), and for
any seed of the fair deal not revealed yet (seats 0 and 2 send their pages' seeds, 1 and 3 let
the server shuffle for them)."""

from __future__ import annotations

import random
import re
import secrets
from typing import Any

import pytest

import robots
from rules import Game
from tables.db import db
from tables.models import DealSeeds, Table
from tests.kit import Player

# Privacy is the service's logic, not the database's: this runs once, on SQLite.

CARD = re.compile(r"^(10|[2-9TJQKA])[CDHS]$")


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


def hidden_for(game: Game, seat: int | None) -> set[str]:
    data = game.to_json()
    hidden: set[str] = set()
    for s in range(4):
        if s != seat:
            hidden |= set(data["hands"][s])
    if seat is not None:
        hidden -= set(data["pass_sel"][seat])
    return hidden


def server_game(app: Any, tid: str) -> Game:
    with app.app_context():
        t = db.session.get(Table, tid)
        assert t is not None and t.game_json
        g = Game.from_json(t.game_json)
        db.session.rollback()
        return g


def scan(app: Any, tid: str, seat: int | None, body: Any, public: set[str],
         game: Game | None = None) -> int:
    """Check one response for ``seat`` (None: spectator).

    The state must hold no card of another seat's current hand (minus what this seat passed). The
    log entries may only name cards already played in public, or this seat's own pass.
    """
    state = body.get("state")
    seen: set[str] = set()
    if state is not None:
        current = dict(state)
        if current.get("view"):
            current["view"] = {k: v for k, v in current["view"].items() if k != "history"}
        seen = cards_in(current, set())
        leaked = seen & hidden_for(game or server_game(app, tid), seat)
        assert not leaked, f"viewer {seat} was sent hidden cards {sorted(leaked)} in its state"
    for entry in body.get("log", []):
        if entry["type"] == "play":
            public.add(entry["card"])
        allowed = set(public)
        if entry["type"] in ("choose_pass", "confirm_pass") and entry["seat"] == seat:
            allowed |= set(entry.get("cards") or ())
        named = cards_in(entry, set())
        assert named <= allowed, f"log entry {entry} leaks {sorted(named - allowed)} to {seat}"
        assert "deck" not in entry
        seen |= named
    return len(seen)


def hidden_seeds(app: Any, tid: str) -> set[str]:
    """Every seed of the table's fair deal not revealed yet (server's and seats', in hex)."""
    with app.app_context():
        rows = db.session.query(DealSeeds).filter(DealSeeds.table_id == tid,
                                                  DealSeeds.revealed.is_(False)).all()
        out = {r.server_seed for r in rows} | {s for r in rows for s in r.seat_seeds if s}
        db.session.rollback()
    return out


def scan_seeds(app: Any, tid: str, text: str) -> None:
    """A response's raw text holds no seed that is still secret."""
    for seed in hidden_seeds(app, tid):
        assert seed not in text, "a secret seed of the fair deal reached a viewer"


def send_seed(app: Any, tid: str, p: Player, state: dict[str, Any]) -> int:
    """What a page does: a seed of its own for the pending hand, once. Returns 1 if sent."""
    nxt = state["fair_deal"]["next"]
    seat = state["me"]["seat"]
    if nxt is None or seat is None or nxt["seats"][seat]["commitment"] is not None:
        return 0
    r = p.act(tid, "deal_seed", game=nxt["game"], hand=nxt["hand"],
              seed=secrets.token_hex(32))
    scan_seeds(app, tid, r.get_data(as_text=True))
    return 1


def play_game(app: Any, renege: str, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    ana = Player(app)
    tid = ana.create("Ana", renege=renege, target=50)
    players = [ana] + [Player(app) for _ in range(3)]
    for i, p in enumerate(players[1:], 1):
        r = p.act(tid, "sit", name=f"P{i}")
        assert r.get_json()["state"]["me"]["seat"] == i
    watcher = Player(app)
    ana.act(tid, "start")
    since = [0] * 5
    public: list[set[str]] = [set() for _ in range(5)]
    stats = {"responses": 0, "accusations": 0, "reneges": 0, "hands": 0, "seeds": 0,
             "polls": 0}
    reneger: dict[str, int] = {}

    def look() -> list[dict[str, Any]]:
        game = server_game(app, tid)  # nobody acts while we look: no robot sits here
        views = []
        for i, p in enumerate(players + [watcher]):
            r = p.client.get(f"/api/tables/{tid}?since={since[i]}")
            body = r.get_json()
            scan(app, tid, i if i < 4 else None, body, public[i], game)
            scan_seeds(app, tid, r.get_data(as_text=True))
            if since[i] < body["state"]["version"] - 1:  # a long-poll's answer, at once
                polled = p.client.get(f"/api/tables/{tid}/poll?since={since[i]}")
                scan_seeds(app, tid, polled.get_data(as_text=True))
                stats["polls"] += 1
            since[i] = body["state"]["version"]
            stats["responses"] += 1
            views.append(body["state"]["view"])
            if i in (0, 2):
                stats["seeds"] += send_seed(app, tid, p, body["state"])
        assert views[4] is None or "hand" not in views[4]
        return views

    for _ in range(2000):
        views = look()
        view = views[0]
        phase = view["phase"]
        if phase == "game_over":
            break
        if phase == "counting":
            stats["hands"] += 1
            scan_records(tid, players, watcher, view["hand_number"])
            closer = rng.randrange(4)
            assert all(e["type"] != "deal_reveal" or e["hand"] < view["hand_number"]
                       for e in players[0].client.get(f"/api/tables/{tid}?since=0")
                       .get_json()["log"])
            r = players[closer].act(tid, "close_count")
            scan(app, tid, closer, r.get_json(), set(public[closer]))
            continue
        actors = view["to_act"]
        seat = rng.choice(actors)
        p = players[seat]
        mine = views[seat]
        culprit = reneger.get("seat")
        if renege == "permitido" and mine["can_accuse"] and (
                (culprit is not None and culprit != seat and not stats["accusations"])
                or rng.random() < 0.03):
            # the first renege is always called out (a true ruling); then, now and then, anyone
            accused = culprit if culprit not in (None, seat) else rng.choice(
                [s for s in range(4) if s != seat])
            r = p.act(tid, "accuse", accused=accused)
            stats["accusations"] += 1
            reneger.clear()
        elif phase == "playing" and mine["renege_cards"] and (
                not stats["reneges"] or rng.random() < 0.3):
            r = p.act(tid, "play", card=rng.choice(mine["renege_cards"]))
            stats["reneges"] += 1
            reneger["seat"] = seat
        else:
            action = robots.decide(mine, "facil", rng)
            r = p.act(tid, action.pop("type"), **action)
        scan(app, tid, seat, r.get_json(), set(public[seat]))
        scan_seeds(app, tid, r.get_data(as_text=True))
        stats["responses"] += 1
    else:
        raise AssertionError("game did not end")
    return stats


def scan_records(tid: str, players: list[Player], watcher: Player, hand_number: int) -> None:
    """While the game is played: no record for anyone, and each seat's review holds only its
    own cards and passes of the hands whose count is closed; a spectator gets no review."""
    for p in players + [watcher]:
        r = p.client.get(f"/api/tables/{tid}/games/1")
        assert r.status_code == 404 and r.get_json()["error"] == "game_not_found"
        r = p.client.get(f"/api/tables/{tid}/deals/1/{hand_number}")  # counting, not closed
        assert r.status_code == 404 and r.get_json()["error"] == "deal_not_revealed"
    assert watcher.client.get(f"/api/tables/{tid}/review").status_code == 403
    for seat, p in enumerate(players):
        answer = p.client.get(f"/api/tables/{tid}/review")
        review = answer.get_json()
        assert review["seat"] == seat and "deck" not in str(review)
        scan_seeds(p.app, tid, answer.get_data(as_text=True))
        assert [h["number"] for h in review["hands"]] == list(range(1, hand_number))
        for hand in review["hands"]:
            assert all(hand["dealt"][s] is None and hand["held"][s] is None
                       for s in range(4) if s != seat)
            assert all(seat in (x["from"], x["to"]) for x in hand["passes"])
            assert "reneges" not in hand and "deck" not in hand


@pytest.mark.parametrize("renege", ["impedido", "permitido"])
def test_no_hidden_card_reaches_any_viewer(app, renege):
    stats = play_game(app, renege, seed=7 if renege == "impedido" else 11)
    assert stats["hands"] >= 1
    assert stats["responses"] > 50
    assert stats["seeds"] >= 2 * stats["hands"] and stats["polls"] > 10
    if renege == "permitido":
        assert stats["reneges"] > 0 and stats["accusations"] > 0


def test_ratings_answers_hold_no_card_device_token_or_table(app):
    """A rated game's players' pages and Clasificación: names and ratings only."""
    from tables.identity import COOKIE
    from tables.models import Device, RatedPlayer, RatingChange

    stats = play_game(app, "impedido", seed=5)
    assert stats["hands"] >= 1
    with app.app_context():
        rows = db.session.query(RatingChange).order_by(RatingChange.id.desc()).limit(4).all()
        tid = rows[0].table_id
        pids = [db.session.get(RatedPlayer, r.player_id).public_id for r in rows]
        devices = [str(d.id) for d in db.session.query(Device).all()]
        hashes = [d.token_hash for d in db.session.query(Device).all()]
        db.session.rollback()
    assert len(pids) == 4
    viewer = Player(app)
    viewer.act(tid, "set_deck", deck="noche")  # a device with a cookie token of its own
    token = viewer.client.get_cookie(COOKIE)
    assert token is not None
    json_answers = [viewer.client.get(f"/api/players/{pid}").get_json() for pid in pids]
    json_answers.append(viewer.client.get("/api/ratings").get_json())
    for body in json_answers:
        assert cards_in(body, set()) == set()
    texts = [str(b) for b in json_answers]
    texts += [viewer.client.get(f"/jugador/{pid}").get_data(as_text=True) for pid in pids]
    texts.append(viewer.client.get("/clasificacion").get_data(as_text=True))
    for text in texts:
        assert tid not in text and token.value not in text
        assert not any(h in text for h in hashes)
        assert "device" not in text.replace("device-width", "")
    for body in json_answers[:-1]:
        assert body["player"] not in devices
