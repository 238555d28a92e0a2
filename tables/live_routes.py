"""HTTP for Jugar en vivo (tables/matchmaking.py, docs/LIVE.md): the waiting page, Mesas en vivo,
and their JSON. Every answer is about the asking device only, or about public tables."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, render_template, request
from flask_wtf.csrf import generate_csrf
from sqlalchemy.exc import IntegrityError

from . import matchmaking
from .db import db
from .errors import ServiceError
from .guards import json_object, refused
from .identity import current_device_id, ensure_device, forget_device
from .limits import live_limit
from .openapi import CSRF, register_paths

bp = Blueprint("live", __name__)


# ------------------------------------------------------------------ pages


@bp.get("/en-vivo")
def waiting_page() -> str:
    return render_template("en_vivo.html", csrf_token=generate_csrf(),
                           queue=matchmaking.status(current_device_id()))


@bp.get("/mesas-en-vivo")
def tables_page() -> str:
    tables = matchmaking.live_tables()
    if request.args.get("parte") == "lista":  # the page's refresh: the list alone
        return render_template("live_tables.html", tables=tables)
    return render_template("mesas_en_vivo.html", csrf_token=generate_csrf(), tables=tables)


# ------------------------------------------------------------------ API


@bp.post("/api/live/queue")
@live_limit
def api_join() -> Response | tuple[Response, int]:
    """JUGAR EN VIVO: into the queue (or back to the live table this person sits at)."""
    try:
        body = json_object()
        try:
            matchmaking.join(ensure_device, body.get("name"))
        except IntegrityError:  # two joins of one browser at once: its entry exists now
            db.session.rollback()
            forget_device()
            matchmaking.join(ensure_device, body.get("name"))
    except ServiceError as err:
        forget_device()
        return refused(err)
    matchmaking.maybe_match()
    return jsonify(matchmaking.status(current_device_id()))


@bp.post("/api/live/queue/poll")
def api_poll() -> Response:
    """The waiting page's poll: keeps its entry alive, may match, answers where it stands."""
    device_id = current_device_id()
    matchmaking.heartbeat(device_id)
    matchmaking.maybe_match()
    return jsonify(matchmaking.status(device_id))


@bp.delete("/api/live/queue")
def api_cancel() -> Response:
    """CANCELAR: out of the queue at once (a seat already given stays: the answer says where)."""
    device_id = current_device_id()
    matchmaking.cancel(device_id)
    return jsonify(matchmaking.status(device_id))


@bp.get("/api/live/tables")
def api_tables() -> Response:
    return jsonify({"tables": matchmaking.live_tables()})


# ------------------------------------------------------------------ the contract

_ERR = {"$ref": "#/components/schemas/Error"}


def _err(desc: str) -> dict[str, Any]:
    return {"description": desc, "content": {"application/json": {"schema": _ERR}}}


_QUEUE = {"type": "object", "required": ["status", "looking", "wait_limit"], "properties": {
    "status": {"type": "string", "enum": ["waiting", "seated", "none"],
               "description": "waiting in the queue; seated at a live table (go to `url`); "
                              "none: not looking"},
    "waited_seconds": {"type": "integer", "nullable": True},
    "looking": {"type": "integer", "description": "people waiting now (pages open)"},
    "wait_limit": {"type": "number", "description": "seconds before robots fill free seats"},
    "rating": {"type": "integer", "nullable": True, "description": "the rating queued with"},
    "table_id": {"type": "string", "nullable": True},
    "url": {"type": "string", "nullable": True}}}
_LIVE_TABLE = {"type": "object", "properties": {
    "table_id": {"type": "string"}, "name": {"type": "string"}, "url": {"type": "string"},
    "game_number": {"type": "integer"}, "hand": {"type": "integer"},
    "players": {"type": "array", "items": {"type": "object", "properties": {
        "seat": {"type": "integer"}, "name": {"type": "string"}, "robot": {"type": "boolean"},
        "rating": {"type": "integer"}, "provisional": {"type": "boolean"},
        "player": {"type": "string", "nullable": True}, "total": {"type": "integer"}}}}}}
_OK = {"description": "where this device stands", "content": {"application/json": {
    "schema": {"$ref": "#/components/schemas/LiveQueue"}}}}

register_paths({
    "/api/live/queue": {
        "post": {
            "summary": "JUGAR EN VIVO: join the queue with a name (a person at an unfinished "
                       "live table is sent back to it: status seated)",
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "type": "object", "required": ["name"], "properties": {"name": {
                    "type": "string", "minLength": 1, "maxLength": 24, "pattern": r"\S",
                    "description": "the name to sit with: 1-24 characters, not blank, not a "
                                   "robot's (400 bad_name)"}}}}}},
            "responses": {"200": _OK,
                          "400": _err("bad_json, bad_name, csrf"),
                          "429": _err("too many joins from this device")}},
        "delete": {
            "summary": "CANCELAR: leave the queue at once",
            "parameters": [dict(CSRF)],
            "responses": {"200": _OK, "400": _err("csrf: the X-CSRFToken header is missing")}},
    },
    "/api/live/queue/poll": {"post": {
        "summary": "The waiting page's poll (every ~2 s): keeps the entry alive; answers where "
                   "this device stands (seated: go to `url`)",
        "responses": {"200": _OK}}},
    "/api/live/tables": {"get": {
        "summary": "Mesas en vivo: the public tables playing now, to watch",
        "responses": {"200": {"description": "the tables", "content": {"application/json": {
            "schema": {"type": "object", "required": ["tables"], "properties": {
                "tables": {"type": "array", "items": {"$ref": "#/components/schemas/LiveTable"}}
            }}}}}}}},
}, {"LiveQueue": _QUEUE, "LiveTable": _LIVE_TABLE})
