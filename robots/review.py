"""Análisis: Difícil's judgement of one decision a person took, from that person's view alone.

``review_play(view, card)`` plays every legal card of the view (one per run of equivalent cards)
in the same sampled deals, finishes each deal with the Normal policy (``search.rollout``) and
gives the mean points each card leads to; ``review_pass(view, cards)`` does the same for the
three cards passed against Difícil's pass and a few alternatives (the other seats pass as Normal
does, then the hand is played out). Deals are sampled only from what the view shows
(``know.knowledge_of``), with a fixed seed and no time limit: the same view gives the same review,
whatever the hidden cards really were and however busy the machine is. The judgement is
Difícil's: in the sampled deals a seat that may be going for the moon plays for it
(``search.would_shoot``, the moon suspect among them), and the best card keeps Difícil's rules
against feeding a moon (``search.not_feeding``).

A decision is **marked** when the choice costs at least ``MARK`` points on average against the
best option, and the difference is clearly more than the sampling noise. A forced card (one legal
choice) is never marked. A marked decision carries one short reason in Spanish, read from what
happened in the sampled deals (the Q♠ taken, hearts taken, a moon given or missed, a void not
made), with a plain fallback.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from rules import (
    DECK,
    HEARTS_MASK,
    QS_BIT,
    SUIT_MASK,
    card_label,
    mask_of,
)
from rules import QUEEN_OF_SPADES as QS

from . import decide
from .know import Knowledge, knowledge_of
from .passing import exchanged
from .search import PLAY_WORLDS, Dealer, moon_suspect, not_feeding, rollout, would_shoot

#: Deals sampled per decision in a real review (tests pass fewer): a third more than Difícil
#: samples at most in play, and every option in all of them (play drops the clearly worse
#: cards early), so the review looks deeper than play on either build: 400 pure, 2,400 compiled.
REVIEW_WORLDS = PLAY_WORLDS * 4 // 3
#: Mean points a choice must cost against the best to be marked.
MARK = 1.0
#: ... and by how many standard errors of the paired difference (sampling noise is not a mistake).
MARK_SE = 2.0
#: The fixed seed: a review never depends on when or where it runs.
SEED = 20261201

_AS = mask_of(["AS"]).bit_length() - 1
_KS = mask_of(["KS"]).bit_length() - 1
_SUIT_WORDS = {0: "tréboles", 1: "diamantes", 2: "corazones", 3: "picas"}


@dataclass
class _Stats:
    """What one option led to over the sampled deals."""

    scores: list[int] = field(default_factory=list)
    queen: int = 0        # deals in which the seat took Q♠
    hearts: int = 0       # hearts the seat took, summed over deals without a moon
    moon_me: int = 0      # deals in which the seat shot the moon
    moon_other: int = 0   # deals in which another seat shot the moon

    def add(self, result: list[int], raw: list[int] | None, me: int, queen_before: bool) -> None:
        self.scores.append(result[me])
        shooter = _moon(result)
        if shooter == me:
            self.moon_me += 1
        elif shooter >= 0:
            self.moon_other += 1
        else:
            pts = raw[me] if raw is not None else result[me]
            took_queen = queen_before and pts >= 13
            self.queen += took_queen
            self.hearts += pts - 13 * took_queen

    @property
    def mean(self) -> float:
        return sum(self.scores) / max(1, len(self.scores))


def _moon(result: list[int]) -> int:
    """The seat that shot the moon in a hand's scores (0 for it, 26 for the others), or -1."""
    if sorted(result) == [0, 26, 26, 26]:
        return result.index(0)
    return -1


def _num(x: float) -> str:
    """A number as a Spanish reader writes it: one decimal, with a comma."""
    return f"{x:.1f}".replace(".", ",")


def _pct(n: int, of: int) -> str:
    """How often: «nunca», «siempre», or «el 40 % de las veces»."""
    if n <= 0:
        return "nunca"
    if n >= of:
        return "siempre"
    return f"el {round(100 * n / max(1, of))} % de las veces"


def _label(card: int) -> str:
    return card_label(DECK[card])


