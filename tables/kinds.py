"""The table's vocabulary: statuses, seat kinds, duties, action types, decks, levels, taunts and
the sizes of what people type. Values are the strings stored in the database and sent to pages;
``StrEnum`` members compare equal to them."""

from __future__ import annotations

from enum import StrEnum

import robots


class TableStatus(StrEnum):
    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"


class SeatKind(StrEnum):
    EMPTY = "empty"
    HUMAN = "human"
    ROBOT = "robot"


class DutyKind(StrEnum):
    """What a person owes the table now."""

    PASS = "pass"
    PLAY = "play"
    COUNT = "count"  # read the count and close it (SIGUIENTE MANO)
    REMATCH = "rematch"  # someone asked for ¡REVANCHA!


class OutboxStatus(StrEnum):
    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"
    STALE = "stale"


DECKS: tuple[str, ...] = ("reino", "cuatro", "jardin", "noche")
LEVELS: tuple[str, ...] = tuple(robots.LEVELS)
LEVEL_LABELS: dict[str, str] = dict(robots.LEVEL_LABELS)
ROBOT_NAMES: tuple[str, ...] = tuple(robots.ROBOT_NAMES)

NAME_MAX = 24
TABLE_NAME_MAX = 60
CHAT_MAX = 300
#: Chat lines and taunts a state carries (the latest).
CHAT_SHOWN = 50
#: Log entries one answer carries at most.
LOG_MAX = 400
#: The largest table version a client may name (versions are 32-bit integer columns).
VERSION_MAX = 2**31 - 1
#: Action ids at least this long are random enough to name a creation (UUIDs are 36).
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
CLOCK_TYPES = ("standin", "come_back")
#: A page's seed for the next hand's deal (docs/FAIR_DEAL.md).
DEAL_TYPES = ("deal_seed",)
ACTION_TYPES: tuple[str, ...] = (LOBBY_TYPES + GAME_TYPES + SOCIAL_TYPES + SETTING_TYPES
                                 + CLOCK_TYPES + DEAL_TYPES)
#: Types whose outcome cannot depend on what changed since the client's version.
NO_STALE_CHECK = frozenset({"choose_pass", "confirm_pass", "chat", "taunt", "leave", "set_deck",
                            "come_back", "deal_seed"})
#: Actions a page sends by itself, not a person's decision: they never take a seat back from its
#: stand-in (a phone left open on the table is not its person coming back).
PAGE_TYPES = frozenset({"deal_seed"})
#: The fair deal's log entries (the ``deal`` entry itself is the game's).
FAIR_LOG = ("deal_commit", "seat_commit", "deal_reveal")
#: Log entry types that do not change the table's state (the stale check ignores them).
#: ``set_deck`` is logged (with no fields) so that every process's snapshot of the table, which
#: holds each viewer's deck, is renewed: a page's state then needs no query of its own.
#: The fair deal's commitments change nothing of the game either: a seed arriving from a page
#: must not make another person's tap stale.
STATELESS_LOG = frozenset({"chat", "taunt", "set_deck", "deal_commit", "seat_commit"})
#: Log entry types shown in the chat.
SOCIAL_LOG = ("chat", "taunt")
#: Actions that keep something for a device that has none yet (a seat, a deck choice).
DEVICE_MAKING_TYPES = frozenset({"sit", "set_deck"})

#: An action id's form (``tokens.is_action_id``), as the OpenAPI document states it: visible
#: ASCII characters (1 to 64 of them).
ACTION_ID_PATTERN = "^[!-~]+$"
