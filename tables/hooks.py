"""What happens after a commit: one registry of hooks, called in order of registration.

Live updates (tables/live.py), robot kicks (tables/robot_worker.py), the turn clock
(tables/clock.py) and push notifications (tables/push/) each register here when the app is built;
the action path only calls :func:`committed`. A hook's failure is logged and never undoes or fails
the committed action.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

log = logging.getLogger("corazones.hooks")


@dataclass(frozen=True)
class Commit:
    """A committed change of a table."""

    table_id: str
    version: int
    #: Seats of people who must act now (for pushes).
    humans_to_act: list[int] = field(default_factory=list)
    #: A robot must act now.
    robot_due: bool = False
    #: The change as text for the other processes' snapshots (tables/snapshot.py ``to_wire``);
    #: None: they load the new version from the database.
    change: str | None = None
    #: The table had push subscriptions when the change was made (None: not known, look).
    subscribed: bool | None = None
    #: The page whose action made the change (``live.page_origin``; None: a robot, the clock, a
    #: page that did not say) and the version before it: that page's answer carried the change,
    #: so its stream need not send it again.
    origin: str | None = None
    before: int | None = None


Hook = Callable[[Commit], None]
_hooks: list[Hook] = []


def register(hook: Hook) -> None:
    if hook not in _hooks:
        _hooks.append(hook)


def unregister(hook: Hook) -> None:
    if hook in _hooks:
        _hooks.remove(hook)


def committed(commit: Commit) -> None:
    """Run every hook for ``commit`` (after the commit). Never raises."""
    for hook in list(_hooks):
        try:
            hook(commit)
        except Exception:
            log.exception("after-commit hook %s failed", getattr(hook, "__name__", hook))
