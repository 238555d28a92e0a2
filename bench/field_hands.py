"""Difícil alone in the arena's hard fields, hand by hand: its points, and the moons it suffers.

The arena's fields (bench/arena.py: ``vs_moonshooters``, ``vs_dificil_v1``, ``vs_basico``) with
the same deals, seeds and common random numbers, but only the candidate's hands: the comparison's
hands (``dificil_v1`` in the same seat, ``--candidate dificil_v1``, as the arena seeds it; or the
field alone with ``--field-only``) do not move while Difícil changes, and are played once. Every
hand's points are written out, so two runs of the same hands pair hand by hand (``--out``), and
``--trace`` prints every moon suffered card by card. The field's decisions are a function of the
view they see (``view_rng``), so they are kept in a cache file (``--cache``): a second run of a
changed Difícil computes the field's decisions only in the hands Difícil played differently.
``--only`` replays the hands of a previous run's ``suffered`` list, to try a change on the moons
it is meant to stop before the whole field runs.
The last line printed is JSON.

    .venv/bin/python bench/field_hands.py --field moonshooters --first 0 --deals 80 --trace
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from arena import Basico, DificilV1, MoonShooter, Player, Robot, deals, play_hand  # noqa: E402

import robots  # noqa: E402
from rules import Game, view_for  # noqa: E402
from rules.cards import DECK  # noqa: E402


class Cached(Player):
    """A field player whose decisions are looked up by the whole view before being computed."""

    def __init__(self, inner: Robot, db: sqlite3.Connection) -> None:
        self.inner = inner
        self.name = inner.name
        self.db = db
        self.hits = 0
        self.misses = 0

    def _decision(self, kind: str, g: Game, seat: int, compute: Callable[[], str]) -> str:
        key = hashlib.sha256(json.dumps([self.name, kind, view_for(g, seat)], sort_keys=True)
                             .encode()).hexdigest()
        row = self.db.execute("SELECT value FROM decisions WHERE key = ?", (key,)).fetchone()
        if row is not None:
            self.hits += 1
            return str(row[0])
        self.misses += 1
        value = compute()
        self.db.execute("INSERT OR REPLACE INTO decisions VALUES (?, ?)", (key, value))
        self.db.commit()
        return value

    def pass3(self, g: Game, seat: int) -> list[str]:
        cards = self._decision("pass", g, seat, lambda: json.dumps(self.inner.pass3(g, seat)))
        return list(json.loads(cards))

    def play(self, g: Game, seat: int) -> int:
        return int(self._decision("play", g, seat, lambda: str(self.inner.play(g, seat))))


class Watching(Player):
    """The candidate, keeping the game it last saw a card played in (the hand, once over)."""

    def __init__(self, inner: Robot) -> None:
        self.inner = inner
        self.name = inner.name
        self.game: Game | None = None

    def pass3(self, g: Game, seat: int) -> list[str]:
        return self.inner.pass3(g, seat)

    def play(self, g: Game, seat: int) -> int:
        return self.inner.play(g, seat)

    def observe(self, g: Game, seat: int, card: int) -> None:
        self.game = g


def trace(g: Game) -> list[str]:
    """A finished hand, trick by trick: the hands dealt, the passes, each trick's cards."""
    def names(mask: int) -> list[str]:
        return [DECK[c] for c in range(52) if mask >> c & 1]

    lines = [f"hands: {[names(h) for h in g.dealt]}"]
    if any(g.pass_sel):
        lines.append(f"passes: {[names(m) for m in g.pass_sel]}")
    for leader, cards, _ in g.tricks:
        lines.append(" ".join(f"{(leader + i) % 4}:{DECK[c]}" for i, c in enumerate(cards)))
    lines.append(f"scores {g.hand_scores} moon {g.moon}")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=2026, help="the arena's seed (deals: seed + 1)")
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--deals", type=int, default=80)
    ap.add_argument("--only", help="a previous run's JSON: replay its suffered hands only")
    ap.add_argument("--cache", default="instance/field_hands_cache.sqlite3")
    ap.add_argument("--out", help="write the JSON figures here too")
    ap.add_argument("--trace", action="store_true", help="print every suffered hand's play")
    ap.add_argument("--field", choices=("moonshooters", "dificil_v1", "basico"),
                    default="moonshooters",
                    help="the three opponents (the arena's vs_moonshooters, vs_dificil_v1 or "
                         "vs_basico)")
    ap.add_argument("--candidate", choices=("dificil", "dificil_v1"), default="dificil",
                    help="the robot in the measured seat: Difícil, or dificil_v1 for the "
                         "comparison's own hands (as the arena pairs it, in the same seats)")
    ap.add_argument("--field-only", action="store_true",
                    help="play the field in all four seats (dificil_v1's own hand, the "
                         "comparison of the vs_dificil_v1 field): one hand a deal")
    args = ap.parse_args()

    Path(args.cache).parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(args.cache, timeout=60)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE IF NOT EXISTS decisions (key TEXT PRIMARY KEY, value TEXT)")
    seed = args.seed
    decks = deals(args.first + args.deals, seed + 1)
    inner: Robot = (MoonShooter(random.Random(seed + 3), seeded=seed)
                    if args.field == "moonshooters"
                    else DificilV1(random.Random(seed + 2), seeded=seed))
    cached = Cached(inner, db)
    opponent: Player = Basico() if args.field == "basico" else cached
    cand = Watching(DificilV1(random.Random(seed + 4), seeded=seed)
                    if args.candidate == "dificil_v1"
                    else Robot("dificil", random.Random(seed), name="dificil", seeded=seed,
                               kw={"time_limit": None}))
    if args.only:
        wanted = [(d, s) for d, s, *_ in json.loads(Path(args.only).read_text())["suffered"]]
    else:
        wanted = [(d, s) for d in range(args.first, args.first + args.deals) for s in range(4)]
    t0 = time.time()
    suffered: list[list[int]] = []
    shot: list[list[int]] = []
    points: list[int] = []
    queens: list[int] = []  # the seat that took the Q♠, hand by hand
    field_scores: list[list[int]] = []  # --field-only: the four seats' points, deal by deal
    if args.field_only:
        wanted = [(d, 0) for d in range(args.first, args.first + args.deals)]
    for i, (d, s) in enumerate(wanted):
        players: list[Player] = [opponent] * 4
        if not args.field_only:
            players[s] = cand
        r = play_hand(decks[d], d % 4, players)
        points.append(r.scores[s])
        queens.append(r.queen)
        if args.field_only:
            field_scores.append(r.scores)
            continue
        if r.moon is not None and r.moon != s:
            suffered.append([d, s, r.moon])
            if args.trace and cand.game is not None:
                print(f"--- deal {d}, Difícil in seat {s}, moon by {r.moon}", flush=True)
                for line in trace(cand.game):
                    print("   ", line, flush=True)
        elif r.moon == s:
            shot.append([d, s])
        if (i + 1) % 20 == 0:
            print(f"  {i + 1}/{len(wanted)} hands, suffered {len(suffered)}, "
                  f"{time.time() - t0:.0f} s, cache {cached.hits} hits {cached.misses} misses",
                  file=sys.stderr, flush=True)
    out: dict[str, Any] = {
        "first": args.first, "deals": args.deals, "hands": len(wanted),
        "robots_compiled": robots.COMPILED, "suffered_count": len(suffered),
        "shot_count": len(shot), "points_per_hand": round(sum(points) / max(1, len(points)), 3),
        "field": args.field, "candidate": args.candidate, "suffered": suffered, "shot": shot,
        "points": points, "queens": queens,
        "queen_rate": round(sum(q == s for q, (_, s) in zip(queens, wanted, strict=True))
                            / max(1, len(queens)), 4),
        "field_scores": field_scores,
        "cache_hits": cached.hits, "cache_misses": cached.misses,
    }
    if args.out:
        Path(args.out).write_text(json.dumps(out))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
