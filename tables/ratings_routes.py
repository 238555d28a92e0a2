"""Ratings in HTTP: a player's page (``/jugador/<id>``), Clasificación (``/clasificacion``) and
the same data as JSON. Anyone may read them: a player is shown by name and ratings only, named
by a random public id (never a device id nor a token, never a table)."""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, Response, jsonify, render_template

from . import errors, ratings
from .openapi import register_paths

bp = Blueprint("ratings", __name__)

#: What a public id may look like (token_urlsafe); anything else is no player.
PUBLIC_ID = re.compile(r"[A-Za-z0-9_-]{1,24}")

#: The history chart's drawing box (SVG user units).
CHART_W, CHART_H, CHART_PAD = 320, 140, 22


def _profile(public_id: str) -> dict[str, Any]:
    found = ratings.profile(public_id) if PUBLIC_ID.fullmatch(public_id) else None
    if found is None:
        raise errors.PLAYER_NOT_FOUND.error()
    return found


def chart(history: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The rating after each game as an SVG polyline (oldest left), with its scale's ends."""
    if not history:
        return None
    values = [history[0]["before"]] + [h["after"] for h in history]
    low, high = min(values), max(values)
    if high - low < 20:  # a flat line sits in the middle of a 20-point band
        mid = (high + low) / 2
        low, high = mid - 10, mid + 10
    step = (CHART_W - 2 * CHART_PAD) / max(len(values) - 1, 1)
    span = CHART_H - 2 * CHART_PAD

    def y(v: float) -> float:
        return round(float(CHART_PAD + span * (high - v) / (high - low)), 1)

    points = [(round(CHART_PAD + i * step, 1), y(v)) for i, v in enumerate(values)]
    return {"w": CHART_W, "h": CHART_H, "pad": CHART_PAD,
            "points": " ".join(f"{x},{yy}" for x, yy in points),
            "last": points[-1], "high": round(high), "low": round(low),
            "y_high": y(high), "y_low": y(low), "games": len(history)}


@bp.get("/jugador/<public_id>")
def player_page(public_id: str) -> str | tuple[str, int]:
    try:
        p = _profile(public_id)
    except errors.ServiceError as err:
        return render_template("error.html", message=err.message), err.status
    return render_template("player.html", p=p, chart=chart(p["history"]),
                           provisional_games=ratings.PROVISIONAL_GAMES)


@bp.get("/clasificacion")
def board_page() -> str:
    return render_template("ranking.html", rows=ratings.board(),
                           provisional_games=ratings.PROVISIONAL_GAMES)


@bp.get("/api/players/<public_id>")
def api_player(public_id: str) -> Response | tuple[Response, int]:
    try:
        return jsonify(_profile(public_id))
    except errors.ServiceError as err:
        return jsonify(err.body()), err.status


@bp.get("/api/ratings")
def api_board() -> Response:
    return jsonify({"provisional_games": ratings.PROVISIONAL_GAMES, "players": ratings.board()})


_PLAYER = {"type": "object", "properties": {
    "player": {"type": "string", "description": "the public id (random; not the device)"},
    "name": {"type": "string"}, "robot": {"type": "boolean"},
    "rating": {"type": "integer", "description": "1500 at the start"},
    "provisional": {"type": "boolean", "description": "fewer rated games than the threshold"},
    "games": {"type": "integer"}}}
_CHANGE = {"type": "object", "properties": {
    "before": {"type": "integer"}, "after": {"type": "integer"}, "change": {"type": "integer"},
    "provisional": {"type": "boolean"}, "games": {"type": "integer"},
    "place": {"type": "integer", "description": "1 = lowest total; ABANDONAR = last"},
    "total": {"type": "integer"}, "left": {"type": "boolean"}, "at": {"type": "string"}}}

register_paths({
    "/api/players/{public_id}": {"get": {
        "summary": "A rated player: name, rating, provisional mark and rated games (oldest first)",
        "parameters": [{"name": "public_id", "in": "path", "required": True,
                        "schema": {"type": "string", "maxLength": 24}}],
        "responses": {
            "200": {"description": "the player", "content": {"application/json": {"schema": {
                "allOf": [{"$ref": "#/components/schemas/RatedPlayer"}, {
                    "type": "object", "properties": {"history": {
                        "type": "array",
                        "items": {"$ref": "#/components/schemas/RatingChange"}}}}]}}}},
            "404": {"description": "no such player", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Error"}}}}}}},
    "/api/ratings": {"get": {
        "summary": "Clasificación: the best players with enough rated games, robots included",
        "responses": {"200": {"description": "the board", "content": {"application/json": {
            "schema": {"type": "object", "properties": {
                "provisional_games": {"type": "integer"},
                "players": {"type": "array", "items": {"allOf": [
                    {"$ref": "#/components/schemas/RatedPlayer"},
                    {"type": "object", "properties": {"place": {"type": "integer"}}}]}}}}}}}}}},
}, {"RatedPlayer": _PLAYER, "RatingChange": _CHANGE})
