"""Deals built card by card for the review tests: a hand's seats as they hold it after the pass."""

from __future__ import annotations

from typing import Any

from rules import Game, Options, view_for


def dealt_for(after: list[list[str]], passes: list[list[str]]) -> list[str]:
    """The deck that gives ``after`` (each seat's 13 cards after a pass to the left in which seat
    s passes ``passes[s]``, cards that seat s+1 holds afterwards)."""
    before = []
    for s in range(4):
        got = set(passes[(s - 1) % 4])
        cards = [c for c in after[s] if c not in got] + list(passes[s])
        assert len(cards) == 13, (s, cards)
        before.append(cards)
    return [before[i % 4][i // 4] for i in range(52)]


def game_at(after: list[list[str]], passes: list[list[str]], plays: list[str]) -> Game:
    """A game in its first hand (pass to the left) after the pass and ``plays`` in order."""
    g = Game(Options(target=100, renege="impedido"))
    g.apply({"type": "deal", "deck": dealt_for(after, passes)})
    for s in range(4):
        g.apply({"type": "confirm_pass", "seat": s, "cards": passes[s]})
    for card in plays:
        g.apply({"type": "play", "seat": g.turn, "card": card})
    return g


def view_at(after: list[list[str]], passes: list[list[str]], plays: list[str],
            seat: int) -> dict[str, Any]:
    return view_for(game_at(after, passes, plays), seat)
