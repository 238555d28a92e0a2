"""HTTP for the player (tables/players.py): Mis mesas, the name, «Llevar mi perfil a otro
teléfono». Everything here answers about the asking device only; no answer holds a device id or
a cookie token (docs/API.md, «El jugador»)."""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    g,
    jsonify,
    redirect,
    render_template,
    url_for,
)
from flask_wtf.csrf import generate_csrf
from sqlalchemy.exc import IntegrityError
from werkzeug.wrappers import Response as WResponse

from . import errors, players
from .db import db
from .errors import ServiceError
from .guards import json_object, refused
from .identity import current_device_id, device_token, ensure_device, forget_device
from .kinds import DutyKind
from .names import clean_name, refuse_robot_like
from .openapi import register_paths

bp = Blueprint("players", __name__)

DUTY_TEXT = {
    DutyKind.PASS: "Elige tus 3 cartas y pasa",
    DutyKind.PLAY: "Juega tu carta",
    DutyKind.COUNT: "Mira la cuenta y toca SIGUIENTE MANO",
    DutyKind.REMATCH: "Te piden la revancha",
}
GROUP_TITLES = {
    "turn": "Te toca",
    "playing": "Jugando",
    "lobby": "Esperando jugadores",
    "finished": "Partidas terminadas",
}


def waited_text(seconds: int | None) -> str:
    """«hace 5 min»: how long a turn has waited, in Spanish, rounded down."""
    if seconds is None:
        return ""
    if seconds < 60:
        return "hace menos de un minuto"
    minutes = seconds // 60
    if minutes < 60:
        return f"hace {minutes} min"
    hours = minutes // 60
    if hours < 48:
        return "hace 1 hora" if hours == 1 else f"hace {hours} horas"
    return f"hace {hours // 24} días"






def _mine() -> dict[str, Any]:
    """This request's Mis mesas (computed once per request: the home page and its parts)."""
    if "players_mine" not in g:
        g.players_mine = players.my_tables(current_device_id())
    return g.players_mine  # type: ignore[no-any-return]


def _me() -> dict[str, Any]:
    device_id = current_device_id()
    mine = _mine()
    return {"name": players.device_name(device_id), "profile": device_id is not None,
            "waiting": mine["waiting"], "tables": len(mine["tables"]),
            "move_url": players.move_link(device_id)}


@bp.app_context_processor
def _template_helpers() -> dict[str, Any]:
    """For every page: the device's own name (to prefill forms) and its Mis mesas."""
    def player_name() -> str:
        if "players_name" not in g:
            g.players_name = players.device_name(current_device_id())
        return str(g.players_name)

    return {"player_name": player_name, "player_tables": _mine, "waited_text": waited_text,
            "duty_text": DUTY_TEXT, "group_titles": GROUP_TITLES}


# ------------------------------------------------------------------ pages


@bp.get("/mis-mesas")
def mis_mesas() -> str:
    return render_template("mis_mesas.html", csrf_token=generate_csrf(), mine=_mine(),
                           me=_me(), vapid_public_key=current_app.config.get(
                               "VAPID_PUBLIC_KEY", ""))


@bp.get("/llevar/<token>")
def move_page(token: str) -> str | tuple[str, int]:
    """The receiving browser's page: whose profile, and what moving it here means. Reads only: a
    link preview (a chat app fetching it) does not use the link up."""
    try:
        preview = players.preview_move(token, current_device_id())
    except ServiceError as err:
        return render_template("error.html", message=err.message), err.status
    return render_template("players/llevar.html", preview=preview, token=token,
                           csrf_token=generate_csrf())


@bp.post("/llevar/<token>")
def move_take(token: str) -> WResponse | tuple[str, int]:
    try:
        players.take_profile(token, device_token())
    except ServiceError as err:
        return render_template("error.html", message=err.message), err.status
    forget_device()
    return redirect(url_for("players.mis_mesas"))


# ------------------------------------------------------------------ API


@bp.get("/api/me")
def api_me() -> Response:
    return jsonify(_me())


