"""Who takes a trick, what it is worth, and how a hand's points become its scores.

Cards are indices (``suit * 13 + rank - 2``, see :mod:`rules.cards`); a trick is its cards in play
order, the leader's first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .cards import CARD_POINTS

#: Points in one hand: 13 hearts and Q♠.
HAND_POINTS = 26


def trick_winner(cards: Sequence[int]) -> int:
    """Position, in play order, of the card taking the trick: the highest card of the led suit.

    For a trick still on the table it is the card winning it so far.
    """
    led = cards[0] // 13
    best = 0
    for i in range(1, len(cards)):
        c = cards[i]
        if c // 13 == led and c > cards[best]:
            best = i
    return best


def trick_points(cards: Iterable[int]) -> int:
    """Points of the cards of a trick (or any cards): 1 per heart, 13 for Q♠."""
    return sum(CARD_POINTS[c] for c in cards)


def moon_shooter(points: Sequence[int]) -> int | None:
    """The seat that took every point of the hand (it shot the moon), or None."""
    for seat, p in enumerate(points):
        if p == HAND_POINTS:
            return seat
    return None


def hand_scores(points: Sequence[int]) -> list[int]:
    """Each seat's score for a hand in which it took ``points``.

    A seat that took all 26 points shoots the moon: it scores 0 and each other seat scores 26.
    """
    moon = moon_shooter(points)
    if moon is None:
        return list(points)
    return [0 if seat == moon else HAND_POINTS for seat in range(len(points))]


__all__ = ["HAND_POINTS", "hand_scores", "moon_shooter", "trick_points", "trick_winner"]
