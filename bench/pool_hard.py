"""Pool the hard-field runs of bench/arena.py split with ARENA_HARD_FIRST (ARENA_HARD_DUMP files).

    python bench/pool_hard.py part1.json part2.json ...

Prints the pooled figures (per-deal paired differences with their standard errors, moons per
100 hands, CPU per Difícil decision) and, last, one JSON line.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from pathlib import Path
from typing import Any


def _mean_se(xs: list[float]) -> tuple[float, float]:
    if len(xs) < 2:
        return (xs[0] if xs else 0.0), 0.0
    return statistics.fmean(xs), statistics.stdev(xs) / math.sqrt(len(xs))


def _q(xs: list[float], q: float) -> float:
    ys = sorted(xs)
    return 1000 * ys[min(len(ys) - 1, int(q * len(ys)))] if ys else 0.0


def main(paths: list[str]) -> dict[str, Any]:
    parts = [json.loads(Path(p).read_text()) for p in paths]
    out: dict[str, Any] = {"parts": len(parts)}
    fields = ("vs_basico", "vs_dificil_v1", "vs_moonshooters", "head_to_head")
    shot = {"cand": 0, "comp": 0}
    pts: dict[str, list[float]] = {"cand": [], "comp": []}
    for f in fields:
        diffs = [d for p in parts for d in p[f]["diffs"]]
        m, se = _mean_se(diffs)
        line = [f"{f:16s} deals {len(diffs):4d}  diff {m:+.2f} ± {se:.2f} (95% ± {1.96 * se:.2f})"]
        out[f"{f}_deals"] = len(diffs)
        out[f"{f}_diff"] = round(m, 3)
        out[f"{f}_diff_se"] = round(se, 3)
        for who, label in (("cand", "dificil"), ("comp", "v1")):
            ps = [x for p in parts for x in p[f][who]["points"]]
            n = len(ps)
            s = sum(p[f][who]["shot"] for p in parts)
            u = sum(p[f][who]["suffered"] for p in parts)
            out[f"{f}_{label}_points"] = round(statistics.fmean(ps), 3)
            out[f"{f}_{label}_shot_per100"] = round(100 * s / n, 2)
            out[f"{f}_{label}_suffered_per100"] = round(100 * u / n, 2)
            out[f"{f}_hands"] = n
            line.append(f"{label} {statistics.fmean(ps):.2f} pts/hand, moons shot "
                        f"{100 * s / n:.1f} suffered {100 * u / n:.1f} per 100 ({n} hands)")
            if f != "head_to_head":
                shot[who] += s
                pts[who] += ps
        print("; ".join(line))
    vb = [d for p in parts for d in p["dificil_vs_basico"]["diffs"]]
    m, se = _mean_se(vb)
    out["dificil_vs_basico"] = round(m, 3)
    out["dificil_vs_basico_se"] = round(se, 3)
    print(f"dificil vs basico (all-Básico reference, same seats) {m:+.2f} ± {se:.2f}")
    hands = len(pts["cand"])
    for who, label in (("cand", "dificil"), ("comp", "v1")):
        out[f"fields_{label}_shot_per100"] = round(100 * shot[who] / hands, 2)
        out[f"fields_{label}_points"] = round(statistics.fmean(pts[who]), 3)
    times = [t for p in parts for t in p["times"]["cand"]]
    out["dificil_ms_p50"] = round(_q(times, 0.5), 2)
    out["dificil_ms_p99"] = round(_q(times, 0.99), 2)
    out["dificil_decisions"] = len(times)
    print(f"three fields: moons shot per 100 hands dificil {out['fields_dificil_shot_per100']}, "
          f"v1 {out['fields_v1_shot_per100']}; points/hand dificil "
          f"{out['fields_dificil_points']}, v1 {out['fields_v1_points']}; CPU ms per decision "
          f"p50 {out['dificil_ms_p50']} p99 {out['dificil_ms_p99']} ({len(times)} decisions)")
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
