"""`make bench-rules` runs and ends with its JSON line (a tiny run: the real one takes ~30 s)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_rules_prints_its_json_line() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "rules_bench.py"), "--seconds", "0.2",
         "--rounds", "1"],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout
    lines = out.strip().splitlines()
    result = json.loads(lines[-1])
    assert {"ours_hands_per_s", "openspiel_hands_per_s", "ratio"} <= set(result)
    assert result["ours_card_by_card_hands_per_s"] > 100
    assert result["ours_hands_per_s"] > 100 and result["openspiel_hands_per_s"] > 100
    ours, theirs = result["ours_hands_per_s"], result["openspiel_hands_per_s"]
    assert abs(result["ratio"] - ours / theirs) < 0.01
    assert any(line.startswith("ours") for line in lines)
