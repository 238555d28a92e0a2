"""A scheduling setting measured paired within one load run (docs/RELIABILITY_RUNS.md, run X).

The load benchmark's figures move by ±10 ms from one run to the next with the machine's moment,
more than most settings change them. Here the setting is switched on and off every few seconds
on the live processes of one run, and the run's actions are compared block by block with their
neighbours, so that a slow drift of the machine weighs on both sides alike:

    python bench/paired_sched.py toggle --pattern pipe_handle --setting idle --out tog.json &
    python bench/load.py --modes postgres --think-min 1 --think-max 3 --duration 240 \\
        --stress '' --dump-latency lat.json
    python bench/paired_sched.py compare lat.json tog.json

``--pattern`` picks the processes by their command line (``pgrep -f``: ``pipe_handle`` is the
Difícil search process, ``gunicorn -c`` the web); ``--setting`` is ``idle`` (SCHED_IDLE against
the ordinary policy) or ``slice`` (a 0.1 ms EEVDF slice against the kernel's own). Linux only;
changing another user's processes needs root.
"""

from __future__ import annotations

import argparse
import bisect
import ctypes
import json
import os
import platform
import statistics
import struct
import subprocess
import time
from typing import Any

#: struct sched_attr (SCHED_ATTR_SIZE_VER1) and the x86-64 system call numbers.
SCHED_ATTR = struct.Struct("IIQiIQQQII")
SETATTR, GETATTR = 314, 315
#: The group niceness ``--setting group`` switches to by default: the web's (gunicorn.conf.py).
GROUP_NICE = -10


def _slice(tid: int, ns: int) -> None:
    if platform.machine() != "x86_64":  # the system call numbers above are x86-64's
        raise SystemExit("--setting slice: x86-64 only")
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(SCHED_ATTR.size)
    if libc.syscall(GETATTR, tid, buf, SCHED_ATTR.size, 0) != 0:
        return
    attr = list(SCHED_ATTR.unpack(buf.raw))
    attr[0], attr[5] = SCHED_ATTR.size, ns
    libc.syscall(SETATTR, tid, ctypes.create_string_buffer(SCHED_ATTR.pack(*attr)), 0)


def _apply(setting: str, on: bool, pattern: str, nice: int = GROUP_NICE) -> None:
    pids = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()
    for pid in pids:
        if setting == "group":
            try:
                with open(f"/proc/{pid}/autogroup", "w") as group:
                    group.write(str(nice if on else 0))
            except OSError:
                pass
            continue
        try:
            threads = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
        except OSError:
            continue
        for tid in threads:
            try:
                if setting == "idle":
                    policy = os.SCHED_IDLE if on else os.SCHED_OTHER
                    os.sched_setscheduler(tid, policy, os.sched_param(0))
                else:
                    _slice(tid, 100_000 if on else 0)
            except OSError:
                pass


def toggle(args: argparse.Namespace) -> None:
    """Switch the setting every ``block`` seconds, writing [[unix time, 1 on / 0 off], ...]."""
    log: list[tuple[float, int]] = []
    end = time.time() + args.seconds
    on = False
    while time.time() < end:
        on = not on
        _apply(args.setting, on, args.pattern, args.nice)
        log.append((time.time(), int(on)))
        with open(args.out, "w") as out:
            json.dump(log, out)
        time.sleep(args.block)


def _pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def compare(args: argparse.Namespace) -> dict[str, Any]:
    """Each kind's p50 and p95 with the setting on and off, and the mean difference of p95 between
    neighbouring blocks (on minus off) with its standard error. The first second after each switch
    is left out."""
    with open(args.dump) as f:
        dump = json.load(f)
    with open(args.toggles) as f:
        toggles = json.load(f)
    starts = [t for t, _ in toggles]
    kinds = {"human": [(r[0], r[1]) for r in dump["human"]]}
    for level in ("normal", "dificil"):
        kinds[f"robot {level}"] = [(r[0], r[1]) for r in dump["robot"] if r[2] == level]
    report: dict[str, Any] = {}
    for kind, rows in kinds.items():
        blocks: dict[int, list[float]] = {}
        for at, ms in rows:
            i = bisect.bisect_right(starts, at) - 1
            if i >= 0 and at - starts[i] >= 1.0:
                blocks.setdefault(i, []).append(ms)
        pooled: dict[int, list[float]] = {0: [], 1: []}
        for i, values in blocks.items():
            pooled[toggles[i][1]].extend(values)
        diffs = []
        for a in sorted(blocks):
            b = a + 1
            if b in blocks and min(len(blocks[a]), len(blocks[b])) > 20:
                on, off = (a, b) if toggles[a][1] else (b, a)
                diffs.append(_pct(blocks[on], 95) - _pct(blocks[off], 95))
        report[kind] = {
            state: {"n": len(v), "p50_ms": round(_pct(v, 50), 1), "p95_ms": round(_pct(v, 95), 1)}
            for state, v in (("on", pooled[1]), ("off", pooled[0])) if v}
        if len(diffs) > 1:
            report[kind]["pairs"] = len(diffs)
            report[kind]["p95_on_minus_off_ms"] = round(statistics.mean(diffs), 1)
            report[kind]["standard_error_ms"] = round(
                statistics.stdev(diffs) / len(diffs) ** 0.5, 1)
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    t = sub.add_parser("toggle")
    t.add_argument("--pattern", required=True)
    t.add_argument("--setting", choices=("idle", "slice", "group"), required=True)
    t.add_argument("--seconds", type=float, default=330.0)
    t.add_argument("--block", type=float, default=10.0)
    t.add_argument("--nice", type=int, default=GROUP_NICE,
                   help="--setting group: the niceness while on (-20..19)")
    t.add_argument("--out", required=True)
    c = sub.add_parser("compare")
    c.add_argument("dump")
    c.add_argument("toggles")
    args = ap.parse_args()
    if args.command == "toggle":
        toggle(args)
    else:
        print(json.dumps(compare(args)))


if __name__ == "__main__":
    main()
