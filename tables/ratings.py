"""Ratings: what a game «con clasificación» does to its players' ratings (docs/RATINGS.md).

The rule: each player's final total is set against each of the other three; the lowest total wins
the pair, equal totals split it. That is exactly openskill's *full pairing* Bradley-Terry model
(Weng-Lin) given the four as a free-for-all ranked by their totals, equal totals sharing a place:
its update sums one pairwise comparison per opponent. No rating mathematics is written here.

Who is rated: the person of each seat (their device), a stand-in's seat included; whoever left
with ABANDONAR is placed last; a robot that sat from the deal is its own player per name and level
(«Carmen · Difícil»). A seat someone took during the game (a robot kept it before) rates nobody.

Exactly once: :func:`rate_game` runs inside the transaction of the action that ends the game (the
table's lock is held), and writes one ``RatingChange`` row per (table, game, player) under a
unique constraint: the update commits or fails with the last action, and cannot apply twice.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import BradleyTerryFull
from sqlalchemy import and_, or_, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from rules import GAME_OVER

from .db import db, is_sqlite, reading
from .kinds import LEVEL_LABELS, SeatKind
from .models import Action, RatedPlayer, RatingChange, utcnow
from .seating import Ctx

#: openskill's full-pairing Bradley-Terry model with its defaults (mu 25, sigma 25/3, beta 25/6,
#: tau 25/300: a little uncertainty comes back each game, so ratings keep moving).
MODEL = BradleyTerryFull()
#: Rated games before a rating stops being provisional (shown with «?», kept off Clasificación).
PROVISIONAL_GAMES = 5
#: The shown number: 1500 + 30 per unit of mu away from the start (30 points a unit makes a
#: 400-point gap about 10 to 1 odds for the better player, as on the Elo scale).
CENTRE = 1500
SCALE = 30.0
#: Players on the Clasificación page.
BOARD_SIZE = 50
#: Points of a player's history kept on their page.
HISTORY_SIZE = 200


def shown(mu: float) -> int:
    """The rating people read, from openskill's mu."""
    return int(round(CENTRE + SCALE * (mu - MODEL.mu)))


def provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES


def places(totals: Sequence[int], left: Sequence[bool]) -> list[int]:
    """1 for the lowest total, equal totals share a place; whoever left is last (together)."""
    stayed = sorted({t for t, gone in zip(totals, left, strict=True) if not gone})
    last = len(stayed) + 1
    return [last if gone else stayed.index(t) + 1 for t, gone in zip(totals, left, strict=True)]


def update(ratings: Sequence[tuple[float, float]], ranks: Sequence[int]
           ) -> list[tuple[float, float]]:
    """The new (mu, sigma) of each player after a game in which they finished at ``ranks``."""
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    out = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [(team[0].mu, team[0].sigma) for team in out]


# -------------------------------------------------------------------- who plays this game


@dataclass(frozen=True)
class Entrant:
    seat: int
    name: str
    total: int
    left: bool
    device_id: int | None = None
    robot_key: str | None = None


def robot_key(name: str, level: str) -> str:
    return f"robot:{name}:{level}"


def robot_player_name(name: str, level: str) -> str:
    return f"{name} · {LEVEL_LABELS.get(level, level)}"


def entrants(ctx: Ctx) -> list[Entrant]:
    """The rated players of the game that just ended at ``ctx``'s table (see the module text)."""
    t, game = ctx.table, ctx.game
    assert game is not None
    rows = db.session.execute(
        select(Action.type, Action.seat, Action.version)
        .where(Action.table_id == t.id, Action.game_number == t.game_number,
               Action.type.in_(("sit", "set_level", "deal")))
    ).all()
    joined = {r.seat for r in rows if r.type == "sit"}
    last_deal = max((r.version for r in rows if r.type == "deal"), default=0)
    # A level changed before a later deal: the robots were not one player the whole game.
    robots_rated = not any(r.type == "set_level" and r.version < last_deal for r in rows)
    out: list[Entrant] = []
    seen: set[str] = set()
    for s in ctx.seats:
        if s.seat in joined:
            continue
        total = int(game.totals[s.seat])
        if s.kind == SeatKind.HUMAN and s.device_id is not None:
            key, entrant = f"d{s.device_id}", Entrant(s.seat, s.name, total, bool(s.left),
                                                      device_id=s.device_id)
        elif s.kind == SeatKind.ROBOT and s.robot_name and robots_rated:
            rk = robot_key(s.robot_name, t.hand_level)
            key, entrant = rk, Entrant(s.seat, robot_player_name(s.robot_name, t.hand_level),
                                       total, False, robot_key=rk)
        else:
            continue
        if key not in seen:
            seen.add(key)
            out.append(entrant)
    return out


# -------------------------------------------------------------------- the update, once


