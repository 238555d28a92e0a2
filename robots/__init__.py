"""Corazones' robots: Carmen, Tito and Luna.

A robot sees one seat's view (``rules.view_for(game, seat)``) and a random generator, never the
game state, and returns the action that seat takes, without ``"seat"`` (the server adds it):

>>> decide(view, "normal", random.Random(1))        # doctest: +SKIP
{'type': 'play', 'card': 'QS'}
"""

from __future__ import annotations

import random
from typing import Any

LEVELS: tuple[str, ...] = ("facil", "normal", "dificil")
LEVEL_LABELS: dict[str, str] = {"facil": "Fácil", "normal": "Normal", "dificil": "Difícil"}
ROBOT_NAMES: tuple[str, ...] = ("Carmen", "Tito", "Luna")


def _needs_pass(view: dict[str, Any]) -> bool:
    seat = view.get("seat")
    if view.get("phase") != "passing" or not isinstance(seat, int):
        return False
    return not view["pass_confirmed"][seat]


def _needs_play(view: dict[str, Any]) -> bool:
    return view.get("phase") == "playing" and view.get("turn") == view.get("seat") \
        and view.get("seat") is not None


def _playable(view: dict[str, Any]) -> list[str]:
    bad = set(view.get("renege_cards") or ())
    cards = [c for c in view["legal"] if c not in bad]
    return cards or list(view["legal"])


def decide(view: dict[str, Any], level: str, rng: random.Random) -> dict[str, Any]:
    """The action for the seat of ``view`` at ``level``; ValueError if it has nothing to decide."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}")
    if _needs_pass(view):
        hand = sorted(view["hand"])
        return {"type": "confirm_pass", "cards": rng.sample(hand, 3)}
    if _needs_play(view):
        return {"type": "play", "card": rng.choice(_playable(view))}
    raise ValueError("this view has no decision for its seat")


def hint(view: dict[str, Any]) -> dict[str, Any]:
    """The Pista for a human: what the Difícil robot would do, with a small fixed budget."""
    return decide(view, "dificil", random.Random(0))


__all__ = ["LEVELS", "LEVEL_LABELS", "ROBOT_NAMES", "decide", "hint"]
