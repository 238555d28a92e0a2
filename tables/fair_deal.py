"""The fair deal at a table (docs/FAIR_DEAL.md; the pure core is ``rules.deal``).

One phase, never waiting on anyone:

* The server's commitment for the next hand is out before that hand is dealt: for hand 1 of
  game 1 when the table is created, for hand h+1 in the transaction that deals hand h, for hand 1
  of game g+1 when game g ends (a ``deal_commit`` entry; the seed itself is a ``DealSeeds`` row).
* A seated person's page sends its seed for the pending hand (action ``deal_seed``); its
  commitment is published as it arrives (``seat_commit``, by "player"). The seed stays private.
* When the hand must be dealt, every seat without a seed (a robot, an absent person, a stand-in,
  a vacant seat) gets ``server_seat_seed`` (``seat_commit`` by "server", before the ``deal``
  entry), and the deck is ``derive_deck`` of the five seeds.
* In the transaction that closes the hand's count every seed is revealed (``deal_reveal``).

Everything is written under the table's lock with the log entries it goes with: restart-safe and
the same in every web process. No seed reaches a viewer before ``deal_reveal``.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from sqlalchemy import delete, select

from rules.deal import (
    SEATS,
    commit,
    derive_deck,
    make_record,
    server_seat_seed,
    table_reference,
)

from . import errors
from .db import db
from .models import Action, DealSeeds, utcnow
from .seating import Ctx

SEED_HEX: Final = frozenset("0123456789abcdef")

__all__ = ["accept_seed", "deal_deck", "deal_record", "deal_url", "drop_unused", "publish",
           "public_info", "public_info_after", "record_iso", "reveal", "table_reference"]


def deal_url(table_id: str, game: int, hand: int) -> str:
    """Where a revealed hand's deal record is read (docs/API.md)."""
    return f"/api/tables/{table_id}/deals/{game}/{hand}"


def record_iso(at: datetime) -> str:
    """A log row's time as the deal record gives it (ISO 8601, milliseconds, UTC)."""
    return at.isoformat(timespec="milliseconds") + "Z"


def _row(table_id: str, game: int, hand: int) -> DealSeeds | None:
    return db.session.execute(
        select(DealSeeds).where(DealSeeds.table_id == table_id, DealSeeds.game == game,
                                DealSeeds.hand == hand)
    ).scalar_one_or_none()


def _action_row(ctx: Ctx, game: int, hand: int) -> DealSeeds | None:
    """The seed row of a hand within an action, read once: with the next hand's, in one query
    that leaves the action's pending rows unwritten (every write of an action goes at its end,
    together: tables/together.py). Rows the action makes (``publish``) are found here too."""
    rows = ctx.deal_seeds
    if (game, hand) not in rows:
        with db.session.no_autoflush:
            found = db.session.execute(
                select(DealSeeds).where(DealSeeds.table_id == ctx.table.id,
                                        DealSeeds.game == game,
                                        DealSeeds.hand.in_((hand, hand + 1)))
            ).scalars().all()
        for row in found:
            rows.setdefault((row.game, row.hand), row)
        rows.setdefault((game, hand), None)
        rows.setdefault((game, hand + 1), None)
    return rows[(game, hand)]


def _server_log(ctx: Ctx, kind: str, seat: int | None, payload: dict[str, Any]) -> None:
    """Log an entry the server makes on its own within someone's action: it does not carry that
    action's id (the id names the client's action, once per type; a retry finds the action by
    its own entry)."""
    action_id, ctx.action_id = ctx.action_id, None
    try:
        ctx.log(kind, seat, payload)
    finally:
        ctx.action_id = action_id


def publish(ctx: Ctx, game: int, hand: int) -> DealSeeds:
    """Draw the server's seed for hand ``hand`` of game ``game`` and publish its commitment."""
    ref = table_reference(ctx.table.id)
    seed = secrets.token_bytes(32)
    row = DealSeeds(
        table_id=ctx.table.id, game=game, hand=hand, server_seed=seed.hex(),
        server_commitment=commit(seed, ref, game, hand), seat_seeds=[None] * SEATS,
        seat_commitments=[None] * SEATS, by=[None] * SEATS, stamps={}, dealt=False,
        revealed=False, created_at=utcnow(),
    )
    _server_log(ctx, "deal_commit", None, {"type": "deal_commit", "game": game, "hand": hand,
                                           "commitment": row.server_commitment})
    row.stamps = {"server": ctx.table.version, "seats": [None] * SEATS}
    db.session.add(row)
    ctx.deal_seeds[(game, hand)] = row
    return row


def _number(body: Mapping[str, Any], key: str) -> int:
    value = body.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value < 1 << 31:
        raise errors.BAD_SEED.error()
    return value


