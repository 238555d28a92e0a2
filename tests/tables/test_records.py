"""Every finished game kept whole: the record against the game played (its log and the game's
own snapshot), the OpenSpiel export replayed in pyspiel, the review of the game in play (only what
that seat saw), 404s and Spanish refusals, records surviving rematches and the table's expiry."""

from __future__ import annotations

import random
from typing import Any

import pyspiel
import pytest

import robots
from rules import DECK, Game, Options
from tables.db import db
from tables.maintenance import expire_idle_tables
from tables.models import Action, GameRecord, Table
from tests.kit import Player, lobby, wait_until

pytestmark = pytest.mark.db

PLAYED = ("deal", "choose_pass", "confirm_pass", "play", "accuse", "close_count")




def step(players: list[Player], tid: str, rng: random.Random,
         renege: bool = False) -> dict[str, Any] | None:
    """One move of whichever person must act (robots play by themselves); None when over."""

    def someone() -> tuple[int, dict[str, Any]] | None:
        for i, p in enumerate(players):
            st = p.state(tid)
            v = st["view"]
            if v["phase"] == "game_over":
                return i, st
            if v["phase"] == "counting" or i in v["to_act"]:
                return i, st
        return None

    i, st = wait_until(someone, 30)
    v = st["view"]
    if v["phase"] == "game_over":
        return None
    p = players[i]
    if v["phase"] == "counting":
        p.act(tid, "close_count")
    elif renege and v["phase"] == "playing" and v["renege_cards"]:
        p.act(tid, "play", card=v["renege_cards"][0])
    else:
        action = robots.decide(v, "facil", rng)
        p.act(tid, action.pop("type"), **action)
    return st


def play_out(players: list[Player], tid: str, seed: int, renege: bool = False,
             until: Any = None) -> dict[str, Any]:
    rng = random.Random(seed)
    for _ in range(3000):
        st = step(players, tid, rng, renege)
        if st is None:
            return players[0].state(tid)
        if until is not None and until(st):
            return st
    raise AssertionError("the game did not end")


def log_of(app: Any, tid: str, game_number: int) -> list[dict[str, Any]]:
    with app.app_context():
        rows = db.session.query(Action).filter(
            Action.table_id == tid, Action.game_number == game_number,
            Action.type.in_(PLAYED)).order_by(Action.version).all()
        out = [{**r.payload, "seat": r.seat} if r.type != "deal" else dict(r.payload)
               for r in rows]
        db.session.rollback()
        return out


def snapshot_game(app: Any, tid: str) -> Game:
    with app.app_context():
        t = db.session.get(Table, tid)
        assert t is not None and t.game_json
        g = Game.from_json(t.game_json)
        db.session.rollback()
        return g


def record_of(p: Player, tid: str, n: int) -> dict[str, Any]:
    r = p.client.get(f"/api/tables/{tid}/games/{n}")
    assert r.status_code == 200, r.get_json()
    return dict(r.get_json())


def check_against_log(record: dict[str, Any], log: list[dict[str, Any]], game: Game) -> None:
    """The record says what the log says, hand by hand and card by card."""
    deals = [a for a in log if a["type"] == "deal"]
    plays = [a for a in log if a["type"] == "play"]
    assert len(record["hands"]) == len(deals) == len(game.history)
    assert [h["deck"] for h in record["hands"]] == [d["deck"] for d in deals]
    assert [(p["seat"], p["card"]) for h in record["hands"] for p in h["plays"]] == \
        [(a["seat"], a["card"]) for a in plays]
    totals = [0, 0, 0, 0]
    for hand, hist in zip(record["hands"], game.history, strict=True):
        assert hand["complete"] and hand["number"] == hist["hand_number"]
        assert hand["scores"] == hist["scores"] and hand["points"] == hist["points"]
        assert hand["moon"] == hist["moon"] and hand["accusation"] == (
            None if hist["accusation"] is None else {**hist["accusation"],
                                                     "card_count": len(hand["plays"])})
        totals = [a + b for a, b in zip(totals, hand["scores"], strict=True)]
        assert hand["totals"] == totals
        for s in range(4):  # the deal: the i-th card of the deck to seat i mod 4
            assert sorted(hand["dealt"][s]) == sorted(hand["deck"][s::4])
        if hand["pass"] != "none":
            offset = {"left": 1, "across": 2, "right": 3}[hand["pass"]]
            assert {p["from"]: p["to"] for p in hand["passes"]} == \
                {s: (s + offset) % 4 for s in range(4)}
            for p in hand["passes"]:
                assert set(p["cards"]) <= set(hand["dealt"][p["from"]])
                assert set(p["cards"]) <= set(hand["held"][p["to"]])
        if hand["accusation"] is None:
            assert len(hand["tricks"]) == 13
            for t in hand["tricks"]:
                pts = [c["card"] for c in t["cards"]]
                assert t["points"] == sum(c[1] == "H" for c in pts) + 13 * ("QS" in pts)
    assert record["totals"] == game.totals and record["winners"] == game.winners
    assert record["finished"] is True


