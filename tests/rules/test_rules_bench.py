"""`make bench-rules` runs and ends with a well-formed JSON line (a tiny run: the real one takes
~30 s). How fast the rules are is the benchmark's to say, not a test's."""

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
    rates = {"ours_hands_per_s", "ours_card_by_card_hands_per_s", "openspiel_hands_per_s"}
    assert rates | {"ratio"} <= set(result)
    for key in rates:  # measured, whatever the machine's speed
        assert isinstance(result[key], (int, float)) and result[key] > 0, (key, result[key])
    ours, theirs = result["ours_hands_per_s"], result["openspiel_hands_per_s"]
    assert abs(result["ratio"] - ours / theirs) < 0.01
    assert any(line.startswith("ours") for line in lines)
