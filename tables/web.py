"""The HTTP frame around every answer: security headers, the device cookie, the session cookie,
and the answer to every error (JSON under /api/, the error page elsewhere)."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, request
from flask.sessions import SecureCookieSessionInterface
from flask_wtf.csrf import CSRFError
from sqlalchemy import exc as sa_exc
from werkzeug.exceptions import HTTPException

from . import errors
from .db import db
from .guards import refuse
from .identity import offer_cookie, set_cookie_if_new

CSP = "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"


def is_missing_table(err: BaseException) -> bool:
    """SQLite's «no such table» or PostgreSQL's undefined table (SQLSTATE 42P01)."""
    orig = getattr(err, "orig", None)
    return "no such table" in str(orig or err) or getattr(orig, "sqlstate", None) == "42P01"


class _Sessions(SecureCookieSessionInterface):
    """The session cookie (it carries the CSRF token) is Secure whenever served over HTTPS."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"]) or request.is_secure


def init_web(app: Flask) -> None:
    app.session_interface = _Sessions()
    # '/api/tables//poll' (an empty or stripped id) is a JSON 404, not a redirect to another route
    app.url_map.merge_slashes = False

    @app.after_request
    def _headers(response: Response) -> Response:
        if response.mimetype == "text/html" and request.method == "GET":
            offer_cookie()  # a page's first write then already carries this browser's token
        response = set_cookie_if_new(response)
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "DENY"
        if request.path.startswith(("/t/", "/api/tables")):
            response.headers["X-Robots-Tag"] = "noindex"
        # A page or answer may hold a hand, a seat link or a CSRF token: no cache keeps it.
        if request.path.startswith("/api/") or response.mimetype == "text/html":
            response.headers["Cache-Control"] = "no-store"
        return response

    @app.errorhandler(CSRFError)
    def _csrf(err: CSRFError) -> Any:
        return refuse(errors.CSRF)

    @app.errorhandler(HTTPException)
    def _http(err: HTTPException) -> Any:
        status = err.code or 500
        out = app.make_response(refuse(errors.BY_HTTP_STATUS.get(status, errors.BAD_REQUEST),
                                       status))
        # werkzeug's own headers stay: a 405's Allow (RFC 9110), a 429's Retry-After, ...
        for name, value in err.get_headers():
            if name.lower() != "content-type":
                out.headers[name] = value
        return out

    def _not_set_up(err: Exception) -> Any:
        app.logger.error("the database has no tables: run «flask --app app setup» (%s)",
                         str(err).splitlines()[0][:200])
        db.session.rollback()
        return refuse(errors.NOT_SET_UP)

    @app.errorhandler(Exception)
    def _any(err: Exception) -> Any:
        app.logger.exception("unhandled error")
        db.session.rollback()
        return refuse(errors.SERVER_ERROR)

    @app.errorhandler(sa_exc.ProgrammingError)
    def _db_programming(err: Exception) -> Any:
        if is_missing_table(err):
            return _not_set_up(err)
        return _any(err)

    @app.errorhandler(sa_exc.OperationalError)
    @app.errorhandler(sa_exc.InterfaceError)
    @app.errorhandler(sa_exc.TimeoutError)
    def _db_unavailable(err: Exception) -> Any:
        """The database cannot be reached (or is busy): nothing was saved; say so, retry later.
        A database without its tables is not a lost connection: it needs its migrations."""
        if is_missing_table(err):
            return _not_set_up(err)
        app.logger.warning("database unavailable: %s", str(err).splitlines()[0][:200])
        try:
            db.session.rollback()
        except Exception:
            pass
        out = app.make_response(refuse(errors.UNAVAILABLE))
        out.headers["Retry-After"] = "2"
        return out
