"""bench/paired_sched.py compare: blocks with the setting on are compared with their neighbours.

A synthetic run whose «on» blocks are 10 ms slower at every action, on a machine that drifts
slower block by block, with slow actions in the first second after each switch (the switch's
own moment, left out): the paired difference is the setting's 10 ms."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_compare_pairs_neighbouring_blocks(tmp_path: Path) -> None:
    start, block = 1_000_000.0, 10.0
    toggles = [[start + i * block, 1 if i % 2 == 0 else 0] for i in range(24)]
    human, robot = [], []
    for i, (at, on) in enumerate(toggles):
        for k in range(100):  # 100 actions a block, 20-119 ms, plus the drift and the setting
            t = at + 1.0 + k * 0.08
            human.append([t, 20.0 + k + 2.0 * i + (10.0 if on else 0.0)])
            robot.append([t, 300.0 + k, "dificil"])
        if on:  # the moment of the switch itself
            human.extend([at + 0.5, 5000.0] for _ in range(10))
    (tmp_path / "lat.json").write_text(json.dumps({"human": human, "robot": robot}))
    (tmp_path / "tog.json").write_text(json.dumps(toggles))
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "paired_sched.py"), "compare",
         str(tmp_path / "lat.json"), str(tmp_path / "tog.json")],
        capture_output=True, text=True, timeout=60, check=True).stdout
    report = json.loads(out)
    people = report["human"]
    assert people["pairs"] == 23
    # neighbours differ by 10 ms of the setting and ±2 ms of drift, the sign alternating
    assert abs(people["p95_on_minus_off_ms"] - 10.0) < 1.0
    assert people["on"]["n"] == people["off"]["n"] == 1200
    assert report["robot dificil"]["p95_on_minus_off_ms"] == 0.0
    assert "robot normal" in report and not report["robot normal"].get("pairs")


def test_toggle_group_moves_the_scheduling_group_of_the_matching_session(tmp_path: Path) -> None:
    """``--setting group`` writes the niceness of the matched processes' scheduling group
    (Linux autogroups), here a process in a session of its own; the pattern's brackets keep the
    toggler from matching its own command line."""
    sleeper = subprocess.Popen(["sleep", "31.4159"], start_new_session=True)
    group = Path(f"/proc/{sleeper.pid}/autogroup")
    try:
        subprocess.run(
            [sys.executable, str(ROOT / "bench" / "paired_sched.py"), "toggle",
             "--pattern", "[s]leep 31.4159", "--setting", "group", "--seconds", "0.05",
             "--block", "0.05", "--out", str(tmp_path / "tog.json")],
            capture_output=True, text=True, timeout=60, check=True)
        log = json.loads((tmp_path / "tog.json").read_text())
        assert [on for _, on in log] == [1]
        if group.exists():  # Linux with autogroups (the test runs as root in CI: nice below 0)
            assert group.read_text().split()[-1] == "-10", group.read_text()
            # the toggler's own group is left as it was; a process in init's session (a container's
            # shell, CI) is in the root group, whose file reads empty
            assert not Path("/proc/self/autogroup").read_text().rstrip().endswith("nice -10")
    finally:
        sleeper.kill()
        sleeper.wait()
