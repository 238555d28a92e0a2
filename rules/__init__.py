"""Corazones' rules: the game of Hearts as the table plays it. Standard library only.

>>> from rules import Game, Options, view_for, shuffled_deck
>>> g = Game(Options(target=50, renege="impedido"))
>>> events = g.apply({"type": "deal", "deck": shuffled_deck()})
>>> g.phase
'passing'

Cards are also exported as indices (``suit * 13 + rank - 2``) and sets of cards as bit masks, with
the constants and helpers robots need (suits, Q♠, points, the trick winner), so nothing outside
this package has to restate a rule.
"""

from .cards import (
    BIT,
    CARD_POINTS,
    CLUBS,
    CLUBS_MASK,
    DECK,
    DIAMONDS,
    DIAMONDS_MASK,
    FULL_MASK,
    HEARTS,
    HEARTS_MASK,
    INDEX,
    POINTS_MASK,
    QS_BIT,
    QUEEN_OF_SPADES,
    RANKS,
    SPADES,
    SPADES_MASK,
    SUIT_MASK,
    SUIT_NAMES,
    SUIT_OF,
    SUIT_SYMBOLS,
    SUITS,
    TWO_C_BIT,
    TWO_OF_CLUBS,
    CardError,
    bits,
    card_label,
    card_points,
    card_str,
    cards_of,
    mask_of,
    parse_card,
    points_of,
    points_of_mask,
    rank_of,
    shuffled_deck,
    suit_of,
)
from .game import (
    ACTION_TYPES,
    COUNTING,
    DEALING,
    FOLLOW_SUIT,
    GAME_OVER,
    HEARTS_NOT_LED_UNTIL_BROKEN,
    LEAD_TWO_OF_CLUBS,
    NO_POINTS_ON_FIRST_TRICK,
    PASS_DIRECTIONS,
    PASSING,
    PHASES,
    PLAYING,
    RENEGE_MODES,
    TARGETS,
    Game,
    Options,
    PlayRule,
    RulesError,
    illegal_reason,
    legal_mask,
    pass_direction,
    pass_target,
    rules_in_force,
)
from .tricks import HAND_POINTS, hand_scores, moon_shooter, trick_points, trick_winner
from .view import public_action, view_for

__all__ = [
    # Cards: strings, indices, masks.
    "BIT", "CARD_POINTS", "CLUBS", "CLUBS_MASK", "DECK", "DIAMONDS", "DIAMONDS_MASK", "FULL_MASK",
    "HEARTS", "HEARTS_MASK", "INDEX", "POINTS_MASK", "QS_BIT", "QUEEN_OF_SPADES", "RANKS",
    "SPADES", "SPADES_MASK", "SUITS", "SUIT_MASK", "SUIT_NAMES", "SUIT_OF", "SUIT_SYMBOLS",
    "TWO_C_BIT", "TWO_OF_CLUBS", "CardError", "bits", "card_label", "card_points", "card_str",
    "cards_of", "mask_of", "parse_card", "points_of", "points_of_mask", "rank_of",
    "shuffled_deck", "suit_of",
    # The rules of play.
    "FOLLOW_SUIT", "HEARTS_NOT_LED_UNTIL_BROKEN", "LEAD_TWO_OF_CLUBS", "NO_POINTS_ON_FIRST_TRICK",
    "PlayRule", "illegal_reason", "legal_mask", "rules_in_force",
    # Tricks and scores.
    "HAND_POINTS", "hand_scores", "moon_shooter", "trick_points", "trick_winner",
    # The game.
    "ACTION_TYPES", "COUNTING", "DEALING", "GAME_OVER", "PASSING", "PASS_DIRECTIONS", "PHASES",
    "PLAYING", "RENEGE_MODES", "TARGETS", "Game", "Options", "RulesError", "pass_direction",
    "pass_target", "public_action", "view_for",
]
