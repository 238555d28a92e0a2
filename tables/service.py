"""What a table does: every change goes through :func:`perform`, humans and robots alike.

One call = one transaction holding the table's lock: check, apply through ``rules``, append the log
rows, bump the version, commit. Only after the commit do we wake pages, robots and hooks.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import regex
from confusables import is_confusable
from flask import current_app
from sqlalchemy import func, select

import robots
from rules import (
    COUNTING,
    DEALING,
    GAME_OVER,
    PASSING,
    PLAYING,
    Game,
    Options,
    RulesError,
    public_action,
    shuffled_deck,
)

from . import snapshot
from .db import db, locked_table, write_transaction
from .errors import NOT_FOUND, ServiceError, bad_request
from .models import Action, Seat, Table, Viewer, utcnow

DECKS: tuple[str, ...] = ("reino", "cuatro", "jardin", "noche")
LEVELS: tuple[str, ...] = tuple(robots.LEVELS)
LEVEL_LABELS: dict[str, str] = dict(getattr(robots, "LEVEL_LABELS", {}))
ROBOT_NAMES: tuple[str, ...] = tuple(robots.ROBOT_NAMES)
NAME_MAX = 24
TABLE_NAME_MAX = 60
CHAT_MAX = 300
CHAT_SHOWN = 50
LOG_MAX = 400
#: Action ids at least this long are random enough to prove who sent them (UUIDs are 36).
PROOF_ID_LEN = 16

TAUNTS: tuple[dict[str, str], ...] = (
    {"id": "t1", "text": "¡Los corazones se quedan con quien los merece!"},
    {"id": "t2", "text": "La Dama de Corazones me guiñó el ojo."},
    {"id": "t3", "text": "¿Alguien quiere un pañuelo?"},
    {"id": "t4", "text": "Fácil, como quitarle un caramelo a un niño."},
    {"id": "t5", "text": "La próxima les dejo ganar una baza."},
    {"id": "t6", "text": "¡Qué buena mesa! Sobre todo para mí."},
)
TAUNT_TEXT = {t["id"]: t["text"] for t in TAUNTS}

LOBBY_TYPES = ("sit", "add_robot", "remove_robot", "start", "leave", "reissue_link")
GAME_TYPES = ("choose_pass", "confirm_pass", "play", "accuse", "close_count")
SOCIAL_TYPES = ("chat", "taunt", "rematch")
SETTING_TYPES = ("set_level", "set_deck")
CLOCK_TYPES = ("standin", "come_back")  # issue 8, tables/clock.py
ACTION_TYPES: tuple[str, ...] = (LOBBY_TYPES + GAME_TYPES + SOCIAL_TYPES + SETTING_TYPES
                                 + CLOCK_TYPES)
#: Types whose outcome cannot depend on what changed since the client's version.
NO_STALE_CHECK = frozenset({"choose_pass", "confirm_pass", "chat", "taunt", "leave", "set_deck",
                            "come_back"})
#: Log entry types that do not change the table's state (the stale check ignores them).
#: ``set_deck`` is logged (with no fields) so that every process's snapshot of the table, which
#: holds each viewer's deck, is renewed: a page's state then needs no query of its own.
STATELESS_LOG = frozenset({"chat", "taunt", "set_deck"})

# -------------------------------------------------------------------- hooks for other issues

#: Called after every commit that changed a table: ``hook(table_id, version, humans_to_act)``.
#: Push notifications (issue 6) and the turn clock (issue 8) register here.
AfterCommitHook = Callable[[str, int, list[int]], None]
_after_commit_hooks: list[AfterCommitHook] = []


def register_after_commit(hook: AfterCommitHook) -> None:
    if hook not in _after_commit_hooks:
        _after_commit_hooks.append(hook)


# -------------------------------------------------------------------- small helpers


#: A character that shows something: not white space, not a mark alone, not a format control,
#: not a default-ignorable code point (U+3164 HANGUL FILLER, U+200B…) and not U+2800 BRAILLE BLANK.
_VISIBLE = regex.compile(r"[^\p{White_Space}\p{M}\p{Cf}\p{Default_Ignorable_Code_Point}\u2800]")
_IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
#: Bidi overrides and isolates (U+202A-202E, U+2066-2069) and zero-width characters: they can
#: reorder or hide what others read. A zero-width joiner inside an emoji sequence stays.
_HIDDEN_IN_CHAT = regex.compile(
    r"(?!(?<=\p{Extended_Pictographic}\p{M}*)\u200d(?=\p{Extended_Pictographic}))"
    r"[\p{Cf}\p{Default_Ignorable_Code_Point}--[\u00ad\ufe00-\ufe0f]]", regex.V1)


def clean_name(value: Any, limit: int = NAME_MAX) -> str:
    """A name as others will read it: NFC, spaces folded, something visible, nothing hidden."""
    if not isinstance(value, str):
        raise bad_request("bad_name", f"Escribe un nombre (hasta {limit} letras)")
    text = unicodedata.normalize("NFC", value)
    if any(unicodedata.category(ch).startswith("C") for ch in text):
        raise bad_request("bad_name", "El nombre tiene caracteres no permitidos")
    text = " ".join(_IGNORABLE.sub("", text).split())
    if not 1 <= len(text) <= limit:
        raise bad_request("bad_name", f"Escribe un nombre (hasta {limit} letras)")
    if not _VISIBLE.search(text):
        raise bad_request("bad_name", "Ese nombre no se ve: escribe letras o números")
    return text


def _reads_as(name: str, other: str) -> bool:
    """Whether ``name`` reads as ``other`` (case, accents and look-alike letters aside)."""
    return name.casefold() == other.casefold() or is_confusable(name, other)


def refuse_robot_like(name: str) -> None:
    """A person's name may not pass for a robot: no robot's name, nothing that reads «ROBOT …»."""
    first = name.split(" ", 1)[0]
    if _reads_as(first, "ROBOT") or any(_reads_as(name, robot) for robot in ROBOT_NAMES):
        raise bad_request("bad_name", "Ese nombre es de un robot: elige otro")


def refuse_taken_name(name: str, seats: list[Seat], mine: Seat | None = None) -> None:
    """Each seat shows a name no other seat at the table shows, nor one that looks like it."""
    refuse_robot_like(name)
    for s in seats:
        if s is mine or s.kind == "empty":
            continue
        shown = robot_label(s.robot_name) if is_robotic(s) else s.name
        if shown and _reads_as(name, shown):
            raise bad_request("name_taken", f"En la mesa ya hay alguien llamado «{shown}»: "
                                            "elige otro nombre")


def clean_chat(value: Any) -> str:
    """A chat line with its hidden characters removed (bidi overrides, zero-width characters)."""
    if not isinstance(value, str):
        raise bad_request("bad_chat", "Escribe un mensaje")
    text = _HIDDEN_IN_CHAT.sub("", unicodedata.normalize("NFC", value)).strip()
    if len(text) > CHAT_MAX:
        raise bad_request("chat_too_long", f"El mensaje es muy largo (hasta {CHAT_MAX} letras)")
    if not text or not _VISIBLE.search(text) \
            or any(unicodedata.category(ch) in ("Cc", "Cs") and ch != "\n" for ch in text):
        raise bad_request("bad_chat", "Escribe un mensaje")
    return text


def seat_token(table_id: str, seat: int, gen: int) -> str:
    key = current_app.config["SECRET_KEY"]
    key_bytes = key.encode() if isinstance(key, str) else key
    mac = hmac.new(key_bytes, f"seat:{table_id}:{seat}:{gen}".encode(), hashlib.sha256)
    return mac.hexdigest()[:40]


def iso(at: datetime) -> str:
    return at.replace(microsecond=0).isoformat() + "Z"


def new_table_id(action_id: Any = None) -> str:
    """144 random bits; or, for a creation with a client action id of 16+ characters, a keyed
    hash of it (as unguessable, and a retried creation finds the table it made)."""
    if isinstance(action_id, str) and PROOF_ID_LEN <= len(action_id) <= 64:
        key = current_app.config["SECRET_KEY"]
        key_bytes = key.encode() if isinstance(key, str) else key
        mac = hmac.new(key_bytes, f"table:{action_id}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac[:18]).decode()
    return secrets.token_urlsafe(18)


def request_digest(body: Mapping[str, Any]) -> str:
    """The SHA-256 of a request body in a canonical form (key order and spacing do not count)."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


