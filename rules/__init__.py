"""Corazones' rules: the game of Hearts as seed 003 describes it. Standard library only.

>>> from rules import Game, Options, view_for, shuffled_deck
>>> g = Game(Options(target=50, renege="impedido"))
>>> events = g.apply({"type": "deal", "deck": shuffled_deck()})
>>> g.phase
'passing'
"""

from .cards import (
    DECK,
    RANKS,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    SUITS,
    CardError,
    card_label,
    card_points,
    cards_of,
    mask_of,
    parse_card,
    points_of,
    shuffled_deck,
)
from .game import (
    ACTION_TYPES,
    COUNTING,
    DEALING,
    GAME_OVER,
    PASS_DIRECTIONS,
    PASSING,
    PHASES,
    PLAYING,
    RENEGE_MODES,
    TARGETS,
    Game,
    Options,
    RulesError,
    illegal_reason,
    legal_mask,
    pass_direction,
    pass_target,
)
from .view import public_action, view_for

__all__ = [
    "ACTION_TYPES", "COUNTING", "DEALING", "DECK", "GAME_OVER", "PASSING", "PASS_DIRECTIONS",
    "PHASES", "PLAYING", "RANKS", "RENEGE_MODES", "SUITS", "SUIT_NAMES", "SUIT_SYMBOLS", "TARGETS",
    "CardError", "Game", "Options", "RulesError", "card_label", "card_points", "cards_of",
    "illegal_reason", "legal_mask", "mask_of", "parse_card", "pass_direction", "pass_target",
    "points_of", "public_action", "shuffled_deck", "view_for",
]
