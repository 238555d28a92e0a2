"""``Game.finish_hand_randomly`` is the same game as playing its choices one by one."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import DECK, Game, Options, legal_mask
from rules.cards import bits


def _dealt(seed: int, renege: str) -> Game:
    rng = random.Random(seed)
    g = Game(Options(target=100, renege=renege))
    deck = list(DECK)
    rng.shuffle(deck)
    g.deal(deck)
    for seat in range(4):
        g.confirm_pass(seat, [DECK[c] for c in rng.sample(bits(g.hands[seat]), 3)])
    return g


@pytest.mark.parametrize("renege", ["impedido", "permitido"])
def test_playout_equals_card_by_card(renege: str) -> None:
    moons = 0
    for seed in range(300):
        fast = _dealt(seed, renege)
        slow = _dealt(seed, renege)
        # Start some playouts in the middle of a trick, after a few ordinary plays.
        for _ in range(seed % 9):
            seat = slow.turn
            assert seat is not None
            card = bits(slow.legal_mask(seat))[0]
            fast.play_index(seat, card)
            slow.play_index(seat, card)
        r1, r2 = random.Random(seed), random.Random(seed)
        fast.finish_hand_randomly(r1)
        while slow.phase == "playing":
            seat = slow.turn
            assert seat is not None
            legal = bits(slow.legal_mask(seat))
            slow.play_index(seat, legal[int(r2.random() * len(legal))])
        assert json.dumps(fast.to_json()) == json.dumps(slow.to_json())
        assert fast.phase == "counting"
        assert sum(fast.hand_scores or []) in (26, 78)
        moons += fast.moon is not None
    assert moons < 300


def test_playout_needs_the_playing_phase() -> None:
    g = Game(Options())
    with pytest.raises(ValueError):
        g.finish_hand_randomly(random.Random(1))


class _Draws(random.Random):
    """A random source that returns the given numbers in turn (then 0.5), so hypothesis chooses
    every card of a playout."""

    def __init__(self, draws: list[float]) -> None:
        super().__init__(0)
        self.draws = list(draws)

    def random(self) -> float:
        return self.draws.pop(0) if self.draws else 0.5


@settings(max_examples=400, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    renege=st.sampled_from(["impedido", "permitido"]),
    prefix=st.integers(0, 51),
    renege_bias=st.floats(0, 1),
    draws=st.lists(st.floats(0, 1, exclude_max=True), max_size=52),
)
def test_playout_copy_of_the_rules_equals_legal_mask(
    seed: int, renege: str, prefix: int, renege_bias: float, draws: list[float]
) -> None:
    """finish_hand_randomly inlines the rules of play; from any position it plays exactly the cards
    legal_mask allows (each draw picks one of them: a different legal set picks another card)."""
    rng = random.Random(seed)
    fast = _dealt(seed, renege)
    for _ in range(prefix):
        seat = fast.turn
        assert seat is not None
        legal = bits(fast.legal_mask(seat))
        reneges = bits(fast.renege_mask(seat))
        choice = reneges if reneges and rng.random() < renege_bias else legal
        fast.play_index(seat, rng.choice(choice))
    slow = Game.from_json(fast.to_json())
    fast.finish_hand_randomly(_Draws(draws))
    source = _Draws(draws)
    while slow.phase == "playing":
        seat = slow.turn
        assert seat is not None
        permitido = renege == "permitido"
        h = slow.hands[seat]
        legal = bits(legal_mask(h, slow.led_suit, slow.first_trick, slow.hearts_broken, permitido))
        slow.play_index(seat, legal[int(source.random() * len(legal))])
    assert fast.to_json() == slow.to_json()
