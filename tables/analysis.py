"""Análisis: Difícil's review of one player's decisions in a finished game (docs/ANALYSIS.md).

A player (a device that played in the game) asks once; the row (``GameAnalysis``) lists that
device's own decisions, read from the log when it is asked: the passes it confirmed and the cards
it played itself (never what a stand-in robot or the robot that took a left seat did). Robot
processes then work on it, one decision at a time, only when no robot turn is due anywhere
(tables/robot_worker.py); each decision's review is saved as soon as it is done, so a process
that dies loses at most the decision it was on, and another takes the rest over when the lease
runs out. A web process never runs a review: it only asks and reads.

Each decision is reviewed from the view its seat had at that moment (``rules.view_for`` of the
game replayed from the record up to it) and nothing else (robots/review.py).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import CursorResult, or_, select, update

from robots.review import review_pass, review_play
from rules import Game, Options, view_for

from . import errors
from .db import db, write_transaction
from .models import Action, GameAnalysis, GameRecord, Seat, Table, utcnow
from .records import game_record

QUEUED: Final = "queued"
RUNNING: Final = "running"
DONE: Final = "done"
#: Seconds a robot process owns an analysis without saving a decision before another takes it
#: (``ANALYSIS_LEASE``).
LEASE_SECONDS: Final = 120.0


# -------------------------------------------------------------------- asking


def _decisions_of(table_id: str, game_number: int, device_id: int) -> tuple[list[dict[str, Any]],
                                                                            int | None]:
    """The device's own decisions in the game, in order, and the seat it made them from."""
    rows = db.session.execute(
        select(Action.type, Action.seat, Action.device_id).where(
            Action.table_id == table_id, Action.game_number == game_number,
            Action.type.in_(("deal", "confirm_pass", "play")),
        ).order_by(Action.version)
    ).all()
    out: list[dict[str, Any]] = []
    hand = 0
    plays = 0
    seat: int | None = None
    for kind, row_seat, dev in rows:
        if kind == "deal":
            hand += 1
            plays = 0
            continue
        if dev == device_id and row_seat is not None and hand:
            seat = int(row_seat)
            if kind == "confirm_pass":
                out.append({"kind": "pass", "hand": hand, "index": 0, "seat": seat})
            else:
                out.append({"kind": "play", "hand": hand, "index": plays, "seat": seat})
        if kind == "play":
            plays += 1
    return out, seat


def _row(table_id: str, game_number: int, device_id: int) -> GameAnalysis | None:
    return db.session.execute(
        select(GameAnalysis).where(GameAnalysis.table_id == table_id,
                                   GameAnalysis.game_number == game_number,
                                   GameAnalysis.device_id == device_id)
    ).scalar_one_or_none()


def request_analysis(table_id: str, game_number: int, device_id: int | None,
                     worlds: int) -> dict[str, Any]:
    """Ask for the analysis of ``device_id``'s decisions in a finished game (once: asking again
    answers the one there is). Raises ServiceError: no such finished game, not a player of it."""
    record = game_record(table_id, game_number)
    if record is None:
        raise errors.GAME_NOT_FOUND.error()
    if device_id is None:
        raise errors.NOT_PLAYER_FOR_ANALYSIS.error()
    with write_transaction():
        row = _row(table_id, game_number, device_id)
        if row is None:
            if db.session.get(Table, table_id) is None:
                raise errors.ANALYSIS_TABLE_GONE.error()
            decisions, seat = _decisions_of(table_id, game_number, device_id)
            if seat is None:
                held = db.session.execute(
                    select(Seat.seat).where(Seat.table_id == table_id,
                                            Seat.device_id == device_id)).scalar_one_or_none()
                if held is None:
                    raise errors.NOT_PLAYER_FOR_ANALYSIS.error()
                seat = int(held)
            row = GameAnalysis(table_id=table_id, game_number=game_number, device_id=device_id,
                               seat=seat, status=QUEUED if decisions else DONE,
                               decisions=decisions, results=[], worlds=worlds,
                               created_at=utcnow(), cpu_seconds=0.0,
                               finished_at=None if decisions else utcnow())
            db.session.add(row)
            db.session.flush()
        out = public(row)
    return out


def analysis_for(table_id: str, game_number: int, device_id: int | None) -> dict[str, Any]:
    """The device's analysis of the game as the pages read it (``status: none`` if never asked)."""
    kept = db.session.execute(
        select(GameRecord.id).where(GameRecord.table_id == table_id,
                                    GameRecord.game_number == game_number)).first()
    if kept is None:
        raise errors.GAME_NOT_FOUND.error()
    row = None if device_id is None else _row(table_id, game_number, device_id)
    if row is not None:
        out = {**public(row), "player": True}
    else:
        out = {"status": "none", "done": 0, "total": 0, "decisions": [], "marked": 0,
               "player": device_id is not None and _played(table_id, game_number, device_id)}
    db.session.rollback()
    return out


def _played(table_id: str, game_number: int, device_id: int) -> bool:
    """The device made a move in the game, or holds a seat at its table (may ask for Análisis)."""
    moved = db.session.execute(
        select(Action.id).where(Action.table_id == table_id, Action.game_number == game_number,
                                Action.device_id == device_id, Action.seat.is_not(None))
        .limit(1)).first()
    if moved is not None:
        return True
    return db.session.execute(
        select(Seat.id).where(Seat.table_id == table_id, Seat.device_id == device_id).limit(1)
    ).first() is not None