ACTION_ID_REUSED = ("action_id_reused", "Ese identificador de acción ya se usó")


def created_by(body: Mapping[str, Any], device_id: int | None) -> str | None:
    """The table an earlier creation with this body's ``action_id`` made, if any.

    An action id belongs to the device that first sent it, with that body: the same browser
    repeating the same request gets its table again; anyone else is refused (409)."""
    action_id = body.get("action_id")
    if not isinstance(action_id, str) or len(action_id) < PROOF_ID_LEN:
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
        raise ServiceError(409, *ACTION_ID_REUSED)
    return table_id


@dataclass
class Ctx:
    """What one action transaction works on."""

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

    @property
    def me(self) -> Seat | None:
        if self.robot_seat is not None:
            return self.seats[self.robot_seat]
        return seat_of_device(self.seats, self.device_id)

    def log(
        self, kind: str, seat: int | None, payload: Mapping[str, Any],
        events: list[Any] | None = None,
    ) -> None:
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


def seat_of_device(seats: list[Seat], device_id: int | None) -> Seat | None:
    if device_id is None:
        return None
    for s in seats:
        if s.kind == "human" and not s.left and s.device_id == device_id:
            return s
    return None


def is_robotic(s: Seat) -> bool:
    return s.kind == "robot" or (s.kind == "human" and s.left)


