"""Análisis: CPU seconds to review one player's whole game (docs/ANALYSIS.md).

Plays ``--games`` games to 100 points with four Normal robots (seeded), keeps each as the record
the service keeps (the fields a review reads), and reviews seat 0's decisions one by one as a
robot process does (``tables.analysis.review_decision``), at ``--worlds`` deals per decision.

    nice -n 19 .venv/bin/python bench/analysis_cpu.py [--games 3] [--worlds 400]

The last line printed is JSON: CPU per game and per decision, decisions and marks per game.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import robots  # noqa: E402
from robots.review import REVIEW_WORLDS  # noqa: E402
from rules import GAME_OVER, Game, Options, shuffled_deck, view_for  # noqa: E402
from tables.analysis import review_decision  # noqa: E402


def play_game(rng: random.Random) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A game of four Normal robots as a record, and seat 0's decisions."""
    g = Game(Options(target=100, renege="impedido"))
    hands: list[dict[str, Any]] = []
    decisions: list[dict[str, Any]] = []
    while g.phase != GAME_OVER:
        deck = shuffled_deck(rng)
        g.apply({"type": "deal", "deck": deck})
        hand: dict[str, Any] = {"number": g.hand_number, "pass": g.pass_dir, "deck": deck,
                                "passes": [], "plays": [], "accusation": None}
        if g.phase == "passing":
            for s in range(4):
                cards = robots.decide(view_for(g, s), "normal", rng)["cards"]
                hand["passes"].append({"from": s, "cards": list(cards)})
                if s == 0:
                    decisions.append({"kind": "pass", "hand": g.hand_number, "index": 0,
                                      "seat": 0})
            for p in hand["passes"]:
                g.apply({"type": "confirm_pass", "seat": p["from"], "cards": p["cards"]})
        while g.phase == "playing":
            turn = g.turn
            assert turn is not None
            card = robots.decide(view_for(g, turn), "normal", rng)["card"]
            if turn == 0:
                decisions.append({"kind": "play", "hand": g.hand_number,
                                  "index": len(hand["plays"]), "seat": 0})
            hand["plays"].append({"seat": turn, "card": card})
            g.apply({"type": "play", "seat": turn, "card": card})
        g.apply({"type": "close_count", "seat": 0})
        hands.append(hand)
    return {"options": {"target": 100, "renege": "impedido"}, "hands": hands}, decisions


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--worlds", type=int, default=REVIEW_WORLDS)
    args = ap.parse_args()
    rng = random.Random(2026)
    per_game: list[float] = []
    per_decision: list[float] = []
    counts: list[int] = []
    marks: list[int] = []
    for n in range(args.games):
        record, decisions = play_game(rng)
        start = time.process_time()
        marked = 0
        for d in decisions:
            t = time.process_time()
            marked += bool(review_decision(record, d, args.worlds)["marked"])
            per_decision.append(time.process_time() - t)
        per_game.append(time.process_time() - start)
        counts.append(len(decisions))
        marks.append(marked)
        print(f"game {n + 1}: {len(record['hands'])} hands, {len(decisions)} decisions, "
              f"{marked} marked, {per_game[-1]:.1f} s CPU")
    per_decision.sort()
    print(json.dumps({
        "worlds": args.worlds,
        "cpu_s_per_game_mean": round(sum(per_game) / len(per_game), 2),
        "cpu_s_per_game_max": round(max(per_game), 2),
        "decisions_per_game": round(sum(counts) / len(counts), 1),
        "marked_per_game": round(sum(marks) / len(marks), 1),
        "cpu_ms_per_decision_p50": round(1000 * per_decision[len(per_decision) // 2], 1),
        "cpu_ms_per_decision_max": round(1000 * per_decision[-1], 1),
    }))


if __name__ == "__main__":
    main()
