"""The robots' compiled build (deploy/compile_robots.py) decides exactly as the pure-Python modules.

Both run in checkouts of their own (copies of rules/, robots/ and deploy/), so an extension built
in this checkout cannot stand in for the pure modules.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from deploy.compile_robots import GROUPS, MODULES, STAMP, module_name
from robots import compiled

ROOT = Path(__file__).resolve().parents[2]

# Plays four seeded hands with the Normal robot and asks Difícil (no time limit, the same budget in
# both builds: at most 200 deals or 36,000 simulated plays) for every pass and every fourth card
# with a choice; prints the modules' files, the default budgets and the decisions.
DECIDE = r"""
import json, random, sys
from rules import Game, Options, view_for, shuffled_deck
import robots, robots.policy, robots.review, robots.search, rules.cards, rules.play
rng = random.Random(11)
decisions = []
for h in range(4):
    g = Game(Options(renege="impedido"))
    g.hand_number = h
    g.apply({"type": "deal", "deck": shuffled_deck(rng)})
    views = []
    if g.phase == "passing":
        for s in range(4):
            v = view_for(g, s)
            views.append(v)
            g.apply({"type": "confirm_pass", "seat": s,
                     "cards": robots.decide(v, "normal", rng)["cards"]})
    while g.phase == "playing":
        v = view_for(g, g.turn)
        if len(v["legal"]) > 1 and len(views) % 4 == 0:
            views.append(v)
        elif len(v["legal"]) > 1:
            views.append(None)
        a = robots.decide(v, "normal", rng)
        a["seat"] = g.turn
        g.apply(a)
    for i, v in enumerate(views):
        if v is not None:
            decisions.append(robots.decide(v, "dificil", random.Random(i), worlds=200,
                                          budget=36000, time_limit=None))
files = [m.__file__ for m in (robots.search, robots.policy, rules.cards, rules.play)]
refused = []
for bad in (None, 7, ["QS"], "ZZ"):
    try:
        rules.cards.parse_card(bad)
    except Exception as e:
        refused.append(type(e).__name__)
print(json.dumps({"files": files, "refused": refused, "budget": robots.search.PLAY_BUDGET,
                  "worlds": robots.search.PLAY_WORLDS, "review": robots.review.REVIEW_WORLDS,
                  "decisions": decisions}))
"""


def _checkout(dest: Path) -> Path:
    for package in ("rules", "robots", "deploy"):
        shutil.copytree(ROOT / package, dest / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    return dest


def _decide(root: Path) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-c", DECIDE], cwd=root, capture_output=True,
                         text=True, check=True, timeout=300)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def test_the_compiled_robots_decide_exactly_as_the_pure_modules(tmp_path: Path) -> None:
    pure = _checkout(tmp_path / "pure")
    compiled = _checkout(tmp_path / "compiled")
    built = subprocess.run([sys.executable, "-m", "deploy.compile_robots"], cwd=compiled,
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    for module in MODULES:  # every module has its extension, and each group its library
        assert list((compiled / module).parent.glob(Path(module).stem + ".*.so")), module
    for group in GROUPS:
        package, name = group.split(".")
        assert list((compiled / package).glob(f"{name}__mypyc.*.so")), group

    a = _decide(pure)
    b = _decide(compiled)
    assert all(f.endswith(".py") for f in a["files"]), a["files"]
    assert all(f.endswith(".so") for f in b["files"]), b["files"]
    assert len(a["decisions"]) > 30
    assert {d["type"] for d in a["decisions"]} == {"confirm_pass", "play"}
    assert b["decisions"] == a["decisions"]
    # A card of the wrong type is refused as a card in both builds (the web answers it in
    # Spanish), never with the compiled code's TypeError (a 500).
    assert a["refused"] == b["refused"] == ["CardError"] * 4
    assert (a["budget"], b["budget"]) == (36000, 216000)  # the compiled build searches further
    for build in (a, b):  # and Análisis looks deeper than play on either build
        assert build["review"] > build["worlds"]
    assert (a["review"], b["review"]) == (400, 2400)

    # A source changed after the build: importing the robots stops and says what to run.
    policy = compiled / "robots" / "policy.py"
    policy.write_text(policy.read_text() + "\n# edited after the build\n")
    stale = subprocess.run([sys.executable, "-c", "import robots"], cwd=compiled,
                           capture_output=True, text=True, timeout=60)
    assert stale.returncode == 1
    assert "ImportError: robots.policy is compiled from another version of" in stale.stderr
    assert "make robots-compiled" in stale.stderr

    cleaned = subprocess.run([sys.executable, "-m", "deploy.compile_robots", "--clean"],
                             cwd=compiled, capture_output=True, text=True, check=True,
                             timeout=60)
    assert f"removed {len(MODULES) + len(GROUPS)} compiled modules" in cleaned.stdout
    assert not list(compiled.rglob("*.so")) and not (compiled / STAMP).exists()
    assert all(f.endswith(".py") for f in _decide(compiled)["files"])


def test_the_build_writes_the_stamp_the_robots_read() -> None:
    assert compiled.STAMP == ROOT / STAMP
    assert {compiled.source_of(module_name(p)) for p in MODULES} == {ROOT / p for p in MODULES}
