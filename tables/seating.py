"""Who is where and who must act: the bottom room of the service.

``Ctx`` is what one action's transaction works on; ``duties`` is the one answer to "who owes the
table a decision now", which the robots, the turn clock, push notifications and the pages all read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import Select, select

from rules import COUNTING, PASSING, PLAYING, Game

from .db import db, is_sqlite, write_transaction
from .kinds import ROBOT_NAMES, STATELESS_LOG, DutyKind, SeatKind, TableStatus
from .models import Action, DealSeeds, Seat, Table, utcnow


@contextmanager
def locked_table(table_id: str) -> Iterator[Table | None]:
    """One write transaction holding the lock of table ``table_id``; yields the row (or None).

    Commits on a normal exit, rolls back on an exception. Any read transaction the session had
    open is ended first, so what we read inside is current. Read the other rows (seats, log) in
    statements after this one, or lock them in the same statement: on PostgreSQL (READ
    COMMITTED) a statement that waited for the lock re-reads only the rows it locks, and the rows
    joined to them would be those from before the wait (two visitors would both find the last
    seat free).
    """
    with write_transaction():
        yield db.session.execute(locking(select(Table).where(Table.id == table_id))
                                 ).scalar_one_or_none()


#: Any SELECT statement, whatever its columns.
AnySelect = TypeVar("AnySelect", bound="Select[*tuple[Any, ...]]")


def locking(stmt: AnySelect, sqlite: bool | None = None) -> AnySelect:
    """``stmt`` locking the rows it reads until the transaction ends (PostgreSQL's ``FOR UPDATE``;
    on SQLite the write transaction's ``BEGIN IMMEDIATE`` already keeps every other writer out),
    and refreshing the objects the session already holds with what it reads. ``sqlite`` names
    the database for a statement built outside a request (None: the app's)."""
    if not (is_sqlite() if sqlite is None else sqlite):
        stmt = stmt.with_for_update()
    return stmt.execution_options(populate_existing=True)


def load_seats(table_id: str) -> list[Seat]:
    rows = db.session.execute(
        select(Seat).where(Seat.table_id == table_id).order_by(Seat.seat)
    ).scalars()
    return list(rows)


def load_game(table: Table) -> Game | None:
    return Game.from_json(table.game_json) if table.game_json else None


def is_person(s: Any) -> bool:
    """A person holds the seat (they may be away, with a stand-in playing for them)."""
    return bool(s.kind == SeatKind.HUMAN and not s.left)


def is_robotic(s: Any) -> bool:
    """A robot plays the seat for the rest of the game (a robot's seat, or one its person left)."""
    return bool(s.kind == SeatKind.ROBOT or (s.kind == SeatKind.HUMAN and s.left))


def seat_of_device(seats: list[Seat], device_id: int | None) -> Seat | None:
    if device_id is None:
        return None
    return next((s for s in seats if is_person(s) and s.device_id == device_id), None)


def active_humans(seats: list[Any]) -> list[int]:
    """People who play their own seat now (no stand-in playing for them)."""
    return [s.seat for s in seats if is_person(s) and not s.standin]


def robot_label(name: str) -> str:
    return f"ROBOT {name}"


def free_robot_name(seats: list[Seat]) -> str:
    used = {s.robot_name for s in seats if s.robot_name and is_robotic(s)}
    return next((n for n in ROBOT_NAMES if n not in used), ROBOT_NAMES[0])


@dataclass(frozen=True)
class Duty:
    """A decision a person owes now. ``key`` names that very decision (equal for its whole
    life: game, hand, phase, trick and position), ``hand`` the hand it belongs to."""

    seat: int
    key: str
    what: DutyKind
    hand: str = field(default="", compare=False)


def duties(table: Any, seats: list[Any], game: Game | None) -> list[Duty]:
    """Every decision the people at the table owe now, stand-ins' seats included (a stand-in
    plays it, but it is still that person's): passing, playing, closing the count, and answering
    a rematch someone asked for."""
    people = [s.seat for s in seats if is_person(s)]
    g = table.game_number
    if table.status == TableStatus.FINISHED:
        if not any(seats[p].wants_rematch for p in people):
            return []
        return [Duty(p, f"g{g}:rematch", DutyKind.REMATCH) for p in people
                if not seats[p].wants_rematch]
    if table.status != TableStatus.PLAYING or game is None:
        return []
    hand = f"g{g}:h{game.hand_number}"
    if game.phase == PASSING:
        return [Duty(s, f"{hand}:pass", DutyKind.PASS, hand) for s in game.to_act()
                if s in people]
    if game.phase == PLAYING:
        at = f"{len(game.tricks)}:{len(game.trick)}"
        return [Duty(s, f"{hand}:play:{at}", DutyKind.PLAY, hand) for s in game.to_act()
                if s in people]
    if game.phase == COUNTING:
        return [Duty(p, f"{hand}:count", DutyKind.COUNT, hand) for p in people]
    return []


def timed_duties(table: Any, seats: list[Any], game: Game | None) -> dict[int, Duty]:
    """The decisions the turn clock times (passing and playing), by seat."""
    return {d.seat: d for d in duties(table, seats, game)
            if d.what in (DutyKind.PASS, DutyKind.PLAY)}


def humans_to_act(table: Any, seats: list[Any], game: Game | None) -> list[int]:
    """Seats of people who must act now themselves (no stand-in playing for them)."""
    own = set(active_humans(seats))
    return [d.seat for d in duties(table, seats, game)
            if d.seat in own and d.what != DutyKind.REMATCH]


def due_robot_seats(table: Any, seats: list[Any], game: Game | None) -> list[int]:
    """Seats a robot must act for now: robots' seats, and stand-ins for absent people. Robots
    never accuse, chat or taunt; they close the count only when no person is left to."""
    if table.status != TableStatus.PLAYING or game is None:
        return []
    robotic = [s.seat for s in seats if is_robotic(s)]
    if game.phase in (PASSING, PLAYING):
        standins = [s.seat for s in seats if s.standin and not is_robotic(s)]
        return [s for s in game.to_act() if s in robotic or s in standins]
    if game.phase == COUNTING and not active_humans(seats) and robotic:
        return [robotic[0]]
    return []


@dataclass
class Ctx:
    """What one action's transaction works on."""

    table: Table
    seats: list[Seat]
    game: Game | None
    device_id: int | None
    action_id: str | None
    base_version: int | None
    robot_seat: int | None = None
    #: SHA-256 of the request body: an action id answers again only the same request.
    request_digest: str | None = None
    game_changed: bool = False
    rows: list[Action] = field(default_factory=list)
    #: The fair deal's seed rows this action read or made, by (game, hand) (None: no such row).
    deal_seeds: dict[tuple[int, int], DealSeeds | None] = field(default_factory=dict)
    #: Seed rows were deleted without passing through ``deal_seeds`` (a game's unused ones).
    deal_seeds_deleted: bool = False

    @property
    def me(self) -> Seat | None:
        if self.robot_seat is not None:
            return self.seats[self.robot_seat]
        return seat_of_device(self.seats, self.device_id)

    def log(
        self, kind: str, seat: int | None, payload: Mapping[str, Any],
        events: list[Any] | None = None,
    ) -> None:
        """Append a log entry: the table's version moves on (its state version too, unless the
        entry changes nothing of the game)."""
        t = self.table
        t.version += 1
        if kind not in STATELESS_LOG:
            t.state_version = t.version
        row = Action(
            table_id=t.id, version=t.version, game_number=t.game_number, type=kind, seat=seat,
            action_id=self.action_id, device_id=self.device_id, base_version=self.base_version,
            request_digest=self.request_digest if self.action_id is not None else None,
            payload=dict(payload), events=list(events or []), at=utcnow(),
        )
        db.session.add(row)
        self.rows.append(row)

    def log_aside(self, kind: str, seat: int, payload: Mapping[str, Any]) -> int:
        """Append an entry that wakes the pages but is no change of the game (the stale check
        ignores it) and does not count as activity (idle tables still expire)."""
        state_version = self.table.state_version
        self.log(kind, seat, payload)
        self.table.state_version = state_version
        return int(self.table.version)
