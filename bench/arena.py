"""The robots' arena (`make bench-robots`): duplicate deals against the Básico reference.

A fixed, seeded set of deals; the pass direction cycles left, right, across, none. Each deal is
played with the candidate in every seat against three Básico, and once more with Básico in all
four seats, so the paired difference (candidate minus Básico in the same seat) cancels the luck
of the cards. The last line printed is JSON.

Environment: ARENA_DEALS (500), ARENA_NORMAL_DEALS (4 x ARENA_DEALS), ARENA_SEED (2026),
ARENA_LEVELS ("facil,normal,dificil"), ARENA_ISMCTS (deals for OpenSpiel's ISMCTSBot, default
ARENA_DEALS; 0 skips it), ARENA_ISMCTS_SIMS (1000), ARENA_GAMES (games to 100 per level, 40),
ARENA_FIRST (skip that many deals of the seeded sequence: a long run split in parts),
ARENA_RENEGE (impedido, or permitido: robots must still never renege).
"""

from __future__ import annotations

import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import robots  # noqa: E402
from rules import Game, Options, view_for  # noqa: E402
from rules.cards import DECK, HEARTS_MASK, QS_BIT  # noqa: E402

QS = 49
AKS = (1 << 50) | (1 << 51)


# ----------------------------------------------------------------- Básico, the reference


