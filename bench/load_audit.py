"""Every hand of every table checked from the action log (the truth), after a load or fault run.

For each table: versions run 1..N with no gap or repeat; each game's rules actions replayed from a
new game give exactly the stored snapshot; every finished hand had 52 cards played and 26 points
(or a moon: 0 for the shooter, 26 for the others; or an accusation: 26 for one seat); every
action a client saw acknowledged is in the log exactly once, and no client action id is applied
twice.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from rules import Game, Options

RULES_TYPES = frozenset({"deal", "choose_pass", "confirm_pass", "play", "accuse", "close_count"})


@dataclass
class Audit:
    tables: int = 0
    actions: int = 0
    hands: int = 0
    games: int = 0
    moons: int = 0
    accusations: int = 0
    acked_checked: int = 0
    problems: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"tables": self.tables, "actions": self.actions, "hands_checked": self.hands,
                "games": self.games, "moons": self.moons, "accusations": self.accusations,
                "acked_checked": self.acked_checked, "problems": len(self.problems)}


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _check_hand_end(g: Game, plays: int, where: str, audit: Audit) -> None:
    scores = g.hand_scores or []
    audit.hands += 1
    if g.accusation is not None:
        audit.accusations += 1
        if sorted(scores) != [0, 0, 0, 26]:
            audit.problems.append(f"{where}: accusation scores {scores}")
        return
    if plays != 52:
        audit.problems.append(f"{where}: {plays} cards played")
    taken = sum(m.bit_count() for m in g.taken)
    if taken != 52:
        audit.problems.append(f"{where}: {taken} cards taken")
    points = g.points_taken()
    if sum(points) != 26:
        audit.problems.append(f"{where}: {sum(points)} points")
    if g.moon is not None:
        audit.moons += 1
        if sorted(scores) != [0, 26, 26, 26] or scores[g.moon] != 0:
            audit.problems.append(f"{where}: moon scores {scores}")
    elif scores != points:
        audit.problems.append(f"{where}: scores {scores} != points {points}")


def audit_table(conn: Any, tid: str, audit: Audit) -> None:
    t = conn.execute(sa.text("SELECT target, renege, game_number, game_json, version FROM tables "
                             "WHERE id = :id"), {"id": tid}).one()
    rows = conn.execute(sa.text("SELECT version, game_number, type, payload FROM actions "
                                "WHERE table_id = :id ORDER BY version"), {"id": tid}).all()
    audit.tables += 1
    audit.actions += len(rows)
    versions = [r.version for r in rows]
    if versions != list(range(1, t.version + 1)):
        audit.problems.append(f"{tid}: log versions are not 1..{t.version}")
    games: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if r.type in RULES_TYPES:
            games[r.game_number].append(_json(r.payload))
    for number, actions in sorted(games.items()):
        audit.games += 1
        g = Game(Options(target=t.target, renege=t.renege))
        plays = 0
        for i, a in enumerate(actions):
            where = f"{tid} game {number} action {i}"
            if a["type"] == "close_count" and g.phase == "counting":
                _check_hand_end(g, plays, f"{where} hand {g.hand_number}", audit)
            try:
                g.apply(a)
            except Exception as err:  # the log must replay: a refused action was never stored
                audit.problems.append(f"{where}: replay refused {a.get('type')}: {err}")
                break
            if a["type"] == "deal":
                plays = 0
            elif a["type"] == "play":
                plays += 1
        if g.phase == "counting":
            _check_hand_end(g, plays, f"{tid} game {number} hand {g.hand_number}", audit)
        if number == t.game_number and t.game_json is not None:
            if g != Game.from_json(_json(t.game_json)):
                audit.problems.append(f"{tid} game {number}: replay differs from the snapshot")


def audit_database(url: str, acked: Iterable[tuple[str, str, str]] = ()) -> Audit:
    """Check every table of the database at ``url``; ``acked`` = (table, action_id, type) that
    clients saw answered 200."""
    audit = Audit()
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            ids = [r[0] for r in conn.execute(sa.text("SELECT id FROM tables ORDER BY id"))]
            for tid in ids:
                audit_table(conn, tid, audit)
            counts: Counter[tuple[str, str, str]] = Counter()
            for r in conn.execute(sa.text(
                    "SELECT table_id, action_id, type FROM actions WHERE action_id IS NOT NULL")):
                counts[(r.table_id, r.action_id, r.type)] += 1
            for key, n in counts.items():
                if n > 1:
                    audit.problems.append(f"{key}: applied {n} times")
            for key in acked:
                audit.acked_checked += 1
                if counts.get(key, 0) != 1:
                    audit.problems.append(f"acknowledged {key} found {counts.get(key, 0)} times")
    finally:
        engine.dispose()
    return audit


def _hidden(g: Game) -> list[set[str]]:
    """Per viewer (seats 0-3, then a spectator): the cards it may not see in this position."""
    data = g.to_json()
    hands = [set(h) for h in data["hands"]]
    out = []
    for seat in range(4):
        others = set().union(*(hands[s] for s in range(4) if s != seat))
        out.append(others - set(data["pass_sel"][seat]))
    out.append(set().union(*hands))
    return out


def privacy_audit(url: str, seen: Iterable[tuple[str, int | None, int, str]]) -> Audit:
    """Every response a page got (table, seat or None, the state's version, the cards it named
    outside the history): none may name a card of another seat's hand at that version.
    ``acked_checked`` counts the responses checked; ``problems`` lists the leaks."""
    audit = Audit()
    by_table: dict[str, list[tuple[int | None, int, str]]] = defaultdict(list)
    for tid, seat, version, cards in seen:
        by_table[tid].append((seat, version, cards))
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            for tid, records in by_table.items():
                t = conn.execute(sa.text("SELECT target, renege FROM tables WHERE id = :id"),
                                 {"id": tid}).one()
                wanted = {v for _, v, _ in records}
                hidden: dict[int, list[set[str]]] = {}
                g: Game | None = None
                number = None
                for r in conn.execute(sa.text(
                        "SELECT version, game_number, type, payload FROM actions "
                        "WHERE table_id = :id ORDER BY version"), {"id": tid}):
                    if r.type in RULES_TYPES:
                        if r.game_number != number or g is None:
                            g, number = Game(Options(target=t.target, renege=t.renege)), \
                                r.game_number
                        g.apply(_json(r.payload))
                    if r.version in wanted and g is not None:
                        hidden[r.version] = _hidden(g)
                audit.tables += 1
                for seat, version, cards in records:
                    h = hidden.get(version)
                    if h is None:
                        continue
                    audit.acked_checked += 1
                    leaked = set(cards.split()) & h[4 if seat is None else seat]
                    if leaked:
                        audit.problems.append(f"{tid} v{version}: viewer {seat} was shown "
                                              f"{sorted(leaked)}")
    finally:
        engine.dispose()
    return audit
