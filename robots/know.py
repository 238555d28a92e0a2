"""What one seat knows, read from its view: masks, voids, points, the cards it passed.

Everything here is derived from ``rules.view_for(game, seat)`` alone; two deals that give the same
view give the same ``Knowledge``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.cards import FULL_MASK as FULL
from rules.cards import HEARTS_MASK, QS_BIT, SUIT_MASK, mask_of, parse_card
from rules.cards import QUEEN_OF_SPADES as QS


@dataclass
class Knowledge:
    """One seat's knowledge of the hand being played."""

    me: int
    hand: int
    legal: int
    played: int                       # every card played this hand, the current trick included
    trick: list[tuple[int, int]]      # (seat, card) of the trick on the table
    tricks_done: int
    hearts_broken: bool
    points: list[int]                 # points taken per seat this hand
    has_points: list[bool]            # seat took a point card this hand
    voids: list[int]                  # per seat, bit s set when the seat showed out of suit s
    known: list[int]                  # per seat, cards known to be in its hand (what I passed it)
    cards_left: list[int]
    passed: int = 0
    received: int = 0
    pass_to: int | None = None
    permitido: bool = False
    taken: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    no_queen: int = 0                 # bit s: seat s discarded something else while Q♠ was out
    played_by: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # per seat, this hand

    @property
    def start_hand(self) -> int:
        """This seat's 13 cards as the play began (after the exchange)."""
        return self.hand | self.played_by[self.me]

    @property
    def led_suit(self) -> int:
        return self.trick[0][1] // 13 if self.trick else -1

    @property
    def first_trick(self) -> bool:
        return self.tricks_done == 0

    @property
    def unseen(self) -> int:
        """Cards held by the other three seats."""
        return FULL & ~self.played & ~self.hand


def knowledge_of(view: dict[str, Any]) -> Knowledge:
    """Read a seat's view into masks. Raises ValueError for a spectator view."""
    me = view.get("seat")
    if not isinstance(me, int):
        raise ValueError("a robot needs a seat's view")
    hand = mask_of(view.get("hand", []))
    bad = mask_of(view.get("renege_cards") or [])
    legal = mask_of(view.get("legal", [])) & ~bad
    if not legal:
        legal = mask_of(view.get("legal", []))
    played = 0
    played_by = [0, 0, 0, 0]
    no_queen = 0
    voids = [0, 0, 0, 0]
    taken = [0, 0, 0, 0]
    all_tricks = [t["cards"] for t in view.get("tricks", [])]
    winners = [int(t["winner"]) for t in view.get("tricks", [])]
    trick = [(int(p["seat"]), parse_card(p["card"])) for p in view.get("trick", [])]
    for n, t in enumerate(all_tricks + [view.get("trick", [])]):
        cards = [(int(p["seat"]), parse_card(p["card"])) for p in t]
        if not cards:
            continue
        led = cards[0][1] // 13
        queen_out = not played & QS_BIT
        for s, c in cards:
            played |= 1 << c
            played_by[s] |= 1 << c
            if n < len(winners):
                taken[winners[n]] |= 1 << c
            if c // 13 != led:
                voids[s] |= 1 << led
                # Whoever may shed Q♠ and sheds another card most likely has no Q♠.
                if n > 0 and queen_out and c != QS:
                    no_queen |= 1 << s
    points = [int(p) for p in view.get("points_taken", [0, 0, 0, 0])]
    has_points = [bool(taken[s] & (HEARTS_MASK | QS_BIT)) for s in range(4)]
    passed = mask_of(view.get("passed") or [])
    received = mask_of(view.get("received") or [])
    pass_to = view.get("pass_to")
    known = [0, 0, 0, 0]
    if isinstance(pass_to, int) and view.get("phase") == "playing":
        known[pass_to] = passed & ~played
    voids[me] = 0
    for s in range(4):
        # Never believe a void against what I know the seat holds.
        for suit in range(4):
            if known[s] & SUIT_MASK[suit]:
                voids[s] &= ~(1 << suit)
    opts = view.get("options") or {}
    return Knowledge(
        me=me,
        hand=hand,
        legal=legal,
        played=played,
        trick=trick,
        tricks_done=len(view.get("tricks", [])),
        hearts_broken=bool(view.get("hearts_broken")),
        points=points,
        has_points=has_points,
        voids=voids,
        known=known,
        cards_left=[int(n) for n in view.get("cards_left", [13, 13, 13, 13])],
        passed=passed,
        received=received,
        pass_to=pass_to if isinstance(pass_to, int) else None,
        permitido=opts.get("renege") == "permitido",
        taken=taken,
        played_by=played_by,
        no_queen=no_queen & ~(1 << me),
    )
