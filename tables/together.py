"""An action's writes in one statement (PostgreSQL): the log rows, the table row, the seats, the
seat clocks and the fair deal's seed rows sent together as data-modifying ``WITH`` parts of the
table row's ``UPDATE``.

Each statement of an action's transaction is a round trip made while the table's lock and a
request place are held, and on a gevent worker each round trip also waits its turn of the event
loop behind every page ready to run (docs/RELIABILITY.md). The ORM's flush sends the log rows and
the table row one statement each, and the seat clocks follow in a third; together they are one.

Only the shapes game actions have go this way: new log rows (``Action``), changed columns of the
table and seat rows already in the session, and the fair deal's seed rows (``DealSeeds``: new,
or changed columns of loaded ones; a closed count deals the next hand). Anything else pending
(a new device, a rating, a record, a deletion) and the caller flushes as before. PostgreSQL runs
every part of the statement against the same snapshot; none of them touches a row another part
writes.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, insert, inspect, update
from sqlalchemy.orm.attributes import get_history, set_committed_value

from .db import db
from .models import Action, ClockSeat, DealSeeds, Seat, Table
from .snapshot import CLOCK_FIELDS


def _changed(obj: Any) -> dict[str, Any]:
    """The column attributes of a loaded row changed in this session: name -> new value.

    Only attributes set since the load hold a committed value, so only those are asked for their
    history. Not through ``inspect(obj).attrs``: that view is kept on the row's state and refers
    back to it, a cycle that leaves every row it touched (and the table's state it holds) to the
    garbage collector instead of freeing it when the request drops it."""
    state = inspect(obj)
    set_since_load = state.committed_state
    return {attr.key: getattr(obj, attr.key) for attr in state.mapper.column_attrs
            if attr.key in set_since_load and get_history(obj, attr.key).has_changes()}


def _only_rows(session: Any) -> bool:
    """Whether the session's pending changes are new log or seed rows and changed table, seat or
    seed rows."""
    if session.deleted:
        return False
    if any(not isinstance(obj, (Action, DealSeeds)) for obj in session.new):
        return False
    return all(isinstance(obj, (Table, Seat, DealSeeds)) for obj in session.dirty)


#: The log row's columns written (all but its serial id).
_LOG_COLUMNS = [c.key for c in Action.__table__.columns if c.key != "id"]
#: A new seed row's columns written (all but its serial id).
_SEED_COLUMNS = [c.key for c in DealSeeds.__table__.columns if c.key != "id"]
#: Statement shape -> the statement, built once: building one (coercing every value, its
#: cache key, compiling it anew) cost more CPU than the round trips it saves (measured).
_statements: dict[tuple[Any, ...], Any] = {}


def _row_updates(table: Any, prefix: str, changed: tuple[tuple[str, ...], ...]) -> list[Any]:
    """One ``UPDATE`` part a changed row, by its id: ``<prefix><i>_id`` and ``<prefix><i>_<column>``
    are the parameters of the ``i``-th row's (``_changed_rows``)."""
    return [update(table).where(table.c.id == bindparam(f"{prefix}{i}_id"))
            .values({c: bindparam(f"{prefix}{i}_{c}") for c in columns})
            .cte(f"{prefix}{i}")
            for i, columns in enumerate(changed)]


def _changed_rows(rows: Any, prefix: str,
                  params: dict[str, Any]) -> list[tuple[Any, dict[str, Any]]]:
    """The rows among ``rows`` with changed columns, in order, with those columns' new values;
    their ids and values go into ``params`` as ``_row_updates`` names them."""
    out: list[tuple[Any, dict[str, Any]]] = []
    for obj in rows:
        values = _changed(obj)
        if values:
            i = len(out)
            out.append((obj, values))
            params[f"{prefix}{i}_id"] = obj.id
            params.update({f"{prefix}{i}_{k}": v for k, v in values.items()})
    return out


def _statement(shape: tuple[Any, ...]) -> Any:
    """The one statement of ``shape`` (see ``write``), with named parameters."""
    got = _statements.get(shape)
    if got is not None:
        return got
    logs, table_columns, seat_columns, clock_seats, clock_new, seeds_new, seeds_changed = shape
    a, cs, s, t = Action.__table__, ClockSeat.__table__, Seat.__table__, Table.__table__
    d = DealSeeds.__table__
    tid: Any = bindparam("tid")
    parts: list[Any] = []
    # One row a part: SQLAlchemy caches no statement with a multi-row VALUES (it compiled each).
    for i in range(logs):
        parts.append(insert(a).values({c: bindparam(f"l{i}_{c}") for c in _LOG_COLUMNS})
                     .cte(f"logged{i}"))
    for i in range(seeds_new):
        parts.append(insert(d).values({c: bindparam(f"d{i}_{c}") for c in _SEED_COLUMNS})
                     .cte(f"seeds_new{i}"))
    parts += _row_updates(d, "seeds", seeds_changed)
    parts += _row_updates(s, "seat", seat_columns)
    for seat in clock_seats:
        parts.append(update(cs).where(cs.c.table_id == tid, cs.c.seat == bindparam(f"c{seat}_seat"))
                     .values({c: bindparam(f"c{seat}_{c}") for c in CLOCK_FIELDS if c != "seat"})
                     .cte(f"clock{seat}"))
    for i in range(clock_new):
        parts.append(insert(cs).values({"table_id": tid, **{c: bindparam(f"n{i}_{c}")
                                                            for c in CLOCK_FIELDS}})
                     .cte(f"clock_new{i}"))
    stmt = update(t).where(t.c.id == tid).values({c: bindparam(f"t_{c}") for c in table_columns})
    if parts:
        stmt = stmt.add_cte(*parts)
    if len(_statements) > 2000:
        _statements.clear()
    _statements[shape] = stmt
    return stmt


def write(table: Table, clock_rows: dict[str, list[dict[str, Any]]]) -> bool:
    """Send the session's pending rows and ``clock_rows`` (``{"insert": [...], "update": [...]}``
    of the seat clocks' statement parameters, ``p_<column>``) in one statement. False, having
    sent nothing, when the session holds anything else: the caller flushes as usual."""
    session = db.session
    if session.get_bind().dialect.name != "postgresql" or not _only_rows(session):
        return False
    table_values = _changed(table)
    if not table_values:
        return False
    params: dict[str, Any] = {"tid": table.id}
    params.update({f"t_{k}": v for k, v in table_values.items()})
    logged = sorted((o for o in session.new if isinstance(o, Action)),
                    key=lambda r: int(r.version))
    for i, row in enumerate(logged):
        params.update({f"l{i}_{c}": getattr(row, c) for c in _LOG_COLUMNS})
    seeds_new = sorted((o for o in session.new if isinstance(o, DealSeeds)),
                       key=lambda r: (int(r.game), int(r.hand)))
    for i, seeds in enumerate(seeds_new):
        params.update({f"d{i}_{c}": getattr(seeds, c) for c in _SEED_COLUMNS})
    seeds_changed = _changed_rows(
        sorted((o for o in session.dirty if isinstance(o, DealSeeds)),
               key=lambda o: (int(o.game), int(o.hand))), "seeds", params)
    seats_changed = _changed_rows(
        sorted((o for o in session.dirty if isinstance(o, Seat)), key=lambda o: int(o.seat)),
        "seat", params)
    updated = sorted(clock_rows.get("update", []), key=lambda p: int(p["p_seat"]))
    for row_params in updated:
        seat = row_params["p_seat"]
        params.update({f"c{seat}_{c}": row_params["p_" + c] for c in CLOCK_FIELDS})
    added = clock_rows.get("insert", [])
    for i, row_params in enumerate(added):
        params.update({f"n{i}_{c}": row_params["p_" + c] for c in CLOCK_FIELDS})
    shape = (len(logged), tuple(table_values), tuple(tuple(v) for _, v in seats_changed),
             tuple(p["p_seat"] for p in updated), len(added), len(seeds_new),
             tuple(tuple(v) for _, v in seeds_changed))
    with session.no_autoflush:  # the pending rows go in this statement, not before it
        session.execute(_statement(shape), params)
    # The rows are written: the session forgets the new ones (log and seed rows) and takes the
    # values of the others as the database's, so the flush at commit sends nothing more.
    new_rows: list[Any] = [*logged, *seeds_new]
    for row in new_rows:
        session.expunge(row)
    written: list[tuple[Any, dict[str, Any]]] = [(table, table_values), *seats_changed,
                                                 *seeds_changed]
    for obj, values in written:
        for key, value in values.items():
            set_committed_value(obj, key, value)
    _mark_clean(session)
    return True


def _mark_clean(session: Any) -> None:
    """Mark the rows the session holds as changed that have nothing left to write (those this
    statement wrote, and those whose attributes were set to the values they had) as matching
    the database, as a flush does after it writes them. Otherwise they stay in
    ``session.dirty``, and the action's flush and the commit's each walk the unit of work to
    find nothing to send: about 6% of a card's CPU (``make bench-action``, PostgreSQL: 2.91 ->
    2.73 ms at p50). A row with a change the statement did not carry stays as it is, for the
    flush. SQLAlchemy has no public call for it; ``_commit_all`` is the one its flush makes."""
    for obj in list(session.dirty):
        if not _changed(obj):
            state = inspect(obj)
            state._commit_all(state.dict, session.identity_map)
