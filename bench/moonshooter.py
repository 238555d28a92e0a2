"""The moon-shooter: an arena opponent that goes for all the hearts whenever it is plausible.

It plays the frozen Difícil (bench/dificil_v1) except when a moon looks plausible:

- Passing: a hand with five or more hearts headed by A♥ and K♥ or Q♥, whose side suits are
  mostly high (at most three below the jack) once its three lowest side cards are gone, passes
  those three low side cards and keeps its hearts and high cards (else the Difícil pass).
- Playing: while no other seat has taken a point and its cards look strong enough (hearts held or
  taken, high cards), it plays out sampled deals going for the moon itself against opponents who
  try to stop it; if the best card brings the moon home in at least ``MOON_RATE`` of them it plays
  that card (once it holds every point taken, at least one, ``GOING_RATE`` is enough), else
  the Difícil card.

It sees one seat's view only (rules/view.py), like every robot.
"""

from __future__ import annotations

import random
from typing import Any

from dificil_v1 import decide as v1_decide
from dificil_v1.know import Knowledge, knowledge_of
from dificil_v1.policy import QS, play_card
from dificil_v1.search import candidates, sample_hands

from rules.cards import DECK, HEARTS_MASK, mask_of
from rules.game import legal_mask

MOON_RATE = 0.25  # the share of sampled deals a shot must win to be tried
GOING_RATE = 0.12  # ... and to go on with once it holds every point taken (at least one)
WORLDS = 60
HIGH = 9          # rank index of J (2 is 0): J, Q, K, A count as high cards
AH, KH, QH = 38, 37, 36


def _bits(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def moon_pass(hand: int) -> int | None:
    """The three lowest side cards when the hand is a plausible moon, else None."""
    hearts = hand & HEARTS_MASK
    if hearts.bit_count() < 5 or not hearts >> AH & 1 or not hearts & ((1 << KH) | (1 << QH)):
        return None
    side = sorted((c for c in _bits(hand) if c // 13 != 2 and c != QS), key=lambda c: (c % 13, c))
    if len(side) < 3:
        return None
    kept = side[3:]
    low_kept = sum(1 for c in kept if c % 13 < HIGH)
    if low_kept > 3:
        return None
    return (1 << side[0]) | (1 << side[1]) | (1 << side[2])


def _plausible(k: Knowledge) -> bool:
    """Nobody else has a point, and the cards held or taken look strong enough to try."""
    if any(k.points[s] for s in range(4) if s != k.me):
        return False
    if k.points[k.me] >= 6:
        return True
    hearts = (k.hand | k.taken[k.me]) & HEARTS_MASK
    high = sum(1 for c in _bits(k.hand) if c % 13 >= HIGH)
    return hearts.bit_count() >= 4 and bool(hearts & ((1 << AH) | (1 << KH))) and high >= 4


def _rollout_shoot(hands: list[int], trick: list[int], leader: int, played: int, tricks_done: int,
                   hb: bool, points: list[int], voids: list[int], me: int) -> list[int]:
    """Finish the hand with ``me`` going for the moon and the others trying to stop it."""
    hands = list(hands)
    points = list(points)
    voids = list(voids)
    trick = list(trick)
    seat = (leader + len(trick)) % 4
    while tricks_done < 13:
        first = tricks_done == 0
        while len(trick) < 4:
            h = hands[seat]
            led = trick[0] // 13 if trick else -1
            legal = legal_mask(h, led, first, hb)
            c = play_card(seat, h, legal, trick, played, first, points, voids, True, seat == me)
            if led >= 0 and c // 13 != led:
                voids[seat] |= 1 << led
            if 26 <= c < 39:
                hb = True
            hands[seat] = h & ~(1 << c)
            played |= 1 << c
            trick.append(c)
            seat = (seat + 1) % 4
        led = trick[0] // 13
        win = 0
        for i in range(1, 4):
            if trick[i] // 13 == led and trick[i] > trick[win]:
                win = i
        pts = sum(13 if c == QS else (1 if 26 <= c < 39 else 0) for c in trick)
        seat = (seat + win) % 4
        points[seat] += pts
        trick = []
        tricks_done += 1
    for s in range(4):
        if points[s] == 26:
            return [0 if t == s else 26 for t in range(4)]
    return points


def shoot_search(k: Knowledge, rng: random.Random, worlds: int = WORLDS) -> tuple[int, float]:
    """The card that brings the moon home most often, and that share of the sampled deals."""
    cands = candidates(k)
    leader = (k.me - len(k.trick)) % 4
    trick = [c for _, c in k.trick]
    led = trick[0] // 13 if trick else -1
    wins = [0] * len(cands)
    pts = [0] * len(cands)
    for _ in range(worlds):
        hands = sample_hands(k, rng)
        for i, c in enumerate(cands):
            h = list(hands)
            h[k.me] = k.hand & ~(1 << c)
            voids = list(k.voids)
            if led >= 0 and c // 13 != led:
                voids[k.me] |= 1 << led
            t = trick + [c]
            played = k.played | (1 << c)
            hb = k.hearts_broken or 26 <= c < 39
            if len(t) == 4:
                lw = 0
                for j in range(1, 4):
                    if t[j] // 13 == t[0] // 13 and t[j] > t[lw]:
                        lw = j
                p = list(k.points)
                w = (leader + lw) % 4
                p[w] += sum(13 if x == QS else (1 if 26 <= x < 39 else 0) for x in t)
                res = _rollout_shoot(h, [], w, played, k.tricks_done + 1, hb, p, voids, k.me) \
                    if k.tricks_done + 1 < 13 else _moon(p)
            else:
                res = _rollout_shoot(h, t, leader, played, k.tricks_done, hb, list(k.points),
                                     voids, k.me)
            if res[k.me] == 0 and sum(res) == 78:
                wins[i] += 1
            pts[i] += res[k.me]
    best = max(range(len(cands)), key=lambda i: (wins[i], -pts[i], -cands[i]))
    return cands[best], wins[best] / worlds


def _moon(points: list[int]) -> list[int]:
    for s in range(4):
        if points[s] == 26:
            return [0 if t == s else 26 for t in range(4)]
    return points


def decide(view: dict[str, Any], rng: random.Random, *, worlds: int = 300,
           time_limit: float | None = None) -> dict[str, Any]:
    """The moon-shooter's action for the seat of ``view`` (a pass or a card)."""
    seat = view.get("seat")
    if view.get("phase") == "passing" and isinstance(seat, int) \
            and not view["pass_confirmed"][seat]:
        sel = moon_pass(mask_of(view["hand"]))
        if sel is not None:
            return {"type": "confirm_pass", "cards": [DECK[c] for c in _bits(sel)]}
    elif view.get("phase") == "playing" and view.get("turn") == seat:
        k = knowledge_of(view)
        if k.legal & (k.legal - 1) and _plausible(k):
            card, rate = shoot_search(k, rng)
            if rate >= (GOING_RATE if k.points[k.me] else MOON_RATE):
                return {"type": "play", "card": DECK[card]}
    return v1_decide(view, "dificil", rng, worlds=worlds, time_limit=time_limit)


__all__ = ["decide", "moon_pass", "shoot_search"]
