"""Every change of a table goes through :func:`perform`, people and robots alike, and every
action's handler is here.

One call = one transaction holding the table's lock: check the action id and the stale version,
apply through ``rules``, append the log rows, bring the turn clock along, bump the version, commit.
Only after the commit are the hooks run (tables/hooks.py: pages, robots, clock, pushes), and the
caller's answer is built from the new snapshot, outside the lock.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, func, null, select
from sqlalchemy.orm import aliased

from rules import DEALING, GAME_OVER, Game, Options, RulesError

from . import clock, errors, fair_deal, live, players, ratings, records, snapshot
from .db import db, is_sqlite, write_transaction
from .errors import ServiceError
from .hooks import Commit, committed
from .kinds import (
    ACTION_TYPES,
    DECKS,
    DEVICE_MAKING_TYPES,
    LEVELS,
    NO_STALE_CHECK,
    PAGE_TYPES,
    PROOF_ID_LEN,
    TABLE_NAME_MAX,
    TAUNT_TEXT,
    VERSION_MAX,
    SeatKind,
    TableStatus,
)
from .models import Action, PushSubscription, Seat, Table, Viewer, utcnow
from .names import clean_chat, clean_name, refuse_robot_like, refuse_taken_name
from .seating import (
    Ctx,
    active_humans,
    due_robot_seats,
    free_robot_name,
    humans_to_act,
    is_person,
    is_robotic,
    load_game,
    load_seats,
    locked_table,
    locking,
    seat_of_device,
)
from .state import read_state, state_and_log
from .tokens import is_action_id, new_table_id, request_digest, seat_token_matches

# -------------------------------------------------------------------- creating a table


def created_by(body: Mapping[str, Any], device_id: int | None) -> str | None:
    """The table an earlier creation with this body's ``action_id`` made, if any.

    An action id belongs to the device that first sent it, with that body: the same browser
    repeating the same request gets its table again; anyone else is refused (409)."""
    action_id = body.get("action_id")
    if not is_action_id(action_id) or len(action_id) < PROOF_ID_LEN:
        return None
    table_id = new_table_id(action_id)
    first = db.session.execute(
        select(Action.device_id, Action.request_digest)
        .where(Action.table_id == table_id, Action.type == "create")
    ).one_or_none()
    if first is None:
        return None
    if device_id is None or first.device_id != device_id \
            or first.request_digest != request_digest(body):
        raise errors.ACTION_ID_REUSED.error()
    return table_id


def create_table(device: Callable[[], int], body: Mapping[str, Any]) -> str:
    """Open a table whose host is ``device()`` (called inside the creation's transaction, so a
    refused creation keeps nothing for the device either)."""
    host = clean_name(body.get("host_name"))
    refuse_robot_like(host)
    target = body.get("target", 100)
    if isinstance(target, bool) or target not in (100, 50):
        raise errors.BAD_TARGET.error()
    renege = body.get("renege", "impedido")
    if renege not in ("impedido", "permitido"):
        raise errors.BAD_RENEGE.error()
    deck = body.get("deck", DECKS[0])
    if deck not in DECKS:
        raise errors.BAD_DECK.error()
    level = body.get("robot_level", "normal")
    if level not in LEVELS:
        raise errors.BAD_LEVEL.error()
    pace = clock.validate_pace(body)
    rated = body.get("rated", True)  # «con clasificación» unless the host chose «amistosa»
    if not isinstance(rated, bool):
        raise errors.BAD_RATED.error()
    name = body.get("name")
    table_name = clean_name(name, TABLE_NAME_MAX) if name not in (None, "") else f"Mesa de {host}"
    if len(table_name) > TABLE_NAME_MAX:
        table_name = table_name[:TABLE_NAME_MAX]
    action_id = body.get("action_id")
    action_id = action_id if is_action_id(action_id) else None
    with write_transaction():
        device_id = device()
        table = Table(
            id=new_table_id(action_id), name=table_name, target=int(target),
            renege=renege, deck=deck,
            robot_level=level, hand_level=level, status=TableStatus.LOBBY, game_number=0,
            version=0,
            state_version=0, game_json=None, robot_due=False, host_device_id=device_id,
            rated=rated, created_at=utcnow(), updated_at=utcnow(),
        )
        db.session.add(table)
        db.session.flush()
        seats = [Seat(table_id=table.id, seat=i, kind=SeatKind.EMPTY, name="", robot_name="",
                      left=False,
                      wants_rematch=False, link_gen=0) for i in range(4)]
        seats[0].kind, seats[0].name, seats[0].device_id = SeatKind.HUMAN, host, device_id
        db.session.add_all(seats)
        clock.create_rows(table.id, pace)
        db.session.flush()
        ctx = Ctx(table, seats, None, device_id, action_id, None,
                  request_digest=request_digest(body))
        ctx.log("create", None, {"type": "create", "name": table_name})
        ctx.action_id = None  # the id names the creation; its seat row needs no second copy
        ctx.log("sit", 0, {"type": "sit", "seat": 0, "name": host})
        players.took_seat(table.id, 0, device_id, host)
        fair_deal.publish(ctx, 1, 1)  # the first hand's seeds are sent from the lobby
        table_id, version = table.id, table.version
    after_commit(table_id, version, [], False)
    return table_id


# -------------------------------------------------------------------- the action path


@dataclass
class Outcome:
    table_id: str
    version: int
    answer: dict[str, Any] | None  # {"state", "log"} for the caller (None for robots)


def perform(
    table_id: str, device_id: int | None, body: Any, robot_seat: int | None = None,
    present: set[str] | None = None, new_device: Callable[[], int] | None = None,
    page: str | None = None,
) -> Outcome:
    """Apply one action dict (``type``, ``action_id``, ``version`` and the type's fields).

    ``new_device()`` gives a caller without a device one, inside the action's transaction, for
    the actions that keep something for it (a refused action keeps no device row). ``page``:
    the id the calling page gave itself; the answer carries the change to that page, so its
    stream does not send it again (``live.made_by``)."""
    if not isinstance(body, Mapping):
        raise errors.BAD_JSON.error()
    kind = body.get("type")
    if kind not in ACTION_TYPES:
        raise errors.BAD_ACTION.error()
    action_id = body.get("action_id")
    if action_id is not None and not is_action_id(action_id):
        raise errors.BAD_ACTION_ID.error()
    version = body.get("version")
    if version is not None and (isinstance(version, bool) or not isinstance(version, int)
                                or not 0 <= version <= VERSION_MAX):
        raise errors.BAD_VERSION.error()

    # Wait for the table's turn holding no connection: the action whose turn it is needs one,
    # and with every connection of the pool held by actions queued here it would never get it.
    db.session.rollback()
    with snapshot.in_commit_order(table_id):
        with write_transaction():
            locked = _lock_table_and_seats(table_id, action_id)
            if locked is None:
                raise errors.NOT_FOUND.error()
            done = _perform_locked(locked, kind, device_id, action_id, version, robot_seat, body,
                                   new_device)
        if done.snap is not None:
            snapshot.store(table_id, done.snap)
    device_id = done.device_id
    if done.retry_base is not None:  # an action id applied before: the same answer, read now
        if robot_seat is None:
            done.outcome.answer = read_state(table_id, device_id, since=done.retry_base,
                                             present=present, at_least=done.outcome.version)
        return done.outcome
    if done.changed:
        origin = live.page_origin(device_id, page) if robot_seat is None else None
        after_commit(table_id, done.outcome.version, done.humans, done.robot_due, done.change,
                     done.subscribed, origin, done.before)
    if robot_seat is None:  # the caller's answer is built after the commit, outside the lock
        base = version if version is not None and version <= done.before else done.before
        snap = done.snap or snapshot.current(table_id, done.outcome.version)
        if snap is None:
            raise errors.NOT_FOUND.error()
        done.outcome.answer = state_and_log(snap, device_id, base, present)
    return done.outcome


@dataclass
class _Done:
    outcome: Outcome
    before: int = 0
    retry_base: int | None = None  # set: the action id was applied before (a retry)
    device_id: int | None = None  # the caller's device (made by this action, if it had none)
    snap: snapshot.Snapshot | None = None
    change: snapshot.Change | None = None
    changed: bool = False
    humans: list[int] = field(default_factory=list)
    robot_due: bool = False
    subscribed: bool | None = None  # the table has push subscriptions (None: not looked)


def _perform_locked(
    locked: _Locked, kind: str, device_id: int | None, action_id: str | None,
    version: int | None, robot_seat: int | None, body: Mapping[str, Any],
    new_device: Callable[[], int] | None,
) -> _Done:
    """The part of :func:`perform` that holds the table's lock: check, apply, log, flush."""
    table, seats, first_version = locked.table, locked.seats, locked.first_version
    subscribed, table_id = locked.subscribed, locked.table.id
    digest = request_digest(body) if action_id is not None else None
    if first_version is not None:
        # An action id belongs to the device that first sent it, with that very body: only that
        # device repeating that request gets the same answer; nothing else changes.
        first = db.session.execute(
            select(Action.device_id, Action.base_version, Action.request_digest)
            .where(Action.table_id == table_id, Action.version == first_version)
        ).one()
        if first.device_id != device_id or robot_seat is not None \
                or first.request_digest not in (None, digest):
            raise errors.ACTION_ID_REUSED.error()
        base = first.base_version if first.base_version is not None else first_version - 1
        return _Done(Outcome(table_id, table.version, None), retry_base=base,
                     device_id=device_id)
    if device_id is None and new_device is not None and kind in DEVICE_MAKING_TYPES:
        device_id = new_device()
    before = table.version
    if version is not None and kind not in NO_STALE_CHECK and version < table.state_version:
        raise errors.STALE.error()
    ctx = Ctx(table, seats, load_game(table), device_id, action_id, version, robot_seat,
              request_digest=digest)
    clock.begin_action()
    mine = ctx.me if robot_seat is None else None
    if mine is not None and mine.standin and kind not in PAGE_TYPES:
        clock.take_back_locked(ctx, mine)  # the person is back
    HANDLERS[kind](ctx, body)
    if ctx.game_changed and ctx.game is not None:
        table.game_json = ctx.game.to_json()
    table.robot_due = bool(due_robot_seats(table, seats, ctx.game))
    done = _Done(Outcome(table_id, table.version, None), before=before, device_id=device_id)
    if ctx.rows:
        table.updated_at = utcnow()  # before the clock's queries flush the row: one UPDATE
        # only the snapshot of the version this action found says what it held
        prior = snapshot.held(table_id, before)
        known = (prior.pace, prior.clock) if prior is not None else None
        clock_state = clock.sync_locked(table, seats, ctx.game, known, together=True)
        db.session.flush()
        # The fair deal's public half and the viewers' decks, when this action changed them: the
        # change then carries them (other processes make their snapshot from it, not a load).
        # The half is made from the one before and the seed rows the action holds when it can.
        fair = None
        if snapshot.fair_changed(ctx.rows):
            fair = fair_deal.public_info_after(ctx, prior.fair) if prior is not None else None
            if fair is None:
                fair = fair_deal.public_info(db.session.connection(), table_id,
                                             int(table.game_number))
        decks = snapshot.read_decks(db.session.connection(), table_id) \
            if snapshot.decks_changed(ctx.rows) else None
        # Kept once the commit succeeds; read before it (the commit expires the objects).
        done.change = snapshot.change_of(table, seats, ctx.game, clock_state, ctx.rows, before,
                                         fair, decks)
        done.snap = snapshot.extend(prior, done.change)
        done.changed = True
    else:
        db.session.flush()
    done.outcome.version = table.version
    done.robot_due = table.robot_due
    done.humans = humans_to_act(table, seats, ctx.game)
    if done.changed:  # for the push hook, which otherwise reads it after the commit
        # A sit may have given the table its first subscription (the device's own): unless one
        # was there before, the hook looks after the commit (None: not known).
        done.subscribed = None if kind == "sit" and not subscribed else subscribed
    return done


@dataclass
class _Locked:
    """What an action reads with its table's lock."""

    table: Table
    seats: list[Seat]
    first_version: int | None  # the first version logged with the action's id (None: a new id)
    subscribed: bool | None  # the table has push subscriptions (None: not read)


#: The table row as a statement's start saw it (another name: not the row the statement locks).
_EARLIER = Table.__table__.alias("earlier")
#: The four seat rows of a table, each under its own name, joined to the table row.
_SEATS = [aliased(Seat, name=f"seat{i}") for i in range(4)]


def _lock_table_and_seats(table_id: str, action_id: str | None) -> _Locked | None:
    """Lock the table's row and its seat rows and read them, with the action id's earlier use
    and the table's push subscriptions, in one statement (None: no such table).

    PostgreSQL (READ COMMITTED) reads a statement's rows as of the moment it starts. A ``FOR
    UPDATE`` that waited for another transaction's lock, or met a row changed since that moment,
    re-reads the rows it locks (here the table and its seats, all current then) but nothing else:
    the facts read from other tables (log, subscriptions) would miss what that transaction wrote.
    The table's version read beside them, without the lock, tells: when it is behind the locked
    row's, the facts are read again in a second statement, now that the lock is held."""
    row = db.session.execute(_lock_statement(action_id is not None, is_sqlite()),
                             {"tid": table_id, "aid": action_id}).one_or_none()
    if row is not None:
        table, *seats, first_version, subscribed, version_at_start = row
        if version_at_start == table.version:
            return _Locked(table, seats, first_version, bool(subscribed))
    else:  # no such table, or one without its four seat rows
        alone = db.session.execute(
            locking(select(Table).where(Table.id == table_id))).scalar_one_or_none()
        if alone is None:
            return None
        table = alone
    # The lock is held now: read the facts (and the seats) again, as after any other lock.
    return _Locked(table, *_seats_and_facts(table_id, action_id))


def _build_lock_statement(with_action: bool, sqlite: bool) -> Any:
    """``_lock_table_and_seats``'s statement, with the parameters ``tid`` and ``aid``."""
    tid: Any = bindparam("tid")
    first, pushed = _facts(tid, bindparam("aid") if with_action else None)
    seen = select(_EARLIER.c.version).where(_EARLIER.c.id == tid).scalar_subquery()
    stmt = select(Table, *_SEATS, first, pushed, seen)
    for i, seat in enumerate(_SEATS):  # one row: the table's columns once, not once a seat
        stmt = stmt.join(seat, (seat.table_id == Table.id) & (seat.seat == i))
    return locking(stmt.where(Table.id == tid), sqlite)


def _lock_statement(with_action: bool, sqlite: bool) -> Any:
    return _LOCK_STATEMENTS[(with_action, sqlite)]


def _facts(table_id: Any, action_id: Any) -> tuple[Any, Any]:
    """The first version logged with ``action_id`` at this table and whether the table has push
    subscriptions, as columns of a statement about the table."""
    first = select(func.min(Action.version)).where(
        Action.table_id == table_id, Action.action_id == action_id).scalar_subquery() \
        if action_id is not None else null()
    pushed = select(PushSubscription.id).where(PushSubscription.table_id == table_id).exists()
    return first, pushed


#: (with an action id, SQLite) -> the locking statement. Built once: building it for each action
#: (its clauses, then its cache key) cost about 1.5 of the 6 ms of CPU a card took
#: (docs/RELIABILITY_RUNS.md, run V). Built here, while the module loads in one thread: SQLAlchemy
#: fills in an alias's columns on first use, and threads doing that at once (a robot process's)
#: can leave a seat alias's column bound to the plain seats table for good, after which every
#: build or compile of the statement fails (tests/tables/test_lock_statement_threads.py).
_LOCK_STATEMENTS: dict[tuple[bool, bool], Any] = {
    (with_action, sqlite): _build_lock_statement(with_action, sqlite)
    for with_action in (False, True) for sqlite in (False, True)}


def _seats_and_facts(table_id: str, action_id: str | None
                     ) -> tuple[list[Seat], int | None, bool | None]:
    """In one statement after the table's lock (``_lock_table_and_seats``, when its own facts
    may be out of date): the seats, the first version logged with ``action_id`` at this table
    (None: a new action id) and whether the table has push subscriptions (None: not read)."""
    first, pushed = _facts(table_id, action_id)
    rows = db.session.execute(
        select(Seat, first, pushed).where(Seat.table_id == table_id).order_by(Seat.seat)
    ).all()
    if not rows:  # no seat rows to carry the facts: the action id alone (the push hook looks)
        return [], db.session.execute(select(first)).scalar(), None
    return [r[0] for r in rows], rows[0][1], bool(rows[0][2])


def after_commit(
    table_id: str, version: int, humans: list[int], robot_due: bool,
    change: snapshot.Change | None = None, subscribed: bool | None = None,
    origin: str | None = None, before: int | None = None,
) -> None:
    """Tell the hooks (pages, robots, clock, pushes) about a committed change; ``change`` goes
    with the notice to the other processes (when they share one through Redis), which make the
    new snapshot from it instead of loading it. ``origin``: the page whose action made it from
    version ``before`` (``live.page_origin``)."""
    wire = snapshot.to_wire(change, origin) if change is not None and live.shared() else None
    committed(Commit(table_id, version, humans, robot_due, wire, subscribed, origin, before))


# -------------------------------------------------------------------- handlers


def _need_host(ctx: Ctx) -> None:
    if ctx.robot_seat is not None or ctx.device_id is None \
            or ctx.device_id != ctx.table.host_device_id:
        raise errors.NOT_HOST.error()


def _need_lobby(ctx: Ctx) -> None:
    if ctx.table.status != TableStatus.LOBBY:
        raise errors.GAME_STARTED.error()


def _need_seated(ctx: Ctx, human_only: bool = True) -> Seat:
    me = ctx.me
    if me is None or (human_only and ctx.robot_seat is not None):
        raise errors.NOT_SEATED.error()
    return me


def _seat_arg(body: Mapping[str, Any], key: str = "seat") -> int:
    value = body.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise errors.BAD_SEAT.error()
    return value


def _deal(ctx: Ctx) -> None:
    """Deal the next hand from its seeds (docs/FAIR_DEAL.md), and publish the server's
    commitment for the hand after it in the same transaction: the pages send their seeds for it
    while this hand is played, so no deal ever waits for them."""
    assert ctx.game is not None
    game, hand = ctx.table.game_number, ctx.game.hand_number + 1
    deck = fair_deal.deal_deck(ctx, game, hand)
    events = ctx.game.apply({"type": "deal", "deck": deck})
    ctx.table.hand_level = ctx.table.robot_level
    ctx.game_changed = True
    # The level the robots play this hand with: the game's record reads it from here.
    ctx.log("deal", None, {"type": "deal", "deck": deck, "level": ctx.table.hand_level}, events)
    fair_deal.dealt_at(ctx, game, hand)
    fair_deal.publish(ctx, game, hand + 1)


def _new_game(ctx: Ctx) -> None:
    t = ctx.table
    t.game_number += 1
    t.status = TableStatus.PLAYING
    ctx.game = Game(Options(target=t.target, renege=t.renege))
    ctx.game_changed = True
    ctx.log("new_game", None, {"type": "new_game", "game_number": t.game_number})
    _deal(ctx)


def h_sit(ctx: Ctx, body: Mapping[str, Any]) -> None:
    if ctx.robot_seat is not None or ctx.device_id is None:
        raise errors.NO_DEVICE.error()
    if ctx.me is not None:
        return  # already seated here: a person returns to their seat
    if ctx.table.public:  # a live table's seats are the matcher's (tables/matchmaking.py)
        raise errors.PUBLIC_TABLE_SIT.error()
    name = clean_name(body.get("name"))
    if ctx.table.status != TableStatus.LOBBY:
        vacant = next((s for s in ctx.seats if s.kind == SeatKind.ROBOT and s.vacant), None)
        if vacant is not None:
            refuse_taken_name(name, ctx.seats, vacant)
        if sit_vacant(ctx, name):  # a seat left in an earlier game
            _claim_host_if_none(ctx)
            return
    _need_lobby(ctx)
    free = next((s for s in ctx.seats if s.kind == SeatKind.EMPTY), None)
    if free is None:
        raise errors.TABLE_FULL.error()
    refuse_taken_name(name, ctx.seats)
    free.kind, free.name, free.device_id, free.left = SeatKind.HUMAN, name, ctx.device_id, False
    free.robot_name, free.wants_rematch = "", False
    ctx.log("sit", free.seat, {"type": "sit", "seat": free.seat, "name": name})
    players.took_seat(ctx.table.id, free.seat, ctx.device_id, name)
    _claim_host_if_none(ctx)


def _claim_host_if_none(ctx: Ctx) -> None:
    """A table whose host powers went with the last person seated gives them to who sits next."""
    if ctx.table.host_device_id is None:
        ctx.table.host_device_id = ctx.device_id


def _pass_host(ctx: Ctx, leaving: Seat) -> int | None:
    """Host powers follow a seated person: when the host leaves, the next human still seated,
    clockwise, holds them (nobody, until someone sits, if no human is left). Returns the seat."""
    t = ctx.table
    if leaving.device_id is None or t.host_device_id != leaving.device_id:
        return None
    for step in (1, 2, 3):
        s = ctx.seats[(leaving.seat + step) % 4]
        if is_person(s) and s.device_id is not None:
            t.host_device_id = s.device_id
            return s.seat
    t.host_device_id = None
    return None


def h_add_robot(ctx: Ctx, body: Mapping[str, Any]) -> None:
    _need_host(ctx)
    seat = _seat_arg(body)
    _need_lobby(ctx)
    s = ctx.seats[seat]
    if s.kind != SeatKind.EMPTY:
        raise errors.SEAT_TAKEN.error()
    s.kind, s.name, s.robot_name, s.device_id = SeatKind.ROBOT, "", free_robot_name(ctx.seats), None
    ctx.log("add_robot", seat, {"type": "add_robot", "seat": seat, "name": s.robot_name})


def h_remove_robot(ctx: Ctx, body: Mapping[str, Any]) -> None:
    _need_host(ctx)
    seat = _seat_arg(body)
    _need_lobby(ctx)
    s = ctx.seats[seat]
    if s.kind != SeatKind.ROBOT:
        raise errors.NOT_ROBOT.error()
    s.kind, s.robot_name = SeatKind.EMPTY, ""
    ctx.log("remove_robot", seat, {"type": "remove_robot", "seat": seat})


def h_start(ctx: Ctx, body: Mapping[str, Any]) -> None:
    _need_host(ctx)
    _need_lobby(ctx)
    if any(s.kind == SeatKind.EMPTY for s in ctx.seats):
        raise errors.NOT_FULL.error()
    ctx.log("start", None, {"type": "start"})
    _new_game(ctx)


def start_locked(ctx: Ctx) -> None:
    """Start the first game of a table whose four seats are taken, with no host's tap (a table
    the live matcher formed; the caller holds the table's lock)."""
    ctx.log("start", None, {"type": "start"})
    _new_game(ctx)


def h_leave(ctx: Ctx, body: Mapping[str, Any]) -> None:
    me = _need_seated(ctx)
    t = ctx.table
    if t.status == TableStatus.LOBBY:
        if me.device_id == t.host_device_id:
            raise errors.HOST_CANNOT_LEAVE.error()
        me.kind, me.name, me.device_id, me.wants_rematch = SeatKind.EMPTY, "", None, False
        payload: dict[str, Any] = {"type": "leave", "seat": me.seat}
    else:
        new_host = _pass_host(ctx, me)
        me.left, me.wants_rematch = True, False
        me.robot_name = free_robot_name(ctx.seats)
        payload = {"type": "leave", "seat": me.seat}
        if new_host is not None:
            payload["host_seat"] = new_host
    ctx.log("leave", me.seat, payload)
    if t.status == TableStatus.FINISHED:
        _maybe_rematch(ctx)


def h_reissue_link(ctx: Ctx, body: Mapping[str, Any]) -> None:
    _need_host(ctx)
    seat = _seat_arg(body)
    s = ctx.seats[seat]
    if not is_person(s):
        raise errors.NOT_HUMAN.error()
    s.link_gen += 1
    ctx.log("reissue_link", seat, {"type": "reissue_link", "seat": seat})


def _game_action(ctx: Ctx, body: Mapping[str, Any], action: dict[str, Any]) -> None:
    t = ctx.table
    if ctx.robot_seat is not None:
        me = ctx.seats[ctx.robot_seat]
        if not (is_robotic(me) or me.standin):
            raise errors.NOT_ROBOT.error()
    else:
        me = _need_seated(ctx)
    if t.status != TableStatus.PLAYING or ctx.game is None:
        raise errors.WRONG_PHASE.error()
    action["seat"] = me.seat
    try:
        events = ctx.game.apply(action)
    except RulesError as err:
        raise ServiceError.from_rules(err) from None
    ctx.game_changed = True
    ctx.log(action["type"], me.seat, action, events)
    if action["type"] == "close_count":  # the count is closed: the hand's seeds may be shown
        fair_deal.reveal(ctx, t.game_number, ctx.game.hand_number)
    if ctx.game.phase == DEALING:
        _deal(ctx)
    elif ctx.game.phase == GAME_OVER:
        t.status = TableStatus.FINISHED
        for s in ctx.seats:
            s.wants_rematch = False
        fair_deal.drop_unused(ctx, t.game_number)
        fair_deal.publish(ctx, t.game_number + 1, 1)  # seeds for a rematch, sent meanwhile
        ratings.rate_game(ctx)  # in this transaction: it commits or fails with the last action
        records.keep_game(ctx)  # the whole game, kept with its last action (or not at all)


def _cards_arg(body: Mapping[str, Any], required: bool = True) -> list[str] | None:
    cards = body.get("cards")
    if cards is None and not required:
        return None
    if not isinstance(cards, list) or len(cards) != 3 or not all(isinstance(c, str) for c in cards):
        raise errors.BAD_PASS.error()
    return [c.strip().upper() for c in cards]


def h_choose_pass(ctx: Ctx, body: Mapping[str, Any]) -> None:
    _game_action(ctx, body, {"type": "choose_pass", "cards": _cards_arg(body)})


def h_confirm_pass(ctx: Ctx, body: Mapping[str, Any]) -> None:
    action: dict[str, Any] = {"type": "confirm_pass"}
    cards = _cards_arg(body, required=False)
    if cards is not None:
        action["cards"] = cards
    _game_action(ctx, body, action)


def h_play(ctx: Ctx, body: Mapping[str, Any]) -> None:
    card = body.get("card")
    if not isinstance(card, str) or len(card) > 3:
        raise errors.BAD_CARD.error()
    _game_action(ctx, body, {"type": "play", "card": card.strip().upper().replace("10", "T")})


def h_accuse(ctx: Ctx, body: Mapping[str, Any]) -> None:
    if ctx.robot_seat is not None:
        raise errors.ROBOTS_NEVER_ACCUSE.error()
    _game_action(ctx, body, {"type": "accuse", "accused": _seat_arg(body, "accused")})


def h_close_count(ctx: Ctx, body: Mapping[str, Any]) -> None:
    if ctx.robot_seat is not None and active_humans(ctx.seats):
        raise errors.HUMANS_CLOSE.error()
    _game_action(ctx, body, {"type": "close_count"})


def h_chat(ctx: Ctx, body: Mapping[str, Any]) -> None:
    me = _need_seated(ctx)
    text = clean_chat(body.get("text"))
    ctx.log("chat", me.seat, {"type": "chat", "seat": me.seat, "name": me.name, "text": text})


def h_taunt(ctx: Ctx, body: Mapping[str, Any]) -> None:
    me = _need_seated(ctx)
    taunt_id = body.get("taunt_id")
    if not isinstance(taunt_id, str) or taunt_id not in TAUNT_TEXT:
        raise errors.BAD_TAUNT.error()
    g = ctx.game
    if ctx.table.status != TableStatus.FINISHED or g is None or g.phase != GAME_OVER \
            or me.seat not in g.winners:
        raise errors.NOT_WINNER.error()
    ctx.log("taunt", me.seat, {"type": "taunt", "seat": me.seat, "name": me.name,
                               "taunt_id": taunt_id, "text": TAUNT_TEXT[taunt_id]})


def _maybe_rematch(ctx: Ctx) -> None:
    humans = [s for s in ctx.seats if is_person(s)]
    if not humans or not all(s.wants_rematch for s in humans):
        return
    vacate_left_seats(ctx.seats)  # free for whoever opens the link
    for s in ctx.seats:
        s.wants_rematch = False
    _new_game(ctx)


def h_rematch(ctx: Ctx, body: Mapping[str, Any]) -> None:
    me = _need_seated(ctx)
    if ctx.table.status != TableStatus.FINISHED:
        raise errors.NOT_FINISHED.error()
    if ctx.table.public:  # one game: a rematch would seat them at two live tables at once
        raise errors.PUBLIC_NO_REMATCH.error()
    if me.wants_rematch:
        return
    me.wants_rematch = True
    ctx.log("rematch", me.seat, {"type": "rematch", "seat": me.seat})
    _maybe_rematch(ctx)


def h_set_level(ctx: Ctx, body: Mapping[str, Any]) -> None:
    _need_host(ctx)
    level = body.get("robot_level")
    if level not in LEVELS:
        raise errors.BAD_LEVEL.error()
    t = ctx.table
    if level == t.robot_level:
        return
    t.robot_level = level
    if t.status == TableStatus.LOBBY:
        t.hand_level = level
    ctx.log("set_level", None, {"type": "set_level", "robot_level": level})


def h_standin(ctx: Ctx, body: Mapping[str, Any]) -> None:
    """«Que juegue un robot»: another seated person hands a seat whose time is up to the
    stand-in, which plays that person's decisions until they come back."""
    me = _need_seated(ctx)
    seat = _seat_arg(body)
    t = ctx.table
    if t.status != TableStatus.PLAYING or ctx.game is None:
        raise errors.WRONG_PHASE.error()
    if seat == me.seat:
        raise errors.SELF_STANDIN.error()
    s = ctx.seats[seat]
    if not is_person(s):
        raise errors.NOT_HUMAN.error()
    if s.standin:
        raise errors.ALREADY_STANDIN.error(name=s.name)
    row = clock.seat_clock_locked(t, ctx.seats, ctx.game, seat)
    if row is None or row.turn_key is None:
        raise errors.NOT_WAITING.error(name=s.name)
    if row.expires_at is None or row.expires_at > clock.now():
        raise errors.TIME_LEFT.error(name=s.name)
    s.standin = True
    row.standin_version = t.version
    ctx.log("standin", seat, {"type": "standin", "seat": seat, "name": s.name, "by": me.seat})


def h_come_back(ctx: Ctx, body: Mapping[str, Any]) -> None:
    """The person is back: ``perform`` already gave the seat back before this handler,
    as it does for any action of a stood-in person; alone it says so, or that nothing changed."""
    if not any(r.type == "take_back" for r in ctx.rows):
        raise errors.NOT_STANDIN.error()


def h_deal_seed(ctx: Ctx, body: Mapping[str, Any]) -> None:
    """A page's seed for the next hand's deal: only a seated person, for their own seat."""
    me = _need_seated(ctx)
    fair_deal.accept_seed(ctx, me.seat, body)


def h_set_deck(ctx: Ctx, body: Mapping[str, Any]) -> None:
    if ctx.robot_seat is not None or ctx.device_id is None:
        raise errors.NO_DEVICE.error()
    deck = body.get("deck")
    if deck not in DECKS:
        raise errors.BAD_DECK.error()
    row = db.session.execute(
        select(Viewer).where(Viewer.table_id == ctx.table.id, Viewer.device_id == ctx.device_id)
    ).scalar_one_or_none()
    if row is not None and row.deck == deck:
        return  # nothing changes: no log entry, no page woken
    if row is None:
        db.session.add(Viewer(table_id=ctx.table.id, device_id=ctx.device_id, deck=deck))
    else:
        row.deck = deck
    me = ctx.me
    ctx.log("set_deck", me.seat if me is not None else None, {"type": "set_deck"})


HANDLERS: dict[str, Callable[[Ctx, Mapping[str, Any]], None]] = {
    "sit": h_sit, "add_robot": h_add_robot, "remove_robot": h_remove_robot, "start": h_start,
    "leave": h_leave, "reissue_link": h_reissue_link, "choose_pass": h_choose_pass,
    "confirm_pass": h_confirm_pass, "play": h_play, "accuse": h_accuse,
    "close_count": h_close_count, "chat": h_chat, "taunt": h_taunt, "rematch": h_rematch,
    "come_back": h_come_back,
    "set_level": h_set_level, "set_deck": h_set_deck, "standin": h_standin,
    "deal_seed": h_deal_seed,
}
assert set(HANDLERS) == set(ACTION_TYPES)


# -------------------------------------------------------------------- seat links


def move_seat(table_id: str, token: str, device: Callable[[], int]) -> int:
    """Give the seat whose private link is ``token`` to ``device()``; returns the seat. The device
    is asked for only once the link proves good (a bad link keeps nothing for it)."""
    with snapshot.in_commit_order(table_id):
        with locked_table(table_id) as table:
            if table is None:
                raise errors.NOT_FOUND.error()
            seats = load_seats(table_id)
            s = next((s for s in seats if is_person(s)
                      and seat_token_matches(table_id, s.seat, s.link_gen, token)), None)
            if s is None:
                raise errors.BAD_LINK.error()
            device_id = device()
            if s.device_id == device_id:
                return s.seat
            if seat_of_device(seats, device_id) is not None:
                raise errors.ALREADY_SEATED.error()
            if s.device_id is not None and table.host_device_id == s.device_id:
                table.host_device_id = device_id  # host powers go with the seat's person
            s.device_id = device_id
            s.link_gen += 1  # a link moves a seat once
            before = table.version
            ctx = Ctx(table, seats, None, device_id, None, None)
            ctx.log("move_seat", s.seat, {"type": "move_seat", "seat": s.seat})
            players.took_seat(table_id, s.seat, device_id, None)
            # The change sent with the notice carries the clocks whole (the seat keeps its own).
            game = load_game(table)
            clock_state = clock.sync_locked(table, seats, game)
            change = snapshot.change_of(table, seats, game, clock_state, ctx.rows, before)
            version, seat = table.version, s.seat
        snapshot.keep(table_id, change)
    after_commit(table_id, version, [], False, change)
    return seat


# -------------------------------------------------------------------- vacant seats (rematch)


def vacate_left_seats(seats: list[Seat]) -> None:
    """At the rematch: a seat whose person left becomes vacant; a robot keeps it warm."""
    for s in seats:
        if s.kind == SeatKind.HUMAN and s.left:
            s.kind, s.name, s.device_id, s.left, s.vacant = SeatKind.ROBOT, "", None, False, True
        s.standin = False


def sit_vacant(ctx: Ctx, name: str) -> bool:
    """A visitor sits in a vacant seat during a game; False if there is none."""
    free = next((s for s in ctx.seats if s.kind == SeatKind.ROBOT and s.vacant), None)
    if free is None:
        return False
    free.kind, free.name, free.device_id, free.left = SeatKind.HUMAN, name, ctx.device_id, False
    free.vacant, free.wants_rematch, free.standin = False, False, False
    ctx.log("sit", free.seat, {"type": "sit", "seat": free.seat, "name": name})
    players.took_seat(ctx.table.id, free.seat, ctx.device_id, name)
    return True


