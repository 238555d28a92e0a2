"""HTTP: the pages and the JSON API (docs/API.md). Routes parse and answer; actions.py decides,
state.py builds what each viewer sees."""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    get_flashed_messages,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_wtf.csrf import generate_csrf
from jinja2 import TemplateNotFound
from sqlalchemy.exc import IntegrityError
from werkzeug.wrappers import Response as WResponse

from rules import card_label

from . import actions, admission, errors, live
from .db import db
from .errors import ServiceError
from .guards import json_object
from .identity import current_device_id, ensure_device, forget_device, offer_cookie, presence_key
from .kinds import DECKS, LEVELS
from .limits import chat_limit, churn_device_limit, churn_table_limit, create_limit
from .models import Table
from .openapi import openapi_document
from .state import read_state

bp = Blueprint("tables", __name__, template_folder="templates")


def _digits(raw: str) -> bool:
    """ASCII digits only ("¹".isdigit() is True, but int() refuses it), at most 12."""
    return 0 < len(raw) <= 12 and raw.isascii() and raw.isdigit()




def _error_response(err: ServiceError, table_id: str | None = None) -> tuple[Response, int]:
    body: dict[str, Any] = err.body()
    if err.with_state and table_id:
        try:
            body["state"] = read_state(table_id, current_device_id(),
                                               present=_spectators(table_id))["state"]
        except ServiceError:
            pass
    return jsonify(body), err.status


def _spectators(table_id: str) -> set[str]:
    return live.present(table_id)


def _render(template: str, fallback: str, **ctx: Any) -> str:
    try:
        return render_template(template, **ctx)
    except TemplateNotFound:
        return render_template(fallback, **ctx)


# ------------------------------------------------------------------ pages


@bp.get("/")
def home() -> str:
    return _render("home.html", "plain.html", csrf_token=generate_csrf(), decks=DECKS,
                   levels=LEVELS, table=None, plain=None,
                   messages=get_flashed_messages())


@bp.get("/plain")
def plain_home() -> str:
    """ABRIR MESA on the plain page (no script)."""
    return render_template("plain.html", csrf_token=generate_csrf(), decks=DECKS,
                           levels=LEVELS, table=None, plain=True,
                           messages=get_flashed_messages())


@bp.get("/t/<table_id>")
def table_page(table_id: str) -> str | tuple[str, int]:
    if db.session.get(Table, table_id) is None:
        return render_template("error.html", message=errors.NOT_FOUND.message), 404
    try:
        return render_template(
            "table.html", table_id=table_id, csrf_token=generate_csrf(),
            vapid_public_key=current_app.config.get("VAPID_PUBLIC_KEY", ""),
        )
    except TemplateNotFound:
        return plain_page(table_id)


@bp.get("/t/<table_id>/plain")
def plain_page(table_id: str) -> str | tuple[str, int]:
    device_id = current_device_id()
    live.touch(table_id, presence_key())
    try:
        data = read_state(table_id, device_id, present=_spectators(table_id))
    except ServiceError as err:
        return render_template("error.html", message=err.message), err.status
    state = data["state"]
    return render_template("plain.html", table=state["table"], state=state, me=state["me"],
                           view=state["view"], csrf_token=generate_csrf(), label=card_label,
                           decks=DECKS, levels=LEVELS,
                           plain=True, messages=get_flashed_messages())


_PLAIN_FIELDS = ("name", "card", "text", "taunt_id", "robot_level", "deck")


@bp.post("/t/<table_id>/plain")
@chat_limit
@churn_device_limit
@churn_table_limit
def plain_action(table_id: str) -> WResponse:
    """The plain page's forms: the same actions as the JSON API, then back to the page."""
    form = request.form
    body: dict[str, Any] = {"type": form.get("type", "")}
    for key in _PLAIN_FIELDS:
        if key in form:
            body[key] = form[key]
    for key in ("seat", "accused"):
        if _digits(form.get(key, "")):
            body[key] = int(form[key])
    if "cards" in form:
        body["cards"] = form.getlist("cards")
    try:
        actions.perform(table_id, current_device_id(), body, new_device=ensure_device)
    except ServiceError as err:
        forget_device()
        flash(err.message)
    return redirect(url_for("tables.plain_page", table_id=table_id))


@bp.post("/plain/new")
@create_limit
def plain_create() -> WResponse:
    form = request.form
    body: dict[str, Any] = {
        "host_name": form.get("host_name", ""),
        "target": int(form["target"]) if _digits(form.get("target", "")) else form.get("target"),
        "renege": form.get("renege", "impedido"),
        "deck": form.get("deck", "reino"),
        "robot_level": form.get("robot_level", "normal"),
    }
    rated = form.get("rated", "1")  # con clasificación (1) or amistosa (0)
    body["rated"] = {"1": True, "0": False}.get(rated, rated)
    try:
        table_id = actions.create_table(ensure_device, body)
    except ServiceError as err:
        forget_device()
        flash(err.message)
        return redirect(url_for("tables.plain_home"))
    return redirect(url_for("tables.plain_page", table_id=table_id))


