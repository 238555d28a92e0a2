"""Helpers shared by the rules tests: build deals seat by seat, drive random legal play."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

from rules import DECK, Game, Options, cards_of
from rules.cards import bits

ALL_CARDS = frozenset(DECK)


def h(text: str) -> list[str]:
    """A list of cards from a space-separated string: ``h("2C 3C QS")``."""
    return text.split()


def deck_for(hands: list[list[str]]) -> list[str]:
    """The deck order that deals ``hands[s]`` to seat ``s`` (the i-th card goes to seat i mod 4)."""
    assert len(hands) == 4 and all(len(x) == 13 for x in hands)
    assert sorted(c for x in hands for c in x) == sorted(DECK)
    return [hands[i % 4][i // 4] for i in range(52)]


def by_suit() -> list[list[str]]:
    """Seat 0 every club, seat 1 every diamond, seat 2 every heart, seat 3 every spade."""
    return [[r + s for r in "23456789TJQKA"] for s in "CDHS"]


def new_hand(
    hands: list[list[str]],
    hand_number: int = 4,
    target: int = 100,
    renege: str = "impedido",
    totals: list[int] | None = None,
) -> Game:
    """A game whose next deal is hand ``hand_number`` (4 = no pass), dealt ``hands``."""
    g = Game(Options(target=target, renege=renege))
    if hand_number > 1 or totals:
        state = g.to_json()
        state["hand_number"] = hand_number - 1
        if totals:
            state["totals"] = list(totals)
        g = Game.from_json(state)
    g.apply({"type": "deal", "deck": deck_for(hands)})
    return g


def roundtrip(g: Game) -> Game:
    """``g`` through to_json, a JSON string and from_json."""
    return Game.from_json(json.loads(json.dumps(g.to_json())))


def random_action(g: Game, rng: random.Random, accuse_rate: float = 0.0) -> dict[str, Any]:
    """A random action that the rules accept now (game not over)."""
    if g.phase == "dealing":
        deck = list(DECK)
        rng.shuffle(deck)
        return {"type": "deal", "deck": deck}
    if g.phase == "passing":
        seat = rng.choice([s for s in range(4) if not g.pass_ok[s]])
        kind = "choose_pass" if rng.random() < 0.3 else "confirm_pass"
        return {"type": kind, "seat": seat, "cards": rng.sample(cards_of(g.hands[seat]), 3)}
    can_accuse = g.options.permitido and g.accusation is None and g.played
    if can_accuse and rng.random() < accuse_rate:
        seat = rng.randrange(4)
        accused = rng.choice([s for s in range(4) if s != seat])
        return {"type": "accuse", "seat": seat, "accused": accused}
    if g.phase == "playing":
        seat = g.turn
        assert seat is not None
        legal = bits(g.legal_mask(seat))
        # At a permitido table, lean towards reneging when it is possible, so accusations matter.
        renege = bits(g.renege_mask(seat))
        if renege and rng.random() < 0.3:
            legal = renege
        return {"type": "play", "seat": seat, "card": DECK[rng.choice(legal)]}
    assert g.phase == "counting"
    return {"type": "close_count", "seat": rng.randrange(4)}


def random_game(
    rng: random.Random, options: Options, accuse_rate: float = 0.0, max_actions: int = 5000
) -> Iterator[tuple[Game, dict[str, Any], list[dict[str, Any]]]]:
    """Play a whole random game; yield (game after the action, the action, its events)."""
    g = Game(options)
    for _ in range(max_actions):
        if g.phase == "game_over":
            return
        action = random_action(g, rng, accuse_rate)
        events = g.apply(action)
        yield g, action, events
    raise AssertionError("the game did not end")


_CARD_TOKEN = re.compile(r'"([2-9TJQKA][CDHS])"')


def strings_in(obj: Any) -> set[str]:
    """Every card-like string (a key or a value) anywhere in a JSON-able value."""
    return set(_CARD_TOKEN.findall(json.dumps(obj)))
