"""bench/load.py's report of the open pages: every page of a quiet table must hear each change;
the slowest change is shown with every page's delay, so a late page can be told from a late
change."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import load  # noqa: E402


def test_the_slowest_change_lists_every_pages_delay() -> None:
    t = 1_000_000.0
    result = {
        "tables": ["a", "b"], "per_table": 3, "opened": 6, "reconnects": 0, "errors": [],
        # table, the chat's version, when it was sent
        "changes": [("a", 5, t), ("b", 9, t + 10.0)],
        # table, page, event id, when heard: b's page 2 hears 1.5 s after the commit
        "received": [("a", 0, 5, t + 0.02), ("a", 1, 5, t + 0.03), ("a", 2, 6, t + 0.04),
                     ("b", 0, 9, t + 10.06), ("b", 1, 9, t + 10.07), ("b", 2, 9, t + 11.55)],
    }
    commits = {("a", 5): t + 0.01, ("b", 9): t + 10.05}
    report = load._open_pages_report(result, commits, 100.0, 103.0)
    assert report["deliveries_expected"] == 6 and report["deliveries_missing"] == 0
    assert report["changes_heard_late"] == 1
    assert report["within_1s_percent"] == round(100 * 5 / 6, 2)
    slowest = report["slowest_change"]
    assert slowest["version"] == 9 and slowest["max_ms"] == 1500.0
    assert slowest["committed_at"] == round(t + 10.05, 3)
    assert slowest["pages_ms"] == [10.0, 20.0, 1500.0]
    assert slowest["sent_to_commit_ms"] == 50.0
    assert report["memory_kb_per_open_page"] == 512.0


def test_a_page_that_never_hears_is_missing() -> None:
    t = 1_000_000.0
    result = {"tables": ["a"], "per_table": 2, "opened": 2, "reconnects": 0, "errors": [],
              "changes": [("a", 5, t)], "received": [("a", 0, 5, t + 0.1), ("a", 1, 4, t)]}
    report = load._open_pages_report(result, {("a", 5): t}, 0.0, 0.0)
    assert report["deliveries_missing"] == 1
    assert report["slowest_change"]["pages_ms"] == [100.0]
