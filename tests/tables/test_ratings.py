"""Ratings: the rule through openskill on known games, once per game (a retry, a second process,
a crash before the commit), amistosa, leavers last, robots as players, the pages and the API."""

from __future__ import annotations

import random
import threading
import uuid
from typing import Any

import pytest
import requests
from openskill.models import BradleyTerryFull

import robots
from tables import actions, ratings
from tables.db import db
from tables.models import RatedPlayer, RatingChange, Table
from tables.seating import Ctx, load_game, load_seats, locked_table
from tests.kit import Player, lobby, wait_until

pytestmark = pytest.mark.db


# ------------------------------------------------------------------ the rule, through the library


def test_places_share_ties_and_put_leavers_last():
    assert ratings.places([10, 20, 20, 30], [False] * 4) == [1, 2, 2, 3]
    assert ratings.places([0, 50, 7, 7], [True, False, False, False]) == [3, 2, 1, 1]
    assert ratings.places([5, 5, 60, 9], [True, True, False, False]) == [3, 3, 2, 1]


def test_a_known_game_moves_ratings_as_openskill_full_pairing_does():
    start = [(25.0, 25 / 3)] * 4
    after = ratings.update(start, [1, 2, 2, 3])
    # The same game given straight to the library: one player per team, ranks by total.
    model = BradleyTerryFull()
    direct = model.rate([[model.rating()] for _ in range(4)], ranks=[1, 2, 2, 3])
    assert after == [(t[0].mu, t[0].sigma) for t in direct]
    first, mid1, mid2, last = (mu for mu, _ in after)
    assert first > mid1 == mid2 > last
    # Symmetric game: the two in the middle each win one pair and lose one: no move.
    assert mid1 == pytest.approx(25.0)
    assert first - 25 == pytest.approx(25 - last)
    # Pairwise: beating three moves you more than beating one.
    two = ratings.update(start, [1, 2, 3, 4])
    assert two[0][0] > after[0][0] - 1e-9 and two[3][0] < 25
    # All equal totals: every pair split, nobody moves.
    same = ratings.update(start, [1, 1, 1, 1])
    assert all(mu == pytest.approx(25.0) for mu, _ in same)


def test_the_shown_number_is_1500_centred():
    assert ratings.shown(ratings.MODEL.mu) == 1500
    assert ratings.shown(ratings.MODEL.mu + 1) == 1530
    assert ratings.provisional(ratings.PROVISIONAL_GAMES - 1)
    assert not ratings.provisional(ratings.PROVISIONAL_GAMES)


# ------------------------------------------------------------------ a game to its end




def set_totals(app: Any, tid: str, totals: list[int]) -> None:
    """The game's totals so far (target 50): any point taken in this hand ends the game."""
    with app.app_context(), locked_table(tid) as t:
        assert t is not None and t.game_json is not None
        data = dict(t.game_json)
        data["totals"] = totals
        t.game_json = data


def play_to_the_count(app: Any, tid: str, p: Player, seat: int) -> dict[str, Any]:
    """``p`` plays its seat (robots play theirs) until the hand's count; returns that state."""
    rng = random.Random(seat)
    for _ in range(200):
        st = wait_until(lambda: (s := p.state(tid))["view"]["phase"] in ("counting", "game_over")
                        or seat in s["view"]["to_act"] and s, 30)
        st = p.state(tid)
        view = st["view"]
        if view["phase"] in ("counting", "game_over"):
            return st
        if seat not in view["to_act"]:
            continue
        action = robots.decide(view, "facil", rng)
        p.act(tid, action.pop("type"), expect=None, **action)
    raise AssertionError("the hand did not end")


def rows_of(app: Any, tid: str) -> list[Any]:
    with app.app_context():
        rows = db.session.query(RatingChange).filter(RatingChange.table_id == tid).all()
        out = [(r.player_id, r.game_number, r.seat, r.place, r.left, r.mu_before, r.mu_after,
                r.sigma_before) for r in sorted(rows, key=lambda r: r.seat)]
        db.session.rollback()
        return out


def player_row(app: Any, public_id: str) -> tuple[float, float, int]:
    with app.app_context():
        p = db.session.query(RatedPlayer).filter(RatedPlayer.public_id == public_id).one()
        out = (p.mu, p.sigma, p.games)
        db.session.rollback()
        return out


