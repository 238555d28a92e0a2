"""Property tests: random legal play through whole games, every invariant checked at every step."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rules import DECK, Game, Options, cards_of, public_action, view_for
from rules.cards import FULL_MASK, bits
from tests.rules.rules_testkit import ALL_CARDS, random_game, roundtrip, strings_in

SEAT_ONLY_KEYS = {
    "hand", "pass_to", "pass_from", "pass_selected", "passed", "received", "legal", "illegal",
    "renege_cards",
}


def played_mask(g: Game) -> int:
    m = 0
    for _leader, cards, _winner in g.tricks:
        for c in cards:
            m |= 1 << c
    for _seat, c in g.trick:
        m |= 1 << c
    return m


def check_state(g: Game) -> None:
    """Invariants of any state: cards conserved, turns, legal sets and their reasons."""
    hands = g.hands
    union = 0
    for m in hands:
        assert not union & m, "a card in two hands"
        union |= m
    if g.phase == "dealing" and g.hand_number == 0:
        assert union == 0
        return
    played = played_mask(g)
    assert not union & played, "a played card still in a hand"
    assert union | played == FULL_MASK, "52 cards conserved"
    assert g.played == (played if g.phase != "passing" else 0)
    taken = 0
    for m in g.taken:
        assert not taken & m
        taken |= m
    assert taken == played & ~sum(1 << c for _, c in g.trick)
    if g.phase == "passing":
        assert all(m.bit_count() == 13 for m in hands) and played == 0
        assert all(not g.pass_sel[s] & ~hands[s] for s in range(4))
    assert (g.turn is None) == (g.phase != "playing")
    if g.phase != "playing":
        return
    assert len(g.trick) < 4 and len(g.tricks) < 13
    seat = g.turn
    assert seat is not None and g.to_act() == [seat]
    legal = g.legal_mask(seat)
    assert legal, "the seat to act always has a legal card"
    assert not legal & ~hands[seat]
    v = view_for(g, seat)
    assert v["legal"] == cards_of(legal)
    assert set(v["illegal"]) == set(cards_of(hands[seat] & ~legal))
    for c in bits(hands[seat]):
        err = g.why_illegal(seat, DECK[c])
        assert (err is None) == bool(legal >> c & 1)
        if err is not None:
            assert v["illegal"][DECK[c]] == err.message
    for other in range(4):
        if other != seat:
            assert g.legal_mask(other) == 0
            other_view = view_for(g, other)
            assert other_view["legal"] == []
            assert other_view["illegal"] == dict.fromkeys(other_view["hand"], "No es tu turno")
            assert g.why_illegal(other, DECK[bits(legal)[0]]).message == "No es tu turno"  # type: ignore[union-attr]


def check_views(g: Game) -> None:
    """No view carries a card its viewer may not see; spectators see no hand at all."""
    played = played_mask(g) if g.phase != "passing" else 0
    public = set(cards_of(played))
    # A ruled renuncio names its card; that card was played (in this hand or an earlier one).
    public |= {x["accusation"]["card"] for x in g.history if x["accusation"]} - {None}
    spectator = view_for(g, None)
    assert not SEAT_ONLY_KEYS & set(spectator)
    assert strings_in(spectator) & ALL_CARDS <= public
    json.dumps(spectator)
    for seat in range(4):
        v = view_for(g, seat)
        json.dumps(v)
        assert SEAT_ONLY_KEYS <= set(v)
        allowed = public | set(cards_of(g.hands[seat])) | set(cards_of(g.received[seat]))
        allowed |= set(cards_of(g.pass_sel[seat]))  # what it chose or passed itself
        leaked = strings_in(v) & ALL_CARDS - allowed
        assert not leaked, f"seat {seat} sees {leaked}"
        if g.phase == "passing":
            assert v["received"] == []
            # (history may name a card of an earlier hand's ruling: leave it out here)
            now = strings_in({k: x for k, x in v.items() if k != "history"})
            for other in range(4):
                if other != seat:
                    assert not set(cards_of(g.pass_sel[other])) & now
        assert v["hand"] == cards_of(g.hands[seat])
        assert v["cards_left"] == [m.bit_count() for m in g.hands]


def check_log_entry(g: Game, action: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """Events are public; a logged action, filtered for a viewer, shows no deck, no other's pass."""
    public = set(cards_of(played_mask(g) if g.phase != "passing" else 0))
    public |= {x["accusation"]["card"] for x in g.history if x["accusation"]} - {None}
    assert strings_in(events) & ALL_CARDS <= public
    for viewer in (None, 0, 1, 2, 3):
        entry = public_action(action, viewer)
        assert "deck" not in entry
        own = set(action.get("cards", ())) if action.get("seat") == viewer else set()
        assert strings_in(entry) & ALL_CARDS <= public | own
        if action["type"] == "play":
            assert entry == action


