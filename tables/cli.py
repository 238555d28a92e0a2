"""CLI: ``flask setup`` (instance dir + migrations), ``flask robots``, ``flask scheduler``,
``flask expire``."""

from __future__ import annotations

import os
import time

import click
from flask import Flask
from flask_migrate import upgrade

import robots

from .lifecycle import rank_session
from .push import ensure_vapid_keys
from .robot_worker import RobotWorker
from .scheduler import expire_job, run_blocking


def register_cli(app: Flask) -> None:
    @app.cli.command("setup")
    def setup() -> None:
        """Prepare instance/ and bring the database schema up to date."""
        os.makedirs(app.instance_path, exist_ok=True)
        upgrade(directory=app.config.get("MIGRATIONS_DIR", "migrations"))
        click.echo("database ready")
        click.echo(f"VAPID public key: {ensure_vapid_keys(app)[1]}")

    @app.cli.command("robots")
    def robots_cmd() -> None:
        """Run a robot worker in the foreground (robots of every table, durable sweeps)."""
        # Behind the web server for the cores (ROBOT_GROUP_NICE; the search processes it starts
        # step back further, in sessions of their own).
        nice = int(app.config["ROBOT_GROUP_NICE"])
        if nice and not rank_session(nice):
            click.echo("the robot process's scheduling group stays as it is (rank_session needs "
                       "a session of its own; docs/DEPLOY.md)")
        worker = app.extensions.get("corazones_robots")  # ROBOT_WORKER=thread made one
        if worker is None:
            worker = RobotWorker(app)
            app.extensions["corazones_robots"] = worker
            worker.start()
        search = "compiled" if robots.COMPILED else "pure Python (make robots-compiled: ~3x faster)"
        click.echo(f"robot worker running; Difícil's search: {search}")
        try:
            while worker.thread.is_alive():
                time.sleep(1)
        except KeyboardInterrupt:
            worker.stop()

    @app.cli.command("scheduler")
    def scheduler_cmd() -> None:
        """Run the one scheduler process (table expiry, robot sweeps)."""
        sched = app.extensions.get("corazones_scheduler")  # SCHEDULER=inprocess started it
        if sched is not None:
            click.echo("scheduler running")
            while sched.running:
                time.sleep(1)
            return
        run_blocking(app)

    @app.cli.command("expire")
    def expire_cmd() -> None:
        """Delete tables idle for TABLE_EXPIRY_DAYS days now."""
        click.echo(f"expired {expire_job(app)} tables")
