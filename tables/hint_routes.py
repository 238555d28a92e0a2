"""La Pista: what the Difícil robot would do in the viewer's seat (3 cards to pass, or a card).

It reads the seat's own view only (robots never see a state), outside any lock, and changes
nothing; a GET. The search runs in a robot process (tables/hint_jobs.py), not here; the route
waits for its answer. Rate-limited per device, since a search costs CPU.
"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from rules import PASSING, PLAYING, view_for

from . import admission, errors, hint_jobs
from .db import db
from .errors import ServiceError
from .identity import current_device_id
from .limits import device_or_address, limiter
from .models import Table
from .openapi import register_paths
from .seating import load_game, load_seats, seat_of_device

bp = Blueprint("hint", __name__)

HINT_LIMIT = "30 per minute"


@bp.get("/api/tables/<table_id>/hint")
@limiter.limit(HINT_LIMIT, key_func=device_or_address)
def api_hint(table_id: str) -> Response | tuple[Response, int]:
    try:
        table = db.session.get(Table, table_id)
        if table is None:
            raise errors.NOT_FOUND.error()
        mine = seat_of_device(load_seats(table_id), current_device_id())
        if mine is None:
            raise errors.NOT_SEATED_FOR_HINT.error()
        game = load_game(table)
        db.session.rollback()
        if game is None:
            raise errors.NOT_STARTED.error()
        view = view_for(game, mine.seat)
        must_pass = view["phase"] == PASSING and not view["pass_confirmed"][mine.seat]
        must_play = view["phase"] == PLAYING and view["turn"] == mine.seat
        if not (must_pass or must_play):
            raise errors.NO_DECISION.error()
        try:
            with admission.waiting():  # a robot process computes it
                choice = hint_jobs.ask(view)
        except TimeoutError:
            raise errors.HINT_LATE.error() from None
    except ServiceError as err:
        return jsonify(err.body()), err.status
    if must_pass:
        return jsonify({"cards": list(choice["cards"])})
    return jsonify({"card": choice["card"]})


register_paths({"/api/tables/{table_id}/hint": {"get": {
    "summary": "La Pista: 3 cards to pass, or a card to play, for the viewer's own seat",
    "parameters": [{"name": "table_id", "in": "path", "required": True,
                    "schema": {"type": "string"}}],
    "responses": {
        "200": {"description": "the suggestion", "content": {"application/json": {"schema": {
            "type": "object", "properties": {
                "cards": {"type": "array", "items": {"type": "string"}},
                "card": {"type": "string"}}}}}},
        "403": {"description": "not seated at this table"},
        "404": {"description": "no such table"},
        "409": {"description": "nothing to decide now"},
        "429": {"description": "too many hints"},
        "503": {"description": "no robot process answered in time"}}}}})