def active_humans(seats: list[Seat]) -> list[int]:
    """Humans who play their own seat now (not left, no stand-in playing for them)."""
    return [s.seat for s in seats if s.kind == "human" and not s.left and not s.standin]


def due_robot_seats(table: Table, seats: list[Seat], game: Game | None) -> list[int]:
    """Seats a robot must act for now (robots never accuse, chat or taunt)."""
    if table.status != "playing" or game is None:
        return []
    robotic = [s.seat for s in seats if is_robotic(s)]
    if game.phase in (PASSING, PLAYING):
        standins = [s.seat for s in seats if s.standin and not is_robotic(s)]
        return [s for s in game.to_act() if s in robotic or s in standins]
    if game.phase == COUNTING and not active_humans(seats) and robotic:
        return [robotic[0]]
    return []


def humans_to_act(table: Table, seats: list[Seat], game: Game | None) -> list[int]:
    humans = active_humans(seats)
    if table.status != "playing" or game is None:
        return []
    if game.phase == COUNTING:
        return humans
    return [s for s in game.to_act() if s in humans]


def load_seats(table_id: str) -> list[Seat]:
    rows = db.session.execute(
        select(Seat).where(Seat.table_id == table_id).order_by(Seat.seat)
    ).scalars()
    return list(rows)


def load_game(table: Table) -> Game | None:
    return Game.from_json(table.game_json) if table.game_json else None


def robot_label(name: str) -> str:
    return f"ROBOT {name}"


def free_robot_name(seats: list[Seat]) -> str:
    used = {s.robot_name for s in seats if s.robot_name and is_robotic(s)}
    return next((n for n in ROBOT_NAMES if n not in used), ROBOT_NAMES[0])


# -------------------------------------------------------------------- state for a viewer


def seat_json(s: Seat, table: Table) -> dict[str, Any]:
    if s.kind == "empty":
        label = ""
    elif is_robotic(s):
        label = robot_label(s.robot_name)
    else:
        label = s.name
    return {
        "seat": s.seat,
        "kind": s.kind,
        "name": s.name if s.kind == "human" else s.robot_name,
        "label": label,
        "is_host": s.kind == "human" and not s.left and s.device_id is not None
        and s.device_id == table.host_device_id,
        "left": s.left,
        "robot_name": s.robot_name if is_robotic(s) else None,
        "wants_rematch": bool(s.wants_rematch or is_robotic(s)) if table.status == "finished"
        else False,
    }


def chat_json(rows: list[Any]) -> list[dict[str, Any]]:
    """The chat lines and taunts of a snapshot (its last ``CHAT_SHOWN`` social log rows)."""
    return [{"id": r.version, "seat": r.seat, "name": r.payload.get("name", ""), "kind": r.type,
             "text": r.payload.get("text", ""), "at": iso(r.at)} for r in rows]


def viewer_deck(snap: snapshot.Snapshot, device_id: int | None) -> str:
    """The deck design this viewer chose at the table (the table's own by default)."""
    if device_id is None:
        return str(snap.table.deck)
    return snap.decks.get(device_id) or str(snap.table.deck)


def count_spectators(seats: list[Seat], present: set[str] | None) -> int:
    """Recent viewers that hold no seat (``present`` holds "dev:<id>" / "ip:<addr>" keys)."""
    if not present:
        return 0
    seated = {f"dev:{s.device_id}" for s in seats if s.kind == "human" and not s.left}
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
            "taunts": [dict(t) for t in TAUNTS],
            "levels": [{"id": lv, "label": LEVEL_LABELS.get(lv, lv)} for lv in LEVELS],
            "decks": list(DECKS),
        },
        "me": {
            "seat": my_seat,
            "is_host": is_host,
            "deck": viewer_deck(snap, device_id),
            "spectator": my_seat is None,
            "can_sit": table.status == "lobby" and my_seat is None
            and any(s.kind == "empty" for s in seats),
            "seat_link": f"/t/{table.id}/s/{seat_token(table.id, me.seat, me.link_gen)}"
            if me is not None else None,
            "wants_rematch": bool(me.wants_rematch) if me is not None else False,
        },
        "view": dict(view) if view is not None else None,
        "chat": chat_json(snap.chat),
    }
    from .clock import add_to_state

    add_to_state(state, table, seats, game, my_seat, snap.pace, snap.clock)
    return state


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