def check_hand_end(g: Game, events: list[dict[str, Any]]) -> None:
    end = [e for e in events if e["type"] == "hand_end"]
    if not end:
        return
    scores = end[0]["scores"]
    accusation = [e for e in events if e["type"] == "accusation"]
    if accusation:
        a = accusation[0]
        assert sorted(scores) == [0, 0, 0, 26]
        loser = a["accused"] if a["guilty"] else a["accuser"]
        assert scores[loser] == 26
        assert a["guilty"] == any(r[0] == a["accused"] for r in g.reneges)
    elif end[0]["moon"] is not None:
        assert sum(scores) == 78 and scores[end[0]["moon"]] == 0
        assert g.points_taken()[end[0]["moon"]] == 26
    else:
        assert sum(scores) == 26 and scores == g.points_taken()
        assert len(g.tricks) == 13


def run_game(seed: int, target: int, renege: str, views: bool) -> int:
    """Play one random game, checking everything; return the number of actions."""
    rng = random.Random(seed)
    options = Options(target=target, renege=renege)
    replica = Game(options)
    shadow = Game(options)
    actions: list[dict[str, Any]] = []
    last_totals = [0, 0, 0, 0]
    accuse_rate = 0.02 if renege == "permitido" else 0.0
    for g, action, events in random_game(rng, options, accuse_rate):
        stored = json.loads(json.dumps(action))
        actions.append(stored)
        # Replaying the stored action on a game built from the same actions gives the same game.
        assert replica.apply(stored) == events
        assert replica == g
        assert roundtrip(g) == g
        # A game restored from JSON before each action behaves exactly like the original.
        shadow = roundtrip(shadow)
        assert shadow.apply(stored) == events
        assert shadow == g
        check_state(g)
        if views:
            check_views(g)
            check_log_entry(g, stored, events)
        check_hand_end(g, events)
        assert all(t >= lt for t, lt in zip(g.totals, last_totals, strict=True))
        last_totals = list(g.totals)
        if action["type"] == "close_count":
            assert Game.replay(options, actions) == g
            assert g.history[-1]["hand_number"] == g.hand_number
    assert g.phase == "game_over"
    assert max(g.totals) >= target
    assert g.winners == [s for s in range(4) if g.totals[s] == min(g.totals)]
    assert Game.replay(options, actions) == g
    return len(actions)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    target=st.sampled_from([100, 50]),
    renege=st.sampled_from(["impedido", "permitido"]),
)
def test_random_games_keep_every_invariant_and_view_secret(
    seed: int, target: int, renege: str
) -> None:
    assert run_game(seed, target, renege, views=True) > 2


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), renege=st.sampled_from(["impedido", "permitido"]))
def test_random_games_without_views(seed: int, renege: str) -> None:
    assert run_game(seed, 50, renege, views=False) > 2


def test_many_random_hands_fast_path() -> None:
    """2,000 hands through the fast path: legal set never empty, points 26 or 78 with a moon."""
    rng = random.Random(2026)
    moons = hands = 0
    g = Game(Options(target=100))
    for _ in range(2000):
        if g.phase == "game_over":
            g = Game(Options(target=100))
        deck = list(DECK)
        rng.shuffle(deck)
        g.deal(deck)
        if g.phase == "passing":
            for seat in range(4):
                g.confirm_pass(seat, [DECK[c] for c in rng.sample(bits(g.hands[seat]), 3)])
        while g.phase == "playing":
            seat = g.turn
            assert seat is not None
            legal = bits(g.legal_mask(seat))
            assert legal
            g.play_index(seat, rng.choice(legal))
        assert g.hand_scores is not None
        assert sum(g.points_taken()) == 26
        assert sum(g.hand_scores) == (78 if g.moon is not None else 26)
        moons += g.moon is not None
        hands += 1
        g.close_count(0)
    assert hands == 2000 and moons < hands


@settings(max_examples=400, deadline=None)
@given(
    cards=st.sets(st.integers(0, 51), min_size=1, max_size=13),
    led=st.integers(-1, 3),
    first=st.booleans(),
    broken=st.booleans(),
    permitido=st.booleans(),
)
def test_legal_mask_and_illegal_reason_agree(
    cards: set[int], led: int, first: bool, broken: bool, permitido: bool
) -> None:
    """The pure rule functions robots use: a card is legal exactly when it has no reason against."""
    from rules import illegal_reason, legal_mask

    hand = sum(1 << c for c in cards)
    # The first trick is led with 2C by its holder, so it is always a club trick.
    assume(not first or led == 0 or (led < 0 and hand & 1))
    legal = legal_mask(hand, led, first, broken, permitido)
    assert legal and not legal & ~hand
    for c in cards:
        reason = illegal_reason(hand, c, led, first, broken, permitido)
        assert (reason is None) == bool(legal >> c & 1), (c, reason)
