"""A public live table's spectators (anyone who opens it from Mesas en vivo) see no hidden card: a
whole game through four queued people, every answer to each seat and to a spectator scanned, and
Mesas en vivo itself holds no card at all."""

from __future__ import annotations

import random
from typing import Any

import robots
from tests.kit import Player, close_app
from tests.live.livekit import Queuer, live_app
from tests.tables.test_tables_privacy import cards_in, scan, server_game

# Privacy is the service's logic, not the database's: this runs once, on SQLite.


def test_no_hidden_card_reaches_a_spectator_of_a_public_table(migrated):
    app = live_app(migrated)
    try:
        rng = random.Random(18)
        people = [Queuer(app, 1500) for _ in range(4)]
        for p in people:
            got = p.join()
        tid = got["table_id"]
        assert tid is not None
        by_seat: dict[int, Queuer] = {}
        for p in people:
            by_seat[p.state(tid)["me"]["seat"]] = p
        seated: list[Player] = [by_seat[s] for s in range(4)]
        watcher = Player(app)
        listing = watcher.client.get("/api/live/tables").get_json()
        assert tid in [t["table_id"] for t in listing["tables"]]
        since = [0] * 5
        public: list[set[str]] = [set() for _ in range(5)]
        hands = 0
        for _ in range(3000):
            game = server_game(app, tid)
            views: list[dict[str, Any]] = []
            for i, p in enumerate(seated + [watcher]):
                body = p.client.get(f"/api/tables/{tid}?since={since[i]}").get_json()
                scan(app, tid, i if i < 4 else None, body, public[i], game)
                since[i] = body["state"]["version"]
                views.append(body["state"]["view"])
            assert views[4] is not None and "hand" not in views[4]
            # Mesas en vivo while the game is played: names, ratings, totals; never a card
            assert cards_in(watcher.client.get("/api/live/tables").get_json(), set()) == set()
            view = views[0]
            if view["phase"] == "game_over":
                break
            if view["phase"] == "counting":
                hands += 1
                seated[rng.randrange(4)].act(tid, "close_count")
                continue
            seat = rng.choice(view["to_act"])
            action = robots.decide(views[seat], "facil", rng)
            r = seated[seat].act(tid, action.pop("type"), **action)
            scan(app, tid, seat, r.get_json(), set(public[seat]))
        else:
            raise AssertionError("game did not end")
        assert hands >= 1
        page = watcher.client.get("/mesas-en-vivo").get_data(as_text=True)
        assert tid not in page  # finished: no longer listed
        # one game per live table: no rematch (it would seat people at two live tables); each
        # may look for another at once
        r = seated[0].act(tid, "rematch", expect=None)
        assert r.status_code == 409 and r.get_json()["error"] == "public_table"
        assert by_seat[0].join()["status"] == "waiting"
        by_seat[0].cancel()
    finally:
        close_app(app)
