"""How often the play-outs' policy plays the card Difícil's search chooses, by situation.

Difícil values a card by finishing sampled deals with the Normal policy for all four seats
(robots/search.py), so where Normal plays otherwise than a searching player would, the play-outs
misjudge the hand. This plays ``--deals`` hands with four Normal robots (seeded), keeps a share
(``--share``) of the card decisions that have a choice, and asks Difícil (no time limit, seeded)
for its card at each; then counts how often ``robots.policy.play_card`` plays the same card (or
one equivalent to it: nothing unseen between them), as the Normal robot and as the play-outs
play it (they duck when last on a trick without points), by situation (lead, follow in each
position with or without a card that ducks the winner, discard) and by stage of the hand.
Difícil asked again under another seed (``--again`` decisions) says how often it agrees with
itself: the ceiling.

    nice -n 19 .venv/bin/python bench/rollout_agreement.py [--deals 400] [--share 0.2]

The last line printed is JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections import Counter
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import robots  # noqa: E402
from robots.know import Knowledge, knowledge_of  # noqa: E402
from robots.policy import play_card  # noqa: E402
from robots.search import candidates  # noqa: E402
from rules import Game, Options, shuffled_deck, view_for  # noqa: E402
from rules.cards import DECK, SUIT_MASK  # noqa: E402


def representative(cands: list[int], card: int) -> int:
    """The candidate standing for ``card``: the lowest candidate of its suit at or above it
    (``search.candidates`` keeps the highest card of each run of equivalent cards)."""
    same = [c for c in cands if c // 13 == card // 13 and c >= card]
    return min(same) if same else card


def situation(k: Knowledge) -> str:
    """``lead``, ``discard``, or ``follow`` with the position (2 to 4) and whether a card of
    the seat's ducks the winner."""
    trick = [c for _, c in k.trick]
    if not trick:
        return "lead"
    led = trick[0] // 13
    if not k.hand & SUIT_MASK[led]:
        return "discard"
    win = max(c for c in trick if c // 13 == led)
    ducks = k.legal & SUIT_MASK[led] & ((1 << win) - 1)
    return f"follow {len(trick) + 1} {'ducking' if ducks else 'over'}"


def playout_card(k: Knowledge) -> int:
    """The card ``search.rollout`` plays for the searching seat when no moon is played out: the
    Normal policy, ducking when last on a trick without points."""
    return play_card(k.me, k.hand, k.legal, [c for _, c in k.trick], k.played, k.first_trick,
                     k.points, k.voids, win_free_last=False)


def views(deals: int, share: float, rng: random.Random) -> list[dict[str, Any]]:
    """Card decisions with a choice from hands of four Normal robots, ``share`` of them."""
    out: list[dict[str, Any]] = []
    for i in range(deals):
        g = Game(Options(target=100, renege="impedido"))
        g.hand_number = i % 4  # the deal makes it i % 4 + 1: the passes cycle as in the arena
        g.apply({"type": "deal", "deck": shuffled_deck(rng)})
        if g.phase == "passing":
            for s in range(4):
                a = robots.decide(view_for(g, s), "normal", rng)
                g.apply({**a, "seat": s})
        while g.phase == "playing":
            turn = g.turn
            assert turn is not None
            v = view_for(g, turn)
            if len(candidates(knowledge_of(v))) > 1 and rng.random() < share:
                out.append(v)
            g.apply({**robots.decide(v, "normal", rng), "seat": turn})
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=400)
    ap.add_argument("--share", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=777)
    ap.add_argument("--again", type=int, default=600,
                    help="ask Difícil again under another seed at this many of the decisions: "
                         "how often it agrees with itself, the ceiling of the agreement")
    args = ap.parse_args()
    seen = views(args.deals, args.share, random.Random(args.seed))
    total: Counter[str] = Counter()
    robot: Counter[str] = Counter()
    playouts: Counter[str] = Counter()
    itself = 0
    for i, v in enumerate(seen):
        k = knowledge_of(v)
        cands = candidates(k)
        action = robots.decide(v, "dificil", random.Random(i), time_limit=None)
        searched = representative(cands, DECK.index(action["card"]))
        normal = DECK.index(robots.decide(v, "normal", random.Random(i))["card"])
        if i < args.again:
            second = robots.decide(v, "dificil", random.Random(10_000 + i), time_limit=None)
            itself += representative(cands, DECK.index(second["card"])) == searched
        stage = "tricks 1-4" if k.tricks_done < 4 else "tricks 5-9" if k.tricks_done < 9 \
            else "tricks 10-13"
        for key in ("all", situation(k), stage):
            total[key] += 1
            robot[key] += representative(cands, normal) == searched
            playouts[key] += representative(cands, playout_card(k)) == searched
    figures = {key: {"decisions": total[key], "robot": round(robot[key] / total[key], 3),
                     "playouts": round(playouts[key] / total[key], 3)}
               for key in sorted(total, key=lambda key: -total[key])}
    print(f"{'':18s} {'decisions':>9s}  agree: Normal robot, play-outs")
    for key, f in figures.items():
        print(f"{key:18s} {f['decisions']:9d}  {f['robot']:.3f} {f['playouts']:.3f}")
    again = min(args.again, len(seen))
    print(f"Difícil with itself under another seed: {itself / max(1, again):.3f} of {again}")
    print(json.dumps({"deals": args.deals, "share": args.share, "robots_compiled": robots.COMPILED,
                      "agreement": figures,
                      "dificil_with_itself": round(itself / max(1, again), 3)}))


if __name__ == "__main__":
    main()
