"""The rules of play are written once (``rules_in_force``); these tests pin what they say.

``legal_mask`` and ``illegal_reason`` are both read from the rulebook, so agreeing with each other
proves little: here they are checked against a statement of the rules written independently, over
many random positions, impedido and permitido alike. The trick and score helpers robots import
are checked against the engine's own record of random games.
"""

from __future__ import annotations

import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rules import (
    CARD_POINTS,
    FOLLOW_SUIT,
    FULL_MASK,
    HAND_POINTS,
    HEARTS_MASK,
    HEARTS_NOT_LED_UNTIL_BROKEN,
    LEAD_TWO_OF_CLUBS,
    NO_POINTS_ON_FIRST_TRICK,
    POINTS_MASK,
    SUIT_MASK,
    TWO_C_BIT,
    Options,
    hand_scores,
    illegal_reason,
    legal_mask,
    moon_shooter,
    points_of_mask,
    rules_in_force,
    trick_points,
    trick_winner,
)
from tests.rules.rules_testkit import random_game


def reference_legal(hand: int, led: int, first: bool, broken: bool, permitido: bool) -> int:
    """The play rules stated card by card, without masks of rules: what a player checks."""
    legal = 0
    for c in range(52):
        if not hand >> c & 1:
            continue
        suit = c // 13
        has_led_suit = led >= 0 and any(hand >> d & 1 for d in range(52) if d // 13 == led)
        only_hearts = all(d // 13 == 2 for d in range(52) if hand >> d & 1)
        only_points = all(d // 13 == 2 or d == 49 for d in range(52) if hand >> d & 1)
        if led < 0 and first and c != 0:
            continue  # the first trick is led with 2♣
        if led < 0 and suit == 2 and not broken and not only_hearts:
            continue  # hearts are not led until broken
        if led >= 0 and suit != led and has_led_suit and not permitido:
            continue  # follow suit
        if led >= 0 and first and (suit == 2 or c == 49) and not only_points:
            continue  # no points on the first trick
        legal |= 1 << c
    return legal


# Positions a game can reach: in the first trick the leader holds 2♣ and every other seat is
# following a club.
positions = st.tuples(
    st.sets(st.integers(0, 51), min_size=1, max_size=13),
    st.integers(-1, 3),
    st.booleans(),
    st.booleans(),
    st.booleans(),
).filter(lambda p: not p[2] or p[1] == 0 or (p[1] < 0 and 0 in p[0]))


@settings(max_examples=1500, deadline=None)
@given(positions)
def test_legal_mask_is_the_rulebook(position: tuple[set[int], int, bool, bool, bool]) -> None:
    cards, led, first, broken, permitido = position
    hand = sum(1 << c for c in cards)
    assert legal_mask(hand, led, first, broken, permitido) == reference_legal(
        hand, led, first, broken, permitido
    )


@settings(max_examples=800, deadline=None)
@given(positions)
def test_each_refusal_names_the_first_rule_that_leaves_the_card_out(
    position: tuple[set[int], int, bool, bool, bool],
) -> None:
    cards, led, first, broken, permitido = position
    hand = sum(1 << c for c in cards)
    legal = legal_mask(hand, led, first, broken, permitido)
    assume(legal != hand)
    for c in cards:
        reason = illegal_reason(hand, c, led, first, broken, permitido)
        if legal >> c & 1:
            assert reason is None
            continue
        assert reason is not None
        suit = c // 13
        if led < 0 and first:
            assert reason.code == "must_lead_2c"
        elif led < 0:
            assert reason.code == "hearts_not_broken" and suit == 2
        elif suit != led and hand & SUIT_MASK[led] and not permitido:
            assert reason.code == "must_follow"
        else:
            assert reason.code == "no_points_first_trick" and POINTS_MASK >> c & 1


def test_rules_in_force_read_like_the_rulebook() -> None:
    # Leading the first trick: 2♣ (hearts cannot be broken yet).
    assert rules_in_force(-1, True, False) == (LEAD_TWO_OF_CLUBS, HEARTS_NOT_LED_UNTIL_BROKEN)
    assert rules_in_force(-1, False, False) == (HEARTS_NOT_LED_UNTIL_BROKEN,)
    assert rules_in_force(-1, False, True) == ()
    assert rules_in_force(0, True, False) == (FOLLOW_SUIT[0], NO_POINTS_ON_FIRST_TRICK)
    assert rules_in_force(3, False, True) == (FOLLOW_SUIT[3],)
    # «Renuncio permitido»: following suit is the player's business; every other rule stays.
    assert rules_in_force(0, True, False, permitido=True) == (NO_POINTS_ON_FIRST_TRICK,)
    assert rules_in_force(2, False, False, permitido=True) == ()
    assert rules_in_force(-1, False, False, permitido=True) == (HEARTS_NOT_LED_UNTIL_BROKEN,)
    assert [r.message for r in FOLLOW_SUIT] == [
        "Debes seguir tréboles", "Debes seguir diamantes", "Debes seguir corazones",
        "Debes seguir picas",
    ]
    assert LEAD_TWO_OF_CLUBS.keeps == TWO_C_BIT and not LEAD_TWO_OF_CLUBS.unless_forced
    assert HEARTS_NOT_LED_UNTIL_BROKEN.keeps == FULL_MASK & ~HEARTS_MASK


def test_only_hearts_may_lead_a_heart_and_only_points_may_go_on_the_first_trick() -> None:
    hearts = SUIT_MASK[2] & 0b111 << 26
    assert legal_mask(hearts, -1, False, False) == hearts
    qs_and_hearts = (1 << 49) | (1 << 30)
    assert legal_mask(qs_and_hearts, 0, True, False) == qs_and_hearts
    assert legal_mask(qs_and_hearts | (1 << 14), 0, True, False) == 1 << 14


def test_trick_and_score_helpers_agree_with_the_engine() -> None:
    rng = random.Random(7)
    tricks = 0
    for renege in ("impedido", "permitido"):
        for g, _action, events in random_game(rng, Options(target=50, renege=renege)):
            for e in events:
                if e["type"] == "trick":
                    leader, cards, winner = g.tricks[-1]
                    assert (leader + trick_winner(cards)) % 4 == winner == e["winner"]
                    assert trick_points(cards) == e["points"]
                    assert points_of_mask(sum(1 << c for c in cards)) == e["points"]
                    tricks += 1
                if e["type"] == "hand_end" and g.accusation is None:
                    pts = g.points_taken()
                    assert e["scores"] == hand_scores(pts)
                    assert e["moon"] == moon_shooter(pts)
    assert tricks > 100
    assert sum(CARD_POINTS) == HAND_POINTS


def test_trick_winner_of_a_trick_still_on_the_table() -> None:
    # 5♠ led, then K♥ (off suit), then 9♠: the 9♠ is winning so far.
    assert trick_winner([39 + 3, 26 + 11, 39 + 7]) == 2
    assert trick_winner([12]) == 0
    assert hand_scores([26, 0, 0, 0]) == [0, 26, 26, 26]
    assert hand_scores([13, 5, 8, 0]) == [13, 5, 8, 0]