def _labels(mask: int) -> str:
    cards = [_label(c) for c in range(52) if mask >> c & 1]
    return ", ".join(cards[:-1]) + " y " + cards[-1] if len(cards) > 1 else "".join(cards)


def _paired_se(a: list[int], b: list[int]) -> float:
    n = len(a)
    if n < 2:
        return 0.0
    d = [x - y for x, y in zip(a, b, strict=True)]
    mean = sum(d) / n
    var = sum((x - mean) ** 2 for x in d) / (n - 1)
    return float((var / n) ** 0.5)


def _marked(chosen: _Stats, best: _Stats) -> bool:
    cost = chosen.mean - best.mean
    return cost >= MARK and cost > MARK_SE * _paired_se(chosen.scores, best.scores)


# -------------------------------------------------------------------- a card


def _groups(k: Knowledge, legal: int) -> dict[int, int]:
    """Each legal card -> the card that stands for its run (same suit, nothing unseen between)."""
    out: dict[int, int] = {}
    for suit in range(4):
        rep = -1
        prev = -1
        for c in range(13 * suit, 13 * suit + 13):
            if not legal >> c & 1:
                continue
            between = ((1 << c) - 1) & ~((1 << (prev + 1)) - 1) if prev >= 0 else 0
            if prev < 0 or c == QS or prev == QS or between & k.unseen:
                rep = c
            out[c] = rep
            prev = c
    return out


def _play_out(k: Knowledge, hands: list[int], card: int,
              shooter: int = -1) -> tuple[list[int], list[int] | None]:
    """Play ``card`` for the seat in one sampled deal and finish the hand (``shooter``, as in
    Difícil's search, goes for the moon and the others stop it)."""
    trick = [c for _, c in k.trick]
    leader = (k.me - len(trick)) % 4
    led = trick[0] // 13 if trick else -1
    h = list(hands)
    h[k.me] = k.hand & ~(1 << card)
    voids = list(k.voids)
    if led >= 0 and card // 13 != led:
        voids[k.me] |= 1 << led
    played = k.played | (1 << card)
    broken = k.hearts_broken or 26 <= card < 39
    result = rollout(h, trick + [card], leader, played, k.tricks_done, broken, list(k.points),
                     voids, k.me, shooter)
    return result, None


def review_play(view: dict[str, Any], card: str, *, worlds: int = REVIEW_WORLDS,
                seed: int = SEED) -> dict[str, Any]:
    """The review of playing ``card`` from the seat of ``view`` (its turn to play)."""
    k = knowledge_of(view)
    chosen = mask_of([card]).bit_length() - 1
    legal = k.legal
    base: dict[str, Any] = {"kind": "play", "chosen": DECK[chosen]}
    if legal.bit_count() <= 1 and legal >> chosen & 1:
        return {**base, "forced": True, "marked": False, "options": [], "best": DECK[chosen],
                "cost": 0.0, "reason": None, "worlds": 0}
    evaluated = legal | (1 << chosen)  # a renuncio (permitido) is judged too
    groups = _groups(k, evaluated)
    reps = sorted(set(groups.values()))
    rng = random.Random(seed)
    stats = {c: _Stats() for c in reps}
    # Q♠ not taken yet: still in a hand, or on the table in this trick.
    queen_before = not (k.played & ~mask_of([DECK[c] for _, c in k.trick])) & QS_BIT
    suspect = moon_suspect(k)
    dealer = Dealer(k)
    for _ in range(worlds):
        hands = dealer.deal(rng)
        threat = would_shoot(k, hands, suspect)
        for c in reps:
            result, raw = _play_out(k, hands, c, threat)
            stats[c].add(result, raw, k.me, queen_before)
    # Difícil's rules against feeding a moon choose among the cards first: the best is what it
    # would play, and a card they rule out is shown only when it was the player's.
    allowed = not_feeding(k, [c for c in reps if legal >> c & 1]) or reps
    shown = set(allowed) | {groups[chosen]}
    options = sorted(
        ({"card": DECK[c], "points": round(stats[groups[c]].mean, 2)}
         for c in range(52) if evaluated >> c & 1 and groups[c] in shown),
        key=lambda o: (o["points"], o["card"] != DECK[chosen]))
    best_rep = min(allowed, key=lambda c: (stats[c].mean, c != groups[chosen], c))
    mine = stats[groups[chosen]]
    best = stats[best_rep]
    best_card = best_rep
    cost = round(mine.mean - best.mean, 2)
    marked = groups[chosen] != best_rep and _marked(mine, best)
    reason = _play_reason(k, chosen, best_card, mine, best, worlds) if marked else None
    return {**base, "forced": False, "marked": marked, "options": options,
            "best": DECK[best_card], "cost": cost, "reason": reason, "worlds": worlds}


