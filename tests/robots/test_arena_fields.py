"""The arena's hard fields play: the moon-shooter (bench/moonshooter.py) searches its moon, and
the frozen Difícil (bench/dificil_v1) plays a hand beside it.

Nothing else runs the reference robots but the benchmarks: these tests play the moon-shooter's
own play-outs (``shoot_search``) and a whole hand of the fields, so that a change they do not
take fails here rather than an hour into a field run.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from arena import Basico, DificilV1, MoonShooter, deals, play_hand  # noqa: E402
from dificil_v1.know import knowledge_of  # noqa: E402
from moonshooter import shoot_search  # noqa: E402

from rules import Game, Options, view_for  # noqa: E402
from rules.cards import DECK  # noqa: E402

#: Seat 0 holds the top of every suit it holds: A♥ to 8♥, A♠ K♠ Q♠, A♣ K♣ Q♣ (no diamonds).
SHOOTER = ["AH", "KH", "QH", "JH", "TH", "9H", "8H", "AS", "KS", "QS", "AC", "KC", "QC"]
NO_PASS = 3  # play_hand's direction index for the hand without an exchange


def _deck() -> list[str]:
    rest = [c for c in DECK if c not in SHOOTER]
    random.Random(7).shuffle(rest)
    deck: list[str] = []
    for i in range(13):  # the i-th card of the deck goes to seat i mod 4
        deck += [SHOOTER[i], rest[3 * i], rest[3 * i + 1], rest[3 * i + 2]]
    return deck


def test_the_moon_shooter_searches_and_shoots_a_sure_moon() -> None:
    result = play_hand(_deck(), NO_PASS, [MoonShooter(random.Random(1), seeded=1),
                                          Basico(), Basico(), Basico()])
    assert result.moon == 0
    assert result.scores == [0, 26, 26, 26]


def test_shoot_search_counts_the_share_of_deals_that_bring_the_moon_home() -> None:
    g = Game(Options())
    g.hand_number = NO_PASS
    g.apply({"type": "deal", "deck": _deck()})
    basico = Basico()
    while g.turn != 0 or g.trick:  # the first trick, then seat 0 leads
        s = g.turn
        assert s is not None
        g.play_index(s, DECK.index("AC") if s == 0 else basico.play(g, s))
    k = knowledge_of(view_for(g, 0))
    card, rate = shoot_search(k, random.Random(2), worlds=12)
    assert rate == 1.0  # every card it holds wins its trick: the moon in every deal
    assert k.hand >> card & 1


def test_the_reference_robots_play_a_whole_hand_with_legal_cards() -> None:
    """The frozen Difícil and the moon-shooter, seeded as the hard fields seed them, pass and play
    a hand of the fields' deals (the arena's players refuse an illegal card)."""
    deck = deals(1, 2027)[0]
    players = [MoonShooter(random.Random(3), seeded=2026), DificilV1(random.Random(2), seeded=2026),
               DificilV1(random.Random(2), seeded=2026), Basico()]
    result = play_hand(deck, 0, players)
    assert sum(result.scores) in (26, 78)
    assert result.scores == play_hand(deck, 0, players).scores  # the same views, the same cards
