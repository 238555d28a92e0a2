"""Random hands per second: our rules engine against OpenSpiel's Hearts, same run, one core.

A "random hand" is: deal a shuffled deck, each seat passes 3 random cards (per the hand's
direction: left, right, across, none in turn), then random legal cards until the hand ends.
Both sides use the same driver: ``random.Random`` shuffles and picks, a hand is 52 plays.
Ours is driven through the engine's own API (``Game.deal``, ``confirm_pass``, ``legal_mask``,
``play_index``, ``close_count``); OpenSpiel through ``pyspiel`` from Python.

    make bench-rules                  # or: .venv/bin/python bench/rules_bench.py [--seconds S]

The last line printed is JSON: {"ours_hands_per_s", "openspiel_hands_per_s", "ratio"}.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from rules import DECK, Game, Options  # noqa: E402
from rules.cards import CARD_BIT, SUIT_MASK, bits  # noqa: E402

OPENSPIEL_PARAMS = {
    "pass_cards": True,
    "no_pts_on_first_trick": True,
    "can_lead_any_club": False,
    "jd_bonus": False,
    "avoid_all_tricks_bonus": False,
    "must_break_hearts": True,
    "qs_breaks_hearts": False,
    "can_lead_hearts_instead_of_qs": False,
}
# Our hand number -> OpenSpiel's pass-direction chance action (0 none, 1 left, 2 across, 3 right).
OPENSPIEL_DIR = (1, 3, 2, 0)


def ours_hands(
    n: int, seed: int, game_class: Callable[[Options], Any] = Game, playout: bool = False
) -> int:
    """Play ``n`` random hands with our engine; return a checksum of the scores.

    With ``playout`` the 52 cards go through ``Game.finish_hand_randomly``: the same rules and the
    same choices (a test checks the games are identical) without building per-card events; it is
    the path the robots' rollouts take. OpenSpiel has no such call from Python."""
    rng = random.Random(seed)
    shuffle, sample, random_ = rng.shuffle, rng.sample, rng.random
    deck = list(DECK)
    options = Options(target=100)
    game = game_class(options)
    checksum = 0
    for _ in range(n):
        if game.phase == "game_over":
            game = game_class(options)
        shuffle(deck)
        game.deal(deck)
        if game.phase == "passing":
            hands = game.hands
            for seat in range(4):
                game.confirm_pass(seat, [DECK[c] for c in sample(bits(hands[seat]), 3)])
        if playout:
            game.finish_hand_randomly(rng)
        else:
            play, legal_mask = game.play_index, game.legal_mask
            for _ in range(52):
                seat = game.turn
                cards = bits(legal_mask(seat))
                play(seat, cards[int(random_() * len(cards))])
        assert game.phase == "counting"
        checksum += game.hand_scores[0] if game.hand_scores else 0
        game.close_count(0)
    return checksum


