"""«Te toca»: Web Push when a person must act, and one reminder later.

The rooms, each importing only downward: ``net`` (where a push may go), ``vapid`` (the signing
key), ``delivery`` (turns, the outbox, sending one push), ``sender`` (the thread and the
scheduler's job), ``routes`` (HTTP). :func:`init_push` wires them into the app.
"""

from __future__ import annotations

import logging

from flask import Flask

from ..hooks import register
from ..openapi import register_paths
from .delivery import Transport, drain, reconcile, send_due_reminders
from .routes import bp, openapi_paths
from .sender import PushState, add_jobs, after_commit, stop_sender
from .vapid import ensure_vapid_keys

log = logging.getLogger("corazones.push")


def init_push(app: Flask) -> None:
    """The VAPID key, the transport, the sender, the after-commit hook and the routes."""
    if app.config.get("PUSH_INSECURE_ENDPOINTS"):
        log.warning("PUSH_INSECURE_ENDPOINTS is on: pushes may go to loopback (tests only)")
    # Alembic's fileConfig (flask db upgrade) disables the loggers that exist before it runs.
    log.disabled = False
    private_key, public = ensure_vapid_keys(app)
    app.config["VAPID_PUBLIC_KEY"] = public
    app.extensions["corazones_push_transport"] = Transport(private_key)
    app.extensions["corazones_push"] = PushState(app)
    register(after_commit)
    app.register_blueprint(bp)
    register_paths(openapi_paths())


__all__ = ["add_jobs", "drain", "ensure_vapid_keys", "init_push", "reconcile",
           "send_due_reminders", "stop_sender"]
