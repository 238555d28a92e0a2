"""psycopg's cursor with a description made only when it is read.

psycopg builds ``cursor.description`` afresh at every access: a ``Column`` object per column of
the result, each reading its name, type and sizes from the result. SQLAlchemy reads the
description after every statement that returns rows, and for a compiled statement it has run
before (its result metadata is cached) it only asks whether there is one. The locking statement
of an action returns 64 columns (the table and its four seats in one row): building its
description took 52 µs of CPU (0.7 µs as built here). In `make bench-action` (PostgreSQL, five
pairs run alternately) a card's CPU p50 went from 3.68 to 3.30 ms (−0.37 ± 0.17): more than the
columns' own time, within two standard errors of it; what else it saves was not measured.

:class:`LazyDescriptionCursor` answers with a sequence that knows its length at once and builds
the columns, from the result it was made for, the first time one is asked for. Everything that
reads the description gets the same columns as psycopg's own, in the same order. It leans on
what psycopg's ``Column`` reads from its cursor (the result, the encoding, the adapters):
constraints.txt pins psycopg, and tests/tables/test_pgcursor.py compares the two descriptions.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload

from psycopg import Column, Cursor, pq
from psycopg.rows import TupleRow

#: The result statuses whose description psycopg gives even without fields (``SELECT ;``).
_TUPLES = (pq.ExecStatus.TUPLES_OK, pq.ExecStatus.SINGLE_TUPLE, pq.ExecStatus.TUPLES_CHUNK)


class _ResultView:
    """What ``psycopg.Column`` reads from its cursor, pinned to one result: a column built after
    the cursor ran another statement still describes the result it was asked about."""

    __slots__ = ("_encoding", "adapters", "pgresult")

    def __init__(self, cursor: Cursor[Any], pgresult: pq.abc.PGresult) -> None:
        self.pgresult = pgresult
        self._encoding = cursor._encoding
        self.adapters = cursor.adapters


class LazyDescription(Sequence[Column]):
    """A result's description: its length at once, its columns when one is first read."""

    __slots__ = ("_columns", "_n", "_view")

    def __init__(self, view: _ResultView, n: int) -> None:
        self._view, self._n = view, n
        self._columns: list[Column] | None = None

    def _all(self) -> list[Column]:
        if self._columns is None:
            view: Any = self._view  # Column reads pgresult, _encoding and adapters only
            self._columns = [Column(view, i) for i in range(self._n)]
        return self._columns

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> Column: ...
    @overload
    def __getitem__(self, index: slice) -> list[Column]: ...
    def __getitem__(self, index: int | slice) -> Column | list[Column]:
        return self._all()[index]

    def __iter__(self) -> Iterator[Column]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        return self._all() == other if isinstance(other, list) else self is other

    __hash__ = None  # type: ignore[assignment]  # a list's equality, a list's unhashability

    def __repr__(self) -> str:
        return repr(self._all())


class LazyDescriptionCursor(Cursor[TupleRow]):
    """``psycopg.Cursor`` whose ``description`` builds its columns only when they are read."""

    @property
    def description(self) -> LazyDescription | None:  # type: ignore[override]
        res = self.pgresult
        if res and (res.nfields or res.status in _TUPLES):
            return LazyDescription(_ResultView(self, res), res.nfields)
        return None