def accept_seed(ctx: Ctx, seat: int, body: Mapping[str, Any]) -> None:
    """A page's seed for the pending hand: keep it, publish its commitment (never the seed)."""
    seed_hex = body.get("seed")
    if not isinstance(seed_hex, str) or len(seed_hex) != 64 or not set(seed_hex) <= SEED_HEX:
        raise errors.BAD_SEED.error()
    game, hand = _number(body, "game"), _number(body, "hand")
    row = _action_row(ctx, game, hand)
    if row is None or row.dealt:
        current = (ctx.table.game_number, ctx.game.hand_number if ctx.game is not None else 0)
        if row is not None or (game, hand) <= current:
            raise errors.SEED_TOO_LATE.error()
        raise errors.SEED_TOO_EARLY.error()
    if row.seat_commitments[seat] is not None:
        raise errors.SEED_ALREADY_SENT.error()
    commitment = commit(bytes.fromhex(seed_hex), table_reference(ctx.table.id), game, hand, seat)
    ctx.log("seat_commit", seat, {"type": "seat_commit", "game": game, "hand": hand,
                                  "seat": seat, "commitment": commitment, "by": "player"})
    _set_seat(row, seat, seed_hex, commitment, "player", ctx.table.version)


def _set_seat(row: DealSeeds, seat: int, seed: str, commitment: str, by: str,
              version: int) -> None:
    # JSON columns are replaced, not mutated in place: the change must be seen to be written.
    seeds, commitments, bys = list(row.seat_seeds), list(row.seat_commitments), list(row.by)
    seeds[seat], commitments[seat], bys[seat] = seed, commitment, by
    stamps = dict(row.stamps)
    stamps["seats"] = [version if s == seat else v for s, v in enumerate(stamps["seats"])]
    row.seat_seeds, row.seat_commitments, row.by, row.stamps = seeds, commitments, bys, stamps


def deal_deck(ctx: Ctx, game: int, hand: int) -> list[str]:
    """The deck of the hand about to be dealt. Seats with no seed get the server's for them
    (their ``seat_commit`` entries are logged now, before the caller's ``deal`` entry). A hand
    whose commitment was never published (a table older than the fair deal) gets it now."""
    row = _action_row(ctx, game, hand)
    if row is None or row.dealt:
        if row is not None:  # cannot happen under the lock; never deal one seed set twice
            db.session.delete(row)
            db.session.flush()
            ctx.deal_seeds_deleted = True
        row = publish(ctx, game, hand)
    ref = table_reference(ctx.table.id)
    server = bytes.fromhex(row.server_seed)
    for seat in range(SEATS):
        if row.seat_seeds[seat] is None:
            seed = server_seat_seed(server, ref, game, hand, seat)
            commitment = commit(seed, ref, game, hand, seat)
            _server_log(ctx, "seat_commit", seat, {
                "type": "seat_commit", "game": game, "hand": hand, "seat": seat,
                "commitment": commitment, "by": "server"})
            _set_seat(row, seat, seed.hex(), commitment, "server", ctx.table.version)
    row.dealt = True
    return derive_deck(server, [bytes.fromhex(s) for s in row.seat_seeds], ref, game, hand)


def dealt_at(ctx: Ctx, game: int, hand: int) -> None:
    """Note the version of the ``deal`` entry just logged."""
    row = _action_row(ctx, game, hand)
    if row is not None:
        row.stamps = {**row.stamps, "deal": ctx.table.version}


def reveal(ctx: Ctx, game: int, hand: int) -> None:
    """Publish every seed of a hand whose count was just closed (the last entry logged)."""
    row = _action_row(ctx, game, hand)
    if row is None or not row.dealt or row.revealed:
        return  # a hand dealt before the fair deal existed: nothing to reveal
    closed = ctx.table.version
    _server_log(ctx, "deal_reveal", None, {"type": "deal_reveal", "game": game, "hand": hand,
                                           "server_seed": row.server_seed,
                                           "seeds": list(row.seat_seeds), "by": list(row.by)})
    row.stamps = {**row.stamps, "closed": closed, "revealed": ctx.table.version}
    row.revealed = True


def drop_unused(ctx: Ctx, game: int) -> None:
    """The game ended: the commitment already published for a hand it will never play is void.
    Its seeds are deleted unrevealed (nothing was dealt from them)."""
    db.session.execute(delete(DealSeeds).where(
        DealSeeds.table_id == ctx.table.id, DealSeeds.game == game,
        DealSeeds.dealt.is_(False)))
    ctx.deal_seeds_deleted = True


# -------------------------------------------------------------------- what viewers see