class _StubGame:
    """No rules, the same call shape as ``Game``: the legal set is the seat's lowest suit (about
    as many cards as real legal sets), nothing is checked, one event per call.

    Driving it with :func:`ours_hands` measures the floor of the Python driver itself (shuffling,
    picking random cards, calls), which every pure-Python engine pays on top of its own work.
    """

    __slots__ = ("phase", "turn", "hands", "played", "hand_scores")

    def __init__(self, options: Options | None = None) -> None:
        self.phase = "dealing"
        self.hand_scores: list[int] | None = [0, 0, 0, 0]

    def deal(self, deck: list[str]) -> list[dict[str, object]]:
        card_bits = [CARD_BIT[c] for c in deck]
        self.hands = [sum(card_bits[s::4]) for s in range(4)]
        self.phase, self.turn, self.played = "passing", 0, 0
        return [{"type": "deal"}]

    def confirm_pass(self, seat: int, cards: list[str]) -> list[dict[str, object]]:
        if seat == 3:
            self.phase = "playing"
        return [{"type": "pass_confirmed", "seat": seat}]

    def legal_mask(self, seat: int) -> int:
        if seat != self.turn:
            return 0
        hand = self.hands[seat]
        return hand & SUIT_MASK[((hand & -hand).bit_length() - 1) // 13]

    def play_index(self, seat: int, card: int) -> list[dict[str, object]]:
        self.hands[seat] &= ~(1 << card)
        self.turn = (seat + 1) & 3
        self.played += 1
        if self.played == 52:
            self.phase = "counting"
        return [{"type": "play", "seat": seat, "card": DECK[card]}]

    def close_count(self, seat: int) -> list[dict[str, object]]:
        self.phase = "dealing"
        return []


def ours_playout_hands(n: int, seed: int) -> int:
    """:func:`ours_hands` through ``Game.finish_hand_randomly``."""
    return ours_hands(n, seed, playout=True)


def stub_hands(n: int, seed: int) -> int:
    """:func:`ours_hands` with the rules replaced by :class:`_StubGame` (the driver's floor)."""
    return ours_hands(n, seed, _StubGame)


def openspiel_hands(n: int, seed: int) -> int:
    """Play ``n`` random hands with OpenSpiel's Hearts driven from Python."""
    import pyspiel

    game = pyspiel.load_game("hearts", OPENSPIEL_PARAMS)
    rng = random.Random(seed)
    shuffle, sample, random_ = rng.shuffle, rng.sample, rng.random
    deck = list(range(52))
    checksum = 0
    for h in range(n):
        state = game.new_initial_state()
        apply = state.apply_action
        apply(OPENSPIEL_DIR[h % 4])
        shuffle(deck)
        for card in deck:
            apply(card)
        if h % 4 != 3:
            for _ in range(4):
                for card in sample(state.legal_actions(), 3):
                    apply(card)
        legal_actions = state.legal_actions
        for _ in range(52):
            cards = legal_actions()
            apply(cards[int(random_() * len(cards))])
        assert state.is_terminal()
        checksum += int(state.returns()[0])
    return checksum


def rate(fn: Callable[[int, int], int], seconds: float, seed: int) -> tuple[float, int]:
    """Hands per second of ``fn``, running batches until ``seconds`` have passed."""
    fn(50, seed)  # warm up
    hands, elapsed, batch = 0, 0.0, 200
    while elapsed < seconds:
        t0 = time.process_time()
        fn(batch, seed + hands)
        elapsed += time.process_time() - t0
        hands += batch
    return hands / elapsed, hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per engine and round")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; best is kept")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()

    if hasattr(os, "sched_setaffinity"):
        cpu = sorted(os.sched_getaffinity(0))[-1]
        os.sched_setaffinity(0, {cpu})
        pinned = f"CPU {cpu}"
    else:
        pinned = "not pinned (no sched_setaffinity)"

    engines = (
        ("ours", ours_playout_hands),
        ("ours_cards", ours_hands),
        ("openspiel", openspiel_hands),
        ("stub", stub_hands),
    )
    best = {name: 0.0 for name, _ in engines}
    counts = {name: 0 for name, _ in engines}
    for _ in range(args.rounds):
        for name, fn in engines:
            r, n = rate(fn, args.seconds, args.seed)
            best[name] = max(best[name], r)
            counts[name] += n

    ratio = best["ours"] / best["openspiel"]
    print(f"Random Hearts hands per second, one core ({pinned}), CPU time, best of {args.rounds}")
    print(f"{'engine':<12} {'hands/s':>10} {'us/hand':>9} {'hands run':>10}")
    for name, _ in engines:
        print(f"{name:<12} {best[name]:>10.0f} {1e6 / best[name]:>9.1f} {counts[name]:>10}")
    print(f"{'ratio':<12} {ratio:>10.2f}  (ours / openspiel; target >= 1.0)")
    print(
        f"{'ratio_cards':<12} {best['ours_cards'] / best['openspiel']:>10.2f}  (ours_cards /"
        " openspiel: our engine driven card by card from Python, play_index per card)"
    )
    print(
        f"{'ceiling':<12} {best['stub'] / best['openspiel']:>10.2f}  (stub / openspiel: a rule-less"
        " Python engine under the same driver; no pure-Python engine can beat it)"
    )
    print(
        json.dumps(
            {
                "ours_hands_per_s": round(best["ours"], 1),
                "openspiel_hands_per_s": round(best["openspiel"], 1),
                "ratio": round(ratio, 3),
                "ours_card_by_card_hands_per_s": round(best["ours_cards"], 1),
                "ratio_card_by_card": round(best["ours_cards"] / best["openspiel"], 3),
            }
        )
    )


if __name__ == "__main__":
    main()
