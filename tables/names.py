"""What people type that others read: names and chat lines.

A name is kept in NFC and must show something; it may not pass for a robot, nor read as a name
another seat at the table already shows (case, accents and look-alike letters from other scripts
aside: Unicode's confusables data, through the ``confusables`` library). Chat loses the characters
that could reorder or hide what others read.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import regex
from confusables import is_confusable

from . import errors
from .kinds import CHAT_MAX, NAME_MAX, ROBOT_NAMES, SeatKind
from .models import Seat
from .seating import is_robotic, robot_label

#: A character that shows something: not white space, not a mark alone, not a format control,
#: not a default-ignorable code point (U+3164 HANGUL FILLER, U+200B…) and not U+2800 BRAILLE BLANK.
_VISIBLE = regex.compile(r"[^\p{White_Space}\p{M}\p{Cf}\p{Default_Ignorable_Code_Point}\u2800]")
_IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
#: Bidi overrides and isolates (U+202A-202E, U+2066-2069) and zero-width characters: they can
#: reorder or hide what others read. A zero-width joiner inside an emoji sequence stays, and so do
#: the soft hyphen and the variation selectors (they only shape what is there).
_HIDDEN_IN_CHAT = regex.compile(
    r"(?!(?<=\p{Extended_Pictographic}\p{M}*)\u200d(?=\p{Extended_Pictographic}))"
    r"[\p{Cf}\p{Default_Ignorable_Code_Point}--[\u00ad\ufe00-\ufe0f]]", regex.V1)


def clean_name(value: Any, limit: int = NAME_MAX) -> str:
    """A name as others will read it: NFC, spaces folded, something visible, nothing hidden."""
    if not isinstance(value, str):
        raise errors.NAME_LENGTH.error(limit=limit)
    text = unicodedata.normalize("NFC", value)
    if any(unicodedata.category(ch).startswith("C") for ch in text):
        raise errors.NAME_CHARACTERS.error()
    text = " ".join(_IGNORABLE.sub("", text).split())
    if not 1 <= len(text) <= limit:
        raise errors.NAME_LENGTH.error(limit=limit)
    if not _VISIBLE.search(text):
        raise errors.NAME_INVISIBLE.error()
    return text


def _reads_as(name: str, other: str) -> bool:
    """Whether ``name`` reads as ``other`` (case, accents and look-alike letters aside)."""
    return name.casefold() == other.casefold() or bool(is_confusable(name, other))


def refuse_robot_like(name: str) -> None:
    """A person's name may not pass for a robot: no robot's name, nothing that reads «ROBOT …»."""
    first = name.split(" ", 1)[0]
    if _reads_as(first, "ROBOT") or any(_reads_as(name, robot) for robot in ROBOT_NAMES):
        raise errors.NAME_OF_A_ROBOT.error()


def refuse_taken_name(name: str, seats: list[Seat], mine: Seat | None = None) -> None:
    """Each seat shows a name no other seat at the table shows, nor one that looks like it."""
    refuse_robot_like(name)
    for s in seats:
        if s is mine or s.kind == SeatKind.EMPTY:
            continue
        shown = robot_label(s.robot_name) if is_robotic(s) else s.name
        if shown and _reads_as(name, shown):
            raise errors.NAME_TAKEN.error(shown=shown)


def clean_chat(value: Any) -> str:
    """A chat line with its hidden characters removed (bidi overrides, zero-width characters)."""
    if not isinstance(value, str):
        raise errors.BAD_CHAT.error()
    text = _HIDDEN_IN_CHAT.sub("", unicodedata.normalize("NFC", value)).strip()
    if len(text) > CHAT_MAX:
        raise errors.CHAT_TOO_LONG.error(limit=CHAT_MAX)
    if not text or not _VISIBLE.search(text) \
            or any(unicodedata.category(ch) in ("Cc", "Cs") and ch != "\n" for ch in text):
        raise errors.BAD_CHAT.error()
    return text
