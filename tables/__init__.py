"""The service: tables, seats, spectators, persistence, actions, live updates, robots, routes.

``init_app(app)`` wires it all into a Flask app; ``app.py`` only calls it.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from flask.sessions import SecureCookieSessionInterface
from flask_migrate import Migrate
from flask_wtf.csrf import CSRFError, CSRFProtect
from sqlalchemy import exc as sa_exc
from werkzeug.exceptions import HTTPException

from .db import db, init_db
from .service import register_after_commit

csrf = CSRFProtect()
migrate = Migrate()

CSP = "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

_MESSAGES = {
    400: ("bad_request", "La solicitud no es válida"),
    404: ("not_found", "No existe"),
    405: ("method_not_allowed", "Método no permitido"),
    413: ("too_large", "La solicitud es demasiado grande"),
    429: ("rate_limited", "Demasiadas solicitudes: espera un momento"),
    500: ("server_error", "Algo salió mal en el servidor"),
}


DB_UNAVAILABLE = ("unavailable", "El servidor perdió un momento la conexión con la base de datos. "
                  "Inténtalo de nuevo en unos segundos.")


class _Sessions(SecureCookieSessionInterface):
    """The session cookie (it carries the CSRF token) is Secure whenever served over HTTPS."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"]) or request.is_secure


def _wants_json() -> bool:
    return request.path.startswith("/api/")


def _error(status: int, code: str, message: str) -> Any:
    if _wants_json():
        return jsonify({"error": code, "message": message}), status
    return render_template("error.html", message=message), status


def init_app(app: Flask) -> None:
    from . import live
    from .cli import register_cli
    from .clock import init_clock
    from .hint_routes import bp as hint_bp
    from .identity import set_cookie_if_new
    from .limits import init_limits
    from .push import init_push
    from .robot_worker import start_worker
    from .routes import bp

    app.session_interface = _Sessions()
    # '/api/tables//poll' (an empty or stripped id) is a JSON 404, not a redirect to another route
    app.url_map.merge_slashes = False
    init_db(app)
    migrate.init_app(app, db, directory=app.config.get("MIGRATIONS_DIR", "migrations"))
    csrf.init_app(app)
    init_limits(app)
    live.init_live(app)
    app.register_blueprint(bp)
    app.register_blueprint(hint_bp)
    init_push(app)
    init_clock(app)
    register_cli(app)

    @app.after_request
    def _headers(response: Response) -> Response:
        response = set_cookie_if_new(response)
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Content-Type-Options"] = "nosniff"
        if request.path.startswith(("/t/", "/api/tables")):
            response.headers["X-Robots-Tag"] = "noindex"
        if request.path.startswith("/api/"):
            response.headers["Cache-Control"] = "no-store"
        return response

    @app.errorhandler(CSRFError)
    def _csrf(err: CSRFError) -> Any:
        return _error(400, "csrf",
                      "Falta el código de seguridad (CSRF) o venció: recarga la página")

    @app.errorhandler(HTTPException)
    def _http(err: HTTPException) -> Any:
        status = err.code or 500
        code, message = _MESSAGES.get(status, ("http_error", "La solicitud no es válida"))
        out = app.make_response(_error(status, code, message))
        # werkzeug's own headers stay: a 405's Allow (RFC 9110), a 429's Retry-After, ...
        for name, value in err.get_headers():
            if name.lower() != "content-type":
                out.headers[name] = value
        return out

    @app.errorhandler(sa_exc.OperationalError)
    @app.errorhandler(sa_exc.InterfaceError)
    @app.errorhandler(sa_exc.TimeoutError)
    def _db_unavailable(err: Exception) -> Any:
        """The database cannot be reached (or is busy): nothing was saved; say so, retry later."""
        app.logger.warning("database unavailable: %s", str(err).splitlines()[0][:200])
        try:
            db.session.rollback()
        except Exception:
            pass
        response = _error(503, *DB_UNAVAILABLE)
        out = app.make_response(response)
        out.headers["Retry-After"] = "2"
        return out

    @app.errorhandler(Exception)
    def _any(err: Exception) -> Any:
        app.logger.exception("unhandled error")
        db.session.rollback()
        return _error(500, *_MESSAGES[500])

    if app.config.get("ROBOT_WORKER", "thread") == "thread":
        start_worker(app)


__all__ = ["csrf", "db", "init_app", "migrate", "register_after_commit"]
