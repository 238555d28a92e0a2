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


def test_the_servers_own_action_times_are_those_of_the_measured_window(tmp_path: Path) -> None:
    """The access log also holds the set-up (tables opened, seats taken while every table starts)
    and what follows the window: only the actions answered within it count."""
    from datetime import UTC, datetime

    start = 1_800_000_000.0

    def line(at: float, path: str, status: int, ms: int) -> str:
        stamp = datetime.fromtimestamp(at, UTC).strftime("[%d/%b/%Y:%H:%M:%S %z]")
        return f'127.0.0.1 {stamp} "POST {path} HTTP/1.1" {status} 321 {ms * 1000}'

    log = tmp_path / "access.log"
    log.write_text("\n".join([
        line(start - 30, "/api/tables/a/actions", 200, 900),  # the ramp: not counted
        line(start + 1, "/api/tables/a/actions", 200, 10),
        line(start + 2, "/api/tables/a/actions", 200, 20),
        line(start + 2, "/api/tables/a/actions", 200, 30),
        line(start + 3, "/api/tables/a/stream", 200, 5000),  # not an action
        line(start + 4, "/api/tables/a/actions", 503, 40),  # counted as a 5xx only
        line(start + 90, "/api/tables/a/actions", 200, 700),  # after the window
    ]))
    got = load._access_log(log, start, start + 60)
    assert got == {"server_action_p50_ms": 20.0, "server_action_p95_ms": 30.0, "server_5xx": 1}