def public(row: GameAnalysis) -> dict[str, Any]:
    """The analysis as the API gives it: each decision with its review once done."""
    results = list(row.results or [])
    decisions = []
    for i, d in enumerate(row.decisions or []):
        item = dict(d)
        if i < len(results):
            item.update(results[i])
            item["done"] = True
        else:
            item["done"] = False
        decisions.append(item)
    return {
        "status": row.status,
        "seat": row.seat,
        "done": len(results),
        "total": len(row.decisions or []),
        "marked": sum(1 for r in results if r.get("marked")),
        "worlds": row.worlds,
        "decisions": decisions,
    }


# -------------------------------------------------------------------- the review of one decision


def game_before(record: dict[str, Any], hand_number: int, plays: int | None) -> Game:
    """The game of ``record`` replayed up to hand ``hand_number``: right after its deal
    (``plays`` None: the pass), or before its ``plays``-th card."""
    g = Game(Options(target=int(record["options"]["target"]),
                     renege=str(record["options"]["renege"])))
    for hand in record["hands"]:
        g.apply({"type": "deal", "deck": list(hand["deck"])})
        here = hand["number"] == hand_number
        if here and plays is None:
            return g
        for p in hand["passes"] if hand["pass"] != "none" else []:
            g.apply({"type": "confirm_pass", "seat": p["from"], "cards": list(p["cards"])})
        for i, p in enumerate(hand["plays"]):
            if here and i == plays:
                return g
            g.apply({"type": "play", "seat": p["seat"], "card": p["card"]})
        if here:
            break
        acc = hand.get("accusation")
        if acc:
            g.apply({"type": "accuse", "seat": acc["accuser"], "accused": acc["accused"]})
        g.apply({"type": "close_count", "seat": 0})
    raise ValueError("the record has no such decision")


def review_decision(record: dict[str, Any], decision: dict[str, Any],
                    worlds: int) -> dict[str, Any]:
    """Difícil's review of one decision, from its seat's view at that moment only. A plain
    function of JSON values, so a process of its own can run it."""
    seat = int(decision["seat"])
    hand = next(h for h in record["hands"] if h["number"] == decision["hand"])
    if decision["kind"] == "pass":
        g = game_before(record, int(decision["hand"]), None)
        cards = next(p["cards"] for p in hand["passes"] if p["from"] == seat)
        return review_pass(view_for(g, seat), list(cards), worlds=worlds)
    g = game_before(record, int(decision["hand"]), int(decision["index"]))
    card = hand["plays"][int(decision["index"])]["card"]
    return review_play(view_for(g, seat), str(card), worlds=worlds)


# -------------------------------------------------------------------- the robot processes' side


def claim(now: datetime | None = None, lease: float = LEASE_SECONDS) -> int | None:
    """Take the oldest analysis waiting (or one whose process stopped: its lease ran out) for
    this process; its id, or None."""
    now = now or utcnow()
    candidates = list(db.session.execute(
        select(GameAnalysis.id).where(or_(
            GameAnalysis.status == QUEUED,
            (GameAnalysis.status == RUNNING) & (GameAnalysis.lease_until < now),
        )).order_by(GameAnalysis.id).limit(5)
    ).scalars())
    db.session.rollback()
    for aid in candidates:
        with write_transaction():
            done: CursorResult[Any] = db.session.execute(  # type: ignore[assignment]
                update(GameAnalysis).where(
                    GameAnalysis.id == aid,
                    or_(GameAnalysis.status == QUEUED,
                        (GameAnalysis.status == RUNNING) & (GameAnalysis.lease_until < now)),
                ).values(status=RUNNING, lease_until=now + timedelta(seconds=lease))
            )
        if done.rowcount:
            return int(aid)
    return None


def next_decision(aid: int) -> tuple[int, dict[str, Any], dict[str, Any], int] | None:
    """(index, decision, record, worlds) of the next decision of analysis ``aid`` to review, or
    None when there is none (done, or gone)."""
    row = db.session.get(GameAnalysis, aid)
    if row is None or row.status == DONE:
        db.session.rollback()
        return None
    i = len(row.results or [])
    if i >= len(row.decisions or []):
        db.session.rollback()
        return None
    record = game_record(row.table_id, row.game_number)
    out = (i, dict(row.decisions[i]), record, int(row.worlds)) if record is not None else None
    db.session.rollback()
    if out is None:
        finish_unreviewable(aid)
    return out


def save_result(aid: int, index: int, result: dict[str, Any], cpu: float,
                lease: float = LEASE_SECONDS) -> bool:
    """Keep decision ``index``'s review (unless another process kept it first) and extend the
    lease; the analysis is done with its last decision. True while decisions are left."""
    with write_transaction():
        row = db.session.get(GameAnalysis, aid)
        if row is None:
            return False
        results = list(row.results or [])
        if len(results) == index:
            results.append(result)
            row.results = results
            row.cpu_seconds = float(row.cpu_seconds or 0.0) + cpu
        if row.started_at is None:
            row.started_at = utcnow()
        if len(results) >= len(row.decisions or []):
            row.status = DONE
            row.lease_until = None
            row.finished_at = utcnow()
            return False
        row.lease_until = utcnow() + timedelta(seconds=lease)
        return True


def finish_unreviewable(aid: int) -> None:
    """An analysis whose record is gone: nothing is left to review."""
    with write_transaction():
        row = db.session.get(GameAnalysis, aid)
        if row is not None:
            row.status = DONE
            row.lease_until = None
            row.finished_at = utcnow()


__all__ = ["DONE", "QUEUED", "RUNNING", "analysis_for", "claim", "finish_unreviewable",
           "game_before", "next_decision", "public", "request_analysis", "review_decision",
           "save_result"]
