"""Is the derived deal uniform?  Chi-square tests over many deals of rules.deal.derive_deck.

Two scenarios, each over ``--deals`` deals (200,000 by default) from a fixed RNG seed:

* ``all_random``: the server seed and the four seat seeds are all random;
* ``one_honest``: the server seed and seats 0, 1 and 3 are fixed (a colluding group that always
  sends the same seeds) and only seat 2's seed is random: the «one honest shuffle» promise.

For each card two tests: its seat (4 cells, 3 degrees of freedom) and its position in the deck
(52 cells, 51 degrees of freedom).  Each family of 52 tests is judged at a family-wise
significance of 0.001 with the Bonferroni correction: it passes when the smallest p-value times 52
is at least 0.001.  docs/FAIR_DEAL.md reports the figures.

    make bench-deal           # or: nice -n 19 .venv/bin/python bench/deal_stats.py [--deals N]

The last line printed is JSON: {"deals", "alpha", "all_random": {...}, "one_honest": {...}}.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from rules.cards import INDEX  # noqa: E402
from rules.deal import derive_deck  # noqa: E402

ALPHA = 0.001  # family-wise significance of each family of 52 per-card tests
RNG_SEED = 20250301
TABLE = "mesa-estadistica"
HONEST_SEAT = 2


def chi2_sf(x: float, dof: int) -> float:
    """P(X >= x) for a chi-square variable with an odd number of degrees of freedom (exact:
    erfc plus a finite series, so no statistics library is needed)."""
    if dof % 2 != 1:
        raise ValueError("odd degrees of freedom only")
    if x <= 0:
        return 1.0
    term = math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
    total = 0.0
    for j in range(1, (dof - 1) // 2 + 1):
        total += term
        term *= x / (2 * j + 1)
    return min(1.0, math.erfc(math.sqrt(x / 2)) + total)


def random_deals(n: int, rng_seed: int, honest_only: bool) -> Iterator[list[str]]:
    """``n`` derived decks; with ``honest_only`` only seat HONEST_SEAT's seed varies."""
    rng = random.Random(rng_seed)
    fixed_server = rng.randbytes(32)
    fixed_seats = [rng.randbytes(32) for _ in range(4)]
    for hand in range(1, n + 1):
        if honest_only:
            seats = list(fixed_seats)
            seats[HONEST_SEAT] = rng.randbytes(32)
            # The hand number stays fixed too: the honest seed alone must spread the deals.
            yield derive_deck(fixed_server, seats, TABLE, 1, 1)
        else:
            seeds = [rng.randbytes(32) for _ in range(5)]
            yield derive_deck(seeds[0], seeds[1:], TABLE, 1, hand)


def uniformity(decks: Iterable[list[str]]) -> dict[str, Any]:
    """Per-card chi-square of seat and of position; Bonferroni-adjusted smallest p-values."""
    position = [[0] * 52 for _ in range(52)]
    n = 0
    for deck in decks:
        n += 1
        for i, card in enumerate(deck):
            position[INDEX[card]][i] += 1
    seat = [[sum(row[s::4]) for s in range(4)] for row in position]

    def family(rows: list[list[int]]) -> float:
        expected = n / len(rows[0])
        stats = [sum((c - expected) ** 2 / expected for c in row) for row in rows]
        return min(1.0, 52 * min(chi2_sf(x, len(rows[0]) - 1) for x in stats))

    seat_p, position_p = family(seat), family(position)
    return {
        "deals": n,
        "seat_p_bonferroni": seat_p,
        "position_p_bonferroni": position_p,
        "passed": seat_p >= ALPHA and position_p >= ALPHA,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=RNG_SEED)
    args = parser.parse_args()
    result: dict[str, Any] = {"deals": args.deals, "alpha": ALPHA, "rng_seed": args.seed}
    for name, honest_only in (("all_random", False), ("one_honest", True)):
        start = time.perf_counter()
        result[name] = uniformity(random_deals(args.deals, args.seed, honest_only))
        seconds = time.perf_counter() - start
        result[name]["seconds"] = round(seconds, 1)
        r = result[name]
        print(
            f"{name}: {args.deals} deals in {seconds:.1f} s, seat p={r['seat_p_bonferroni']:.3f}, "
            f"position p={r['position_p_bonferroni']:.3f} (Bonferroni), "
            f"{'uniform' if r['passed'] else 'NOT UNIFORM'} at alpha={ALPHA}"
        )
    print(json.dumps(result))
    sys.exit(0 if result["all_random"]["passed"] and result["one_honest"]["passed"] else 1)


if __name__ == "__main__":
    main()
