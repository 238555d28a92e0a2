"""``Game.finish_hand_randomly`` is the same game as playing its choices one by one."""

from __future__ import annotations

import json
import random

import pytest

from rules import DECK, Game, Options
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
