"""Cards, suits and the bit masks the engine uses.

A card is written as two characters, rank then suit: ``2C 3C ... TC JC QC KC AC``; suits are
``C D H S`` (tréboles, diamantes, corazones, picas).  Internally a card is an index
``suit * 13 + (rank - 2)`` and a set of cards is an ``int`` bit mask, which keeps legal-move
generation to a handful of integer operations.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Final

SUITS: Final = "CDHS"
RANKS: Final = "23456789TJQKA"
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3

SUIT_NAMES = {"C": "tréboles", "D": "diamantes", "H": "corazones", "S": "picas"}
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
RANK_NAMES = {
    "2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7", "8": "8", "9": "9",
    "T": "10", "J": "J", "Q": "Q", "K": "K", "A": "A",
}

#: All 52 cards in index order: 2C..AC, 2D..AD, 2H..AH, 2S..AS.
DECK: Final[tuple[str, ...]] = tuple(r + s for s in SUITS for r in RANKS)
INDEX: Final[dict[str, int]] = {c: i for i, c in enumerate(DECK)}

#: The 13 cards of each suit, by suit number.
SUIT_MASK: Final[tuple[int, ...]] = tuple(0x1FFF << (13 * s) for s in range(4))
CLUBS_MASK: Final = SUIT_MASK[0]
DIAMONDS_MASK: Final = SUIT_MASK[1]
HEARTS_MASK: Final = SUIT_MASK[2]
SPADES_MASK: Final = SUIT_MASK[3]
TWO_OF_CLUBS: Final = INDEX["2C"]
QUEEN_OF_SPADES: Final = INDEX["QS"]
QS_BIT: Final = 1 << QUEEN_OF_SPADES
TWO_C_BIT: Final = 1 << TWO_OF_CLUBS
#: The cards that score: every heart (1 point each) and Q♠ (13).
POINTS_MASK: Final = HEARTS_MASK | QS_BIT
FULL_MASK: Final = (1 << 52) - 1
#: Points of each card index: 1 for a heart, 13 for Q♠, 0 for the rest.
CARD_POINTS: Final[tuple[int, ...]] = tuple(
    13 if i == QUEEN_OF_SPADES else 1 if i // 13 == HEARTS else 0 for i in range(52)
)

#: Bit of each card string (``"QS"`` -> ``1 << 49``), so dealing and passing skip parsing.
CARD_BIT: Final[dict[str, int]] = {c: 1 << i for i, c in enumerate(DECK)}
#: Suit (0-3) of each card index, and its bit.
SUIT_OF: Final[tuple[int, ...]] = tuple(i // 13 for i in range(52))
BIT: Final[tuple[int, ...]] = tuple(1 << i for i in range(52))

# Bit-index lists for every 13-bit pattern, so iterating a mask is a table lookup per suit.
_BITS13: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i in range(13) if m >> i & 1) for m in range(1 << 13)
)
# The same, per suit, with the card indices already offset (clubs is _BITS13 itself).
_SUIT_BITS: tuple[tuple[tuple[int, ...], ...], ...] = (_BITS13,) + tuple(
    tuple(tuple(13 * s + i for i in t) for t in _BITS13) for s in (1, 2, 3)
)
_BC, _BD, _BH, _BS = _SUIT_BITS


class CardError(ValueError):
    """A string that is not one of the 52 cards."""


def parse_card(card: object) -> int:
    """Index of ``card`` (``"QS"`` -> 49). Accepts ``10`` for ``T`` and lower case.

    Anything else is a CardError, whatever its type: the argument is typed ``object`` because the
    compiled build checks a declared ``str`` on entry and would raise TypeError instead."""
    if not isinstance(card, str):
        raise CardError(f"Carta desconocida: {card!r}")
    c = card.strip().upper()
    if c.startswith("10"):
        c = "T" + c[2:]
    try:
        return INDEX[c]
    except KeyError:
        raise CardError(f"Carta desconocida: {card!r}") from None


def card_str(index: int) -> str:
    return DECK[index]


def suit_of(index: int) -> int:
    return index // 13


def rank_of(index: int) -> int:
    """2..14 (ace high)."""
    return index % 13 + 2


def card_label(card: str) -> str:
    """How a person reads a card: ``Q♠``, ``10♥``."""
    return RANK_NAMES[card[0]] + SUIT_SYMBOLS[card[1]]


def bits(mask: int) -> list[int]:
    """Card indices in ``mask``, ascending."""
    return [
        *_BC[mask & 0x1FFF], *_BD[mask >> 13 & 0x1FFF], *_BH[mask >> 26 & 0x1FFF], *_BS[mask >> 39]
    ]


def mask_of(cards: Iterable[str]) -> int:
    m = 0
    for c in cards:
        m |= 1 << parse_card(c)
    return m


def cards_of(mask: int) -> list[str]:
    """Card strings in ``mask`` in display order (suit C D H S, rank ascending)."""
    return [DECK[i] for i in bits(mask)]


def popcount(mask: int) -> int:
    return mask.bit_count()


def points_of_mask(mask: int) -> int:
    return (mask & HEARTS_MASK).bit_count() + (13 if mask & QS_BIT else 0)


def card_points(card: str) -> int:
    """Points of one card: 1 for a heart, 13 for Q♠, 0 for the rest."""
    return CARD_POINTS[parse_card(card)]


def shuffled_deck(rng: random.Random | None = None) -> list[str]:
    """A new deck order. With no generator, the system's secure source shuffles it."""
    deck = list(DECK)
    (rng or random.SystemRandom()).shuffle(deck)
    return deck


def points_of(cards: Iterable[str]) -> int:
    """Points of a set of taken cards: 1 per heart, 13 for Q♠."""
    return points_of_mask(mask_of(cards))