@bp.post("/api/me")
def api_set_name() -> Response | tuple[Response, int]:
    try:
        name = clean_name(json_object().get("name"))
        refuse_robot_like(name)
        try:
            players.set_name(ensure_device, name)
        except IntegrityError:  # this browser's first two writes at once: its row exists now
            db.session.rollback()
            forget_device()
            players.set_name(ensure_device, name)
    except ServiceError as err:
        forget_device()
        return refused(err)
    return jsonify(_me())


@bp.get("/api/me/tables")
def api_my_tables() -> Response:
    return jsonify(_mine())


@bp.post("/api/me/move")
def api_issue_move() -> Response | tuple[Response, int]:
    """A new «Llevar mi perfil a otro teléfono» link (the older one stops working)."""
    device_id = current_device_id()
    if device_id is None:
        return refused(errors.NO_PROFILE.error())
    players.issue_move_link(device_id)
    return jsonify(_me())


@bp.post("/api/me/move/off")
def api_void_move() -> Response | tuple[Response, int]:
    device_id = current_device_id()
    if device_id is None:
        return refused(errors.NO_PROFILE.error())
    players.void_move_link(device_id)
    return jsonify(_me())


def _openapi() -> None:
    csrf = {"name": "X-CSRFToken", "in": "header", "required": True,
            "schema": {"type": "string"}}
    err = {"description": "error", "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/Error"}}}}
    me = {"description": "this device's player", "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/Me"}}}}
    mine = {"description": "every table this device sits at, «Te toca» first",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/MyTables"}}}}
    game = {"type": "object", "properties": {"number": {"type": "integer"},
                                              "url": {"type": "string"}}}
    entry = {"type": "object", "properties": {
        "table_id": {"type": "string"}, "name": {"type": "string"}, "url": {"type": "string"},
        "status": {"type": "string", "enum": ["lobby", "playing", "finished"]},
        "group": {"type": "string", "enum": list(players.GROUPS)},
        "seat": {"type": "integer"},
        "duty": {"type": "string", "nullable": True,
                 "enum": [d.value for d in DutyKind]},
        "standin": {"type": "boolean"}, "is_host": {"type": "boolean"},
        "game_number": {"type": "integer"},
        "waiting_since": {"type": "string", "format": "date-time", "nullable": True},
        "waited_seconds": {"type": "integer", "nullable": True},
        "last_change": {"type": "string", "format": "date-time", "nullable": True},
        "players": {"type": "array", "items": {"type": "string"}},
        "empty_seats": {"type": "integer"},
        "games": {"type": "array", "items": game}}}
    schemas = {
        "Me": {"type": "object", "properties": {
            "name": {"type": "string"}, "profile": {"type": "boolean"},
            "waiting": {"type": "integer"}, "tables": {"type": "integer"},
            "move_url": {"type": "string", "nullable": True}}},
        "MyTables": {"type": "object", "properties": {
            "waiting": {"type": "integer"},
            "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
            "tables": {"type": "array", "items": entry}}},
    }
    register_paths({
        "/api/me": {
            "get": {"summary": "This device's player: its name, how many tables wait for it, "
                               "its live profile-move link",
                    "responses": {"200": me}},
            "post": {"summary": "Change the name prefilled from now on",
                     "parameters": [csrf],
                     "requestBody": {"required": True, "content": {"application/json": {
                         "schema": {"type": "object", "properties": {
                             "name": {"type": "string"}}}}}},
                     "responses": {"200": me, "400": err}}},
        "/api/me/tables": {"get": {"summary": "Mis mesas: every table this device sits at",
                                   "responses": {"200": mine}}},
        "/api/me/move": {"post": {
            "summary": "Issue a new «Llevar mi perfil a otro teléfono» link (voids the old)",
            "parameters": [csrf], "responses": {"200": me, "403": err}}},
        "/api/me/move/off": {"post": {
            "summary": "Void the profile-move link", "parameters": [csrf],
            "responses": {"200": me, "403": err}}},
    }, schemas)


_openapi()
