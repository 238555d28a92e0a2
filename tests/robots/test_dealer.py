"""Difícil's sampled deals (robots/search.py ``Dealer``): every deal is one the seat's view allows,
and the cards nothing constrains are spread as a fair deal spreads them."""

from __future__ import annotations

import random

import robots
from robots.know import knowledge_of
from robots.policy import LOW_SPADES
from robots.search import Dealer
from rules import Game, Options, shuffled_deck, view_for
from rules.cards import QS_BIT, SUIT_MASK


def _exchanged(rng: random.Random, hand_number: int) -> Game:
    """A Normal game's hand after the exchange (``hand_number`` % 3: to the left, right or
    across)."""
    g = Game(Options(target=100, renege="impedido"))
    g.hand_number = hand_number % 3
    g.apply({"type": "deal", "deck": shuffled_deck(rng)})
    for s in range(4):
        g.apply({"type": "confirm_pass", "seat": s,
                 "cards": robots.decide(view_for(g, s), "normal", rng)["cards"]})
    return g


def _views_with_voids(n: int) -> list[dict[str, object]]:
    """Views of Normal games, mid-hand, in which some other seat has shown out of a suit."""
    rng = random.Random(3)
    views: list[dict[str, object]] = []
    while len(views) < n:
        g = _exchanged(rng, len(views))
        while g.phase == "playing":
            seat = g.turn
            assert seat is not None
            v = view_for(g, seat)
            k = knowledge_of(v)
            if any(k.voids[s] for s in range(4) if s != seat) and rng.random() < 0.3:
                views.append(v)
            g.apply({"type": "play", "seat": seat, "card": robots.decide(v, "normal", rng)["card"]})
    return views


def test_every_deal_is_one_the_view_allows() -> None:
    shown_out = 0
    for i, v in enumerate(_views_with_voids(40)):
        k = knowledge_of(v)
        dealer = Dealer(k)
        rng = random.Random(i)
        for _ in range(25):
            hands = dealer.deal(rng)
            assert hands[k.me] == k.hand
            dealt = 0
            for s in range(4):
                assert hands[s].bit_count() == k.cards_left[s], (s, hands[s])
                assert not dealt & hands[s]  # no card twice
                dealt |= hands[s]
                if s == k.me:
                    continue
                assert hands[s] & k.known[s] == k.known[s]  # what I passed it, not played yet
                for suit in range(4):
                    if k.voids[s] >> suit & 1:
                        shown_out += 1
                        assert not hands[s] & SUIT_MASK[suit], (s, suit)
            assert dealt == k.unseen | k.hand  # every unseen card, each to one seat
    assert shown_out > 1000


def test_cards_nothing_constrains_go_to_each_seat_in_proportion_to_its_cards() -> None:
    # The first lead after a pass to the left: no seat has shown out, so a card I did not pass
    # goes to a seat as often as that seat's share of the cards I cannot place.
    rng = random.Random(8)
    g = _exchanged(rng, 0)
    seat = g.turn
    assert seat is not None
    k = knowledge_of(view_for(g, seat))
    free = k.unseen & ~sum(k.known) & ~QS_BIT  # the Q♠ may carry an inference
    need = {s: k.cards_left[s] - k.known[s].bit_count() for s in range(4) if s != seat}
    assert sorted(need.values()) == [10, 13, 13]  # the seat I passed to holds three known
    dealer = Dealer(k)
    deals = 3000
    counts = {s: 0 for s in need}
    card = (free & -free).bit_length() - 1
    for _ in range(deals):
        hands = dealer.deal(rng)
        for s in need:
            counts[s] += hands[s] >> card & 1
    total = sum(need.values())
    for s in need:
        assert abs(counts[s] / deals - need[s] / total) < 0.03, (counts, need)


def _first_leads_without_my_queen(n: int) -> list[dict[str, object]]:
    """Views of the first lead after a pass, of a seat that neither holds nor passed the Q♠."""
    rng = random.Random(11)
    views: list[dict[str, object]] = []
    while len(views) < n:
        g = _exchanged(rng, len(views))
        seat = g.turn
        assert seat is not None
        k = knowledge_of(view_for(g, seat))
        if not (k.hand | k.passed) & QS_BIT:
            views.append(view_for(g, seat))
    return views


def test_the_seat_i_passed_to_holds_the_queen_mostly_guarded() -> None:
    # A passer keeps the Q♠ it was dealt only with four low spades (the Normal rule, and most
    # players'): in the sampled deals, the seat this one passed to gets the Q♠ about a quarter
    # as often as its share of the cards, and when it does it holds four low spades far more
    # often than a deal that knows nothing of the pass would give it (``_deal``).
    rng = random.Random(5)
    fair_share = 0.0
    sampled = {"deal": [0, 0], "_deal": [0, 0]}  # deals giving them the Q♠, and of those guarded
    for v in _first_leads_without_my_queen(30):
        k = knowledge_of(v)
        target = k.pass_to
        assert target is not None
        dealer = Dealer(k)
        need = {s: k.cards_left[s] - k.known[s].bit_count() for s in range(4) if s != k.me}
        for _ in range(200):
            fair_share += need[target] / sum(need.values())
            for way, hands in (("deal", dealer.deal(rng)), ("_deal", dealer._deal(rng, 30))):
                if hands[target] & QS_BIT:
                    sampled[way][0] += 1
                    sampled[way][1] += (hands[target] & ~k.passed & LOW_SPADES).bit_count() >= 4
    to_them, plain_to_them = sampled["deal"][0], sampled["_deal"][0]
    assert abs(plain_to_them - fair_share) < 0.1 * fair_share, (plain_to_them, fair_share)
    assert to_them < 0.4 * fair_share, (to_them, fair_share)
    guarded, plain_guarded = sampled["deal"][1] / to_them, sampled["_deal"][1] / plain_to_them
    assert guarded > 3 * plain_guarded, (guarded, plain_guarded)
