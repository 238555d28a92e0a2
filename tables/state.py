"""What one viewer sees of a table: the state JSON and the log entries, built from the table's
snapshot (tables/snapshot.py) with no query. Secrets are stripped per viewer by the rules
(``view_for``, ``public_action``): another seat's hand, the deck and others' passes never leave.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rules import public_action
from rules.deal import table_reference

from . import errors, ratings, snapshot
from .clock import add_to_state
from .kinds import DECKS, LEVEL_LABELS, LEVELS, LOG_MAX, TAUNTS, SeatKind, TableStatus
from .seating import is_person, is_robotic, robot_label, seat_of_device
from .tokens import seat_token


def iso(at: datetime) -> str:
    return at.replace(microsecond=0).isoformat() + "Z"


def seat_json(s: Any, table: Any) -> dict[str, Any]:
    if s.kind == SeatKind.EMPTY:
        label = ""
    elif is_robotic(s):
        label = robot_label(s.robot_name)
    else:
        label = s.name
    return {
        "seat": s.seat,
        "kind": s.kind,
        "name": s.name if s.kind == SeatKind.HUMAN else s.robot_name,
        "label": label,
        "is_host": is_person(s) and s.device_id is not None
        and s.device_id == table.host_device_id,
        "left": s.left,
        "robot_name": s.robot_name if is_robotic(s) else None,
        "wants_rematch": bool(s.wants_rematch or is_robotic(s))
        if table.status == TableStatus.FINISHED else False,
    }


def chat_json(rows: list[Any]) -> list[dict[str, Any]]:
    """The chat lines and taunts of a snapshot (its last ``CHAT_SHOWN`` social log rows)."""
    return [{"id": r.version, "game": r.game_number, "seat": r.seat,
             "name": r.payload.get("name", ""), "kind": r.type,
             "text": r.payload.get("text", ""), "at": iso(r.at)} for r in rows]


#: The parts of every state that never change, built once and shared by every state (read,
#: never changed): a stream compares each event with the one it sent last (tables/patches.py),
#: and the same object is the same at once, where equal copies were compared item by item.
_TAUNTS: list[dict[str, str]] = [dict(t) for t in TAUNTS]
_LEVELS: list[dict[str, str]] = [{"id": lv, "label": LEVEL_LABELS.get(lv, lv)} for lv in LEVELS]
_DECKS: list[str] = list(DECKS)


def viewer_deck(snap: snapshot.Snapshot, device_id: int | None) -> str:
    """The deck design this viewer chose at the table (the table's own by default)."""
    if device_id is None:
        return str(snap.table.deck)
    return snap.decks.get(device_id) or str(snap.table.deck)


def count_spectators(seats: list[Any], present: set[str] | None) -> int:
    """Recent viewers that hold no seat (``present`` holds "dev:<id>" / "ip:<addr>" keys)."""
    if not present:
        return 0
    seated = {f"dev:{s.device_id}" for s in seats if is_person(s)}
    return len(present - seated)


def build_state(
    snap: snapshot.Snapshot, device_id: int | None, present: set[str] | None = None,
) -> dict[str, Any]:
    """The state one viewer gets, from the table's snapshot (no query)."""
    table, seats, game = snap.table, snap.seats, snap.game
    me = seat_of_device(seats, device_id)
    my_seat = me.seat if me is not None else None
    is_host = device_id is not None and device_id == table.host_device_id
    view = snap.view(my_seat)
    state: dict[str, Any] = {
        "version": snap.version,
        "table": {
            "id": table.id,
            "name": table.name,
            "target": table.target,
            "renege": table.renege,
            "deck": table.deck,
            "robot_level": table.robot_level,
            "hand_level": table.hand_level,
            "status": table.status,
            "game_number": table.game_number,
            "seats": [seat_json(s, table) for s in seats],
            "spectators": count_spectators(seats, present),
            "taunts": _TAUNTS,
            "levels": _LEVELS,
            "decks": _DECKS,
        },
        "me": {
            "seat": my_seat,
            "is_host": is_host,
            "deck": viewer_deck(snap, device_id),
            "spectator": my_seat is None,
            "can_sit": table.status == TableStatus.LOBBY and my_seat is None
            and any(s.kind == SeatKind.EMPTY for s in seats),
            "seat_link": f"/t/{table.id}/s/{seat_token(table.id, me.seat, me.link_gen)}"
            if me is not None else None,
            "wants_rematch": bool(me.wants_rematch) if me is not None else False,
        },
        "view": dict(view) if view is not None else None,
        "chat": chat_json(snap.chat),
    }
    add_to_state(state, table, seats, game, my_seat, snap.pace, snap.clock)
    # Ratings: the table's option, and what a finished rated game did to each rated seat.
    state["table"]["rated"] = bool(table.rated)
    state["table"]["public"] = bool(table.public)  # a live table (Jugar en vivo): one game
    state["rating_changes"] = ratings.game_changes(table.id, table.game_number) \
        if table.rated and table.status == TableStatus.FINISHED else None
    state["fair_deal"] = fair_deal_json(snap.fair, table.id)
    return state


def fair_deal_json(fair: dict[str, Any], table_id: str) -> dict[str, Any]:
    """The fair deal's public half (a copy: the snapshot's is shared by threads)."""
    nxt = fair.get("next")
    return {
        "table": fair.get("table") or table_reference(table_id),
        "next": None if nxt is None else {**nxt, "seats": [dict(s) for s in nxt["seats"]]},
        "revealed": [dict(r) for r in fair.get("revealed", [])],
    }


def entry_for(row: Any, viewer: int | None) -> dict[str, Any]:
    """A log row as ``viewer`` may see it: no deck, no other seat's pass cards."""
    out = public_action(row.payload, viewer)
    out.pop("seat", None)
    out.update({"version": row.version, "type": row.type, "seat": row.seat,
                "game_number": row.game_number, "events": list(row.events), "at": iso(row.at)})
    return out


def log_since(snap: snapshot.Snapshot, since: int, viewer: int | None) -> list[dict[str, Any]]:
    return [entry_for(r, viewer) for r in snapshot.log_rows(snap, since, LOG_MAX)]


def state_and_log(
    snap: snapshot.Snapshot, device_id: int | None, since: int | None,
    present: set[str] | None,
) -> dict[str, Any]:
    state = build_state(snap, device_id, present)
    out: dict[str, Any] = {"state": state}
    if since is not None:
        out["log"] = log_since(snap, since, state["me"]["seat"])
    return out


def cached_state(
    table_id: str, device_id: int | None, since: int, present: set[str] | None, at_least: int,
) -> dict[str, Any] | None:
    """``read_state`` when this process's snapshot answers it with no query (else None): the
    snapshot is at ``at_least`` or later and holds the log since ``since``."""
    snap = snapshot.cached(table_id)
    if snap is None or snap.version < at_least or not snapshot.holds_log(snap, since, LOG_MAX):
        return None
    return state_and_log(snap, device_id, since, present)


def onlooker_key(
    snap: snapshot.Snapshot, device_id: int | None, present: set[str] | None,
) -> tuple[str, int] | None:
    """What an onlooker's state depends on beyond the snapshot: the deck they chose and the
    spectators counted (None: the viewer holds a seat or hosts, and their state is their own).
    Every viewer with no seat who is not the host sees the same view (``view_for(None)``: no
    hand), so two onlookers with the same key get equal states and logs from one snapshot."""
    if device_id is not None and (device_id == snap.table.host_device_id
                                  or seat_of_device(snap.seats, device_id) is not None):
        return None
    return viewer_deck(snap, device_id), count_spectators(snap.seats, present)


def read_state(
    table_id: str, device_id: int | None, since: int | None = None,
    present: set[str] | None = None, at_least: int | None = None,
) -> dict[str, Any]:
    """``{"state", "log"}`` for this viewer, read outside any lock. ServiceError 404 if unknown.
    ``at_least``: a version the caller knows is committed (saves reading the current one)."""
    snap = snapshot.current(table_id, at_least)
    if snap is None:
        raise errors.NOT_FOUND.error()
    return state_and_log(snap, device_id, since, present)