def read_state(
    table_id: str, device_id: int | None, since: int | None = None,
    present: set[str] | None = None, at_least: int | None = None,
) -> dict[str, Any]:
    """``{"state", "log"}`` for this viewer, read outside any lock. ServiceError 404 if unknown.
    ``at_least``: a version the caller knows is committed (saves reading the current one)."""
    snap = snapshot.current(table_id, at_least)
    if snap is None:
        raise ServiceError(404, *NOT_FOUND)
    return state_and_log(snap, device_id, since, present)


# -------------------------------------------------------------------- creating a table


def create_table(device: Callable[[], int], body: Mapping[str, Any]) -> str:
    """Open a table whose host is ``device()`` (called inside the creation's transaction, so a
    refused creation keeps nothing for the device either)."""
    host = clean_name(body.get("host_name"))
    refuse_robot_like(host)
    target = body.get("target", 100)
    if isinstance(target, bool) or target not in (100, 50):
        raise bad_request("bad_target", "El juego llega a 100 o a 50 puntos")
    renege = body.get("renege", "impedido")
    if renege not in ("impedido", "permitido"):
        raise bad_request("bad_renege", "El renuncio es «impedido» o «permitido»")
    deck = body.get("deck", DECKS[0])
    if deck not in DECKS:
        raise bad_request("bad_deck", "Esa baraja no existe")
    level = body.get("robot_level", "normal")
    if level not in LEVELS:
        raise bad_request("bad_level", "El nivel de los robots es Fácil, Normal o Difícil")
    from . import clock

    pace = clock.validate_pace(body)
    name = body.get("name")
    table_name = clean_name(name, TABLE_NAME_MAX) if name not in (None, "") else f"Mesa de {host}"
    if len(table_name) > TABLE_NAME_MAX:
        table_name = table_name[:TABLE_NAME_MAX]
    action_id = body.get("action_id")
    action_id = action_id if isinstance(action_id, str) and len(action_id) <= 64 else None
    with write_transaction():
        device_id = device()
        table = Table(
            id=new_table_id(action_id), name=table_name, target=int(target),
            renege=renege, deck=deck,
            robot_level=level, hand_level=level, status="lobby", game_number=0, version=0,
            state_version=0, game_json=None, robot_due=False, host_device_id=device_id,
            created_at=utcnow(), updated_at=utcnow(),
        )
        db.session.add(table)
        db.session.flush()
        seats = [Seat(table_id=table.id, seat=i, kind="empty", name="", robot_name="", left=False,
                      wants_rematch=False, link_gen=0) for i in range(4)]
        seats[0].kind, seats[0].name, seats[0].device_id = "human", host, device_id
        db.session.add_all(seats)
        clock.create_rows(table.id, pace)
        db.session.flush()
        ctx = Ctx(table, seats, None, device_id, action_id, None,
                  request_digest=request_digest(body))
        ctx.log("create", None, {"type": "create", "name": table_name})
        ctx.action_id = None  # the id names the creation; its seat row needs no second copy
        ctx.log("sit", 0, {"type": "sit", "seat": 0, "name": host})
        table_id, version = table.id, table.version
    after_commit(table_id, version, [], False)
    return table_id


# -------------------------------------------------------------------- the action path


@dataclass
class Outcome:
    table_id: str
    version: int
    answer: dict[str, Any] | None  # {"state", "log"} for the caller (None for robots)