def test_a_finished_game_is_kept_whole_and_replays_in_openspiel(app):
    tid, (ana, beto) = lobby(app, humans=2, target=50)
    spectator = Player(app)
    for who in (ana, spectator):  # nothing before the end
        r = who.client.get(f"/api/tables/{tid}/games/1")
        assert r.status_code == 404 and r.get_json()["error"] == "game_not_found"
        assert r.get_json()["message"] == "Esa partida no existe o todavía no terminó"
    assert ana.client.get(f"/api/tables/{tid}/games").get_json() == {"games": []}
    assert ana.client.get(f"/t/{tid}/partidas/1").status_code == 404
    ana.act(tid, "chat", text="secreto de la charla")
    ana.act(tid, "start")
    st = play_out([ana, beto], tid, seed=5)
    assert st["table"]["status"] == "finished"
    game = snapshot_game(app, tid)
    record = record_of(spectator, tid, 1)  # the link is enough: no seat needed
    assert record["format"] == "corazones-partida" and record["version"] == 1
    check_against_log(record, log_of(app, tid, 1), game)
    assert [s["label"] for s in record["seats"]] == ["Ana", "Jugador 1", "ROBOT Carmen",
                                                     "ROBOT Tito"]
    assert record["seats"][2]["level"] == "normal"
    assert record["seats"][2]["level_label"] == "Normal"
    text = str(record)
    assert "secreto" not in text and tid not in text  # no chat; not even the capability
    with app.app_context():
        row = db.session.query(GameRecord).filter_by(table_id=tid).one()
        assert row.summary["totals"] == game.totals
        db.session.rollback()
    # The list of games, the page, the export.
    games = spectator.client.get(f"/api/tables/{tid}/games").get_json()["games"]
    assert [g["game_number"] for g in games] == [1]
    assert games[0]["url"] == f"/t/{tid}/partidas/1"
    page = spectator.client.get(games[0]["url"])
    assert page.status_code == 200 and "Repetición" in page.get_data(as_text=True)
    export = spectator.client.get(games[0]["export_url"]).get_json()
    replay_in_openspiel(export, record)


def replay_in_openspiel(export: dict[str, Any], record: dict[str, Any]) -> int:
    """Every exported hand, replayed in pyspiel, gives the record's points."""
    assert export["game"] == "hearts"
    game = pyspiel.load_game(export["game"], export["parameters"])
    assert str(game) == export["game_string"]
    by_number = {h["number"]: h for h in record["hands"]}
    played = 0
    for hand in export["hands"]:
        ours = by_number[hand["number"]]
        if not hand["exported"]:
            assert hand["reason"] in ("renege", "accusation")
            assert ours["accusation"] is not None or ours["reneges"]
            continue
        state = game.new_initial_state()
        for i, a in enumerate(hand["actions"]):
            assert a in state.legal_actions(), (hand["number"], a)
            state.apply_action(a)
            if i == 52:  # the deal OpenSpiel made is the record's
                dealt = state.to_struct().hands
                assert [sorted(dealt[s]) for s in range(4)] == \
                    [sorted(ours["dealt"][s]) for s in range(4)]
        assert state.is_terminal()
        points = [26 - int(r) for r in state.returns()]
        assert points == ours["scores"] == hand["points"], hand["number"]
        assert [int(r) for r in state.returns()] == hand["returns"]
        played += 1
    return played


def test_openspiel_export_of_many_games_agrees(app):
    """Several robot games (one with passes in every direction, moons likely over many hands):
    every exported hand gives the same points in pyspiel."""
    exported = 0
    for seed in (1, 2):
        tid, (ana,) = lobby(app, humans=1, target=100)
        ana.act(tid, "start")
        play_out([ana], tid, seed=seed)
        record = record_of(ana, tid, 1)
        passes = {h["pass"] for h in record["hands"]}
        assert passes == {"left", "right", "across", "none"}
        export = ana.client.get(f"/api/tables/{tid}/games/1?format=openspiel").get_json()
        assert all(h["exported"] for h in export["hands"])  # impedido: every hand
        exported += replay_in_openspiel(export, record)
    assert exported >= 10


