"""Corazones' robots: Carmen, Tito and Luna.

A robot sees one seat's view (``rules.view_for(game, seat)``) and a random generator, never the
game state, and returns the action that seat takes, without ``"seat"`` (the server adds it):

>>> decide(view, "normal", random.Random(1))        # doctest: +SKIP
{'type': 'play', 'card': 'QS'}

Levels (Normal by default):

- ``facil``: passes its three highest cards, ducks and dumps simply, and plays a random legal card
  three times in ten. Loses to the Básico reference by about 0.7 points a hand.
- ``normal``: classic Hearts advice, by hand (robots/policy.py): the pass keeps Q♠ with four low
  spades, else gives Q♠/A♠/K♠ away, makes a void, sheds high hearts; the play ducks, keeps low
  exits, wins a trick without points with its highest card when last to play, dumps Q♠ and high
  cards when void, counts cards and voids, stops a moon, goes for one with a strong hand. Well
  under a millisecond a decision.
- ``dificil``: determinized Monte Carlo (robots/search.py) over deals consistent with what the seat
  knows, each candidate played out by the Normal policy; capped in simulated plays and CPU time.
  While a moon is plausible each card is also played out going for it (the others stopping it),
  and a sampled opponent with six hearts from the A♥ is played out going for one (so the search
  values the cards that stop it). Its pass plays a few sensible passes out in the same sampled
  deals (robots/passing.py) and keeps the Normal one unless another is clearly better.

``hint(view)`` is the Pista: the Difícil decision itself (the same budget), with a fixed seed and
no time limit, so the same view always gets the same hint.
Robots never renege (never a card of ``view["renege_cards"]``), never accuse and never chat.
"""

from __future__ import annotations

import random
from typing import Any

from rules.cards import DECK, mask_of

from .compiled import COMPILED
from .know import knowledge_of
from .passing import PASS_TIME_LIMIT, search_pass
from .policy import easy_pass, easy_play, moon_hand, pass_cards, play_card
from .search import PLAY_BUDGET, PLAY_TIME_LIMIT, PLAY_WORLDS, moon_plausible, search_play

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


def _cards(mask: int) -> list[str]:
    return [DECK[c] for c in range(52) if mask >> c & 1]


def _pass(view: dict[str, Any], level: str, rng: random.Random,
          time_limit: float | None) -> dict[str, Any]:
    hand = mask_of(view["hand"])
    if level == "facil":
        sel = easy_pass(hand)
    elif level == "normal":
        sel = pass_cards(hand)
    else:
        limit = None if time_limit is None else min(time_limit, PASS_TIME_LIMIT)
        sel = search_pass(knowledge_of(view), str(view["pass_direction"]), rng, time_limit=limit)
    return {"type": "confirm_pass", "cards": _cards(sel)}


def _play(view: dict[str, Any], level: str, rng: random.Random, worlds: int,
          time_limit: float | None, budget: int) -> dict[str, Any]:
    k = knowledge_of(view)
    if not k.legal:
        raise ValueError("this view has no legal card")
    trick = [c for _, c in k.trick]
    if level == "facil":
        card = easy_play(k.hand, k.legal, trick, rng.random())
    elif level == "normal":
        card = play_card(k.me, k.hand, k.legal, trick, k.played, k.first_trick, k.points, k.voids,
                         shoot=moon_hand(k.start_hand))
    else:
        card = search_play(k, rng, worlds=worlds, budget_steps=budget, time_limit=time_limit,
                           moon=moon_plausible(k))
    if not k.legal >> card & 1:  # pragma: no cover - a bug guard: never an illegal card
        card = min(c for c in range(52) if k.legal >> c & 1)
    return {"type": "play", "card": DECK[card]}


def decide(view: dict[str, Any], level: str, rng: random.Random,
           *, worlds: int = PLAY_WORLDS, time_limit: float | None = PLAY_TIME_LIMIT,
           budget: int = PLAY_BUDGET) -> dict[str, Any]:
    """The action for the seat of ``view`` at ``level``; ValueError if it has nothing to decide.

    ``worlds``, ``budget`` (simulated card plays) and ``time_limit`` tune the Difícil search
    (``time_limit=None`` makes it reproducible whatever the machine's load); by default the
    compiled build searches six times as far as the pure-Python modules (``search.PLAY_BUDGET``).
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}")
    if _needs_pass(view):
        return _pass(view, level, rng, time_limit)
    if _needs_play(view):
        return _play(view, level, rng, worlds, time_limit, budget)
    raise ValueError("this view has no decision for its seat")


def hint(view: dict[str, Any]) -> dict[str, Any]:
    """The Pista for a human: what the Difícil robot would do in that seat.

    Difícil's own search and budget (compiled or not), seeded with 0 and without the CPU-time
    stop: a hint does not change with the machine's load, and asking twice gives the same card.
    """
    return decide(view, "dificil", random.Random(0), time_limit=None)


__all__ = ["COMPILED", "LEVELS", "LEVEL_LABELS", "ROBOT_NAMES", "decide", "hint"]
