"""Difícil as it was first shipped, frozen: the reference the current Difícil must beat.

A copy of robots/ (know.py, policy.py, search.py and the decision logic of robots/__init__.py) at
the time the arena got its hard fields, so later changes to robots/ never change it. Do not edit:
``tests/robots`` checks that it still decides as recorded. It plays from one seat's view only.

>>> decide(view, "dificil", random.Random(1))        # doctest: +SKIP
{'type': 'play', 'card': 'QS'}
"""

from __future__ import annotations

import random
from typing import Any

from rules.cards import DECK, mask_of

from .know import knowledge_of
from .policy import easy_pass, easy_play, moon_hand, pass_cards, play_card
from .search import search_play

LEVELS: tuple[str, ...] = ("facil", "normal", "dificil")
LEVEL_LABELS: dict[str, str] = {"facil": "Fácil", "normal": "Normal", "dificil": "Difícil"}
ROBOT_NAMES: tuple[str, ...] = ("Carmen", "Tito", "Luna")
HINT_WORLDS = 16
DIFICIL_WORLDS = 300


def _needs_pass(view: dict[str, Any]) -> bool:
    seat = view.get("seat")
    if view.get("phase") != "passing" or not isinstance(seat, int):
        return False
    return not view["pass_confirmed"][seat]


def _needs_play(view: dict[str, Any]) -> bool:
    return view.get("phase") == "playing" and view.get("turn") == view.get("seat") \
        and view.get("seat") is not None


def _cards(mask: int) -> list[str]:
    return [DECK[c] for c in range(52) if mask >> c & 1]


def _pass(view: dict[str, Any], level: str) -> dict[str, Any]:
    hand = mask_of(view["hand"])
    sel = easy_pass(hand) if level == "facil" else pass_cards(hand)
    return {"type": "confirm_pass", "cards": _cards(sel)}


def _play(view: dict[str, Any], level: str, rng: random.Random, worlds: int,
          time_limit: float | None) -> dict[str, Any]:
    k = knowledge_of(view)
    if not k.legal:
        raise ValueError("this view has no legal card")
    trick = [c for _, c in k.trick]
    if level == "facil":
        card = easy_play(k.hand, k.legal, trick, rng.random())
    elif level == "normal" or moon_hand(k.start_hand):
        card = play_card(k.me, k.hand, k.legal, trick, k.played, k.first_trick, k.points, k.voids,
                         shoot=moon_hand(k.start_hand))
    else:
        card = search_play(k, rng, worlds=worlds, time_limit=time_limit)
    if not k.legal >> card & 1:  # pragma: no cover - a bug guard: never an illegal card
        card = min(c for c in range(52) if k.legal >> c & 1)
    return {"type": "play", "card": DECK[card]}


def decide(view: dict[str, Any], level: str, rng: random.Random,
           *, worlds: int = DIFICIL_WORLDS, time_limit: float | None = 0.25) -> dict[str, Any]:
    """The action for the seat of ``view`` at ``level``; ValueError if it has nothing to decide.

    ``worlds`` and ``time_limit`` tune the Difícil search (``time_limit=None`` makes it reproducible
    whatever the machine's load).
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}")
    if _needs_pass(view):
        return _pass(view, level)
    if _needs_play(view):
        return _play(view, level, rng, worlds, time_limit)
    raise ValueError("this view has no decision for its seat")


def hint(view: dict[str, Any]) -> dict[str, Any]:
    """The Pista for a human: what the Difícil robot would do, with a small fixed budget."""
    return decide(view, "dificil", random.Random(0), worlds=HINT_WORLDS, time_limit=None)


__all__ = ["LEVELS", "LEVEL_LABELS", "ROBOT_NAMES", "decide", "hint"]
