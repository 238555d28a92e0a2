"""`make bench-action` plays whole games and ends with a well-formed JSON line (one game on SQLite
here). How much CPU an action takes is the benchmark's to say, not a test's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_action_plays_whole_games_and_prints_its_json_line() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "action_cpu.py"), "--db", "sqlite", "--games", "1"],
        capture_output=True, text=True, timeout=300, check=True, cwd=ROOT,
    ).stdout
    result = json.loads(out.strip().splitlines()[-1])
    assert "postgresql" not in result
    got = result["sqlite"]
    plays = got["by_type"]["play"]["n"]
    assert plays > 0 and plays % 52 == 0, plays  # whole hands: 52 cards each
    hands = plays // 52
    # every hand but the fourth of each four passes: four confirmations a passing hand
    assert got["by_type"]["confirm_pass"]["n"] == 4 * (hands - hands // 4)
    assert got["actions"] == sum(v["n"] for v in got["by_type"].values())
    for kind in got["by_type"].values():  # measured, whatever the machine's speed
        assert kind["mean"] > 0 and kind["p50"] > 0