def test_a_rated_game_moves_every_seat_once_robots_included(app):
    tid, (ana,) = lobby(app, humans=1, robots_=3)
    ana.act(tid, "start")
    set_totals(app, tid, [40, 45, 48, 49])
    st = play_to_the_count(app, tid, ana, 0)
    assert st["table"]["rated"] is True and st["rating_changes"] is None
    body = {"type": "close_count", "action_id": uuid.uuid4().hex}
    r = ana.post(f"/api/tables/{tid}/actions", body)
    assert r.status_code == 200
    st = r.get_json()["state"]
    assert st["table"]["status"] == "finished"
    changes = st["rating_changes"]
    assert [c["seat"] for c in changes] == [0, 1, 2, 3]
    names = {c["seat"]: c["name"] for c in changes}
    assert names[0] == "Ana"
    for s in st["table"]["seats"][1:]:
        assert names[s["seat"]] == f"{s['robot_name']} · Normal"
    totals = st["view"]["game_result"]["totals"]
    ranks = ratings.places(totals, [False] * 4)
    before = rows_of(app, tid)
    assert len(before) == 4
    # The robots may have played rated games before (other tests): start from what they had.
    expected = ratings.update([(r[5], r[7]) for r in before], ranks)
    for c, (mu, _), place, row in zip(changes, expected, ranks, before, strict=True):
        assert c["before"] == ratings.shown(row[5]) and c["after"] == ratings.shown(mu)
        assert c["change"] == c["after"] - c["before"] and c["place"] == place
    assert changes[0]["before"] == 1500 and changes[0]["games"] == 1
    assert changes[0]["provisional"] is True
    # Against equal ratings the lowest total gains and the highest loses.
    fresh = ratings.update([(25.0, 25 / 3)] * 4, ranks)
    best, worst = totals.index(min(totals)), totals.index(max(totals))
    assert fresh[best][0] > 25 > fresh[worst][0]
    # A retry of the last action: the same answer, nothing applied again.
    again = ana.post(f"/api/tables/{tid}/actions", body)
    assert again.status_code == 200
    assert again.get_json()["state"]["rating_changes"] == changes
    assert rows_of(app, tid) == before
    assert player_row(app, changes[0]["player"])[2] == 1
    # Another close_count (a new action id) is refused: the game is over.
    assert ana.act(tid, "close_count", expect=None).status_code == 409
    assert rows_of(app, tid) == before
    # rate_game itself, run again on the finished table (a second process that got past the
    # phase check somehow), changes nothing: the game's rows are its claim.
    with app.app_context(), locked_table(tid) as t:
        assert t is not None
        seats = load_seats(tid)
        ratings.rate_game(Ctx(t, seats, load_game(t), None, None, None))
    assert rows_of(app, tid) == before
    assert player_row(app, changes[0]["player"])[2] == 1
    # The player's page and the API show it; a spectator sees the same changes.
    assert Player(app).state(tid)["rating_changes"] == changes
    api = ana.client.get(f"/api/players/{changes[0]['player']}").get_json()
    assert api["name"] == "Ana" and api["rating"] == changes[0]["after"]
    assert api["provisional"] is True and len(api["history"]) == 1
    page = ana.client.get(f"/jugador/{changes[0]['player']}").get_data(as_text=True)
    assert "Ana" in page and f"{changes[0]['after']}?" in page and "<svg" in page
    robot = ana.client.get(f"/api/players/{changes[1]['player']}").get_json()
    assert robot["robot"] is True and robot["name"] == names[1]


def test_amistosa_moves_nothing(app):
    tid, (ana,) = lobby(app, humans=1, robots_=3, rated=False)
    st = ana.state(tid)
    assert st["table"]["rated"] is False
    ana.act(tid, "start")
    set_totals(app, tid, [40, 45, 48, 49])
    play_to_the_count(app, tid, ana, 0)
    st = ana.act(tid, "close_count").get_json()["state"]
    assert st["table"]["status"] == "finished" and st["rating_changes"] is None
    assert rows_of(app, tid) == []


