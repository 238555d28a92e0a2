"""Corazones' web application: create_app() wires config, extensions and blueprints."""

from __future__ import annotations

import os
from typing import Any

from flask import Flask


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True)
    os.makedirs(app.instance_path, exist_ok=True)
    if test_config:
        app.config.update(test_config)

    @app.get("/")
    def home() -> str:
        return "<!doctype html><html lang=es><title>Corazones</title><h1>Corazones</h1>"

    @app.cli.command("setup")
    def setup() -> None:
        """Prepare instance/ (database, keys) for `make run`."""

    return app