def public_info(conn: Any, table_id: str, game_number: int) -> dict[str, Any]:
    """The public half for the viewers' state (``fair_deal``, docs/API.md), read with ``conn``:
    the pending hand's commitments (the latest hand not dealt), and which hands of the current
    game are revealed."""
    d = DealSeeds.__table__
    rows = list(conn.execute(
        select(d.c.game, d.c.hand, d.c.server_commitment, d.c.seat_commitments, d.c.by,
               d.c.dealt, d.c.revealed)
        .where(d.c.table_id == table_id, (d.c.dealt.is_(False)) | (d.c.game == game_number))
        .order_by(d.c.game, d.c.hand)))
    pending = [r for r in rows if not r.dealt]
    return {"table": table_reference(table_id),
            "next": _pending_json(pending[-1]) if pending else None,
            "revealed": [_revealed_json(table_id, r.game, r.hand)
                         for r in rows if r.revealed and r.game == game_number]}


def public_info_after(ctx: Ctx, before: Mapping[str, Any]) -> dict[str, Any] | None:
    """The public half as ``ctx``'s action leaves it, from the half ``before`` it and the seed
    rows the action read or made (``ctx.deal_seeds``), with no query; the same as
    :func:`public_info` would read after the action's writes. None when it cannot be told
    without a read: rows were deleted, or the pending hand was dealt and the action made no
    hand pending (another row, one it did not read, could then be the latest not dealt)."""
    if ctx.deal_seeds_deleted:
        return None
    table_id, game_number = ctx.table.id, int(ctx.table.game_number)
    touched = {key: row for key, row in ctx.deal_seeds.items() if row is not None}
    prior_next = before.get("next")
    pending: tuple[int, int] | None = None
    if prior_next is not None:
        pending = (int(prior_next["game"]), int(prior_next["hand"]))
        row = touched.get(pending)
        if row is not None and row.dealt:
            pending = None
    made_pending = [key for key, row in touched.items() if not row.dealt]
    if prior_next is not None and pending is None and not made_pending:
        return None
    if made_pending and (pending is None or max(made_pending) > pending):
        pending = max(made_pending)
    if pending is None:
        nxt = None
    elif pending in touched:
        nxt = _pending_json(touched[pending])
    else:  # the hand pending before, untouched: a copy (a snapshot's half is shared by threads)
        assert prior_next is not None
        nxt = {**prior_next, "seats": [dict(s) for s in prior_next["seats"]]}
    revealed = {(int(r["game"]), int(r["hand"])) for r in before.get("revealed", [])
                if int(r["game"]) == game_number}
    revealed |= {key for key, row in touched.items() if row.revealed and key[0] == game_number}
    return {"table": table_reference(table_id), "next": nxt,
            "revealed": [_revealed_json(table_id, g, h) for g, h in sorted(revealed)]}


def _pending_json(row: Any) -> dict[str, Any]:
    return {"game": row.game, "hand": row.hand, "server_commitment": row.server_commitment,
            "seats": [{"seat": s, "commitment": row.seat_commitments[s], "by": row.by[s]}
                      for s in range(SEATS)]}


def _revealed_json(table_id: str, game: int, hand: int) -> dict[str, Any]:
    return {"game": game, "hand": hand, "url": deal_url(table_id, game, hand)}


# -------------------------------------------------------------------- the record


def deal_record(table_id: str, game: int, hand: int) -> dict[str, Any] | None:
    """The ``corazones/deal-record/v1`` record of a revealed hand (None: not revealed, or no
    such hand, or dealt before the fair deal existed). Times are the log rows' own."""
    row = _row(table_id, game, hand)
    if row is None or not row.revealed:
        return None
    st = row.stamps
    versions = [st["server"], *st["seats"], st["deal"], st["closed"], st["revealed"]]
    at = dict(db.session.execute(
        select(Action.version, Action.at).where(Action.table_id == table_id,
                                                Action.version.in_(versions))).all())
    if not all(v in at for v in versions):
        return None  # the log was cut short (it never is): no record rather than a wrong one

    def stamp(v: int) -> tuple[int, str]:
        return v, record_iso(at[v])

    seeds: list[bytes | None] = [None if b == "server" else bytes.fromhex(s)
                                 for s, b in zip(row.seat_seeds, row.by, strict=True)]
    record = make_record(
        table_reference(table_id), game, hand, bytes.fromhex(row.server_seed), seeds,
        server_published=stamp(st["server"]),
        seats_published=[stamp(v) for v in st["seats"]],
        deal=stamp(st["deal"]), closed=stamp(st["closed"]), revealed=stamp(st["revealed"]),
    )
    # The commitments as they were published (the same for an honest server: let a verifier see
    # the published ones, not ones computed again here).
    record["server"]["commitment"] = row.server_commitment
    for entry in record["seats"]:
        entry["commitment"] = row.seat_commitments[entry["seat"]]
    return record