def _play_reason(k: Knowledge, chosen: int, best: int, mine: _Stats, alt: _Stats,
                 n: int) -> str:
    c, b = _label(chosen), _label(best)
    on_table = any(card == QS for _, card in k.trick)
    unseen = bool(k.unseen & QS_BIT)
    if (on_table or unseen or k.hand & QS_BIT) and (mine.queen - alt.queen) >= 0.1 * n:
        if on_table:
            return (f"La Q♠ ya estaba en la baza: con tu {c} te la llevabas (13 puntos) "
                    f"{_pct(mine.queen, n)}; con {b}, {_pct(alt.queen, n)}.")
        if unseen and chosen in (_AS, _KS):
            return (f"Con la Q♠ todavía afuera, tu {c} se iba a comer 13 puntos "
                    f"({_pct(mine.queen, n)};"
                    f" con {b}, {_pct(alt.queen, n)}).")
        if chosen == QS:
            return (f"Soltaste la Q♠ donde te la volvías a comer ({_pct(mine.queen, n)})"
                    f": con {b} la guardabas para un descarte seguro.")
        return (f"Con {c} te llevabas la Q♠ (13 puntos) {_pct(mine.queen, n)}; "
                f"con {b}, {_pct(alt.queen, n)}.")
    if (mine.moon_other - alt.moon_other) >= 0.08 * n:
        return (f"Con {c}, otro jugador se llevaba todos los corazones y la Q♠ (la luna) "
                f"{_pct(mine.moon_other, n)}: con {b} se lo impedías.")
    if (alt.moon_me - mine.moon_me) >= 0.08 * n:
        return (f"Con {b} podías llevarte todos los corazones y la Q♠ (la luna) "
                f"{_pct(alt.moon_me, n)}.")
    if (mine.hearts - alt.hearts) >= 0.8 * n:
        return (f"Con {c} te llevabas en promedio {_num((mine.hearts - alt.hearts) / n)} "
                f"corazones más que con {b}.")
    return f"Con {b} te llevabas en promedio {_num(mine.mean - alt.mean)} puntos menos."


# -------------------------------------------------------------------- the pass


def _normal_pass(hand: int, seat: int) -> int:
    """The cards the Normal robot passes from ``hand`` (the robots' public API)."""
    view = {"seat": seat, "phase": "passing", "pass_confirmed": [False] * 4,
            "hand": [DECK[c] for c in range(52) if hand >> c & 1]}
    return mask_of(decide(view, "normal", random.Random(0))["cards"])