@bp.get("/t/<table_id>/s/<token>")
def seat_link(table_id: str, token: str) -> str | tuple[str, int]:
    table = db.session.get(Table, table_id)
    if table is None:
        return render_template("error.html", message=errors.NOT_FOUND.message), 404
    return render_template("tables/seat_link.html", table=table, token=token,
                           csrf_token=generate_csrf())


@bp.post("/t/<table_id>/s/<token>")
def seat_link_take(table_id: str, token: str) -> WResponse | tuple[str, int]:
    try:
        actions.move_seat(table_id, token, ensure_device)
    except ServiceError as err:
        forget_device()
        return render_template("error.html", message=err.message), err.status
    return redirect(url_for("tables.table_page", table_id=table_id))


# ------------------------------------------------------------------ API


@bp.get("/api/csrf")
def api_csrf() -> Response:
    offer_cookie()
    return jsonify({"csrf_token": generate_csrf()})


@bp.get("/api/openapi.json")
def api_openapi() -> Response:
    return jsonify(openapi_document())


@bp.post("/api/tables")
@create_limit
def api_create() -> tuple[Response, int]:
    try:
        body = json_object()
        table_id = actions.created_by(body, current_device_id())
        if table_id is None:
            try:
                table_id = actions.create_table(ensure_device, body)
            except IntegrityError:  # the same creation, retried at the same moment
                db.session.rollback()
                forget_device()
                table_id = actions.created_by(body, current_device_id())
                if table_id is None:
                    raise
        data = read_state(table_id, current_device_id(), present=None)
    except ServiceError as err:
        forget_device()
        return _error_response(err)
    return jsonify({"table_id": table_id, "url": f"/t/{table_id}", "state": data["state"]}), 201


@bp.get("/api/tables/<table_id>")
def api_state(table_id: str) -> Response | tuple[Response, int]:
    try:
        since = _since_arg(required=False)
        live.touch(table_id, presence_key())
        data = read_state(table_id, current_device_id(), since=since,
                                  present=_spectators(table_id))
    except ServiceError as err:
        return _error_response(err)
    return jsonify(data)


def _since_arg(required: bool) -> int | None:
    raw = request.args.get("since")
    if raw is None or raw == "":
        if required:
            return 0
        return None
    if not _digits(raw):
        raise errors.BAD_SINCE.error()
    return int(raw)


@bp.get("/api/tables/<table_id>/poll")
def api_poll(table_id: str) -> Response | tuple[Response, int]:
    """Waits until the table's version passes ``since``; then the state and the log after it.
    Nothing new before the time-out: only ``{"version", "log": []}`` (the page keeps its state)."""
    try:
        since = _since_arg(required=True) or 0
        device_id = current_device_id()
        db.session.rollback()  # the device's lookup: hold no connection while waiting

        # A table this process has notices of needs no read (its version is known); the first
        # poll of a table in this process reads it (and answers 404 for no such table).
        version = live.current_version(table_id)
        if version is None:
            raise errors.NOT_FOUND.error()
        live.touch(table_id, presence_key())
        if version <= since:
            cfg = current_app.config
            with admission.waiting():
                version = live.wait_for_version(table_id, since, float(cfg["POLL_TIMEOUT"]),
                                                float(cfg["POLL_RECHECK"]),
                                                lambda: live.read_version(table_id) or 0,
                                                known=version)
        if version <= since:
            return jsonify({"version": version, "log": []})
        data = read_state(table_id, device_id, since=since,
                                  present=_spectators(table_id), at_least=version)
    except ServiceError as err:
        return _error_response(err)
    return jsonify(data)


@bp.post("/api/tables/<table_id>/actions")
@chat_limit
@churn_device_limit
@churn_table_limit
def api_action(table_id: str) -> Response | tuple[Response, int]:
    page = request.headers.get(live.PAGE_HEADER)  # the id the page gave itself
    try:
        body = json_object()
        try:
            out = actions.perform(table_id, current_device_id(), body,
                                  present=_spectators(table_id), new_device=ensure_device,
                                  page=page)
        except IntegrityError:  # this browser's first two writes at once: its row exists now
            db.session.rollback()
            forget_device()
            out = actions.perform(table_id, current_device_id(), body,
                                  present=_spectators(table_id), new_device=ensure_device,
                                  page=page)
    except ServiceError as err:
        forget_device()
        return _error_response(err, table_id)
    return jsonify(out.answer)