def _int(value: Any, code: str, message: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise bad_request(code, message)
    return value


#: Actions that keep something for a device that has none yet (a seat, a deck choice).
DEVICE_MAKING_TYPES = frozenset({"sit", "set_deck"})


def perform(
    table_id: str, device_id: int | None, body: Any, robot_seat: int | None = None,
    present: set[str] | None = None, new_device: Callable[[], int] | None = None,
) -> Outcome:
    """Apply one action dict (``type``, ``action_id``, ``version`` and the type's fields).

    ``new_device()`` gives a caller without a device one, inside the action's transaction, for
    the actions that keep something for it (a refused action keeps no device row)."""
    if not isinstance(body, Mapping):
        raise bad_request("bad_json", "La solicitud no es un objeto JSON")
    kind = body.get("type")
    if kind not in ACTION_TYPES:
        raise bad_request("bad_action", "Acción desconocida")
    action_id = body.get("action_id")
    if action_id is not None and (not isinstance(action_id, str) or not 1 <= len(action_id) <= 64):
        raise bad_request("bad_action_id", "El identificador de la acción no es válido")
    version = body.get("version")
    if version is not None:
        version = _int(version, "bad_version", "La versión no es válida")

    with locked_table(table_id) as table:
        if table is None:
            raise ServiceError(404, *NOT_FOUND)
        done = _perform_locked(table, kind, device_id, action_id, version, robot_seat, body,
                               new_device)
    device_id = done.device_id
    if done.retry_base is not None:  # an action id applied before: the same answer, read now
        if robot_seat is None:
            done.outcome.answer = read_state(table_id, device_id, since=done.retry_base,
                                             present=present, at_least=done.outcome.version)
        return done.outcome
    if done.snap is not None:
        snapshot.store(table_id, done.snap)
    if done.changed:
        after_commit(table_id, done.outcome.version, done.humans, done.robot_due)
    if robot_seat is None:  # the caller's answer is built after the commit, outside the lock
        base = version if version is not None and version <= done.before else done.before
        snap = done.snap or snapshot.current(table_id, done.outcome.version)
        if snap is None:
            raise ServiceError(404, *NOT_FOUND)
        done.outcome.answer = state_and_log(snap, device_id, base, present)
    return done.outcome


@dataclass
class _Done:
    outcome: Outcome
    before: int = 0
    retry_base: int | None = None  # set: the action id was applied before (a retry)
    device_id: int | None = None  # the caller's device (made by this action, if it had none)
    snap: snapshot.Snapshot | None = None
    changed: bool = False
    humans: list[int] = field(default_factory=list)
    robot_due: bool = False


def _perform_locked(
    table: Table, kind: str, device_id: int | None, action_id: str | None, version: int | None,
    robot_seat: int | None, body: Mapping[str, Any], new_device: Callable[[], int] | None,
) -> _Done:
    """The part of :func:`perform` that holds the table's lock: check, apply, log, flush."""
    table_id = table.id
    seats = load_seats(table_id)
    digest = request_digest(body) if action_id is not None else None
    if action_id is not None:
        first = db.session.execute(
            select(Action.version, Action.device_id, Action.base_version, Action.request_digest)
            .where(Action.table_id == table_id, Action.action_id == action_id)
            .order_by(Action.version)
            .limit(1)
        ).one_or_none()
        if first is not None:
            # An action id belongs to the device that first sent it, with that very body: only
            # that device repeating that request gets the same answer; nothing else changes.
            if first.device_id != device_id or robot_seat is not None \
                    or first.request_digest not in (None, digest):
                raise ServiceError(409, *ACTION_ID_REUSED)
            base = first.base_version if first.base_version is not None else first.version - 1
            return _Done(Outcome(table_id, table.version, None), retry_base=base,
                         device_id=device_id)
    if device_id is None and new_device is not None and kind in DEVICE_MAKING_TYPES:
        device_id = new_device()
    before = table.version
    if version is not None and kind not in NO_STALE_CHECK and version < table.state_version:
        raise ServiceError(409, "stale",
                           "La mesa cambió mientras decidías: mira cómo quedó",
                           with_state=True)
    ctx = Ctx(table, seats, load_game(table), device_id, action_id, version, robot_seat,
              request_digest=digest)
    from . import clock

    mine = ctx.me if robot_seat is None else None
    if mine is not None and mine.standin:
        clock.take_back_locked(ctx, mine)  # the person is back (issue 8)
    HANDLERS[kind](ctx, body)
    if ctx.game_changed and ctx.game is not None:
        table.game_json = ctx.game.to_json()
    table.robot_due = bool(due_robot_seats(table, seats, ctx.game))
    done = _Done(Outcome(table_id, table.version, None), before=before, device_id=device_id)
    if ctx.rows:
        table.updated_at = utcnow()  # before the clock's queries flush the row: one UPDATE
        clock_state = clock.sync_locked(table, seats, ctx.game)
        db.session.flush()
        # Kept once the commit succeeds; read before it (the commit expires the objects).
        done.snap = snapshot.after_action(table, seats, ctx.game, clock_state, ctx.rows, before)
        done.changed = True
    else:
        db.session.flush()
    done.outcome.version = table.version
    done.robot_due = table.robot_due
    done.humans = humans_to_act(table, seats, ctx.game)
    return done


def after_commit(table_id: str, version: int, humans: list[int], robot_due: bool) -> None:
    """Wake the pages, the robots and whoever registered a hook. Never raises."""
    from . import live, robot_worker

    live.publish(table_id, version)
    if robot_due:
        robot_worker.kick(table_id)
    for hook in list(_after_commit_hooks):
        try:
            hook(table_id, version, humans)
        except Exception:  # a hook's failure must not undo or fail a committed action
            current_app.logger.exception("after-commit hook failed")


# -------------------------------------------------------------------- handlers


def _need_host(ctx: Ctx) -> None:
    if ctx.robot_seat is not None or ctx.device_id is None \
            or ctx.device_id != ctx.table.host_device_id:
        raise ServiceError(403, "not_host", "Solo quien arma la mesa puede hacer eso")


def _need_lobby(ctx: Ctx) -> None:
    if ctx.table.status != "lobby":
        raise ServiceError(409, "game_started", "La partida ya empezó", with_state=True)


def _need_seated(ctx: Ctx, human_only: bool = True) -> Seat:
    me = ctx.me
    if me is None or (human_only and ctx.robot_seat is not None):
        raise ServiceError(403, "not_seated", "No tienes lugar en esta mesa")
    return me


def _seat_arg(body: Mapping[str, Any], key: str = "seat") -> int:
    value = body.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise bad_request("bad_seat", "Ese asiento no existe")
    return value


def _deal(ctx: Ctx) -> None:
    assert ctx.game is not None
    deck = shuffled_deck()
    events = ctx.game.apply({"type": "deal", "deck": deck})
    ctx.table.hand_level = ctx.table.robot_level
    ctx.game_changed = True
    ctx.log("deal", None, {"type": "deal", "deck": deck}, events)


def _new_game(ctx: Ctx) -> None:
    t = ctx.table
    t.game_number += 1
    t.status = "playing"
    ctx.game = Game(Options(target=t.target, renege=t.renege))
    ctx.game_changed = True
    ctx.log("new_game", None, {"type": "new_game", "game_number": t.game_number})
    _deal(ctx)


def h_sit(ctx: Ctx, body: Mapping[str, Any]) -> None:
    if ctx.robot_seat is not None or ctx.device_id is None:
        raise ServiceError(403, "no_device", "Tu dispositivo no está identificado")
    if ctx.me is not None:
        return  # already seated here: a person returns to their seat
    name = clean_name(body.get("name"))
    if ctx.table.status != "lobby":
        from .clock import sit_vacant

        vacant = next((s for s in ctx.seats if s.kind == "robot" and s.vacant), None)
        if vacant is not None:
            refuse_taken_name(name, ctx.seats, vacant)
        if sit_vacant(ctx, name):  # a seat left in an earlier game
            _claim_host_if_none(ctx)
            return
    _need_lobby(ctx)
    free = next((s for s in ctx.seats if s.kind == "empty"), None)
    if free is None:
        raise ServiceError(409, "table_full", "La mesa está llena: puedes mirar", with_state=True)
    refuse_taken_name(name, ctx.seats)
    free.kind, free.name, free.device_id, free.left = "human", name, ctx.device_id, False
    free.robot_name, free.wants_rematch = "", False
    ctx.log("sit", free.seat, {"type": "sit", "seat": free.seat, "name": name})
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
        if s.kind == "human" and not s.left and s.device_id is not None:
            t.host_device_id = s.device_id
            return s.seat
    t.host_device_id = None
    return None


def h_add_robot(ctx: Ctx, body: Mapping[str, Any]) -> None:
    _need_host(ctx)
    seat = _seat_arg(body)
    _need_lobby(ctx)
    s = ctx.seats[seat]
    if s.kind != "empty":
        raise ServiceError(409, "seat_taken", "Ese lugar está ocupado", with_state=True)
    s.kind, s.name, s.robot_name, s.device_id = "robot", "", free_robot_name(ctx.seats), None
    ctx.log("add_robot", seat, {"type": "add_robot", "seat": seat, "name": s.robot_name})


def h_remove_robot(ctx: Ctx, body: Mapping[str, Any]) -> None:
    _need_host(ctx)
    seat = _seat_arg(body)
    _need_lobby(ctx)
    s = ctx.seats[seat]
    if s.kind != "robot":
        raise ServiceError(409, "not_robot", "Ahí no hay un robot", with_state=True)
    s.kind, s.robot_name = "empty", ""
    ctx.log("remove_robot", seat, {"type": "remove_robot", "seat": seat})


def h_start(ctx: Ctx, body: Mapping[str, Any]) -> None:
    _need_host(ctx)
    _need_lobby(ctx)
    if any(s.kind == "empty" for s in ctx.seats):
        raise ServiceError(409, "not_full", "Faltan jugadores: se necesitan cuatro",
                           with_state=True)
    ctx.log("start", None, {"type": "start"})
    _new_game(ctx)


def h_leave(ctx: Ctx, body: Mapping[str, Any]) -> None:
    me = _need_seated(ctx)
    t = ctx.table
    if t.status == "lobby":
        if me.device_id == t.host_device_id:
            raise ServiceError(409, "host_cannot_leave",
                               "Quien arma la mesa no puede dejarla antes de empezar")
        me.kind, me.name, me.device_id, me.wants_rematch = "empty", "", None, False
        payload: dict[str, Any] = {"type": "leave", "seat": me.seat}
    else:
        new_host = _pass_host(ctx, me)
        me.left, me.wants_rematch = True, False
        me.robot_name = free_robot_name(ctx.seats)
        payload = {"type": "leave", "seat": me.seat}
        if new_host is not None:
            payload["host_seat"] = new_host
    ctx.log("leave", me.seat, payload)
    if t.status == "finished":
        _maybe_rematch(ctx)


def h_reissue_link(ctx: Ctx, body: Mapping[str, Any]) -> None:
    _need_host(ctx)
    seat = _seat_arg(body)
    s = ctx.seats[seat]
    if s.kind != "human" or s.left:
        raise ServiceError(409, "not_human", "Ese lugar no es de una persona", with_state=True)
    s.link_gen += 1
    ctx.log("reissue_link", seat, {"type": "reissue_link", "seat": seat})


def _game_action(ctx: Ctx, body: Mapping[str, Any], action: dict[str, Any]) -> None:
    t = ctx.table
    if ctx.robot_seat is not None:
        me = ctx.seats[ctx.robot_seat]
        if not (is_robotic(me) or me.standin):
            raise ServiceError(409, "not_robot", "Ahí no hay un robot")
    else:
        me = _need_seated(ctx)
    if t.status != "playing" or ctx.game is None:
        raise ServiceError(409, "wrong_phase", "La partida no está en juego", with_state=True)
    action["seat"] = me.seat
    try:
        events = ctx.game.apply(action)
    except RulesError as err:
        raise ServiceError.from_rules(err) from None
    ctx.game_changed = True
    ctx.log(action["type"], me.seat, action, events)
    if ctx.game.phase == DEALING:
        _deal(ctx)
    elif ctx.game.phase == GAME_OVER:
        t.status = "finished"
        for s in ctx.seats:
            s.wants_rematch = False


def _cards_arg(body: Mapping[str, Any], required: bool = True) -> list[str] | None:
    cards = body.get("cards")
    if cards is None and not required:
        return None
    if not isinstance(cards, list) or len(cards) != 3 or not all(isinstance(c, str) for c in cards):
        raise bad_request("bad_pass", "Elige exactamente 3 cartas para pasar")
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
        raise bad_request("bad_card", "Esa carta no existe")
    _game_action(ctx, body, {"type": "play", "card": card.strip().upper().replace("10", "T")})


def h_accuse(ctx: Ctx, body: Mapping[str, Any]) -> None:
    if ctx.robot_seat is not None:
        raise ServiceError(403, "robots_never_accuse", "Los robots no acusan")
    _game_action(ctx, body, {"type": "accuse", "accused": _seat_arg(body, "accused")})


def h_close_count(ctx: Ctx, body: Mapping[str, Any]) -> None:
    if ctx.robot_seat is not None and active_humans(ctx.seats):
        raise ServiceError(409, "humans_close", "La cuenta la cierra una persona")
    _game_action(ctx, body, {"type": "close_count"})


def h_chat(ctx: Ctx, body: Mapping[str, Any]) -> None:
    me = _need_seated(ctx)
    text = clean_chat(body.get("text"))
    ctx.log("chat", me.seat, {"type": "chat", "seat": me.seat, "name": me.name, "text": text})


def h_taunt(ctx: Ctx, body: Mapping[str, Any]) -> None:
    me = _need_seated(ctx)
    taunt_id = body.get("taunt_id")
    if not isinstance(taunt_id, str) or taunt_id not in TAUNT_TEXT:
        raise bad_request("bad_taunt", "Esa pulla no existe")
    g = ctx.game
    if ctx.table.status != "finished" or g is None or g.phase != GAME_OVER \
            or me.seat not in g.winners:
        raise ServiceError(403, "not_winner", "Solo los ganadores pueden picar a los demás")
    ctx.log("taunt", me.seat, {"type": "taunt", "seat": me.seat, "name": me.name,
                               "taunt_id": taunt_id, "text": TAUNT_TEXT[taunt_id]})


def _maybe_rematch(ctx: Ctx) -> None:
    humans = [s for s in ctx.seats if s.kind == "human" and not s.left]
    if not humans or not all(s.wants_rematch for s in humans):
        return
    from .clock import vacate_left_seats

    vacate_left_seats(ctx.seats)  # free for whoever opens the link (issue 8)
    for s in ctx.seats:
        s.wants_rematch = False
    _new_game(ctx)


def h_rematch(ctx: Ctx, body: Mapping[str, Any]) -> None:
    me = _need_seated(ctx)
    if ctx.table.status != "finished":
        raise ServiceError(409, "not_finished", "La partida todavía no terminó", with_state=True)
    if me.wants_rematch:
        return
    me.wants_rematch = True
    ctx.log("rematch", me.seat, {"type": "rematch", "seat": me.seat})
    _maybe_rematch(ctx)


def h_set_level(ctx: Ctx, body: Mapping[str, Any]) -> None:
    _need_host(ctx)
    level = body.get("robot_level")
    if level not in LEVELS:
        raise bad_request("bad_level", "El nivel de los robots es Fácil, Normal o Difícil")
    t = ctx.table
    if level == t.robot_level:
        return
    t.robot_level = level
    if t.status == "lobby":
        t.hand_level = level
    ctx.log("set_level", None, {"type": "set_level", "robot_level": level})


def h_standin(ctx: Ctx, body: Mapping[str, Any]) -> None:
    from .clock import h_standin as standin  # «Que juegue un robot» (issue 8)

    standin(ctx, body)


def h_come_back(ctx: Ctx, body: Mapping[str, Any]) -> None:
    """The person is back (issue 8): ``perform`` already gave the seat back before this handler,
    as it does for any action of a stood-in person; alone it says so, or that nothing changed."""
    if not any(r.type == "take_back" for r in ctx.rows):
        raise ServiceError(409, "not_standin", "Ningún robot está jugando por ti")


def h_set_deck(ctx: Ctx, body: Mapping[str, Any]) -> None:
    if ctx.robot_seat is not None or ctx.device_id is None:
        raise ServiceError(403, "no_device", "Tu dispositivo no está identificado")
    deck = body.get("deck")
    if deck not in DECKS:
        raise bad_request("bad_deck", "Esa baraja no existe")
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
}
assert set(HANDLERS) == set(ACTION_TYPES)