def test_whoever_leaves_finishes_last_and_a_stand_in_seat_is_its_person(app):
    tid, (ana, beto) = lobby(app, humans=2, robots_=2)
    ana.act(tid, "start")
    # Beto's total is the lowest by far: leaving still places him last. Any hand ends the game:
    # a point to Ana, Carmen or Tito reaches 50, and all 26 to Beto is the moon (26 to each other).
    set_totals(app, tid, [49, 0, 49, 49])
    beto.act(tid, "leave")
    play_to_the_count(app, tid, ana, 0)
    st = ana.act(tid, "close_count").get_json()["state"]
    assert st["table"]["status"] == "finished"
    by_seat = {c["seat"]: c for c in st["rating_changes"]}
    assert set(by_seat) == {0, 1, 2, 3}
    assert by_seat[1]["left"] is True and by_seat[1]["name"] == "Jugador 1"
    assert by_seat[1]["place"] == max(c["place"] for c in by_seat.values())
    assert by_seat[1]["change"] < 0
    assert by_seat[1]["total"] == min(st["view"]["game_result"]["totals"])


def test_a_crash_after_the_update_commits_nothing_and_the_retry_commits_both(app, monkeypatch):
    tid, (ana,) = lobby(app, humans=1, robots_=3)
    ana.act(tid, "start")
    set_totals(app, tid, [40, 45, 48, 49])
    play_to_the_count(app, tid, ana, 0)
    real = ratings.rate_game

    def crash(ctx: Ctx) -> None:
        real(ctx)
        raise RuntimeError("the process died here")

    monkeypatch.setattr(actions.ratings, "rate_game", crash)
    with app.app_context():
        device = db.session.execute(
            db.select(Table.host_device_id).where(Table.id == tid)).scalar_one()
        body = {"type": "close_count", "action_id": uuid.uuid4().hex}
        with pytest.raises(RuntimeError):
            actions.perform(tid, device, body)
        db.session.rollback()
    assert rows_of(app, tid) == []
    assert ana.state(tid)["table"]["status"] == "playing"
    monkeypatch.setattr(actions.ratings, "rate_game", real)
    with app.app_context():
        out = actions.perform(tid, device, body)
    assert out.answer is not None
    assert out.answer["state"]["table"]["status"] == "finished"
    assert len(rows_of(app, tid)) == 4


# ------------------------------------------------------------------ two processes


def test_two_processes_ending_the_same_game_rate_it_once(server_factory, app):
    a = server_factory()  # plays the robots
    b = server_factory(ROBOT_WORKER="off")
    s = requests.Session()
    csrf = s.get(a.url + "/api/csrf", timeout=60).json()["csrf_token"]

    def post(base: str, body: dict[str, Any]) -> Any:
        return s.post(f"{base}/api/tables/{tid}/actions", json=body,
                      headers={"X-CSRFToken": csrf}, timeout=60)

    r = s.post(a.url + "/api/tables", json={"host_name": "Ana", "target": 50},
               headers={"X-CSRFToken": csrf}, timeout=60)
    tid = r.json()["table_id"]
    for seat in (1, 2, 3):
        assert post(a.url, {"type": "add_robot", "seat": seat}).status_code == 200
    assert post(a.url, {"type": "start"}).status_code == 200
    set_totals(app, tid, [40, 45, 48, 49])
    rng = random.Random(5)
    for _ in range(200):
        st = s.get(f"{a.url}/api/tables/{tid}", timeout=60).json()["state"]
        view = st["view"]
        if view["phase"] == "counting":
            break
        if 0 in view["to_act"]:
            action = robots.decide(view, "facil", rng)
            post(a.url, {**action, "action_id": uuid.uuid4().hex})
        else:
            s.get(f"{a.url}/api/tables/{tid}/poll?since={st['version']}", timeout=60)
    answers: list[int] = []
    texts: list[str] = []
    bodies = [{"type": "close_count", "action_id": uuid.uuid4().hex} for _ in range(2)]
    go = threading.Barrier(2)

    def send(base: str, body: dict[str, Any]) -> None:
        go.wait()
        got = post(base, body)
        answers.append(got.status_code)
        texts.append(got.text[:300])

    threads = [threading.Thread(target=send, args=(base, body))
               for base, body in ((a.url, bodies[0]), (b.url, bodies[1]))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers) == [200, 409], (answers, texts)
    rows = rows_of(app, tid)
    assert len(rows) == 4 and len({r[0] for r in rows}) == 4
    st = s.get(f"{b.url}/api/tables/{tid}", timeout=60).json()["state"]
    for c in st["rating_changes"]:  # each player's games counted this game exactly once
        assert player_row(app, c["player"])[2] == c["games"]
    assert st["rating_changes"][0]["games"] == 1 and st["rating_changes"][0]["before"] == 1500


