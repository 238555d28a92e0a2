"""What one seat, or a spectator, may know of a game.

``view_for(game, seat)`` is the only thing robots and pages ever see. It carries the seat's own
hand, what it passed and received, every card played and by whom, and public facts; never another
seat's hand, another seat's pass, the deck, or who reneged before a ruling makes it public.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .cards import DECK, HEARTS_MASK, QS_BIT, bits, cards_of
from .game import (
    COUNTING,
    GAME_OVER,
    PASSING,
    PLAYING,
    Game,
    illegal_reason,
    pass_target,
)


def view_for(game: Game, seat: int | None) -> dict[str, Any]:
    """The JSON-able view of ``game`` for ``seat`` (0-3); for a spectator when ``seat`` is None."""
    phase = game.phase
    direction = game.pass_dir
    tricks = [
        {
            "number": n + 1,
            "leader": leader,
            "cards": [{"seat": (leader + i) % 4, "card": DECK[c]} for i, c in enumerate(cs)],
            "winner": winner,
        }
        for n, (leader, cs, winner) in enumerate(game.tricks)
    ]
    taken_points = [cards_of(m & (HEARTS_MASK | QS_BIT)) for m in game.taken]
    v: dict[str, Any] = {
        "seat": seat,
        "phase": phase,
        "options": game.options.to_json(),
        "hand_number": game.hand_number,
        "pass_direction": direction,
        "pass_confirmed": list(game.pass_ok) if phase == PASSING else [True] * 4,
        "turn": game.turn,
        "to_act": game.to_act(),
        "leader": game.leader if phase == PLAYING else None,
        "trick": [{"seat": s, "card": DECK[c]} for s, c in game.trick],
        "tricks": tricks,
        "hearts_broken": game.hearts_broken,
        "queen_played": bool(game.played & QS_BIT),
        "points_taken": game.points_taken(),
        "taken_cards": taken_points,
        "cards_left": [m.bit_count() for m in game.hands],
        "totals": game.display_totals(),
        "moon_threat": game.moon_threat(),
        "history": [dict(h) for h in game.history],
        "hand_result": None,
        "game_result": None,
        "can_accuse": game.options.permitido
        and phase in (PLAYING, COUNTING)
        and game.accusation is None
        and game.played != 0,
    }
    if phase in (COUNTING, GAME_OVER) and game.hand_scores is not None:
        v["hand_result"] = {
            "points": game.points_taken(),
            "scores": list(game.hand_scores),
            "moon": game.moon,
            "accusation": None if game.accusation is None else dict(game.accusation),
            "taken_cards": taken_points,
        }
    if phase == GAME_OVER:
        ranking = sorted(range(4), key=lambda s: (game.totals[s], s))
        v["game_result"] = {
            "winners": list(game.winners),
            "totals": list(game.totals),
            "ranking": ranking,
        }
        if game.history:
            last = game.history[-1]
            v["hand_result"] = {
                "points": last["points"],
                "scores": last["scores"],
                "moon": last["moon"],
                "accusation": last["accusation"],
                "taken_cards": taken_points,
            }
    if seat is None:
        return v

    hand = game.hands[seat]
    v["hand"] = cards_of(hand)
    v["pass_to"] = pass_target(seat, direction) if direction != "none" else None
    v["pass_from"] = (
        pass_target(seat, {"left": "right", "right": "left"}.get(direction, direction))
        if direction != "none"
        else None
    )
    v["pass_selected"] = cards_of(game.pass_sel[seat]) if phase == PASSING else []
    v["passed"] = cards_of(game.pass_sel[seat]) if game.pass_ok[seat] or phase != PASSING else []
    if direction == "none":
        v["passed"] = []
    v["received"] = cards_of(game.received[seat])
    legal = game.legal_mask(seat)
    if phase == PASSING and not game.pass_ok[seat]:
        legal = hand
    v["legal"] = cards_of(legal)
    illegal: dict[str, str] = {}
    if phase == PLAYING and game.turn != seat:
        illegal = dict.fromkeys(v["hand"], "No es tu turno")
    elif phase == PLAYING:
        for c in bits(hand & ~legal):
            err = illegal_reason(
                hand, c, game.led_suit, not game.tricks, game.hearts_broken,
                game.options.permitido,
            )
            if err is not None:
                illegal[DECK[c]] = err.message
    v["illegal"] = illegal
    v["renege_cards"] = cards_of(game.renege_mask(seat))
    if game.phase == GAME_OVER:
        v["game_result"]["victory"] = seat in game.winners
    return v


def public_action(action: Mapping[str, Any], viewer: int | None) -> dict[str, Any]:
    """``action`` as ``viewer`` may see it in a table's log: no deck, no other seat's pass."""
    out = dict(action)
    kind = out.get("type")
    if kind == "deal":
        out.pop("deck", None)
    elif kind in ("choose_pass", "confirm_pass") and out.get("seat") != viewer:
        out.pop("cards", None)
    return out


__all__ = ["public_action", "view_for"]