def _rank_key(c: int) -> tuple[int, int]:
    return (c % 13, c // 13)


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def basico_pass(hand: int) -> int:
    """Q♠, then A♠ and K♠, then the highest hearts, then the highest others."""
    order: list[int] = []
    for c in (QS, 51, 50):
        if hand >> c & 1:
            order.append(c)
    order += sorted(_cards(hand & HEARTS_MASK), reverse=True)
    rest = [c for c in _cards(hand) if c not in order]
    order += sorted(rest, key=_rank_key, reverse=True)
    sel = 0
    for c in order[:3]:
        sel |= 1 << c
    return sel


def basico_play(hand: int, legal: int, trick: list[int], played: int) -> int:
    """Classic duck-and-dump."""
    cards = _cards(legal)
    if len(cards) == 1:
        return cards[0]
    if not trick:
        safe = [c for c in cards if not (c // 13 == 3 and c >= QS)] or cards
        return min(safe, key=_rank_key)
    led = trick[0] // 13
    follow = [c for c in cards if c // 13 == led]
    win = max(c for c in trick if c // 13 == led)
    if follow:
        if led == 3 and QS in follow and win > QS:
            return QS
        under = [c for c in follow if c < win]
        if under:
            return max(under)
        pts = any(c == QS or c // 13 == 2 for c in trick)
        if len(trick) == 3 and not pts:
            rest = [c for c in follow if c != QS]
            if rest:
                return max(rest)
        return min(follow)
    if QS in cards:
        return QS
    if not played & QS_BIT:
        aks = [c for c in cards if c in (50, 51)]
        if aks:
            return max(aks)
    hearts = [c for c in cards if c // 13 == 2]
    if hearts:
        return max(hearts)
    return max(cards, key=_rank_key)


# ----------------------------------------------------------------- players


class Player:
    name = "?"

    def start(self, g: Game, seat: int) -> None:
        """Called once the hand is dealt (before passing)."""

    def pass3(self, g: Game, seat: int) -> list[str]:
        return [DECK[c] for c in _cards(basico_pass(g.hands[seat]))]

    def play(self, g: Game, seat: int) -> int:
        raise NotImplementedError

    def observe(self, g: Game, seat: int, card: int) -> None:
        """Every card played at the table, after it was played."""

    def passes_done(self, g: Game) -> None:
        """Called after the exchange."""


class Basico(Player):
    name = "basico"

    def play(self, g: Game, seat: int) -> int:
        return basico_play(g.hands[seat], g.legal_mask(seat), [c for _, c in g.trick], g.played)


@dataclass
class Robot(Player):
    level: str
    rng: random.Random
    times: list[float] = field(default_factory=list)  # CPU seconds per card decision
    wall: list[float] = field(default_factory=list)
    name: str = "robot"
    kw: dict[str, Any] = field(default_factory=dict)  # extra decide() arguments (worlds, ...)

    def pass3(self, g: Game, seat: int) -> list[str]:
        v = view_for(g, seat)
        t = time.thread_time()
        a = robots.decide(v, self.level, self.rng, **self.kw)
        self.times.append(time.thread_time() - t)
        return list(a["cards"])

    def play(self, g: Game, seat: int) -> int:
        v = view_for(g, seat)
        t = time.thread_time()
        w = time.perf_counter()
        a = robots.decide(v, self.level, self.rng, **self.kw)
        self.times.append(time.thread_time() - t)
        self.wall.append(time.perf_counter() - w)
        card = DECK.index(a["card"])
        if card not in _cards(g.legal_mask(seat)) or a["card"] in v["renege_cards"]:
            raise AssertionError(f"illegal move {a} by {self.level}")
        return card


def _os_action(c: int) -> int:
    """OpenSpiel's card action: rank * 4 + suit (C D H S)."""
    return (c % 13) * 4 + c // 13


def _our_card(a: int) -> int:
    return (a % 4) * 13 + a // 4


class Ismcts(Player):
    """OpenSpiel's ISMCTSBot (random rollouts) playing through a mirrored OpenSpiel state.

    The state is built from the real deal and the real passes (Básico passes for it: the bot
    crashes while passing from seats 1-3), then follows every card played at the table.
    """

    name = "ismcts"

    def __init__(self, sims: int, seed: int) -> None:
        import pyspiel

        self.pyspiel = pyspiel
        self.game = pyspiel.load_game("hearts", {"qs_breaks_hearts": False})
        self.sims = sims
        self.seed = seed
        self.times: list[float] = []
        self.state: Any = None
        self.bot: Any = None

    def start(self, g: Game, seat: int) -> None:
        ps = self.pyspiel
        self.seed += 1
        ev = ps.RandomRolloutEvaluator(1, self.seed)
        self.bot = ps.ISMCTSBot(self.seed, ev, 2.0, self.sims, -1,
                                ps.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
        st = self.game.new_initial_state()
        st.apply_action({"none": 0, "left": 1, "across": 2, "right": 3}[g.pass_dir])
        # Deal in rotation 0,1,2,3 from the four hands.
        hands = [_cards(h) for h in g.hands]
        for i in range(13):
            for s in range(4):
                st.apply_action(_os_action(hands[s][i]))
        self.state = st

    def passes_done(self, g: Game) -> None:
        if g.pass_dir == "none":
            return
        for s in range(4):
            for c in _cards(g.pass_sel[s]):
                self.state.apply_action(_os_action(c))

    def observe(self, g: Game, seat: int, card: int) -> None:
        self.state.apply_action(_os_action(card))

    def play(self, g: Game, seat: int) -> int:
        assert self.state.current_player() == seat
        t = time.thread_time()
        a = self.bot.step(self.state)
        self.times.append(time.thread_time() - t)
        return _our_card(a)


# ----------------------------------------------------------------- one hand


@dataclass
class HandResult:
    scores: list[int]
    moon: int | None
    queen: int


def play_hand(deck: list[str], direction: int, players: list[Player], renege: str = "impedido",
              totals: list[int] | None = None) -> HandResult:
    g = Game(Options(renege=renege))
    g.hand_number = direction  # deal() makes it direction + 1: PASS_DIRECTIONS[direction]
    if totals is not None:
        g.totals = list(totals)
    g.apply({"type": "deal", "deck": deck})
    uniq = {id(p): p for p in players}
    for s, p in enumerate(players):
        if isinstance(p, Ismcts):
            p.start(g, s)
    if g.phase == "passing":
        for s in range(4):
            g.apply({"type": "confirm_pass", "seat": s, "cards": players[s].pass3(g, s)})
        for p in uniq.values():
            p.passes_done(g)
    while g.phase == "playing":
        s = g.turn
        assert s is not None
        c = players[s].play(g, s)
        g.play_index(s, c)
        for p in uniq.values():
            p.observe(g, s, c)
    assert g.hand_scores is not None
    queen = next(s for s in range(4) if g.taken[s] & QS_BIT)
    return HandResult(list(g.hand_scores), g.moon, queen)


def deals(n: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        d = list(DECK)
        rng.shuffle(d)
        out.append(d)
    return out


# ----------------------------------------------------------------- duplicate runs


@dataclass
class Row:
    name: str
    deals: int = 0
    points: list[float] = field(default_factory=list)    # per hand, candidate seat
    diffs: list[float] = field(default_factory=list)     # per deal, mean over the 4 seats
    moons_shot: int = 0
    moons_suffered: int = 0
    queens: int = 0
    hands: int = 0
    per_deal_points: list[float] = field(default_factory=list)

    def mean_diff(self) -> float:
        return statistics.fmean(self.diffs) if self.diffs else 0.0

    def se(self) -> float:
        if len(self.diffs) < 2:
            return 0.0
        return statistics.stdev(self.diffs) / math.sqrt(len(self.diffs))


def duplicate(make: Callable[[], Player], name: str, decks: list[list[str]],
              ref: list[list[int]], renege: str = "impedido", progress: bool = True,
              first: int = 0) -> Row:
    row = Row(name)
    cand = make()
    base = Basico()
    t0 = time.time()
    for d, deck in enumerate(decks):
        direction = (first + d) % 4
        diff = 0.0
        pts = 0.0
        for s in range(4):
            players: list[Player] = [base, base, base, base]
            players[s] = cand
            r = play_hand(deck, direction, players, renege)
            row.points.append(r.scores[s])
            pts += r.scores[s]
            diff += r.scores[s] - ref[d][s]
            row.hands += 1
            if r.moon == s:
                row.moons_shot += 1
            elif r.moon is not None:
                row.moons_suffered += 1
            if r.queen == s:
                row.queens += 1
        row.diffs.append(diff / 4)
        row.per_deal_points.append(pts / 4)
        row.deals += 1
        if progress and (d + 1) % 50 == 0:
            print(f"  {name}: {d + 1}/{len(decks)} deals, diff {row.mean_diff():+.2f} "
                  f"± {row.se():.2f}, {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    row.__dict__["times"] = getattr(cand, "times", [])
    row.__dict__["wall"] = getattr(cand, "wall", [])
    return row


def reference(decks: list[list[str]], renege: str = "impedido",
              first: int = 0) -> list[list[int]]:
    b = Basico()
    return [play_hand(deck, (first + d) % 4, [b, b, b, b], renege).scores
            for d, deck in enumerate(decks)]


def games_to_100(make: Callable[[], Player], n: int, seed: int) -> float:
    """Share of games won (ties split) by the candidate against three Básico."""
    rng = random.Random(seed)
    won = 0.0
    cand = make()
    base = Basico()
    for i in range(n):
        seat = i % 4
        players: list[Player] = [base, base, base, base]
        players[seat] = cand
        totals = [0, 0, 0, 0]
        hand = 0
        while max(totals) < 100:
            deck = list(DECK)
            rng.shuffle(deck)
            r = play_hand(deck, hand % 4, players, totals=totals)
            totals = [t + x for t, x in zip(totals, r.scores, strict=True)]
            hand += 1
        low = min(totals)
        winners = [s for s in range(4) if totals[s] == low]
        if seat in winners:
            won += 1 / len(winners)
    return won / n if n else 0.0


def ms(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    ys = sorted(xs)
    return 1000 * ys[min(len(ys) - 1, int(q * len(ys)))]


def report(row: Row, vs: str = "basico") -> None:
    times = row.__dict__.get("times", [])
    wall = row.__dict__.get("wall", [])
    ppH = statistics.fmean(row.points) if row.points else 0.0
    print(f"{row.name:8s} deals {row.deals:5d}  points/hand {ppH:6.2f}  vs {vs} "
          f"{row.mean_diff():+.2f} ± {row.se():.2f}  moons shot {row.moons_shot} "
          f"suffered {row.moons_suffered}  Q♠ {row.queens / max(1, row.hands):.1%}  "
          f"CPU ms p50 {ms(times, 0.5):.2f} p99 {ms(times, 0.99):.2f} (wall p50 "
          f"{ms(wall, 0.5):.2f} p99 {ms(wall, 0.99):.2f})", flush=True)


def main() -> None:
    n = int(os.environ.get("ARENA_DEALS", "500"))
    n_other = int(os.environ.get("ARENA_NORMAL_DEALS", str(4 * n)))
    seed = int(os.environ.get("ARENA_SEED", "2026"))
    levels = os.environ.get("ARENA_LEVELS", "facil,normal,dificil").split(",")
    n_ismcts = int(os.environ.get("ARENA_ISMCTS", str(n)))
    sims = int(os.environ.get("ARENA_ISMCTS_SIMS", "1000"))
    n_games = int(os.environ.get("ARENA_GAMES", "40"))
    first = int(os.environ.get("ARENA_FIRST", "0"))  # skip this many deals (to split a run)
    out: dict[str, Any] = {"deals": n, "seed": seed, "first": first}
    big = deals(first + max(n, n_other, n_ismcts), seed)[first:]
    renege = os.environ.get("ARENA_RENEGE", "impedido")
    out["renege"] = renege
    ref = reference(big, renege, first=first)
    if ref:
        base_pts = statistics.fmean(x for r in ref for x in r)
        print(f"basico   points/hand {base_pts:.2f} (all four seats Básico, {len(ref)} deals)",
              flush=True)
    rows: dict[str, Row] = {}
    for lv in levels:
        m = n if lv in ("dificil", "ismcts") else n_other
        if m == 0:
            continue
        if lv == "ismcts":  # the OpenSpiel reference on its own (a run split in parts)
            row = duplicate(lambda: Ismcts(sims, seed + first), lv, big[:m], ref, renege,
                            first=first)
        else:
            row = duplicate(lambda lv=lv: Robot(lv, random.Random(seed + first)), lv, big[:m],
                            ref, renege, first=first)
        rows[lv] = row
        report(row)
        out[f"{lv}_deals"] = m
        out[f"{lv}_vs_basico"] = round(row.mean_diff(), 3)
        out[f"{lv}_se"] = round(row.se(), 3)
        out[f"{lv}_points"] = round(statistics.fmean(row.points), 3)
        out[f"{lv}_moons_shot"] = row.moons_shot
        out[f"{lv}_moons_suffered"] = row.moons_suffered
        out[f"{lv}_queen_rate"] = round(row.queens / max(1, row.hands), 4)
        times = row.__dict__.get("times", [])
        out[f"{lv}_ms_p50"] = round(ms(times, 0.5), 2)
        out[f"{lv}_ms_p99"] = round(ms(times, 0.99), 2)
    if n_ismcts and "dificil" in rows:
        irow = duplicate(lambda: Ismcts(sims, seed + first), "ismcts", big[:n_ismcts], ref, renege,
                         first=first)
        report(irow)
        d = rows["dificil"]
        k = min(len(d.diffs), len(irow.diffs))
        paired = [a - b for a, b in zip(d.diffs[:k], irow.diffs[:k], strict=True)]
        se = statistics.stdev(paired) / math.sqrt(k) if k > 1 else 0.0
        out["ismcts_vs_basico"] = round(irow.mean_diff(), 3)
        out["ismcts_se"] = round(irow.se(), 3)
        out["dificil_vs_ismcts"] = round(statistics.fmean(paired), 3) if paired else 0.0
        out["dificil_vs_ismcts_se"] = round(se, 3)
        print(f"dificil vs ismcts {out['dificil_vs_ismcts']:+.2f} ± {se:.2f} ({k} deals)")
    for lv in levels:
        if n_games and lv != "ismcts":
            wr = games_to_100(lambda lv=lv: Robot(lv, random.Random(seed)), n_games, seed + 1)
            out[f"{lv}_win_rate"] = round(wr, 3)
            print(f"{lv:8s} wins {wr:.1%} of {n_games} games to 100 against three Básico",
                  flush=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
