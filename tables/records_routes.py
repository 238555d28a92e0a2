"""HTTP for the records: the finished games of a table, one game's record and its export, the
review of the game in play (a seated person's own view), and the Repetición pages.

The table's id is the capability: whoever has the table's link reads its finished games (and
only finished ones: a record exists from the game's last card on). The review answers only a
seated person, with what their seat saw.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, redirect, render_template, request
from sqlalchemy import select
from werkzeug.wrappers import Response as WResponse

from . import errors, fair_deal
from .db import db
from .errors import ServiceError
from .guards import refused
from .identity import current_device_id
from .kinds import DECKS, TableStatus
from .limits import device_or_address, limiter
from .models import GameRecord, Table, Viewer
from .openapi import TABLE_ID, register_paths
from .record_export import openspiel_export
from .records import finished_games, game_record, replay_url, review_for
from .seating import load_seats, seat_of_device

bp = Blueprint("records", __name__)

REVIEW_LIMIT = "60 per minute"
FORMATS = ("json", "openspiel")


def _game_number(raw: str) -> int:
    if not (0 < len(raw) <= 9 and raw.isascii() and raw.isdigit()):
        raise errors.GAME_NOT_FOUND.error()
    return int(raw)


def _known_table(table_id: str) -> bool:
    """A table that exists, or whose games outlived it."""
    if len(table_id) > 40:
        return False
    if db.session.get(Table, table_id) is not None:
        return True
    return db.session.execute(
        select(GameRecord.id).where(GameRecord.table_id == table_id).limit(1)
    ).first() is not None




def _viewer_deck(table_id: str) -> str:
    """The deck design this device sees at the table (the table's own, or «reino»)."""
    device = current_device_id()
    if device is not None:
        mine = db.session.execute(
            select(Viewer.deck).where(Viewer.table_id == table_id, Viewer.device_id == device)
        ).scalar_one_or_none()
        if mine in DECKS:
            return str(mine)
    table = db.session.get(Table, table_id)
    return str(table.deck) if table is not None and table.deck in DECKS else DECKS[0]


# ------------------------------------------------------------------ API


@bp.get("/api/tables/<table_id>/games")
def api_games(table_id: str) -> Response | tuple[Response, int]:
    try:
        if not _known_table(table_id):
            raise errors.NOT_FOUND.error()
        games = finished_games([table_id])[table_id]
    except ServiceError as err:
        return refused(err)
    for g in games:
        n = g["game_number"]
        g["record_url"] = f"/api/tables/{table_id}/games/{n}"
        g["export_url"] = f"/api/tables/{table_id}/games/{n}?format=openspiel"
    return jsonify({"games": games})


@bp.get("/api/tables/<table_id>/games/<number>")
def api_game(table_id: str, number: str) -> Response | tuple[Response, int]:
    try:
        fmt = request.args.get("format", "json")
        if fmt not in FORMATS:
            raise errors.BAD_RECORD_FORMAT.error()
        record = game_record(table_id, _game_number(number)) if len(table_id) <= 40 else None
        if record is None:
            raise errors.GAME_NOT_FOUND.error()
    except ServiceError as err:
        return refused(err)
    out = openspiel_export(record) if fmt == "openspiel" else record
    resp = jsonify(out)
    if request.args.get("download") == "1":
        suffix = "-openspiel" if fmt == "openspiel" else ""
        resp.headers["Content-Disposition"] = \
            f'attachment; filename="corazones-partida-{record["game_number"]}{suffix}.json"'
    return resp


@bp.get("/api/tables/<table_id>/review")
@limiter.limit(REVIEW_LIMIT, key_func=device_or_address)
def api_review(table_id: str) -> Response | tuple[Response, int]:
    try:
        table = db.session.get(Table, table_id) if len(table_id) <= 40 else None
        if table is None:
            raise errors.NOT_FOUND.error()
        mine = seat_of_device(load_seats(table_id), current_device_id())
        if mine is None:
            raise errors.NOT_SEATED_FOR_REVIEW.error()
        if table.status == TableStatus.LOBBY:
            raise errors.NO_GAME_TO_REVIEW.error()
        if table.status == TableStatus.FINISHED:
            err = errors.GAME_OVER_REVIEW.error()
            body: dict[str, Any] = err.body()
            body["url"] = replay_url(table_id, table.game_number)
            return jsonify(body), err.status
        review = review_for(table, mine.seat)
        db.session.rollback()
    except ServiceError as err:
        return refused(err)
    return jsonify(review)


@bp.get("/api/tables/<table_id>/deals/<game>/<hand>")
def api_deal(table_id: str, game: str, hand: str) -> Response | tuple[Response, int]:
    """A hand's deal record (``corazones/deal-record/v1``, docs/FAIR_DEAL.md), for anyone who
    holds the table's link, from the moment its count closed. A finished game's hands are also
    read from its record once the table expired."""
    try:
        if not _known_table(table_id):
            raise errors.NOT_FOUND.error()
        g, h = _deal_number(game), _deal_number(hand)
        record = fair_deal.deal_record(table_id, g, h)
        if record is None:
            kept = game_record(table_id, g)
            hands = kept["hands"] if kept is not None else []
            found = next((x.get("fair_deal") for x in hands if x["number"] == h), None)
            record = found["record"] if found else None
        db.session.rollback()
        if record is None:
            raise errors.DEAL_NOT_REVEALED.error()
    except ServiceError as err:
        return refused(err)
    return jsonify(record)


def _deal_number(raw: str) -> int:
    if not (0 < len(raw) <= 9 and raw.isascii() and raw.isdigit()):
        raise errors.DEAL_NOT_REVEALED.error()
    return int(raw)


# ------------------------------------------------------------------ pages


@bp.get("/t/<table_id>/partidas/<number>")
def replay_page(table_id: str, number: str) -> str | tuple[str, int]:
    try:
        n = _game_number(number)
        if game_record(table_id, n) is None:
            raise errors.GAME_NOT_FOUND.error()
    except ServiceError as err:
        return render_template("error.html", message=err.message), err.status
    return render_template("replay.html", table_id=table_id, mode="game", game_number=n,
                           src=f"/api/tables/{table_id}/games/{n}",
                           deck=_viewer_deck(table_id))


@bp.get("/t/<table_id>/repaso")
def review_page(table_id: str) -> str | WResponse | tuple[str, int]:
    table = db.session.get(Table, table_id) if len(table_id) <= 40 else None
    if table is None:
        return render_template("error.html", message=errors.NOT_FOUND.message), 404
    if table.status == TableStatus.FINISHED:
        return redirect(replay_url(table_id, table.game_number))
    return render_template("replay.html", table_id=table_id, mode="review",
                           game_number=table.game_number,
                           src=f"/api/tables/{table_id}/review", deck=_viewer_deck(table_id))


# ------------------------------------------------------------------ the contract

_NUMBER = {"name": "number", "in": "path", "required": True,
           "schema": {"type": "integer", "minimum": 1}}
_JSON_OBJECT = {"application/json": {"schema": {"type": "object"}}}
register_paths({
    "/api/tables/{table_id}/games": {"get": {
        "summary": "The table's finished games, oldest first (docs/RECORDS.md)",
        "parameters": [TABLE_ID],
        "responses": {
            "200": {"description": "`{games: [{game_number, players, totals, winners, hands, "
                                   "started_at, finished_at, url, record_url, export_url}]}`",
                    "content": _JSON_OBJECT},
            "404": {"description": "no such table"}}}},
    "/api/tables/{table_id}/games/{number}": {"get": {
        "summary": "A finished game's record (docs/RECORDS.md), or its OpenSpiel export",
        "parameters": [TABLE_ID, _NUMBER,
                       {"name": "format", "in": "query", "required": False,
                        "schema": {"type": "string", "enum": list(FORMATS)}},
                       {"name": "download", "in": "query", "required": False,
                        "schema": {"type": "string", "enum": ["1"]}}],
        "responses": {
            "200": {"description": "the record, or `corazones-openspiel` with `format=openspiel`",
                    "content": _JSON_OBJECT},
            "400": {"description": "unknown format"},
            "404": {"description": "no such game, or not finished yet"}}}},
    "/api/tables/{table_id}/review": {"get": {
        "summary": "The completed hands of the game in play, as the viewer's seat saw them",
        "parameters": [TABLE_ID],
        "responses": {
            "200": {"description": "a record of the completed hands with only this seat's "
                                   "own cards and passes", "content": _JSON_OBJECT},
            "403": {"description": "not seated at this table"},
            "404": {"description": "no such table"},
            "409": {"description": "no game in play (lobby), or the game is over (`url`: "
                                   "its replay)"},
            "429": {"description": "too many reviews"}}}},
    "/api/tables/{table_id}/deals/{game}/{hand}": {"get": {
        "summary": "A hand's deal record, once its count closed (docs/FAIR_DEAL.md)",
        "parameters": [TABLE_ID,
                       {"name": "game", "in": "path", "required": True,
                        "schema": {"type": "integer", "minimum": 1}},
                       {"name": "hand", "in": "path", "required": True,
                        "schema": {"type": "integer", "minimum": 1}}],
        "responses": {
            "200": {"description": "`corazones/deal-record/v1`: `{format, table, game, hand, "
                                   "server, seats, deal, deck, closed, revealed}`; "
                                   "`python -m rules.deal verify` checks it",
                    "content": _JSON_OBJECT},
            "404": {"description": "no such table, or the hand is not revealed yet "
                                   "(`deal_not_revealed`), or was dealt before the fair deal"}}}},
})
