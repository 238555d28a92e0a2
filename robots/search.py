"""The Difícil robot: determinized Monte Carlo search.

It deals the unseen cards many times at random, consistently with everything its seat knows (its
hand, the cards it passed, every card played, the suits each seat showed out of), plays each of its
candidate cards in every such deal, finishes the hand with the Normal robot's play for all four
seats, and keeps the card with the fewest points on average. The same deals serve every candidate,
so the comparison is paired.
"""

from __future__ import annotations

import random
import time
from typing import Final

from rules.cards import BIT, HEARTS_MASK, INDEX, POINTS_MASK, SUIT_MASK
from rules.cards import QUEEN_OF_SPADES as QS
from rules.play import legal_mask
from rules.tricks import trick_winner

from .know import Knowledge
from .policy import LOW_SPADES, MOON_WORRY, count, high, low, moon_threat, play_card

#: Hearts (held or taken, the A♥ among them) that make a sampled opponent go for the moon.
OPP_MOON_HEARTS: Final = 6
#: A moon suspect (moon_suspect) goes for the moon in a sampled deal where it holds or took this
#: many hearts, the A♥ or the K♥ among them ...
SUSPECT_HEARTS: Final = 4
#: ... and in every sampled deal once it holds as many points as make the Normal robot worry.
SUSPECT_SURE: Final = MOON_WORRY
#: Three passed side cards all below this rank index (0 is the 2; 9 the J) make a moon pass.
LOW_PASS_RANK: Final = 9
#: This module runs compiled (deploy/compile_robots.py builds the search's modules together).
COMPILED_SEARCH: Final = not __file__.endswith(".py")
#: Sampled deals a card decision plays out at most, and its budget of simulated card plays (the
#: deals times the cards left in them, for each candidate still in the running), which usually
#: ends it first. The compiled build plays them about seven times faster and gets six times the
#: budget (twice that was no stronger in a strong field, for twice the CPU: docs/ROBOTS.md).
PLAY_WORLDS: Final = 1800 if COMPILED_SEARCH else 300
PLAY_BUDGET: Final = 216_000 if COMPILED_SEARCH else 36_000
#: Seconds of the thread's CPU time a card decision may take: the budget usually ends a search
#: first, and on a slow core this stop keeps every card within 0.2 s (it is looked at after each
#: deal, a few milliseconds apart).
PLAY_TIME_LIMIT: Final = 0.2
#: A passer keeps a Q♠ it was dealt only with four low spades to guard it (the Normal robot's
#: rule and the common advice). A sampled deal that gives the Q♠ to the seat this one passed to,
#: with fewer, is dealt again, but for this share of them (a player who keeps it all the same, a
#: moon pass) ...
QS_KEPT_UNGUARDED: Final = 0.15
#: ... and at most this many times.
GUARD_REDEALS: Final = 8
_AH_BIT: Final = BIT[INDEX["AH"]]
_AH_KH: Final = _AH_BIT | BIT[INDEX["KH"]]


def long_hearts(cards: int, n: int) -> bool:
    """``cards`` hold ``n`` hearts or more, the A♥ among them (the search's moon rules)."""
    hearts = cards & HEARTS_MASK
    return hearts.bit_count() >= n and bool(hearts & _AH_BIT)


