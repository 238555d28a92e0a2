"""HTTP for Análisis: a player asks for the review of their decisions in a finished game, and
reads it (docs/ANALYSIS.md). The web process only writes the request and reads the results; the
reviews themselves run in the robot processes (tables/robot_worker.py)."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify

from robots.review import REVIEW_WORLDS

from . import errors, robot_worker
from .analysis import DONE, analysis_for, request_analysis
from .errors import ServiceError
from .guards import refused
from .identity import current_device_id
from .limits import device_or_address, limiter
from .openapi import TABLE_ID, register_paths

bp = Blueprint("analysis", __name__)

ANALYSIS_LIMIT = "20 per minute"


def _game_number(raw: str) -> int:
    if not (0 < len(raw) <= 9 and raw.isascii() and raw.isdigit()):
        raise errors.GAME_NOT_FOUND.error()
    return int(raw)


@bp.post("/api/tables/<table_id>/games/<number>/analysis")
@limiter.limit(ANALYSIS_LIMIT, key_func=device_or_address)
def api_request_analysis(table_id: str, number: str) -> tuple[Response, int]:
    try:
        if len(table_id) > 40:
            raise errors.GAME_NOT_FOUND.error()
        worlds = int(current_app.config.get("ANALYSIS_WORLDS") or REVIEW_WORLDS)
        out = request_analysis(table_id, _game_number(number), current_device_id(), worlds)
    except ServiceError as err:
        return refused(err)
    if out["status"] != DONE:
        robot_worker.wake_analysis()
    return jsonify(out), 200 if out["status"] == DONE else 202


@bp.get("/api/tables/<table_id>/games/<number>/analysis")
def api_analysis(table_id: str, number: str) -> Response | tuple[Response, int]:
    try:
        if len(table_id) > 40:
            raise errors.GAME_NOT_FOUND.error()
        out = analysis_for(table_id, _game_number(number), current_device_id())
    except ServiceError as err:
        return refused(err)
    return jsonify(out)


_NUMBER = {"name": "number", "in": "path", "required": True,
           "schema": {"type": "integer", "minimum": 1}}
_ANALYSIS = {"application/json": {"schema": {"type": "object", "properties": {
    "status": {"type": "string", "enum": ["none", "queued", "running", "done"]},
    "done": {"type": "integer"}, "total": {"type": "integer"}, "marked": {"type": "integer"},
    "decisions": {"type": "array", "items": {"type": "object"}}}}}}
register_paths({"/api/tables/{table_id}/games/{number}/analysis": {
    "post": {
        "summary": "Análisis: ask Difícil to review the viewer's own decisions in a finished "
                   "game (once per game and player; docs/ANALYSIS.md)",
        "parameters": [TABLE_ID, _NUMBER],
        "responses": {
            "200": {"description": "the analysis, already done", "content": _ANALYSIS},
            "202": {"description": "queued or running: read it with GET", "content": _ANALYSIS},
            "403": {"description": "the viewer did not play this game"},
            "404": {"description": "no such game, or not finished yet"},
            "409": {"description": "the table expired before anyone asked: who played each "
                                   "seat is no longer known"},
            "429": {"description": "too many requests"}}},
    "get": {
        "summary": "The viewer's analysis of a finished game (`status: none` if never asked)",
        "parameters": [TABLE_ID, _NUMBER],
        "responses": {
            "200": {"description": "`{status, seat, done, total, marked, worlds, decisions: "
                                   "[{kind, hand, index, seat, done, chosen, best, options, "
                                   "cost, marked, forced, reason}]}`", "content": _ANALYSIS},
            "404": {"description": "no such game, or not finished yet"}}}}})
