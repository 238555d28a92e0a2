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

Hard fields (after the above; ARENA_LEVELS="" ARENA_ISMCTS=0 ARENA_GAMES=0 runs them alone): on
their own seeded deals, Difícil alone against three moon-shooters (bench/moonshooter.py), three
dificil_v1 (bench/dificil_v1: Difícil frozen as first shipped) and three Básico, each time paired
with dificil_v1 in the same seat of the same deal; then Difícil against dificil_v1 head to head
(two seats each, every deal played twice with the seats swapped, on half as many deals). Moons
shot and suffered per 100 hands, CPU per Difícil decision. ARENA_HARD (deals, 100; 0 skips),
ARENA_HARD_SEATS (candidate seats per deal, 4; fewer rotate, for a quicker run),
ARENA_HARD_FIRST (skip that many deals), ARENA_HARD_FIELDS (which of vs_basico, vs_dificil_v1,
vs_moonshooters, head_to_head to run; all by default). With four seats, ~30 s of CPU a deal.
The hard fields use common random numbers (``view_rng``: every robot's decision is seeded by the
arena's seed and the view), so hands of one deal stay alike until a decision differs;
ARENA_SEEDED=0 turns it off.
"""

from __future__ import annotations

import hashlib
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

import dificil_v1  # noqa: E402
import moonshooter  # noqa: E402

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


def view_rng(v: dict[str, Any], seed: int) -> random.Random:
    """A generator seeded by ``seed`` and what the seat sees (hand, exchange, cards played).

    Common random numbers for the hard fields: two hands of the same deal that reach the same
    view draw the same random numbers there, so players that choose alike play alike and the
    paired difference measures the decisions that differ, not the searches' luck.
    """
    key = json.dumps([seed, v.get("seat"), v.get("phase"), v.get("hand"), v.get("passed"),
                      v.get("received"), v.get("tricks"), v.get("trick")], sort_keys=True)
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


@dataclass
class Robot(Player):
    level: str
    rng: random.Random
    times: list[float] = field(default_factory=list)  # CPU seconds per card decision
    wall: list[float] = field(default_factory=list)
    name: str = "robot"
    kw: dict[str, Any] = field(default_factory=dict)  # extra decide() arguments (worlds, ...)
    pass_times: list[float] = field(default_factory=list)
    seeded: int | None = None  # seed every decision from this and the view (see view_rng)

    def _rng(self, v: dict[str, Any]) -> random.Random:
        return self.rng if self.seeded is None else view_rng(v, self.seeded)

    def _decide(self, v: dict[str, Any]) -> dict[str, Any]:
        return robots.decide(v, self.level, self._rng(v), **self.kw)

    def pass3(self, g: Game, seat: int) -> list[str]:
        v = view_for(g, seat)
        t = time.thread_time()
        a = self._decide(v)
        self.times.append(time.thread_time() - t)
        self.pass_times.append(self.times[-1])
        return list(a["cards"])

    def play(self, g: Game, seat: int) -> int:
        v = view_for(g, seat)
        t = time.thread_time()
        w = time.perf_counter()
        a = self._decide(v)
        self.times.append(time.thread_time() - t)
        self.wall.append(time.perf_counter() - w)
        card = DECK.index(a["card"])
        if card not in _cards(g.legal_mask(seat)) or a["card"] in v["renege_cards"]:
            raise AssertionError(f"illegal move {a} by {self.level}")
        return card


class DificilV1(Robot):
    """Difícil frozen as first shipped (bench/dificil_v1), reproducible (no time limit)."""

    def __init__(self, rng: random.Random, name: str = "dificil_v1",
                 seeded: int | None = None) -> None:
        super().__init__("dificil", rng, name=name, kw={"time_limit": None}, seeded=seeded)

    def _decide(self, v: dict[str, Any]) -> dict[str, Any]:
        return dificil_v1.decide(v, "dificil", self._rng(v), **self.kw)


class MoonShooter(Robot):
    """Goes for the moon whenever plausible (bench/moonshooter.py), else plays as DificilV1."""

    def __init__(self, rng: random.Random, seeded: int | None = None) -> None:
        super().__init__("moonshooter", rng, name="moonshooter", seeded=seeded)

    def _decide(self, v: dict[str, Any]) -> dict[str, Any]:
        return moonshooter.decide(v, self._rng(v))


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
        turn = g.turn
        assert turn is not None
        c = players[turn].play(g, turn)
        g.play_index(turn, c)
        for p in uniq.values():
            p.observe(g, turn, c)
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


def robot_maker(level: str, seed: int) -> Callable[[], Player]:
    """A robot of ``level`` with a generator seeded by ``seed``, new at every call."""
    return lambda: Robot(level, random.Random(seed))


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


# ----------------------------------------------------------------- hard fields


@dataclass
class Side:
    """One player's results, hand by hand, in the seats it was given."""

    points: list[float] = field(default_factory=list)
    shot: int = 0
    suffered: int = 0

    def add(self, r: HandResult, seat: int) -> None:
        self.points.append(r.scores[seat])
        if r.moon == seat:
            self.shot += 1
        elif r.moon is not None:
            self.suffered += 1

    def per100(self, n: int) -> float:
        return 100 * n / max(1, len(self.points))


@dataclass
class FieldRow:
    """A candidate and a comparison player, each alone in the same seat of the same deals
    against three copies of the field; ``diffs`` is candidate minus comparison, per deal."""

    name: str
    cand: Side = field(default_factory=Side)
    comp: Side = field(default_factory=Side)
    diffs: list[float] = field(default_factory=list)
    seat_points: list[list[tuple[int, int]]] = field(default_factory=list)  # per deal, cand

    def mean_se(self) -> tuple[float, float]:
        return _mean_se(self.diffs)


def _mean_se(xs: list[float]) -> tuple[float, float]:
    if not xs:
        return 0.0, 0.0
    se = statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0
    return statistics.fmean(xs), se


def seats_of(d: int, per_deal: int) -> list[int]:
    """The candidate's seats in deal ``d``: all four, or ``per_deal`` of them in rotation (the
    rotation is not tied to the pass direction, which follows the deal number)."""
    if per_deal >= 4:
        return [0, 1, 2, 3]
    return [(d // 4 + d + j) % 4 for j in range(per_deal)]


def field_run(name: str, cand: Player, comp: Player | None, fld: Player,
              decks: list[list[str]], per_deal: int = 4, first: int = 0,
              progress: bool = True) -> FieldRow:
    """``cand`` and ``comp`` (None: the field itself, one all-field hand per deal) in turn in the
    same seats against three ``fld``: the same paired method as the Básico arena."""
    row = FieldRow(name)
    t0 = time.time()
    for d, deck in enumerate(decks):
        direction = (first + d) % 4
        same = play_hand(deck, direction, [fld] * 4) if comp is None else None
        diff = 0.0
        seats = seats_of(first + d, per_deal)
        row.seat_points.append([])
        for s in seats:
            players: list[Player] = [fld] * 4
            players[s] = cand
            r = play_hand(deck, direction, players)
            row.cand.add(r, s)
            row.seat_points[-1].append((s, r.scores[s]))
            if same is None:
                players[s] = comp  # type: ignore[assignment]
                rc = play_hand(deck, direction, players)
            else:
                rc = same
            row.comp.add(rc, s)
            diff += r.scores[s] - rc.scores[s]
        row.diffs.append(diff / len(seats))
        if progress and (d + 1) % 10 == 0:
            m, se = row.mean_se()
            print(f"  {name}: {d + 1}/{len(decks)} deals, diff {m:+.2f} ± {se:.2f}, "
                  f"{time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    return row


def head_to_head(a: Player, b: Player, decks: list[list[str]], first: int = 0,
                 progress: bool = True) -> FieldRow:
    """``a`` in seats 0 and 2, ``b`` in 1 and 3, then every deal again with the seats swapped;
    ``diffs`` is a's mean points minus b's, per deal."""
    row = FieldRow("head_to_head")
    t0 = time.time()
    for d, deck in enumerate(decks):
        direction = (first + d) % 4
        diff = 0.0
        for pa, pb in (((0, 2), (1, 3)), ((1, 3), (0, 2))):
            players: list[Player] = [a, a, a, a]
            for s in pb:
                players[s] = b
            r = play_hand(deck, direction, players)
            for s in pa:
                row.cand.add(r, s)
                diff += r.scores[s] / 4
            for s in pb:
                row.comp.add(r, s)
                diff -= r.scores[s] / 4
        row.diffs.append(diff)
        if progress and (d + 1) % 10 == 0:
            m, se = row.mean_se()
            print(f"  head to head: {d + 1}/{len(decks)} deals, diff {m:+.2f} ± {se:.2f}, "
                  f"{time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    return row


def report_field(row: FieldRow, out: dict[str, Any], cand: str, comp: str) -> None:
    m, se = row.mean_se()
    c, k = row.cand, row.comp
    print(f"{row.name:12s} deals {len(row.diffs):4d} hands {len(c.points):5d}  {cand} "
          f"{statistics.fmean(c.points):5.2f} pts/hand, {comp} {statistics.fmean(k.points):5.2f}"
          f"  diff {m:+.2f} ± {se:.2f} (95% ± {1.96 * se:.2f})  moons per 100 hands: {cand} "
          f"shot {c.per100(c.shot):.1f} suffered {c.per100(c.suffered):.1f}, {comp} shot "
          f"{k.per100(k.shot):.1f} suffered {k.per100(k.suffered):.1f}", flush=True)
    f = row.name
    out[f"{f}_hands"] = len(c.points)
    out[f"{f}_{cand}_points"] = round(statistics.fmean(c.points), 3)
    out[f"{f}_{comp}_points"] = round(statistics.fmean(k.points), 3)
    out[f"{f}_diff"] = round(m, 3)
    out[f"{f}_diff_se"] = round(se, 3)
    out[f"{f}_{cand}_shot_per100"] = round(c.per100(c.shot), 2)
    out[f"{f}_{cand}_suffered_per100"] = round(c.per100(c.suffered), 2)
    out[f"{f}_{comp}_shot_per100"] = round(k.per100(k.shot), 2)
    out[f"{f}_{comp}_suffered_per100"] = round(k.per100(k.suffered), 2)


HARD_FIELDS = "vs_basico,vs_dificil_v1,vs_moonshooters,head_to_head"


def hard_fields(n: int, seed: int, per_deal: int, first: int, out: dict[str, Any]) -> None:
    """Difícil against the hard fields (three moon-shooters, three dificil_v1, three Básico),
    each paired with dificil_v1 in the same seats, and Difícil against dificil_v1 head to head."""
    decks = deals(first + n, seed + 1)[first:]
    out["hard_deals"] = n
    out["hard_seats_per_deal"] = min(4, per_deal)
    # Common random numbers (view_rng) unless ARENA_SEEDED=0; the candidate then searches without
    # its CPU-time safety stop too (its step budget ends its searches first), as dificil_v1 does.
    crn = seed if os.environ.get("ARENA_SEEDED", "1") != "0" else None
    out["hard_seeded"] = crn is not None
    new = Robot("dificil", random.Random(seed), name="dificil", seeded=crn,
                kw={"time_limit": None} if crn is not None else {})
    fields: list[tuple[str, Player, bool]] = [
        ("vs_basico", Basico(), False),
        ("vs_dificil_v1", DificilV1(random.Random(seed + 2), seeded=crn), True),
        ("vs_moonshooters", MoonShooter(random.Random(seed + 3), seeded=crn), False),
    ]
    wanted = os.environ.get("ARENA_HARD_FIELDS", HARD_FIELDS).split(",")
    rows = []
    vs: list[float] = []
    for name, fld, comp_is_field in fields:
        if name not in wanted:
            continue
        v1 = None if comp_is_field else DificilV1(random.Random(seed + 4), seeded=crn)
        row = field_run(name, new, v1, fld, decks, per_deal, first)
        report_field(row, out, "dificil", "v1")
        rows.append(row)
        if name == "vs_basico":
            ref = reference(decks, first=first)
            vs = [statistics.fmean(p - ref[d][s] for s, p in sp)
                  for d, sp in enumerate(row.seat_points)]
            m, se = _mean_se(vs)
            out["dificil_vs_basico_hard_decks"] = round(m, 3)
            out["dificil_vs_basico_hard_decks_se"] = round(se, 3)
            print(f"dificil vs basico {m:+.2f} ± {se:.2f} on these deals", flush=True)
    field_rows = list(rows)
    if "head_to_head" in wanted:
        h2h = head_to_head(new, DificilV1(random.Random(seed + 5), seeded=crn),
                           decks[: max(1, n // 2)], first)
        report_field(h2h, out, "dificil", "v1")
        rows.append(h2h)
    if field_rows:  # moons shot by each over the fields run (the same deals and seats for both)
        hands = sum(len(r.cand.points) for r in field_rows)
        c_shot = sum(r.cand.shot for r in field_rows)
        v_shot = sum(r.comp.shot for r in field_rows)
        c_pts = statistics.fmean(p for r in field_rows for p in r.cand.points)
        v_pts = statistics.fmean(p for r in field_rows for p in r.comp.points)
        out["fields_dificil_shot_per100"] = round(100 * c_shot / hands, 2)
        out["fields_v1_shot_per100"] = round(100 * v_shot / hands, 2)
        out["fields_dificil_points"] = round(c_pts, 3)
        out["fields_v1_points"] = round(v_pts, 3)
        print(f"moons shot per 100 hands over the fields: dificil {100 * c_shot / hands:.1f}, "
              f"v1 {100 * v_shot / hands:.1f}; points/hand dificil {c_pts:.2f}, "
              f"v1 {v_pts:.2f}", flush=True)
    dump = os.environ.get("ARENA_HARD_DUMP")
    if dump:  # every hand's figures, to pool runs split with ARENA_HARD_FIRST
        raw = {r.name: {"diffs": r.diffs, "cand": r.cand.__dict__, "comp": r.comp.__dict__}
               for r in rows}
        raw["times"] = {"cand": new.times}
        raw["dificil_vs_basico"] = {"diffs": vs}
        Path(dump).write_text(json.dumps(raw))
    times = new.times
    out["dificil_ms_p50"] = round(ms(times, 0.5), 2)
    out["dificil_ms_p99"] = round(ms(times, 0.99), 2)
    out["dificil_pass_ms_p99"] = round(ms(new.pass_times, 0.99), 2)
    out["dificil_decisions"] = len(times)
    print(f"dificil CPU ms per decision p50 {ms(times, 0.5):.1f} p99 {ms(times, 0.99):.1f} "
          f"({len(times)} decisions; passes p99 {ms(new.pass_times, 0.99):.1f})", flush=True)


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
    levels = [x for x in os.environ.get("ARENA_LEVELS", "facil,normal,dificil").split(",") if x]
    n_ismcts = int(os.environ.get("ARENA_ISMCTS", str(n)))
    sims = int(os.environ.get("ARENA_ISMCTS_SIMS", "1000"))
    n_games = int(os.environ.get("ARENA_GAMES", "40"))
    first = int(os.environ.get("ARENA_FIRST", "0"))  # skip this many deals (to split a run)
    out: dict[str, Any] = {"deals": n, "seed": seed, "first": first,
                           "robots_compiled": robots.COMPILED}
    big = deals(first + max(n, n_other, n_ismcts), seed)[first:]
    renege = os.environ.get("ARENA_RENEGE", "impedido")
    out["renege"] = renege
    ref = reference(big, renege, first=first) if levels else []
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
            row = duplicate(robot_maker(lv, seed + first), lv, big[:m], ref, renege,
                            first=first)
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
            wr = games_to_100(robot_maker(lv, seed), n_games, seed + 1)
            out[f"{lv}_win_rate"] = round(wr, 3)
            print(f"{lv:8s} wins {wr:.1%} of {n_games} games to 100 against three Básico",
                  flush=True)
    n_hard = int(os.environ.get("ARENA_HARD", "100"))
    if n_hard:
        hard_fields(n_hard, seed, int(os.environ.get("ARENA_HARD_SEATS", "4")),
                    int(os.environ.get("ARENA_HARD_FIRST", "0")), out)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