# -------------------------------------------------------------------- seat links


def move_seat(table_id: str, token: str, device: Callable[[], int]) -> int:
    """Give the seat whose private link is ``token`` to ``device()``; returns the seat. The device
    is asked for only once the link proves good (a bad link keeps nothing for it)."""
    with locked_table(table_id) as table:
        if table is None:
            raise ServiceError(404, *NOT_FOUND)
        seats = load_seats(table_id)
        s = next((s for s in seats if s.kind == "human" and not s.left and hmac.compare_digest(
            seat_token(table_id, s.seat, s.link_gen), token)), None)
        if s is None:
            raise ServiceError(404, "bad_link", "Ese enlace de lugar ya no vale")
        device_id = device()
        if s.device_id == device_id:
            return s.seat
        if seat_of_device(seats, device_id) is not None:
            raise ServiceError(409, "already_seated",
                               "Este dispositivo ya tiene otro lugar en la mesa")
        if s.device_id is not None and table.host_device_id == s.device_id:
            table.host_device_id = device_id  # host powers go with the seat's person
        s.device_id = device_id
        s.link_gen += 1  # a link moves a seat once
        ctx = Ctx(table, seats, None, device_id, None, None)
        ctx.log("move_seat", s.seat, {"type": "move_seat", "seat": s.seat})
        version, seat = table.version, s.seat
    after_commit(table_id, version, [], False)
    return seat


# -------------------------------------------------------------------- maintenance


def expire_idle_tables(days: int) -> int:
    """Delete tables idle for ``days`` days (with their seats and log). Returns how many."""
    from datetime import timedelta

    cutoff = utcnow() - timedelta(days=days)
    ids = list(db.session.execute(select(Table.id).where(Table.updated_at < cutoff)).scalars())
    for tid in ids:
        with write_transaction():  # one table at a time: never a long write lock
            for model in (Action, Seat, Viewer):
                db.session.query(model).filter(model.table_id == tid).delete()
            db.session.query(Table).filter(Table.id == tid).delete()
    return len(ids)


def pending_robot_tables(limit: int = 200) -> list[str]:
    rows = db.session.execute(
        select(Table.id).where(Table.robot_due.is_(True)).order_by(Table.updated_at).limit(limit)
    ).scalars()
    out = list(rows)
    db.session.rollback()
    return out


def table_count() -> int:
    return int(db.session.execute(select(func.count()).select_from(Table)).scalar_one())
