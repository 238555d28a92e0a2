"""The PostgreSQL connection budget of one machine, and whether a deployment fits in it.

Each serving process has two pools (writes and reads, tables/db.py), so it opens at most
``2 x (DB_POOL_SIZE + DB_MAX_OVERFLOW)`` connections. The Procfile and the systemd units give
each kind of process its own share (:data:`POOLS`); a machine's budget is the sum over its
processes. PostgreSQL must hold every machine's budget, plus the web workers of one machine twice
over while a restart overlaps the old workers (still finishing their requests) with the new ones,
within ``max_connections`` less the connections kept for superusers.

Beyond that: more machines need a larger ``max_connections`` or a pooler (PgBouncer in transaction
mode) in front of PostgreSQL; docs/DEPLOY.md says how.
"""

from __future__ import annotations

from dataclasses import dataclass

#: (DB_POOL_SIZE, DB_MAX_OVERFLOW) of each kind of process, as the Procfile and the units set them.
#: A web worker serves hundreds of pages on its event loop, but a page waiting for a change holds
#: no connection, and one action's transaction or one state read holds one for a few ms; robots
#: write a decision at a time per thread; the scheduler runs a job at a time.
POOLS: dict[str, tuple[int, int]] = {"web": (5, 0), "robots": (4, 0), "scheduler": (3, 0)}

#: PostgreSQL's defaults: ``max_connections`` and ``superuser_reserved_connections``.
PG_MAX_CONNECTIONS = 100
PG_RESERVED = 3


def process_connections(kind: str) -> int:
    size, overflow = POOLS[kind]
    return 2 * (size + overflow)


@dataclass(frozen=True)
class Machine:
    """The serving processes of one machine (``make serve``: 2 web workers, 1 robot process and
    its scheduler)."""

    web_workers: int = 2
    robot_processes: int = 1
    scheduler: bool = True

    def connections(self) -> int:
        return (self.web_workers * process_connections("web")
                + self.robot_processes * process_connections("robots")
                + (process_connections("scheduler") if self.scheduler else 0))

    def restart_overlap(self) -> int:
        """What a web restart adds for a moment: the old workers' connections beside the new."""
        return self.web_workers * process_connections("web")


def needed(machines: list[Machine]) -> int:
    """Connections PostgreSQL must allow: every machine's, plus the largest restart overlap (one
    machine restarts at a time)."""
    return sum(m.connections() for m in machines) + max(
        (m.restart_overlap() for m in machines), default=0)


def available(max_connections: int = PG_MAX_CONNECTIONS, reserved: int = PG_RESERVED) -> int:
    return max_connections - reserved