# ------------------------------------------------------------------ input, pages, privacy


def test_bad_rated_option_is_refused_in_spanish(app):
    p = Player(app)
    for bad in ("si", 1, None, [True]):
        r = p.post("/api/tables", {"host_name": "Ana", "rated": bad})
        assert r.status_code == 400, bad
        assert r.get_json()["error"] == "bad_rated"
        assert "amistosa" in r.get_json()["message"]
    r = p.client.post("/plain/new", data={"csrf_token": p.csrf, "host_name": "Ana",
                                          "target": "50", "rated": "x"})
    assert r.status_code == 302 and r.headers["Location"].endswith("/plain")
    page = p.client.get("/plain").get_data(as_text=True)
    assert "amistosa" in page and "con clasificación" in page
    r = p.client.post("/plain/new", data={"csrf_token": p.csrf, "host_name": "Ana",
                                          "target": "50", "rated": "0"})
    assert r.status_code == 302 and "/t/" in r.headers["Location"]
    page = p.client.get(r.headers["Location"]).get_data(as_text=True)
    assert "amistosa" in page


@pytest.mark.parametrize("pid", ["nadie", "x" * 25, "%C3%B1", "a.b", "a b"])
def test_unknown_players_are_a_spanish_404(app, pid):
    p = Player(app)
    r = p.client.get(f"/api/players/{pid}")
    assert r.status_code == 404 and r.get_json()["message"] == "Ese jugador no existe"
    page = p.client.get(f"/jugador/{pid}")
    assert page.status_code == 404 and "Ese jugador no existe" in page.get_data(as_text=True)


def test_clasificacion_lists_players_with_enough_games_only(app):
    with app.app_context():
        db.session.add_all([
            RatedPlayer(public_id="tablaUno", robot_key="robot:Zeta:dificil",
                        name="Zeta · Difícil", mu=30.0, sigma=3.0,
                        games=ratings.PROVISIONAL_GAMES),
            RatedPlayer(public_id="tablaDos", name="Nueva", mu=40.0, sigma=6.0,
                        games=ratings.PROVISIONAL_GAMES - 1)])
        db.session.commit()
    p = Player(app)
    board = p.client.get("/api/ratings").get_json()
    ids = [r["player"] for r in board["players"]]
    assert "tablaUno" in ids and "tablaDos" not in ids
    mus = [r["rating"] for r in board["players"]]
    assert mus == sorted(mus, reverse=True)
    zeta = next(r for r in board["players"] if r["player"] == "tablaUno")
    assert zeta["robot"] is True and zeta["rating"] == ratings.shown(30.0)
    page = p.client.get("/clasificacion").get_data(as_text=True)
    assert "Zeta · Difícil" in page and "/jugador/tablaUno" in page and "Nueva" not in page


def test_no_device_id_or_token_in_any_ratings_answer(app):
    tid, (ana,) = lobby(app, humans=1, robots_=3)
    ana.act(tid, "start")
    set_totals(app, tid, [40, 45, 48, 49])
    play_to_the_count(app, tid, ana, 0)
    st = ana.act(tid, "close_count").get_json()["state"]
    mine = st["rating_changes"][0]["player"]
    token = ana.client.get_cookie("corazones_device")
    assert token is not None
    with app.app_context():
        device = db.session.execute(
            db.select(Table.host_device_id).where(Table.id == tid)).scalar_one()
        db.session.rollback()
    answers = [
        ana.client.get(f"/api/players/{mine}").get_data(as_text=True),
        ana.client.get("/api/ratings").get_data(as_text=True),
        ana.client.get(f"/jugador/{mine}").get_data(as_text=True),
        ana.client.get("/clasificacion").get_data(as_text=True),
    ]
    import json
    api = json.loads(answers[0])
    assert set(api) == {"player", "name", "robot", "rating", "provisional", "games", "history"}
    assert all(set(h) == {"at", "before", "after", "change", "provisional", "games", "place",
                          "total", "left"} for h in api["history"])
    assert set(st["rating_changes"][0]) == {"seat", "player", "name", "before", "after",
                                            "change", "provisional", "games", "place",
                                            "total", "left"}
    for text in answers:
        assert tid not in text  # a table's link stays private
        assert "device_id" not in text and "token_hash" not in text
        if token is not None:
            assert token.value not in text
    assert mine != str(device)
