"""Carmen, Tito and Luna: legal, deterministic, only from a seat's view, sensible."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest

import robots
from rules import Game, Options, view_for
from rules.cards import DECK


def _new_game(seed: int, renege: str = "impedido", hand_number: int = 0) -> Game:
    g = Game(Options(renege=renege))
    g.hand_number = hand_number
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    g.apply({"type": "deal", "deck": deck})
    return g


def _act(g: Game, seat: int, level: str, rng: random.Random, **kw: Any) -> dict[str, Any]:
    v = view_for(g, seat)
    a = robots.decide(v, level, rng, **kw)
    assert "seat" not in a
    if a["type"] == "play":
        assert a["card"] in v["legal"], (a, v["legal"])
        assert a["card"] not in v["renege_cards"], "robots never renege"
        assert a["card"] in v["hand"]
    else:
        assert a["type"] == "confirm_pass"
        assert len(set(a["cards"])) == 3 and set(a["cards"]) <= set(v["hand"])
    a["seat"] = seat
    g.apply(a)  # the rules refuse anything illegal
    return a


def _play_hand(g: Game, levels: list[str], rng: random.Random, **kw: Any) -> None:
    if g.phase == "passing":
        for s in range(4):
            _act(g, s, levels[s], rng, **kw)
    while g.phase == "playing":
        assert g.turn is not None
        _act(g, g.turn, levels[g.turn], rng, **kw)
    assert g.phase == "counting"
    assert g.hand_scores is not None and sum(g.hand_scores) in (26, 78)


def test_public_api() -> None:
    assert robots.ROBOT_NAMES == ("Carmen", "Tito", "Luna")
    assert robots.LEVELS == ("facil", "normal", "dificil")
    assert robots.LEVEL_LABELS == {"facil": "Fácil", "normal": "Normal", "dificil": "Difícil"}


@pytest.mark.parametrize("renege", ["impedido", "permitido"])
def test_every_level_plays_only_legal_cards(renege: str) -> None:
    rng = random.Random(7)
    for i in range(24):
        g = _new_game(100 + i, renege, hand_number=i % 4)
        levels = [robots.LEVELS[(i + s) % 3] for s in range(4)]
        _play_hand(g, levels, rng, worlds=6)
        assert not g.reneges, "a robot reneged"


@pytest.mark.parametrize("renege", ["impedido", "permitido"])
def test_legal_from_random_mid_hand_views(renege: str) -> None:
    """Views taken at random points of hands played randomly (so: odd situations)."""
    rng = random.Random(11)
    checked = 0
    for i in range(40):
        g = _new_game(500 + i, renege, hand_number=3)  # no pass: play starts at once
        stop = rng.randrange(52)
        for _ in range(stop):
            s = g.turn
            assert s is not None
            legal = g.legal_cards(s)
            g.play(s, rng.choice(legal))
        if g.phase != "playing":
            continue
        s = g.turn
        assert s is not None
        for level in robots.LEVELS:
            v = view_for(g, s)
            a = robots.decide(v, level, random.Random(i), worlds=8)
            assert a["type"] == "play"
            assert a["card"] in v["legal"] and a["card"] not in v["renege_cards"]
            assert g.why_illegal(s, a["card"]) is None
            checked += 1
    assert checked > 60


def test_no_decision_raises() -> None:
    g = _new_game(3, hand_number=3)
    waiting = next(s for s in range(4) if s != g.turn)
    with pytest.raises(ValueError):
        robots.decide(view_for(g, waiting), "normal", random.Random(1))
    with pytest.raises(ValueError):
        robots.decide(view_for(g, None), "normal", random.Random(1))
    with pytest.raises(ValueError):
        robots.decide(view_for(g, g.turn), "imposible", random.Random(1))
    g2 = _new_game(3)
    robots_pass = robots.decide(view_for(g2, 0), "normal", random.Random(1))
    g2.apply({**robots_pass, "seat": 0})
    with pytest.raises(ValueError):
        robots.decide(view_for(g2, 0), "normal", random.Random(1))  # already confirmed


def _swap_unseen(g: Game, me: int) -> Game:
    """A different deal giving ``me`` exactly the same view: two unseen cards change hands."""
    data = g.to_json()
    others = [s for s in range(4) if s != me]
    a, b = others[0], others[1]
    for ca in data["hands"][a]:
        for cb in data["hands"][b]:
            if ca[1] == cb[1] and ca != cb:
                data["hands"][a] = sorted(set(data["hands"][a]) - {ca} | {cb})
                data["hands"][b] = sorted(set(data["hands"][b]) - {cb} | {ca})
                data["dealt"] = data["hands"]  # not part of any view
                return Game.from_json(data)
    raise AssertionError("no swap found")


def test_same_view_same_choice() -> None:
    """Two different deals with the same view of the seat give the same choice for the same seed."""
    rng = random.Random(5)
    compared = 0
    for i in range(6):
        g = _new_game(900 + i, hand_number=3)
        for _ in range(4 + 5 * i):
            s = g.turn
            assert s is not None
            g.play(s, rng.choice(g.legal_cards(s)))
        me = g.turn
        assert me is not None
        h = _swap_unseen(g, me)
        assert h.hands != g.hands
        v1, v2 = view_for(g, me), view_for(h, me)
        assert v1 == v2
        v3 = json.loads(json.dumps(v2))  # the view as the server stores or sends it: plain JSON
        for level in robots.LEVELS:
            a1 = robots.decide(v1, level, random.Random(42), worlds=12, time_limit=None)
            a2 = robots.decide(v2, level, random.Random(42), worlds=12, time_limit=None)
            a3 = robots.decide(v3, level, random.Random(42), worlds=12, time_limit=None)
            assert a1 == a2 == a3
            compared += 1
    assert compared == 18


def test_hint_in_both_phases() -> None:
    g = _new_game(21)
    h = robots.hint(view_for(g, 2))
    assert h["type"] == "confirm_pass" and len(h["cards"]) == 3
    assert h == robots.hint(view_for(g, 2)), "the Pista is reproducible"
    for s in range(4):
        g.apply({**robots.decide(view_for(g, s), "normal", random.Random(s)), "seat": s})
    assert g.turn is not None
    v = view_for(g, g.turn)
    h = robots.hint(v)
    assert h == {"type": "play", "card": "2C"}
    g.play(g.turn, "2C")
    assert g.turn is not None
    v = view_for(g, g.turn)
    h = robots.hint(v)
    assert h["type"] == "play" and h["card"] in v["legal"]


def test_dificil_time_cap_still_answers() -> None:
    """The safety stop: with no time at all the search still returns a legal card (sanity, and a
    look at the decision time, which the arena measures properly)."""
    g = _new_game(33, hand_number=3)
    g.play(g.turn, "2C")  # type: ignore[arg-type]
    assert g.turn is not None
    v = view_for(g, g.turn)
    t = time.perf_counter()
    a = robots.decide(v, "dificil", random.Random(1), time_limit=0.0)
    quick = time.perf_counter() - t
    t = time.perf_counter()
    b = robots.decide(v, "dificil", random.Random(1))
    full = time.perf_counter() - t
    assert a["card"] in v["legal"] and b["card"] in v["legal"]
    print(f"dificil decision: capped {quick * 1000:.1f} ms, default {full * 1000:.1f} ms")