def test_reneges_and_accusations_are_kept_and_not_exported(app):
    tid, (ana, beto) = lobby(app, humans=2, target=50, renege="permitido")
    ana.act(tid, "start")
    rng = random.Random(9)
    accused = False
    for _ in range(3000):
        st = step([ana, beto], tid, rng, renege=not accused)
        if st is None:
            break
        v = beto.state(tid)["view"]
        if not accused and v["can_accuse"] and v["phase"] == "playing" and len(v["tricks"]) >= 2:
            beto.act(tid, "accuse", accused=0)
            accused = True
    record = record_of(ana, tid, 1)
    check_against_log(record, log_of(app, tid, 1), snapshot_game(app, tid))
    ruled = [h for h in record["hands"] if h["accusation"] is not None]
    assert ruled and ruled[0]["accusation"]["accuser"] == 1
    assert ruled[0]["accusation"]["accused"] == 0
    assert ruled[0]["scores"] in ([26, 0, 0, 0], [0, 26, 0, 0])
    export = ana.client.get(f"/api/tables/{tid}/games/1?format=openspiel").get_json()
    reasons = {h["number"]: h.get("reason") for h in export["hands"]}
    assert reasons[ruled[0]["number"]] == "accusation"
    assert any(h["reneges"] for h in record["hands"])
    replay_in_openspiel(export, record)


def test_records_survive_rematches_leavers_and_the_tables_expiry(app):
    # A game to 100 cannot end within two hands (at most 52 points each), so the hands after
    # Beto's are there to show his stand-in (at 50 a random deal could end it in the second).
    tid, (ana, beto) = lobby(app, humans=2, target=100)
    ana.act(tid, "start")
    # Beto leaves in the second hand: a robot plays his seat to the end.
    play_out([ana, beto], tid, seed=3, until=lambda st: st["view"]["hand_number"] >= 2)
    beto.act(tid, "leave")
    play_out([ana], tid, seed=4)
    first = record_of(ana, tid, 1)
    assert len(first["leavers"]) == 1
    leaver = first["leavers"][0]
    assert leaver["seat"] == 1 and leaver["name"] == "Jugador 1" and leaver["hand"] >= 2
    assert first["seats"][1]["kind"] == "human"
    last = first["hands"][-1]["players"][1]
    assert last["kind"] == "robot" and last["for"] == "Jugador 1"
    # The rematch: a robot keeps Beto's seat; a visitor sits in it during game 2.
    st = ana.act(tid, "rematch").get_json()["state"]
    assert st["table"]["game_number"] == 2
    carla = Player(app)
    carla.act(tid, "sit", name="Carla")
    play_out([ana, carla], tid, seed=6)
    second = record_of(ana, tid, 2)
    assert second["seats"][1]["kind"] == "robot"
    sits = [e for e in second["events"] if e["type"] == "sit"]
    assert sits and sits[0]["name"] == "Carla" and sits[0]["seat"] == 1
    assert record_of(ana, tid, 1) == first  # game 1 unchanged by the rematch
    games = ana.client.get(f"/api/tables/{tid}/games").get_json()["games"]
    assert [g["game_number"] for g in games] == [1, 2]
    # The table expires; its games stay readable by whoever has the link.
    with app.app_context():
        t = db.session.get(Table, tid)
        t.updated_at = t.updated_at.replace(year=2000)
        db.session.commit()
        assert expire_idle_tables(30) >= 1
        assert db.session.get(Table, tid) is None
        db.session.rollback()
    assert ana.client.get(f"/api/tables/{tid}").status_code == 404
    assert record_of(Player(app), tid, 2) == second
    assert len(Player(app).client.get(f"/api/tables/{tid}/games").get_json()["games"]) == 2
    assert Player(app).client.get(f"/t/{tid}/partidas/2").status_code == 200


# ------------------------------------------------------------------ the review (game in play)


