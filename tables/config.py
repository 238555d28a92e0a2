"""Every setting the service reads from its environment, in one table, read once by
``create_app`` (app.py). Nothing else in the code reads ``os.environ``: modules read
``current_app.config``, and tests pass their own values to ``create_app``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


def _flag(raw: str) -> bool:
    return raw == "1"


@dataclass(frozen=True)
class Setting:
    name: str
    parse: Callable[[str], Any]
    default: Any
    doc: str


SETTINGS: tuple[Setting, ...] = (
    # -- where things are
    Setting("DATABASE_URL", str, "", "the database (default: SQLite in instance/)"),
    Setting("REDIS_URL", str, "", "Redis: live updates, robot hand-off, rate limits, presence "
            "across processes (none: all in-process)"),
    Setting("SECRET_KEY", str, "", "signs cookies, seat links, push topics (default: made once "
            "in instance/secret_key)"),
    Setting("CORAZONES_HTTPS", _flag, False, "1: the cookies are Secure (behind a TLS proxy)"),
    # The per-process share of the machine's PostgreSQL connection budget (docs/DEPLOY.md,
    # «Sizing»): a process has two pools (writes, reads), so at most 2 x (size + overflow).
    Setting("DB_POOL_SIZE", int, 5, "PostgreSQL connections a pool keeps open once opened"),
    Setting("DB_MAX_OVERFLOW", int, 0, "PostgreSQL connections more per pool in a burst, "
            "closed when given back"),
    Setting("DB_POOL_TIMEOUT", float, 10.0, "seconds a request waits for a pooled connection"),
    # -- pages
    Setting("WEB_ACTIVE", int, 8, "requests of a gevent web worker doing their work at once "
            "(the others wait their turn; 0: no bound)"),
    Setting("POLL_TIMEOUT", float, 25.0, "seconds a long-poll waits"),
    Setting("POLL_RECHECK", float, 0.5, "seconds between version re-reads without Redis"),
    Setting("STREAM_HEARTBEAT", float, 25.0, "seconds between a stream's keep-alive comments"),
    Setting("STREAM_RECHECK", float, 15.0, "seconds between a web process's reads of the versions "
            "of every table its streams follow, in one query, while Redis carries the notices "
            "(the floor for a lost publish)"),
    Setting("STREAM_MAX", float, 600.0, "seconds a stream stays open before the page reconnects"),
    # -- robots and timed work
    Setting("ROBOT_WORKER", str, "thread", "thread: robots play in this process; off: elsewhere"),
    Setting("ROBOT_SWEEP", float, 3.0, "seconds between sweeps for robot turns left behind"),
    Setting("ROBOT_DELAY", float, 0.0, "seconds a robot waits before it plays"),
    Setting("ROBOT_THREADS", int, 2, "robot threads per robot process"),
    Setting("ROBOT_SEARCH_PROCS", int, 0, "processes of their own for Difícil's searches"),
    Setting("ROBOT_NICE", int, 0, "the search processes' niceness"),
    Setting("ROBOT_GROUP_NICE", int, 0, "`flask robots`: its session's scheduling group "
            "niceness when it leads its session (Linux autogroups; 0 leaves it)"),
    Setting("HINT_TIMEOUT", float, 8.0, "La Pista: seconds the web waits for a robot process"),
    Setting("ANALYSIS_WORLDS", int, 0, "Análisis: deals sampled per decision (0: robots' "
            "REVIEW_WORLDS)"),
    Setting("ANALYSIS_PROCS", int, 1, "Análisis: processes of their own per robot process "
            "(0: in the robot process)"),
    Setting("ANALYSIS_NICE", int, 19, "Análisis: the analysis processes' niceness"),
    Setting("ANALYSIS_LEASE", float, 120.0, "Análisis: seconds without a decision saved after "
            "which another robot process takes an analysis over"),
    Setting("ANALYSIS_POLL", float, 2.0, "Análisis: seconds between a robot process's looks "
            "for analyses asked"),
    Setting("SCHEDULER", str, "inprocess", "inprocess | off: timed work in this process or in "
            "the one `flask scheduler`"),
    Setting("TABLE_EXPIRY_DAYS", int, 30, "days after which an idle table is deleted"),
    # -- the turn clock (seconds; tests shorten them)
    Setting("CLOCK_LIVE_GRACE", float, 15.0, "«en vivo»: grace per card"),
    Setting("CLOCK_LIVE_GRACE_PASS", float, 30.0, "«en vivo»: grace to pass"),
    Setting("CLOCK_LIVE_RESERVE", float, 90.0, "«en vivo»: reserve per hand"),
    Setting("CLOCK_NO_CLOCK_SECONDS", float, 24 * 3600.0, "«sin reloj»: when the others may "
            "call the stand-in"),
    Setting("CLOCK_SWEEP", float, 1.0, "seconds between the scheduler's clock passes"),
    # -- Jugar en vivo (tables/matchmaking.py, docs/LIVE.md; tests shorten them)
    Setting("LIVE_WAIT_LIMIT", float, 20.0, "seconds a person waits for people before robots "
            "fill the free seats"),
    Setting("LIVE_WINDOW_START", float, 100.0, "rating points a live table's people may differ "
            "by at first"),
    Setting("LIVE_WINDOW_GROW", float, 100.0, "points the window widens by every step"),
    Setting("LIVE_WINDOW_STEP", float, 4.0, "seconds of waiting per widening"),
    Setting("LIVE_STALE", float, 6.0, "seconds without a poll after which a waiting entry is "
            "never seated (its page was closed)"),
    Setting("LIVE_FORGET", float, 120.0, "seconds without a poll after which an entry is deleted"),
    Setting("LIVE_MATCH_EVERY", float, 0.5, "seconds between one process's matching passes"),
    Setting("LIVE_SWEEP", float, 1.0, "seconds between the scheduler's matching passes"),
    # -- push
    Setting("VAPID_PRIVATE_KEY", str, "", "the push signing key (default: instance/)"),
    Setting("VAPID_SUBJECT", str, "mailto:corazones@example.com", "the push signer's contact"),
    Setting("PUSH_SENDER", str, "thread", "thread | off"),
    Setting("PUSH_SWEEP", float, 5.0, "seconds between the sender's and scheduler's sweeps"),
    Setting("PUSH_TIMEOUT", float, 10.0, "seconds a push request may take"),
    Setting("PUSH_BACKOFF", float, 5.0, "seconds before the first retry without Retry-After"),
    Setting("PUSH_ENDPOINT_HOSTS", str, "", "more push service hosts, comma-separated"),
    Setting("PUSH_INSECURE_ENDPOINTS", _flag, False, "TESTS ONLY: pushes may go to loopback"),
    # -- rate limits (flask-limiter strings)
    Setting("RATELIMIT_CREATE", str, "30 per hour;10 per minute", "opening tables, per address"),
    Setting("RATELIMIT_CHAT", str, "20 per minute", "chat, taunts, deck changes, per device"),
    Setting("RATELIMIT_CHURN_DEVICE", str, "30 per minute", "lobby moves, per device"),
    Setting("RATELIMIT_CHURN_TABLE", str, "60 per minute", "lobby moves, per table"),
    Setting("RATELIMIT_LIVE", str, "30 per minute;300 per hour", "JUGAR EN VIVO, per device"),
    Setting("RATELIMIT_KEY_PREFIX", str, "", "separates deployments sharing one Redis"),
    # -- the serving process
    Setting("CORAZONES_GC_GEN0", int, 10000, "allocations between young collections"),
    Setting("CORAZONES_SWITCH_INTERVAL", float, 0.001, "seconds between GIL hand-overs"),
)


def from_environ(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Each setting's value: the environment's when set (and not empty), else its default."""
    env = os.environ if environ is None else environ
    out: dict[str, Any] = {}
    for s in SETTINGS:
        raw = env.get(s.name, "")
        out[s.name] = s.parse(raw) if raw != "" else s.default
    return out


def instance_path(environ: Mapping[str, str] | None = None) -> str | None:
    """Where instance/ is (``CORAZONES_INSTANCE``; None: Flask's default beside the app)."""
    env = os.environ if environ is None else environ
    return env.get("CORAZONES_INSTANCE") or None
