"""The service: tables, seats, spectators, persistence, actions, live updates, robots, routes.

``init_app(app)`` wires it all into a Flask app; ``app.py`` only calls it. docs/ARCHITECTURE.md
is the map of the rooms below.
"""

from __future__ import annotations

from flask import Flask
from flask_migrate import Migrate
from flask_wtf.csrf import CSRFProtect

from . import clock, hooks, live, push, robot_worker, snapshot
from .admission import init_admission
from .analysis_routes import bp as analysis_bp
from .assets import init_assets
from .cli import register_cli
from .db import db, init_db
from .guards import init_guards
from .hint_routes import bp as hint_bp
from .limits import init_limits
from .live_routes import bp as live_bp
from .players_routes import bp as players_bp
from .ratings_routes import bp as ratings_bp
from .records_routes import bp as records_bp
from .routes import bp
from .stream_routes import bp as stream_bp
from .web import init_web

csrf = CSRFProtect()
migrate = Migrate()


def init_app(app: Flask) -> None:
    init_admission(app)  # first: every check before a route runs in a request's place
    init_web(app)
    init_db(app)
    migrate.init_app(app, db, directory=app.config.get("MIGRATIONS_DIR", "migrations"))
    init_guards(app)  # before CSRF and the rate limits: they read the body the guards vet
    csrf.init_app(app)
    init_limits(app)
    # Changes made in other processes come with their notices: this process's snapshots follow.
    live.on_change(snapshot.receive)
    live.init_live(app)
    app.register_blueprint(bp)
    app.register_blueprint(stream_bp)
    app.register_blueprint(hint_bp)
    app.register_blueprint(players_bp)
    app.register_blueprint(ratings_bp)
    app.register_blueprint(records_bp)
    app.register_blueprint(live_bp)
    app.register_blueprint(analysis_bp)
    # After every commit, in this order: wake the pages, hand robot turns on, pushes, clocks.
    hooks.register(live.after_commit)
    hooks.register(robot_worker.after_commit)
    push.init_push(app)
    clock.init_clock(app)
    register_cli(app)
    init_assets(app)
    if app.config.get("ROBOT_WORKER", "thread") == "thread":
        robot_worker.start_worker(app)


__all__ = ["csrf", "db", "init_app", "migrate"]