class Dealer:
    """Deals the unseen cards to the other seats, consistently with one seat's knowledge.

    What a deal needs from the knowledge (the cards to deal, how many each seat gets, the seats
    each card may go to) is worked out once here, for all the deals of a search.
    """

    def __init__(self, k: Knowledge) -> None:
        self.hands = [0, 0, 0, 0]
        self.hands[k.me] = k.hand
        self.need = [0, 0, 0, 0]
        known_all = 0
        for s in range(4):
            if s != k.me:
                self.hands[s] = k.known[s]
                known_all |= k.known[s]
                self.need[s] = k.cards_left[s] - k.known[s].bit_count()
        pool = k.unseen & ~known_all
        self.cards = [c for c in range(52) if pool >> c & 1]
        self.others = [s for s in range(4) if s != k.me]
        # The seats each card may go to (not one that showed out of its suit) ...
        self.elig = [[s for s in self.others if not k.voids[s] >> (c // 13) & 1]
                     for c in range(52)]
        likely = [s for s in self.elig[QS] if not k.no_queen >> s & 1]
        if likely:
            self.elig[QS] = likely
        # ... and the cards by how many seats may hold them: the fewer, the sooner dealt.
        self.groups: list[list[int]] = [[], [], [], []]
        for c in self.cards:
            self.groups[len(self.elig[c])].append(c)
        # After the exchange, the seat this one passed to (the Q♠ unseen and not passed to it)
        # holds the Q♠ only if it was dealt it and kept it, which a passer does with four low
        # spades (QS_KEPT_UNGUARDED): the exchange brought it only this seat's cards. Its spades
        # at the exchange: those it holds or played, less those passed to it.
        self.guard_seat = -1
        self.guard_out = k.passed
        self.guard_played = 0
        if k.pass_to is not None and k.received and QS in self.cards \
                and k.pass_to in self.elig[QS]:
            self.guard_seat = k.pass_to
            self.guard_played = k.played_by[k.pass_to]

    def deal(self, rng: random.Random, tries: int = 30) -> list[int]:
        """One deal: every seat's hand, consistent with the voids shown (``_deal``) and, most of
        the time, with the exchange (a Q♠ kept is guarded)."""
        out = self._deal(rng, tries)
        s = self.guard_seat
        if s < 0:
            return out
        for _ in range(GUARD_REDEALS):
            if not out[s] >> QS & 1 or rng.random() < QS_KEPT_UNGUARDED:
                return out
            if count((out[s] | self.guard_played) & ~self.guard_out & LOW_SPADES) >= 4:
                return out
            out = self._deal(rng, tries)
        return out

    def _deal(self, rng: random.Random, tries: int) -> list[int]:
        """One deal. After ``tries`` failed attempts (a renuncio at a permitido table can fake a
        void) the voids are ignored and only the numbers of cards are kept."""
        for attempt in range(tries + 1):
            strict = attempt < tries
            order: list[int] = []
            for group in self.groups if strict else [self.cards]:
                order.extend(_shuffled(group, rng))
            left = list(self.need)
            out = list(self.hands)
            ok = True
            for c in order:
                seats = self.elig[c] if strict else self.others
                total = 0
                for s in seats:
                    if left[s] > 0:
                        total += left[s]
                if total == 0:
                    ok = False
                    break
                r = int(rng.random() * total)  # the seat, in proportion to the cards it lacks
                for s in seats:
                    if left[s] > 0:
                        if r < left[s]:
                            out[s] |= 1 << c
                            left[s] -= 1
                            break
                        r -= left[s]
            if ok:
                return out
        raise ValueError("no deal is consistent with this view")  # pragma: no cover


def _shuffled(cards: list[int], rng: random.Random) -> list[int]:
    """A random order of ``cards`` (Fisher-Yates on the generator's C ``random()``: its
    ``shuffle`` and ``randrange`` are Python, and took a third of a deal's time)."""
    order = list(cards)
    for i in range(len(order) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        order[i], order[j] = order[j], order[i]
    return order


def rollout(
    hands: list[int],
    trick: list[int],
    leader: int,
    played: int,
    tricks_done: int,
    hearts_broken: bool,
    points: list[int],
    voids: list[int],
    me: int = -1,
    shooter: int = -1,
    others_stop: bool = False,
) -> list[int]:
    """Finish the hand with the Normal policy for all four seats; the hand's scores.

    Only ``me`` tries to stop a moon: the search does not count on the others to do it. With a
    ``shooter``, that seat goes for the moon for as long as it holds every point taken. When the
    shooter is ``me`` every other seat tries to stop it; when it is another seat, the rest play
    as if nobody were (shedding high cards and hearts on the shooter's tricks), so a moon that
    ``me`` does not stop is not stopped, unless ``others_stop``.
    """
    # The four hands in locals, not a list: the compiled build would allocate a Python int for
    # every mask written into a list (a tenth of a play-out's time).
    h0, h1, h2, h3 = hands[0], hands[1], hands[2], hands[3]
    points = list(points)
    voids = list(voids)
    trick = list(trick)
    first = tricks_done == 0
    seat = (leader + len(trick)) % 4
    all_stop = 0 <= shooter and (others_stop or shooter == me)
    while tricks_done < 13:
        while len(trick) < 4:
            h = h0 if seat == 0 else h1 if seat == 1 else h2 if seat == 2 else h3
            led = trick[0] // 13 if trick else -1
            legal = legal_mask(h, led, first, hearts_broken)
            # The play-outs duck when last on a trick without points, where the Normal robot
            # wins it: with that rule they were no better in the strongest field.
            c = play_card(seat, h, legal, trick, played, first, points, voids,
                          all_stop or seat == me, seat == shooter, win_free_last=False)
            if led >= 0 and c // 13 != led:
                voids[seat] |= 1 << led
            if 26 <= c < 39:
                hearts_broken = True
            h &= ~(1 << c)
            if seat == 0:
                h0 = h
            elif seat == 1:
                h1 = h
            elif seat == 2:
                h2 = h
            else:
                h3 = h
            played |= 1 << c
            trick.append(c)
            seat = (seat + 1) % 4
        led = trick[0] // 13
        win = 0
        best = trick[0]
        pts = 0
        for i in range(4):
            c = trick[i]
            if c // 13 == led and c > best:
                best = c
                win = i
            if c == QS:
                pts += 13
            elif 26 <= c < 39:
                pts += 1
        seat = (seat + win) % 4  # seat is back at the leader after four cards
        points[seat] += pts
        trick = []
        tricks_done += 1
        first = False
    for s in range(4):
        if points[s] == 26:
            return [0 if t == s else 26 for t in range(4)]
    return points


def candidates(k: Knowledge) -> list[int]:
    """Legal cards, one per run of cards that are equivalent (nothing unseen between them)."""
    legal = k.legal
    unseen = k.unseen
    out: list[int] = []
    for suit in range(4):
        mine = legal & SUIT_MASK[suit]
        prev = -1
        while mine:
            c = low(mine)
            mine &= mine - 1
            if prev >= 0 and c != QS and prev != QS:
                between = ((1 << c) - 1) & ~((1 << (prev + 1)) - 1)
                if not between & unseen:
                    out[-1] = c  # equivalent to prev: keep the higher one
                    prev = c
                    continue
            out.append(c)
            prev = c
    return out


def moon_plausible(k: Knowledge) -> bool:
    """Worth searching a moon for: no other seat has a point, and this seat holds or took five
    hearts with the A♥, or has taken ten points already."""
    if any(k.has_points[s] for s in range(4) if s != k.me):
        return False
    return k.points[k.me] >= 10 or long_hearts(k.hand | k.taken[k.me], 5)


def moon_suspect(k: Knowledge) -> int:
    """The other seat whose play so far says it may be going for the moon, or -1.

    Either it holds every point taken this hand, or nobody has taken a point yet and it passed
    this seat three low side cards (a pass that keeps the high cards and the hearts: the classic
    moon pass).
    """
    holders = [s for s in range(4) if k.has_points[s]]
    if len(holders) == 1:
        return holders[0] if holders[0] != k.me else -1
    if holders or k.pass_to is None or not k.received:
        return -1
    # The seat that passed to me sits as far the other way as the one I passed to.
    sender = (2 * k.me - k.pass_to) % 4
    low_side = all(c // 13 != 2 and c != QS and c % 13 < LOW_PASS_RANK
                   for c in range(52) if k.received >> c & 1)
    return sender if low_side else -1


def would_shoot(k: Knowledge, hands: list[int], suspect: int = -1) -> int:
    """The other seat that goes for the moon in this sampled deal, or -1.

    A seat that nobody else has taken a point from and that holds or took ``OPP_MOON_HEARTS``
    hearts with the A♥ is played out going for the moon (the others, this seat first, stop it);
    so is the ``suspect`` (``moon_suspect``) where it holds or took ``SUSPECT_HEARTS`` hearts
    with the A♥ or the K♥. The search then values the cards that can stop it.
    """
    for s in range(4):
        if s == k.me:
            continue
        cards = hands[s] | k.taken[s]
        if long_hearts(cards, OPP_MOON_HEARTS) or (
                s == suspect and (k.points[s] >= SUSPECT_SURE or _suspect_hearts(cards))):
            if any(k.has_points[t] for t in range(4) if t != s):
                return -1
            return s
    return -1


def not_feeding(k: Knowledge, cards: list[int]) -> list[int]:
    """``cards`` less the ones that feed the seat holding every point once it holds enough to
    worry (``policy.moon_threat``), on a trick it is winning: shed on it, no point card (unless
    only point cards are left); following its hearts without beating them, the lowest heart (the
    high ones are the stoppers).

    A seat that took every point so far and keeps winning is the one a moon comes from: a heart
    given to it feeds the moon and the high hearts are the cards that can still stop it. The
    sampled deals do not see this (they deal that seat an ordinary hand), so it is a rule.
    """
    threat = moon_threat(k.me, k.points)
    if threat < 0 or not k.trick:
        return cards
    trick = [c for _, c in k.trick]
    win = trick_winner(trick)
    if k.trick[win][0] != threat:
        return cards
    led = trick[0] // 13
    if k.hand & SUIT_MASK[led]:
        if led != 2 or any(c > trick[win] for c in cards):
            return cards
        return [min(cards)]
    safe = [c for c in cards if not POINTS_MASK >> c & 1]
    return safe or cards


def _suspect_hearts(cards: int) -> bool:
    hearts = cards & HEARTS_MASK
    return hearts.bit_count() >= SUSPECT_HEARTS and bool(hearts & _AH_KH)


def search_play(
    k: Knowledge,
    rng: random.Random,
    worlds: int = PLAY_WORLDS,
    budget_steps: int = PLAY_BUDGET,
    time_limit: float | None = PLAY_TIME_LIMIT,
    moon: bool = False,
) -> int:
    """The Difícil card: fewest mean points over sampled deals, playing out with the Normal policy.

    ``worlds`` caps the sampled deals, ``budget_steps`` the simulated card plays; candidates
    clearly worse than the best so far (paired over the same deals) stop being simulated.
    ``time_limit`` (seconds of this thread's CPU time, so a busy machine does not shorten the
    search) is a safety stop (None: none, for reproducible results). With ``moon`` every card is
    also played out going for the moon (the others then try to stop it), and the card of the
    better plan is kept.
    """
    suspect = moon_suspect(k)
    cards = not_feeding(k, candidates(k))
    if len(cards) == 1:
        return cards[0]
    opts = [(c, False) for c in cards] + ([(c, True) for c in cards] if moon else [])
    start = time.thread_time()
    remaining = max(1, sum(k.cards_left))
    leader = (k.me - len(k.trick)) % 4
    trick = [c for _, c in k.trick]
    led = trick[0] // 13 if trick else -1
    scores: list[list[int]] = [[] for _ in opts]
    active = list(range(len(opts)))
    steps = 0
    n = 0
    tries = 30
    dealer = Dealer(k)
    while n < worlds and len(active) > 1:
        try:
            hands = dealer.deal(rng, tries)
        except ValueError:  # pragma: no cover - the relaxed deal always exists
            break
        if tries and not _consistent(k, hands):
            tries = 0  # the voids cannot all be true: stop paying for strict attempts
        threat = would_shoot(k, hands, suspect)
        for i in active:
            c, shoot = opts[i]
            h = list(hands)
            h[k.me] = k.hand & ~(1 << c)
            voids = list(k.voids)
            if led >= 0 and c // 13 != led:
                voids[k.me] |= 1 << led
            played = k.played | (1 << c)
            hb = k.hearts_broken or 26 <= c < 39
            res = _finish(h, trick + [c], leader, played, k.tricks_done, hb, k.points, voids, k.me,
                          k.me if shoot else threat)
            scores[i].append(res[k.me])
        n += 1
        steps += remaining * len(active)
        if n in (16, 32, 64, 96, 128):
            active = _prune(active, scores, n)
        if steps >= budget_steps and n >= 8:
            break
        if time_limit is not None and time.thread_time() - start > time_limit:
            break
    m = len(scores[active[0]])
    best = min(active, key=lambda i: (sum(scores[i][:m]), opts[i][1], opts[i][0]))
    return opts[best][0]


def _consistent(k: Knowledge, hands: list[int]) -> bool:
    for s in range(4):
        if s != k.me:
            for suit in range(4):
                if k.voids[s] >> suit & 1 and hands[s] & SUIT_MASK[suit]:
                    return False
    return True


def _prune(active: list[int], scores: list[list[int]], n: int) -> list[int]:
    """Drop the candidates whose paired loss to the best is clearly significant."""
    best = min(active, key=lambda i: sum(scores[i]))
    keep = []
    for i in active:
        if i == best:
            keep.append(i)
            continue
        d = [a - b for a, b in zip(scores[i], scores[best], strict=True)]
        mean = sum(d) / n
        var = sum((x - mean) ** 2 for x in d) / max(1, n - 1)
        if mean <= 0.25 + 2.5 * (var / n) ** 0.5:
            keep.append(i)
    return keep


def _finish(
    hands: list[int], trick: list[int], leader: int, played: int, tricks_done: int, hb: bool,
    points: list[int], voids: list[int], me: int, shooter: int = -1,
) -> list[int]:
    if len(trick) < 4:
        return rollout(hands, trick, leader, played, tricks_done, hb, points, voids, me, shooter)
    led = trick[0] // 13
    win = 0
    best = trick[0]
    pts = 0
    for i in range(4):
        c = trick[i]
        if c // 13 == led and c > best:
            best = c
            win = i
        pts += 13 if c == QS else (1 if 26 <= c < 39 else 0)
    points = list(points)
    w = (leader + win) % 4
    points[w] += pts
    if tricks_done + 1 == 13:
        for s in range(4):
            if points[s] == 26:
                return [0 if t == s else 26 for t in range(4)]
        return points
    return rollout(hands, [], w, played, tricks_done + 1, hb, points, voids, me, shooter)


__all__ = [
    "COMPILED_SEARCH", "OPP_MOON_HEARTS", "PLAY_BUDGET", "PLAY_TIME_LIMIT", "PLAY_WORLDS",
    "Dealer", "candidates", "high", "long_hearts", "moon_plausible", "moon_suspect", "not_feeding",
    "rollout", "search_play", "would_shoot",
]