def test_the_review_shows_only_what_the_seat_saw(app):
    tid, (ana, beto) = lobby(app, humans=2, target=100)
    r = ana.client.get(f"/api/tables/{tid}/review")
    assert r.status_code == 409 and r.get_json()["error"] == "no_game"
    ana.act(tid, "start")
    assert ana.client.get(f"/api/tables/{tid}/review").get_json()["hands"] == []
    play_out([ana, beto], tid, seed=8, until=lambda st: st["view"]["hand_number"] >= 3
             and st["view"]["phase"] == "playing" and len(st["view"]["tricks"]) >= 1)
    spectator = Player(app)
    r = spectator.client.get(f"/api/tables/{tid}/review")
    assert r.status_code == 403 and r.get_json()["error"] == "not_seated"
    assert r.get_json()["message"] == "Solo quien juega en esta partida puede repasar sus manos"
    assert spectator.client.get(f"/api/tables/{tid}/games/1").status_code == 404
    game = snapshot_game(app, tid)
    full = {}
    with app.app_context():
        from tables.records import _rows_of_game, build_record

        t = db.session.get(Table, tid)
        full = build_record(t, 1, _rows_of_game(tid, 1))
        db.session.rollback()
    for seat, who in ((0, ana), (1, beto)):
        review = who.client.get(f"/api/tables/{tid}/review").get_json()
        assert review["review"] is True and review["seat"] == seat
        assert [h["number"] for h in review["hands"]] == [1, 2]  # completed hands only
        for mine, whole in zip(review["hands"], full["hands"], strict=False):
            assert mine["dealt"][seat] == whole["dealt"][seat]
            assert all(mine["dealt"][s] is None for s in range(4) if s != seat)
            assert all(mine["held"][s] is None for s in range(4) if s != seat)
            assert [p["from"] for p in mine["passes"] if p["to"] != seat] == [seat]
            assert all(seat in (p["from"], p["to"]) for p in mine["passes"])
            assert mine["plays"] == whole["plays"] and mine["scores"] == whole["scores"]
            assert "deck" not in mine and "reneges" not in mine
            # No card of any other seat's dealt hand except what was played or passed to me.
            others = {c for s in range(4) if s != seat for c in whole["dealt"][s]}
            seen = cards_named(mine)
            allowed = {p["card"] for p in whole["plays"]} | {
                c for p in whole["passes"] if p["to"] == seat for c in p["cards"]}
            assert seen & others <= allowed
        # Nothing of the hand in play (its deal, its pass, its cards so far).
        assert all(h["number"] < game.hand_number for h in review["hands"])
        assert game.hand_number == 3 and "deck" not in str(review)


def cards_named(obj: Any) -> set[str]:
    out: set[str] = set()
    if isinstance(obj, dict):
        for v in obj.values():
            out |= cards_named(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= cards_named(v)
    elif isinstance(obj, str) and obj in DECK:
        out.add(obj)
    return out


def test_a_review_after_the_game_points_to_the_replay(app):
    tid, (ana,) = lobby(app, humans=1, target=50)
    ana.act(tid, "start")
    play_out([ana], tid, seed=12)
    r = ana.client.get(f"/api/tables/{tid}/review")
    assert r.status_code == 409 and r.get_json()["url"] == f"/t/{tid}/partidas/1"
    page = ana.client.get(f"/t/{tid}/repaso")
    assert page.status_code == 302 and page.headers["Location"].endswith(f"/t/{tid}/partidas/1")


# ------------------------------------------------------------------ refusals


@pytest.mark.parametrize("path,status,code", [
    ("/api/tables/nope/games", 404, "not_found"),
    ("/api/tables/nope/games/1", 404, "game_not_found"),
    ("/api/tables/nope/review", 404, "not_found"),
    ("/api/tables/{tid}/games/0", 404, "game_not_found"),
    ("/api/tables/{tid}/games/x", 404, "game_not_found"),
    ("/api/tables/{tid}/games/%C2%B9", 404, "game_not_found"),
    ("/api/tables/{tid}/games/99999999999999", 404, "game_not_found"),
    ("/api/tables/{tid}/games/1?format=pdf", 400, "bad_format"),
    ("/api/tables/" + "x" * 300 + "/games/1", 404, "game_not_found"),
])
def test_refusals_are_spanish_and_never_500(app, path, status, code):
    ana = Player(app)
    tid = ana.create("Ana")
    r = ana.client.get(path.replace("{tid}", tid))
    assert r.status_code == status, r.get_data(as_text=True)
    body = r.get_json()
    assert body["error"] == code and body["message"]
    assert body["message"][0].isupper() and "Not Found" not in body["message"]


def test_pages_of_unknown_games_answer_404_in_spanish(app):
    p = Player(app)
    for path in ("/t/nope/partidas/1", "/t/nope/partidas/x", "/t/nope/repaso"):
        r = p.client.get(path)
        assert r.status_code == 404
        text = r.get_data(as_text=True)
        assert "Esa partida no existe" in text or "Esa mesa no existe" in text


def test_a_record_matches_a_fresh_replay_of_its_log(app):
    """The log is the truth: replaying the record's own log through rules.Game gives its game."""
    tid, (ana,) = lobby(app, humans=1, target=50)
    ana.act(tid, "start")
    play_out([ana], tid, seed=21)
    record = record_of(ana, tid, 1)
    g = Game(Options(target=50))
    for action in log_of(app, tid, 1):
        g.apply(action)
    assert g.totals == record["totals"] and g.winners == record["winners"]