def _top(mask: int, n: int, avoid: int = 0) -> int:
    """The ``n`` highest cards of ``mask`` by rank (outside ``avoid`` first)."""
    order = sorted((c for c in range(52) if mask >> c & 1),
                   key=lambda c: (bool(avoid >> c & 1), -(c % 13), -(c // 13)))
    out = 0
    for c in order[:n]:
        out |= 1 << c
    return out


def _alternatives(hand: int) -> list[int]:
    """A few sensible passes besides the player's and Difícil's: the three highest cards; the
    shortest side suit emptied (a void to discard on) with the highest cards besides."""
    alts = [_top(hand, 3)]
    for suit in sorted((0, 1, 3), key=lambda s: (hand & SUIT_MASK[s]).bit_count()):
        mine = hand & SUIT_MASK[suit]
        if 0 < mine.bit_count() <= 3:
            alts.append(mine | _top(hand & ~mine, 3 - mine.bit_count()))
            break
    return alts


def review_pass(view: dict[str, Any], cards: list[str], *, worlds: int = REVIEW_WORLDS,
                seed: int = SEED) -> dict[str, Any]:
    """The review of passing ``cards`` from the seat of ``view`` (passing, not yet confirmed)."""
    k = knowledge_of(view)
    me = k.me
    direction = str(view.get("pass_direction"))
    chosen = mask_of(cards)
    hand = k.hand
    dificil = mask_of(decide(view, "dificil", random.Random(seed), time_limit=None)["cards"])
    options: list[tuple[str, int]] = [("tú", chosen), ("Difícil", dificil)]
    options += [("otra", m) for m in _alternatives(hand)]
    seen: dict[int, str] = {}
    for who, m in options:
        if m.bit_count() == 3 and not m & ~hand and m not in seen:
            seen[m] = who
    passes = list(seen)
    rng = random.Random(seed)
    stats = {m: _Stats() for m in passes}
    dealer = Dealer(k)
    for _ in range(worlds):
        hands = dealer.deal(rng)
        given = [0, 0, 0, 0]
        for s in range(4):
            if s != me:
                given[s] = _normal_pass(hands[s], s)
        for m in passes:
            given[me] = m
            after, leader = exchanged(hands, given, direction)
            result = rollout(after, [], leader, 0, 0, False, [0, 0, 0, 0], [0, 0, 0, 0], me)
            stats[m].add(result, None, me, True)
    best = min(passes, key=lambda m: (stats[m].mean, m != chosen, m))
    mine = stats[chosen]
    marked = best != chosen and _marked(mine, stats[best])
    out_options = sorted(
        ({"cards": [DECK[c] for c in range(52) if m >> c & 1], "who": seen[m],
          "points": round(stats[m].mean, 2)} for m in passes),
        key=lambda o: (o["points"], o["who"] != "tú"))
    reason = _pass_reason(hand, chosen, best, mine, stats[best], worlds) if marked else None
    return {"kind": "pass", "chosen": [DECK[c] for c in range(52) if chosen >> c & 1],
            "forced": False, "marked": marked, "options": out_options,
            "best": [DECK[c] for c in range(52) if best >> c & 1],
            "cost": round(mine.mean - stats[best].mean, 2), "reason": reason, "worlds": worlds}


def _pass_reason(hand: int, chosen: int, best: int, mine: _Stats, alt: _Stats, n: int) -> str:
    kept = hand & ~chosen
    if kept & QS_BIT and (mine.queen - alt.queen) >= 0.1 * n:
        spades = (kept & SUIT_MASK[3]).bit_count() - 1
        cover = "ninguna pica" if not spades else "1 pica" if spades == 1 else f"{spades} picas"
        return (f"Te quedaste con la Q♠ y {cover} más para cubrirla: te la comías "
                f"{_pct(mine.queen, n)}. Pasando {_labels(best)}, "
                f"{_pct(alt.queen, n)}.")
    for suit in (0, 1, 3):
        if not (hand & ~best) & SUIT_MASK[suit] and kept & SUIT_MASK[suit]:
            return (f"Pasando {_labels(best)} te quedabas sin {_SUIT_WORDS[suit]}: un palo "
                    f"vacío te deja descartar la Q♠ y los corazones.")
    if (mine.moon_other - alt.moon_other) >= 0.08 * n:
        return (f"Con ese pase, otro jugador se llevaba la luna {_pct(mine.moon_other, n)}.")
    if (kept & HEARTS_MASK) and (mine.hearts - alt.hearts) >= 0.8 * n:
        return (f"Con ese pase te llevabas en promedio {_num((mine.hearts - alt.hearts) / n)} "
                f"corazones más que pasando {_labels(best)}.")
    return (f"Pasando {_labels(best)} te llevabas en promedio {_num(mine.mean - alt.mean)} "
            f"puntos menos.")


__all__ = ["MARK", "REVIEW_WORLDS", "SEED", "review_pass", "review_play"]
