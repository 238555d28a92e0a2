"""Difícil's pass: a few sensible passes played out in the same sampled deals.

The unseen 39 cards are dealt at random to the other seats, which pass as the Normal robot does;
each candidate pass is exchanged in the same deal and the hand is played out (``search.rollout``).
A moon pass is played out with this seat going for the moon and the others stopping it. The
Normal pass is the default: another pass replaces it only when its paired saving is more than one
standard error of the sampling noise (in the arena a stricter rule, 0.3 points and two standard
errors, changed half as many passes and saved less).
"""

from __future__ import annotations

import random
import time

from rules import pass_target
from rules.cards import HEARTS_MASK, QS_BIT, SUIT_MASK

from . import search
from .know import Knowledge
from .policy import moon_pass, pass_cards, pass_danger
from .search import Dealer, rollout

#: Simulated card plays the pass may spend (52 per candidate and deal).
PASS_BUDGET = 30000
#: Seconds of CPU time the pass may take at most (a safety stop, as in the play search).
PASS_TIME_LIMIT = 0.15
#: Fewest and most deals sampled.
PASS_MIN_WORLDS = 24
PASS_MAX_WORLDS = 400
#: Another pass replaces the Normal one when it saves this many points on average ...
PASS_MARGIN = 0.0
#: ... and this many standard errors of the paired difference.
PASS_SE = 1.0


def _top_danger(hand: int, n: int, keep: int = 0) -> int:
    """The ``n`` cards of ``hand`` (outside ``keep``) the Normal pass rates most dangerous."""
    sel = 0
    for _ in range(n):
        rest = hand & ~sel & ~keep
        if not rest:
            break
        sel |= 1 << pass_danger(rest, hand, False)
    return sel


def candidates(hand: int) -> list[tuple[int, bool]]:
    """Passes worth playing out, as (three-card mask, goes for the moon); the Normal one first."""
    normal = pass_cards(hand)
    out: list[tuple[int, bool]] = [(normal, False)]
    opts = [_top_danger(hand, 3)]
    if hand & QS_BIT:
        # Keep the queen (it may be guarded) or give it away, whichever Normal did not.
        if normal & QS_BIT:
            opts.append(_top_danger(hand, 3, keep=QS_BIT))
        else:
            opts.append(QS_BIT | _top_danger(hand & ~QS_BIT, 2))
    for suit in (0, 1, 3):
        mine = hand & SUIT_MASK[suit]
        if 0 < mine.bit_count() <= 3 and not (suit == 3 and mine & QS_BIT and mine != QS_BIT):
            # A void in this suit, the rest of the three by danger.
            opts.append(mine | _top_danger(hand & ~mine, 3 - mine.bit_count()))
    hearts = hand & HEARTS_MASK
    if hearts.bit_count() >= 2:
        top_hearts = 0
        h = hearts
        for _ in range(2):
            top_hearts |= 1 << (h.bit_length() - 1)
            h &= ~top_hearts
        opts.append(top_hearts | _top_danger(hand & ~top_hearts, 1, keep=hearts))
    for m in opts:
        if m.bit_count() == 3 and not m & ~hand and all(m != o for o, _ in out):
            out.append((m, False))
    moon = moon_pass(hand)
    if moon is not None:
        out.append((moon, True))
    return out


def _shooter_after(me: int, hands: list[int]) -> int:
    """The other seat that goes for the moon with its cards after the exchange, or -1 (the
    play search's rule): a pass that feeds a long heart suit is played out against a moon.

    The whole table stops that moon in the play-out (``others_stop``), unlike in the play search:
    here the shooter is only a sampled hand, with nothing seen at the table behind it, and a pass
    of the A♥ K♥ makes one in a good share of the deals; counting on nobody else to stop it would
    keep every high heart, against the classic advice (tests/robots/test_dificil_search.py)."""
    for s in range(4):
        if s != me and search.long_hearts(hands[s], search.OPP_MOON_HEARTS):
            return s
    return -1


def exchanged(hands: list[int], given: list[int], direction: str) -> tuple[list[int], int]:
    """The four hands after each seat passed ``given[seat]`` in ``direction``, and the seat
    holding the 2♣ (it leads)."""
    after = [hands[s] & ~given[s] for s in range(4)]
    for s in range(4):
        after[pass_target(s, direction)] |= given[s]
    return after, next(s for s in range(4) if after[s] & 1)


def search_pass(k: Knowledge, direction: str, rng: random.Random,
                budget_steps: int = PASS_BUDGET,
                time_limit: float | None = PASS_TIME_LIMIT) -> int:
    """Difícil's three cards (a mask) for the seat of ``k`` passing in ``direction``."""
    cands = candidates(k.hand)
    if len(cands) == 1:
        return cands[0][0]
    me = k.me
    start = time.thread_time()
    worlds = max(PASS_MIN_WORLDS, min(PASS_MAX_WORLDS, budget_steps // (52 * len(cands))))
    scores: list[list[int]] = [[] for _ in cands]
    dealer = Dealer(k)
    for n in range(worlds):
        hands = dealer.deal(rng)
        given = [0 if s == me else pass_cards(hands[s]) for s in range(4)]
        for i, (m, moon) in enumerate(cands):
            given[me] = m
            after, leader = exchanged(hands, given, direction)
            res = rollout(after, [], leader, 0, 0, False, [0, 0, 0, 0], [0, 0, 0, 0], me,
                          shooter=me if moon else _shooter_after(me, after), others_stop=True)
            scores[i].append(res[me])
        if time_limit is not None and n >= PASS_MIN_WORLDS \
                and time.thread_time() - start > time_limit:
            break
    best = min(range(len(cands)), key=lambda i: (sum(scores[i]), i))
    if best == 0:
        return cands[0][0]
    d = [a - b for a, b in zip(scores[0], scores[best], strict=True)]
    m = len(d)
    mean = sum(d) / m
    var = sum((x - mean) ** 2 for x in d) / max(1, m - 1)
    if mean >= PASS_MARGIN and mean > PASS_SE * (var / m) ** 0.5:
        return cands[best][0]
    return cands[0][0]


__all__ = ["PASS_BUDGET", "PASS_TIME_LIMIT", "candidates", "exchanged", "search_pass"]
