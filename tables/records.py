"""Every finished game kept whole: its record, built from the action log (docs/RECORDS.md).

At game over, inside the last card's transaction, :func:`keep_game` replays the log rows of that
game through ``rules.Game`` and keeps the result as one ``GameRecord`` row: the deals, the passes,
every card with the tricks' winners, accusations and rulings, each hand's points and the running
totals, the winners, who sat where and who stood in for whom. Chat is never part of a record, nor
is any device id or token, nor the table's id (the id is the capability that reads the record).

During a game, :func:`review_for` gives a seated person the hands already completed, with only
what that seat saw then (its own cards and passes, the cards as they were played).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import or_, select

from rules import DECK, GAME_OVER, Game, Options, cards_of, pass_target

from . import fair_deal
from .db import db
from .kinds import LEVEL_LABELS, ROBOT_NAMES, SeatKind
from .models import Action, GameRecord, Table, utcnow
from .seating import Ctx, is_robotic, robot_label

log = logging.getLogger(__name__)

RECORD_FORMAT: Final = "corazones-partida"
RECORD_VERSION: Final = 1

#: Log entries that change who sits where (read from every earlier game of the table too).
SEATING_TYPES: Final = ("sit", "add_robot", "remove_robot", "leave", "new_game", "set_level")
#: Log entries of the game itself.
GAME_TYPES: Final = ("deal", "choose_pass", "confirm_pass", "play", "accuse", "close_count")
#: Everything a record is built from (chat, taunts and deck choices are never read).
RECORD_TYPES: Final = SEATING_TYPES + GAME_TYPES + ("standin", "take_back")


def replay_url(table_id: str, game_number: int) -> str:
    """The Repetición page of a finished game (Mis mesas and the end scene link here)."""
    return f"/t/{table_id}/partidas/{game_number}"


def review_url(table_id: str) -> str:
    """The review page of the game in progress (the seated person's own view)."""
    return f"/t/{table_id}/repaso"


def _iso(at: datetime | None) -> str | None:
    return None if at is None else at.replace(microsecond=0).isoformat() + "Z"


# -------------------------------------------------------------------- who sits where


@dataclass
class _Sitter:
    """One seat as the log tells it (the same fields the ``seats`` rows hold)."""

    seat: int
    kind: str = SeatKind.EMPTY
    name: str = ""
    robot_name: str = ""
    left: bool = False
    vacant: bool = False
    standin: bool = False


def _free_robot_name(seats: Sequence[_Sitter]) -> str:
    used = {s.robot_name for s in seats if s.robot_name and is_robotic(s)}
    return next((n for n in ROBOT_NAMES if n not in used), ROBOT_NAMES[0])


def _player(s: _Sitter, level: str) -> dict[str, Any]:
    """Who plays a seat now: a person's name, or a robot's name, label and level."""
    if is_robotic(s):
        return {"seat": s.seat, "kind": "robot", "name": s.robot_name,
                "label": robot_label(s.robot_name), "level": level,
                "level_label": LEVEL_LABELS.get(level, level),
                # A robot playing the rest of a game for a person who left: whose seat it was.
                "for": s.name if s.kind == SeatKind.HUMAN and s.left else None}
    return {"seat": s.seat, "kind": "human", "name": s.name, "label": s.name}


# -------------------------------------------------------------------- building a record


def _rows_of_game(table_id: str, game_number: int) -> list[Action]:
    """The log rows a record of game ``game_number`` is built from, in order: that game's, and
    the seating entries of the games before it (who sat down, who left)."""
    return list(db.session.execute(
        select(Action).where(
            Action.table_id == table_id,
            Action.type.in_(RECORD_TYPES),
            or_(Action.game_number == game_number,
                (Action.game_number < game_number) & Action.type.in_(SEATING_TYPES)),
        ).order_by(Action.version)
    ).scalars())


def build_record(table: Table, game_number: int, rows: Iterable[Any],
                 fallback_level: str | None = None) -> dict[str, Any]:
    """The record of game ``game_number`` of ``table`` from its log ``rows`` (in version order:
    that game's rows and the seating rows of the games before). A game still in play gives the
    hands so far; only hands with ``"complete": true`` are over."""
    seats = [_Sitter(i) for i in range(4)]
    level = fallback_level or table.robot_level
    game: Game | None = None
    in_game = False
    hands: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    started_at: datetime | None = None
    finished_at: datetime | None = None
    first_seats: list[dict[str, Any]] = []
    hand: dict[str, Any] | None = None

    def at() -> dict[str, int]:
        if game is None or hand is None:
            return {"hand": 0, "card": 0}
        return {"hand": game.hand_number, "card": len(hand["plays"])}

    for row in rows:
        p = row.payload or {}
        kind = row.type
        current = row.game_number == game_number
        if kind == "set_level":
            level = str(p.get("robot_level", level))
        elif kind == "sit":
            s = seats[int(p["seat"])]
            was = _player(s, level) if s.kind == SeatKind.ROBOT else None
            s.kind, s.name, s.left, s.vacant, s.standin = SeatKind.HUMAN, str(p["name"]), \
                False, False, False
            if current and in_game:
                events.append({"type": "sit", "seat": s.seat, "name": s.name,
                               "replaces": was, **at()})
        elif kind == "add_robot":
            s = seats[int(p["seat"])]
            s.kind, s.name, s.robot_name = SeatKind.ROBOT, "", str(p.get("name", ""))
        elif kind == "remove_robot":
            s = seats[int(p["seat"])]
            s.kind, s.robot_name = SeatKind.EMPTY, ""
        elif kind == "leave":
            s = seats[int(p["seat"])]
            if row.game_number == 0:  # the lobby, before the first game: the seat is free
                s.kind, s.name = SeatKind.EMPTY, ""
            else:
                if s.standin:
                    s.standin = False
                s.left = True
                s.robot_name = _free_robot_name(seats)
                if current and in_game:
                    events.append({"type": "leave", "seat": s.seat, "name": s.name,
                                   "robot": s.robot_name, **at()})
        elif kind == "new_game":
            for s in seats:  # at a rematch a seat whose person left is kept by a robot
                if s.kind == SeatKind.HUMAN and s.left:
                    s.kind, s.name, s.left, s.vacant = SeatKind.ROBOT, "", False, True
                s.standin = False
            if current:
                in_game = True
                game = Game(Options(target=table.target, renege=table.renege))
                started_at = row.at
        elif not current or game is None:
            continue
        elif kind == "standin":
            s = seats[int(p["seat"])]
            s.standin = True
            events.append({"type": "standin", "seat": s.seat, "name": s.name, **at()})
        elif kind == "take_back":
            s = seats[int(p["seat"])]
            s.standin = False
            events.append({"type": "take_back", "seat": s.seat, "name": s.name, **at()})
        elif kind in GAME_TYPES:
            action = dict(p)
            if row.seat is not None and kind != "deal":
                action["seat"] = row.seat
            game.apply(action)
            if kind == "deal":
                hand_level = str(p.get("level", level))
                hand = _new_hand(game, list(p["deck"]), hand_level,
                                 [_player(s, hand_level) for s in seats])
                hands.append(hand)
                if not first_seats:  # who sat where when the game began
                    first_seats = list(hand["players"])
            elif hand is not None:
                _after_game_action(game, hand, kind, row)
                if game.phase == GAME_OVER:
                    finished_at = row.at
    return _assemble(table, game_number, game, hands, events, first_seats, started_at,
                     finished_at)


def _new_hand(game: Game, deck: list[str], level: str,
              players: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "number": game.hand_number,
        "pass": game.pass_dir,
        "robot_level": level,
        "players": players,
        "deck": deck,
        "dealt": [cards_of(m) for m in game.dealt],
        "passes": [],
        "held": [cards_of(m) for m in game.hands] if game.pass_dir == "none" else None,
        "plays": [],
        "tricks": [],
        "unfinished_trick": [],
        "reneges": [],
        "accusation": None,
        "points": None,
        "scores": None,
        "moon": None,
        "totals": None,
        "complete": False,
    }


def _after_game_action(game: Game, hand: dict[str, Any], kind: str, row: Any) -> None:
    """Bring the hand's record along after ``kind`` was applied to ``game``."""
    if kind == "confirm_pass" and game.phase != "passing" and not hand["passes"]:
        direction = game.pass_dir
        for s in range(4):
            to = pass_target(s, direction)
            hand["passes"].append({"from": s, "to": to, "cards": cards_of(game.received[to])})
        hand["held"] = [cards_of(m) for m in game.hands]
    elif kind == "play":
        card = str(row.payload["card"])
        hand["plays"].append({"seat": row.seat, "card": card})
        if len(game.tricks) > len(hand["tricks"]):
            n = len(game.tricks)
            leader, cs, winner = game.tricks[-1]
            trick_cards = [c["card"] for c in hand["plays"][-4:]]
            pts = sum(1 for c in trick_cards if c[1] == "H") + (13 if "QS" in trick_cards else 0)
            hand["tricks"].append({
                "number": n, "leader": leader,
                "cards": [{"seat": (leader + i) % 4, "card": c} for i, c in enumerate(trick_cards)],
                "winner": winner, "points": pts})
    elif kind == "accuse" and game.accusation is not None:
        hand["accusation"] = {**game.accusation, "card_count": len(hand["plays"])}
        hand["unfinished_trick"] = [{"seat": s, "card": DECK[c]} for s, c in game.trick]
    if game.hand_scores is not None and hand["scores"] is None and kind in ("play", "accuse"):
        hand["reneges"] = [{"seat": s, "trick": t + 1, "card": DECK[c]}
                           for s, t, c in game.reneges]
    if kind == "close_count":
        last = game.history[-1]
        hand["points"] = list(last["points"])
        hand["scores"] = list(last["scores"])
        hand["moon"] = last["moon"]
        hand["totals"] = list(game.totals)
        hand["complete"] = True


def _assemble(table: Table, game_number: int, game: Game | None, hands: list[dict[str, Any]],
              events: list[dict[str, Any]], seats: list[dict[str, Any]],
              started_at: datetime | None, finished_at: datetime | None) -> dict[str, Any]:
    standins: list[dict[str, Any]] = []
    for e in events:
        if e["type"] == "standin":
            standins.append({"seat": e["seat"], "name": e["name"],
                             "from": {"hand": e["hand"], "card": e["card"]}, "to": None})
        elif e["type"] == "take_back":
            open_span = next((s for s in reversed(standins)
                              if s["seat"] == e["seat"] and s["to"] is None), None)
            if open_span is not None:
                open_span["to"] = {"hand": e["hand"], "card": e["card"]}
    over = game is not None and game.phase == GAME_OVER
    totals = list(game.totals) if game is not None else [0, 0, 0, 0]
    return {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "table_name": table.name,
        "game_number": game_number,
        "options": {"target": table.target, "renege": table.renege},
        "started_at": _iso(started_at),
        "finished_at": _iso(finished_at),
        "seats": seats,
        "events": events,
        "standins": standins,
        "leavers": [{k: e[k] for k in ("seat", "name", "robot", "hand", "card")}
                    for e in events if e["type"] == "leave"],
        "hands": hands,
        "totals": totals,
        "winners": list(game.winners) if over and game is not None else [],
        "ranking": sorted(range(4), key=lambda s: (totals[s], s)) if over else [],
        "finished": over,
    }


# -------------------------------------------------------------------- keeping it


def keep_game(ctx: Ctx) -> GameRecord:
    """Keep the game that just ended at ``ctx.table`` (called once, inside the transaction of
    its last action, so the record commits or fails with it)."""
    t = ctx.table
    db.session.flush()
    record = build_record(t, t.game_number, _rows_of_game(t.id, t.game_number), t.hand_level)
    for hand in record["hands"]:
        hand["fair_deal"] = fair_deal_of(t.id, t.game_number, hand)
    if ctx.game is not None and (not record["finished"] or record["totals"] != ctx.game.totals):
        # The log is the truth; a game whose snapshot was edited by hand differs from it.
        log.warning("table %s game %s: the log's replay differs from the game's snapshot",
                    t.id, t.game_number)
    summary = summary_of(record)
    row = db.session.execute(
        select(GameRecord).where(GameRecord.table_id == t.id,
                                 GameRecord.game_number == t.game_number)
    ).scalar_one_or_none()
    if row is None:
        row = GameRecord(table_id=t.id, game_number=t.game_number)
        db.session.add(row)
    # A row already there is an expired table's: only the browser that created a table can
    # make its id again (retrying its very creation), and its new games replace the old ones.
    row.version = RECORD_VERSION
    row.record = record
    row.summary = summary
    row.created_at = utcnow()
    return row


def shuffler_label(player: dict[str, Any], by: str) -> str:
    """Who shuffled for a seat: the person, «el servidor por Ana» for a person whose page sent no
    seed in time (absent, or a stand-in playing), «el servidor» for a robot."""
    if by == "player":
        return str(player["name"])
    if player["kind"] == "human":
        return f"el servidor por {player['name']}"
    return "el servidor"


def fair_deal_of(table_id: str, game_number: int, hand: dict[str, Any]) -> dict[str, Any] | None:
    """A hand's deal record (docs/FAIR_DEAL.md) and who shuffled for each seat; None for a hand
    dealt before the fair deal existed."""
    deal = fair_deal.deal_record(table_id, game_number, int(hand["number"]))
    if deal is None:
        return None
    by = {e["seat"]: e["by"] for e in deal["seats"]}
    return {
        "shuffled_by": [{"seat": p["seat"], "by": by[p["seat"]],
                         "label": shuffler_label(p, by[p["seat"]])} for p in hand["players"]],
        "record": deal,
    }


def summary_of(record: dict[str, Any]) -> dict[str, Any]:
    """What a list of games shows of one: who played, the totals, the winners, how many hands."""
    return {
        "game_number": record["game_number"],
        "players": [s["label"] for s in record["seats"]],
        "totals": list(record["totals"]),
        "winners": list(record["winners"]),
        "hands": len(record["hands"]),
        "started_at": record["started_at"],
        "finished_at": record["finished_at"],
    }


def game_record(table_id: str, game_number: int) -> dict[str, Any] | None:
    """The record of a finished game, or None (no such game, or not finished yet)."""
    row = db.session.execute(
        select(GameRecord.record).where(GameRecord.table_id == table_id,
                                        GameRecord.game_number == game_number)
    ).scalar_one_or_none()
    return None if row is None else dict(row)


def finished_games(table_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """The finished games of each table, oldest first, as :func:`summary_of` gives them plus
    the replay's ``url`` (one query for any number of tables)."""
    out: dict[str, list[dict[str, Any]]] = {tid: [] for tid in table_ids}
    if not table_ids:
        return out
    rows = db.session.execute(
        select(GameRecord.table_id, GameRecord.game_number, GameRecord.summary)
        .where(GameRecord.table_id.in_(list(table_ids)))
        .order_by(GameRecord.table_id, GameRecord.game_number)
    ).all()
    for tid, n, summary in rows:
        out[str(tid)].append({**dict(summary), "url": replay_url(str(tid), int(n))})
    return out


# -------------------------------------------------------------------- the review of one seat


def review_for(table: Table, seat: int) -> dict[str, Any]:
    """The hands of the game in play already completed, as ``seat`` saw them: its own dealt
    cards, what it passed and received, the cards as they were played, the rulings and the
    scores. Never another seat's hand or pass, the deck, or who reneged unless a ruling said so.
    A person who sat down during the game (in a seat someone left) owns no hand before that."""
    n = table.game_number
    record = build_record(table, n, _rows_of_game(table.id, n), table.hand_level)
    sat_in = max((e["hand"] for e in record["events"]
                  if e["type"] == "sit" and e["seat"] == seat), default=0)
    hands = []
    for hand in record["hands"]:
        if not hand["complete"]:
            break
        hands.append(_seat_hand(hand, seat, own=hand["number"] > sat_in))
    return {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "review": True,
        "seat": seat,
        "table_name": record["table_name"],
        "game_number": n,
        "options": record["options"],
        "seats": record["seats"],
        "hands": hands,
        "totals": list(hands[-1]["totals"]) if hands else [0, 0, 0, 0],
        "finished": False,
    }


def _seat_hand(hand: dict[str, Any], seat: int, own: bool) -> dict[str, Any]:
    """One completed hand as ``seat`` saw it (built field by field: nothing else goes out)."""
    out: dict[str, Any] = {
        "number": hand["number"],
        "pass": hand["pass"],
        "players": hand["players"],
        "plays": [dict(p) for p in hand["plays"]],
        "tricks": [dict(t) for t in hand["tricks"]],
        "unfinished_trick": [dict(c) for c in hand["unfinished_trick"]],
        "accusation": None if hand["accusation"] is None else dict(hand["accusation"]),
        "points": list(hand["points"]),
        "scores": list(hand["scores"]),
        "moon": hand["moon"],
        "totals": list(hand["totals"]),
        "complete": True,
        "own": own,
        "dealt": [None, None, None, None],
        "held": [None, None, None, None],
        "passes": [],
    }
    if own:
        out["dealt"][seat] = list(hand["dealt"][seat])
        out["held"][seat] = list(hand["held"][seat]) if hand["held"] else None
        out["passes"] = [dict(p) for p in hand["passes"] if p["from"] == seat or p["to"] == seat]
    return out


__all__ = ["RECORD_FORMAT", "RECORD_VERSION", "build_record", "fair_deal_of", "finished_games",
           "game_record", "keep_game", "replay_url", "review_for", "review_url", "summary_of"]