def rate_game(ctx: Ctx) -> None:
    """Move the ratings of the game that just ended (call inside its locked transaction)."""
    t, game = ctx.table, ctx.game
    if not t.rated or game is None or game.phase != GAME_OVER:
        return
    done = db.session.execute(
        select(RatingChange.id).where(RatingChange.table_id == t.id,
                                      RatingChange.game_number == t.game_number).limit(1)
    ).first()
    if done is not None:
        return
    people = entrants(ctx)
    if len(people) < 2:
        return
    players = _claim(people)
    mine = [players[e.device_id if e.robot_key is None else e.robot_key] for e in people]
    ranks = places([e.total for e in people], [e.left for e in people])
    after = update([(p.mu, p.sigma) for p in mine], ranks)
    now = utcnow()
    for e, p, place, (mu, sigma) in zip(people, mine, ranks, after, strict=True):
        db.session.add(RatingChange(
            player_id=p.id, table_id=t.id, game_number=t.game_number, seat=e.seat,
            total=e.total, place=place, left=e.left, mu_before=p.mu, sigma_before=p.sigma,
            mu_after=mu, sigma_after=sigma, games=p.games + 1, at=now))
        p.mu, p.sigma, p.games, p.updated_at = mu, sigma, p.games + 1, now
        if e.name:
            p.name = e.name
    db.session.flush()


def _claim(people: list[Entrant]) -> dict[int | str | None, RatedPlayer]:
    """The players' rows, made if new, locked (PostgreSQL: FOR UPDATE, in id order, so two
    tables ending at once with a player in common wait for each other instead of losing an
    update). New rows are inserted with ON CONFLICT DO NOTHING: two tables making the same
    robot's row at once do not fail."""
    insert = sqlite_insert if is_sqlite() else pg_insert
    now = utcnow()
    for e in people:
        db.session.execute(insert(RatedPlayer).values(
            public_id=secrets.token_urlsafe(9), device_id=e.device_id, robot_key=e.robot_key,
            name=e.name, mu=MODEL.mu, sigma=MODEL.sigma, games=0, created_at=now,
            updated_at=now).on_conflict_do_nothing())
    devices = [e.device_id for e in people if e.device_id is not None]
    robots = [e.robot_key for e in people if e.robot_key is not None]
    stmt = (select(RatedPlayer)
            .where(or_(RatedPlayer.device_id.in_(devices), RatedPlayer.robot_key.in_(robots)))
            .order_by(RatedPlayer.id).execution_options(populate_existing=True))
    if not is_sqlite():
        stmt = stmt.with_for_update()
    rows = db.session.execute(stmt).scalars().all()
    return {(r.device_id if r.robot_key is None else r.robot_key): r for r in rows}


# -------------------------------------------------------------------- what others read


def change_json(c: Any) -> dict[str, Any]:
    before, after = shown(c.mu_before), shown(c.mu_after)
    return {"before": before, "after": after, "change": after - before,
            "provisional": provisional(c.games), "games": c.games, "place": c.place,
            "total": c.total, "left": bool(c.left)}


_ended: OrderedDict[tuple[str, int], list[dict[str, Any]]] = OrderedDict()
_ended_lock = threading.Lock()
_ENDED_KEEP = 2000


def game_changes(table_id: str, game_number: int) -> list[dict[str, Any]]:
    """The rating change of each rated seat of a finished game, by seat (for its end scene).

    Read once per process and kept: it is written with the game's last action and never
    changes (a state that shows the game over was read after that commit)."""
    key = (table_id, game_number)
    with _ended_lock:
        got = _ended.get(key)
        if got is not None:
            _ended.move_to_end(key)
            return got
    c, p = RatingChange.__table__.c, RatedPlayer.__table__.c
    with reading() as conn:
        rows = conn.execute(
            select(c.seat, c.mu_before, c.mu_after, c.games, c.place, c.total, c.left,
                   p.public_id, p.name)
            .join_from(RatingChange.__table__, RatedPlayer.__table__, c.player_id == p.id)
            .where(and_(c.table_id == table_id, c.game_number == game_number))
            .order_by(c.seat)).all()
    got = [{"seat": r.seat, "player": r.public_id, "name": r.name, **change_json(r)}
           for r in rows]
    with _ended_lock:
        _ended[key] = got
        while len(_ended) > _ENDED_KEEP:
            _ended.popitem(last=False)
    return got


def player_json(p: Any) -> dict[str, Any]:
    return {"player": p.public_id, "name": p.name, "robot": p.robot_key is not None,
            "rating": shown(p.mu), "provisional": provisional(p.games), "games": p.games}


def profile(public_id: str) -> dict[str, Any] | None:
    """A player's page: name, rating, provisional mark and their last rated games (oldest
    first). Never a device id nor a table: others may see the name and the ratings only."""
    with reading() as conn:
        p = conn.execute(select(RatedPlayer.__table__).where(
            RatedPlayer.__table__.c.public_id == public_id)).first()
        if p is None:
            return None
        c = RatingChange.__table__.c
        rows = conn.execute(
            select(c.mu_before, c.mu_after, c.games, c.place, c.total, c.left, c.at)
            .where(c.player_id == p.id).order_by(c.id.desc()).limit(HISTORY_SIZE)).all()
    out = player_json(p)
    out["history"] = [{"at": r.at.replace(microsecond=0).isoformat() + "Z", **change_json(r)}
                      for r in reversed(rows)]
    return out


def board(limit: int = BOARD_SIZE) -> list[dict[str, Any]]:
    """Clasificación: the best players with enough rated games, robots included."""
    t = RatedPlayer.__table__.c
    with reading() as conn:
        rows = conn.execute(
            select(t.public_id, t.name, t.robot_key, t.mu, t.games)
            .where(t.games >= PROVISIONAL_GAMES)
            .order_by(t.mu.desc(), t.id).limit(limit)).all()
    return [{"place": i + 1, **player_json(r)} for i, r in enumerate(rows)]
