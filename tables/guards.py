"""Checks every request passes before any route, CSRF check or rate limit reads it.

- A JSON body nested deeper than ``JSON_MAX_DEPTH`` is refused (400) before anything parses it:
  Python's parser recurses, and a body of 5000 ``[`` would exhaust the stack.
- A state-changing request that its browser says comes from another site (``Sec-Fetch-Site:
  cross-site``, or an ``Origin`` other than this host) is refused (403): a second layer beside the
  CSRF token.
- Seat-link tokens are credentials: ``redact`` keeps them out of access logs.
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response, jsonify, render_template, request

from . import errors

#: Our bodies nest three levels at most (a push subscription's ``keys``); a little room beyond.
JSON_MAX_DEPTH = 8
_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SEAT_LINK = re.compile(r"(/t/[^/\s?]+/s/)[^/\s?\"]+")


def json_object() -> dict[str, Any]:
    """The request's body as a JSON object (whatever its content type says), else a Spanish 400."""
    data = request.get_json(silent=True, force=True)
    if not isinstance(data, dict):
        raise errors.BAD_JSON.error()
    return data


def refused(err: errors.ServiceError) -> tuple[Response, int]:
    """The JSON answer to a refusal raised in a route."""
    return jsonify(err.body()), err.status


def refuse(refusal: errors.Refusal, status: int | None = None) -> Any:
    """The answer to a refusal: JSON under /api/, the error page elsewhere."""
    status = status or refusal.status
    if request.path.startswith("/api/"):
        return jsonify({"error": refusal.code, "message": refusal.message}), status
    return render_template("error.html", message=refusal.message), status


def json_depth(raw: bytes) -> int:
    """How deeply ``raw`` nests arrays and objects (strings' contents do not count)."""
    if raw.count(b"[") + raw.count(b"{") <= JSON_MAX_DEPTH:
        return 0  # cannot nest deeper than the brackets it has
    depth = deepest = 0
    for byte in _STRING.sub(b"", raw):
        if byte in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        elif byte in b"]}":
            depth -= 1
    return deepest


def _other_site() -> bool:
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site is not None:  # the browser's own verdict, right behind any proxy
        return fetch_site == "cross-site"
    origin = request.headers.get("Origin")
    if origin is None:
        return False
    return origin == "null" or urlsplit(origin).netloc.lower() != request.host.lower()


def redact(text: str) -> str:
    """``text`` with every seat-link token replaced by «…» (the route stays readable)."""
    return _SEAT_LINK.sub(r"\1…", text)


class RedactSeatLinks(logging.Filter):
    """Rewrites a log record so that no seat-link token reaches the log."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        return True


def init_guards(app: Flask) -> None:
    logging.getLogger("werkzeug").addFilter(RedactSeatLinks())  # the `flask run` server's log

    @app.before_request
    def _guard() -> Any:
        if request.method not in _UNSAFE:
            return None
        if _other_site():
            return refuse(errors.CROSS_SITE)
        if request.mimetype not in _FORM_TYPES and request.content_length != 0:
            if json_depth(request.get_data(cache=True)) > JSON_MAX_DEPTH:
                return refuse(errors.JSON_TOO_DEEP)
        return None
