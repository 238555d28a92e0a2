"""The rules of play: which cards a seat may play now, written once as a rulebook.

The rulebook of a trick, one rule per sentence, in the order a seat applies them. Each rule keeps
some of the cards the earlier ones allowed; a rule "unless forced" gives way when it would keep
none. A card is refused with the first rule that leaves it out (``rules.game.illegal_reason``).

``legal_mask`` is the whole rulebook as bit arithmetic; the robots' play-outs call it for every
card they simulate, so this module is compiled with them (deploy/compile_robots.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from .cards import FULL_MASK, HEARTS_MASK, POINTS_MASK, SUIT_MASK, SUIT_NAMES, SUITS, TWO_C_BIT


@dataclass(frozen=True, slots=True)
class PlayRule:
    """One sentence of the rulebook: the cards it allows, and the refusal a seat hears."""

    code: str
    message: str
    keeps: int
    unless_forced: bool


#: The first trick is led with the 2 of clubs.
LEAD_TWO_OF_CLUBS: Final = PlayRule(
    "must_lead_2c", "Debes salir con el 2 de tréboles", TWO_C_BIT, unless_forced=False
)
#: Hearts are not led until one has been played, unless the hand holds nothing but hearts.
HEARTS_NOT_LED_UNTIL_BROKEN: Final = PlayRule(
    "hearts_not_broken", "Los corazones no están rotos", FULL_MASK & ~HEARTS_MASK,
    unless_forced=True,
)
#: A seat that holds the led suit plays it (one rule per suit: the message names it).
FOLLOW_SUIT: Final = tuple(
    PlayRule("must_follow", f"Debes seguir {SUIT_NAMES[s]}", SUIT_MASK[i], unless_forced=True)
    for i, s in enumerate(SUITS)
)
#: No points (hearts, Q♠) go on the first trick, unless the hand holds nothing else.
NO_POINTS_ON_FIRST_TRICK: Final = PlayRule(
    "no_points_first_trick", "No se juegan puntos en la primera baza", FULL_MASK & ~POINTS_MASK,
    unless_forced=True,
)


def rules_in_force(
    led_suit: int, first_trick: bool, hearts_broken: bool, permitido: bool = False
) -> tuple[PlayRule, ...]:
    """The rules that bind the seat to play now, in the rulebook's order.

    ``led_suit`` is -1 when the seat leads. At a «renuncio permitido» table following suit is not
    enforced: a seat may renege, and an accusation punishes it (:meth:`Game.accuse`).
    """
    leading = led_suit < 0
    rules: list[PlayRule] = []
    if leading and first_trick:
        rules.append(LEAD_TWO_OF_CLUBS)
    if leading and not hearts_broken:
        rules.append(HEARTS_NOT_LED_UNTIL_BROKEN)
    if not leading and not permitido:
        rules.append(FOLLOW_SUIT[led_suit])
    if not leading and first_trick:
        rules.append(NO_POINTS_ON_FIRST_TRICK)
    return tuple(rules)


# The rules in force in every situation, looked up instead of rebuilt for each card:
# IN_FORCE[led_suit + 1][first_trick][hearts_broken][permitido].
IN_FORCE: Final = tuple(
    tuple(
        tuple(
            tuple(rules_in_force(led, first, broken, permitido) for permitido in (False, True))
            for broken in (False, True)
        )
        for first in (False, True)
    )
    for led in range(-1, 4)
)


def allowed(hand: int, rules: Sequence[PlayRule]) -> int:
    """The cards of ``hand`` that ``rules``, applied in order, allow."""
    legal = hand
    for rule in rules:
        kept = legal & rule.keeps
        if kept or not rule.unless_forced:
            legal = kept
    return legal


def legal_mask(
    hand: int, led_suit: int, first_trick: bool, hearts_broken: bool, permitido: bool = False
) -> int:
    """The cards of ``hand`` that may be played; ``led_suit`` is -1 when leading.

    The whole of the play rules (:func:`rules_in_force`) as bit arithmetic; robots call it in their
    rollouts.
    """
    return allowed(hand, IN_FORCE[led_suit + 1][first_trick][hearts_broken][permitido])


__all__ = [
    "FOLLOW_SUIT", "HEARTS_NOT_LED_UNTIL_BROKEN", "IN_FORCE", "LEAD_TWO_OF_CLUBS",
    "NO_POINTS_ON_FIRST_TRICK", "PlayRule", "allowed", "legal_mask", "rules_in_force",
]
