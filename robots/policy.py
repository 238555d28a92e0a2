"""Hand-written Hearts play: the Normal robot, and the rollout policy of the Difícil one.

Everything works on 52-bit masks (bit ``suit * 13 + rank - 2``, see rules/cards.py), so one decision
is a few dozen integer operations: fast enough to play thousands of rollouts per second.
"""

from __future__ import annotations

from typing import Final

from rules.cards import BIT, HEARTS_MASK, INDEX, QS_BIT, SPADES_MASK, SUIT_MASK
from rules.cards import FULL_MASK as FULL
from rules.cards import POINTS_MASK as POINTS
from rules.cards import QUEEN_OF_SPADES as QS

# Final: the compiled build reads these as constants, not from the module's dictionary.
KS_BIT: Final = BIT[INDEX["KS"]]
AS_BIT: Final = BIT[INDEX["AS"]]
AKS: Final = KS_BIT | AS_BIT
LOW_SPADES: Final = SPADES_MASK & (QS_BIT - 1)  # 2S..JS
MOON_WORRY: Final = 6  # points one seat alone must hold before the others try to stop a moon


#: Cards in each 13-bit pattern, for ``count``.
_CARDS_IN: Final = tuple(bin(m).count("1") for m in range(1 << 13))


def count(mask: int) -> int:
    """Cards in a mask (``int.bit_count``, which the compiled build calls as a method of a boxed
    Python int, allocated for every call: the play-outs count cards in every decision)."""
    return (_CARDS_IN[mask & 0x1FFF] + _CARDS_IN[mask >> 13 & 0x1FFF]
            + _CARDS_IN[mask >> 26 & 0x1FFF] + _CARDS_IN[mask >> 39 & 0x1FFF])


def high(mask: int) -> int:
    """Index of the highest card of a non-empty mask."""
    return mask.bit_length() - 1


def low(mask: int) -> int:
    """Index of the lowest card of a non-empty mask."""
    return (mask & -mask).bit_length() - 1


def trick_points(cards: list[int]) -> int:
    p = 0
    for c in cards:
        if c == QS:
            p += 13
        elif 26 <= c < 39:
            p += 1
    return p


def moon_threat(me: int, points: list[int]) -> int:
    """The other seat holding every point taken so far (with enough of them to worry), else -1."""
    holder = -1
    total = 0
    for s in range(4):
        if points[s]:
            if holder >= 0:
                return -1
            holder = s
            total = points[s]
    if holder < 0 or holder == me:
        return -1
    return holder if total >= MOON_WORRY else -1


def play_card(
    me: int,
    hand: int,
    legal: int,
    trick: list[int],
    played: int,
    first: bool,
    points: list[int],
    voids: list[int],
    stop_moons: bool = True,
    shoot: bool = False,
    win_free_last: bool = True,
) -> int:
    """The Normal robot's card (an index in ``legal``).

    ``trick`` holds the cards on the table in order (the leader is ``me - len(trick)``), ``played``
    every card played this hand including them, ``points`` what each seat took so far, ``voids`` the
    suits (bits 0-3) each seat showed out of. ``stop_moons=False`` plays as if nobody were going
    for the moon (how the search models opponents who may not bother to stop one); ``shoot=True``
    goes for the moon for as long as nobody else took a point. ``win_free_last=False`` ducks when
    last on a trick without points, as the Difícil search's play-outs do (a Normal robot that
    wins such a trick with its highest card is stronger; the play-outs measured no better with
    it: docs/ROBOTS.md).
    """
    if legal & (legal - 1) == 0:
        return low(legal)
    out = FULL & ~played & ~hand  # cards in the other three hands
    n = len(trick)
    if (points[me] >= 16 or shoot) and _all_points_mine(me, points):
        return _shoot(hand, legal, trick, out)
    threat = moon_threat(me, points) if stop_moons else -1
    if n == 0:
        return _lead(me, hand, legal, out, voids, threat, points)
    led = trick[0] // 13
    follow = legal & SUIT_MASK[led]
    win = trick[0]
    win_pos = 0
    for i in range(1, n):
        c = trick[i]
        if c // 13 == led and c > win:
            win = c
            win_pos = i
    if follow:
        return _follow(me, hand, follow, trick, win, win_pos, led, out, first, voids, threat,
                       win_free_last)
    return _discard(me, legal, trick, win_pos, out, first, threat)


def moon_hand(hand: int) -> bool:
    """A 13-card hand strong enough to go for the moon from the start.

    Seven or more hearts headed by A K (six with A K Q); the Q♠ caught (held with A♠ or K♠, or A♠
    K♠ held); every side suit empty or headed by its ace; at most three low (2-9) side cards.
    """
    hearts = hand & HEARTS_MASK
    top2 = (1 << 38) | (1 << 37)
    n_hearts = hearts.bit_count()
    if n_hearts < 6 or hearts & top2 != top2 or (n_hearts < 7 and not hearts >> 36 & 1):
        return False
    spades = hand & SPADES_MASK
    if hand & QS_BIT:
        if not spades & AKS:
            return False
    elif spades and spades & AKS != AKS:
        return False
    low_side = 0
    for suit in (0, 1, 3):
        mine = hand & SUIT_MASK[suit]
        if mine and not mine >> (13 * suit + 12) & 1 and suit != 3:
            return False
        m = mine
        while m:
            c = low(m)
            m &= m - 1
            if c % 13 < 8:
                low_side += 1
    return low_side <= 3


def _all_points_mine(me: int, points: list[int]) -> bool:
    for s in range(4):
        if s != me and points[s]:
            return False
    return True


def _shoot(hand: int, legal: int, trick: list[int], out: int) -> int:
    """Going for the moon: win every trick that holds a point, give nothing away."""
    if not trick:
        # Lead a sure winner (nothing higher outstanding), hearts first; else my highest card.
        for suit in (2, 3, 1, 0):
            mine = legal & SUIT_MASK[suit]
            if mine:
                c = high(mine)
                if not (out & SUIT_MASK[suit] & ~((1 << c) - 1)):
                    return c
        best = -1
        for suit in range(4):
            mine = legal & SUIT_MASK[suit]
            if mine and (best < 0 or high(mine) % 13 > best % 13):
                best = high(mine)
        return best
    led = trick[0] // 13
    follow = legal & SUIT_MASK[led]
    if follow:
        win = max(c for c in trick if c // 13 == led)
        return high(follow) if high(follow) > win else low(follow)
    safe = legal & ~POINTS
    if safe:
        # Keep sure winners: throw the lowest card of the weakest suit.
        return min((c for c in range(52) if safe >> c & 1), key=lambda c: c % 13)
    return low(legal)


def _follow(
    me: int, hand: int, follow: int, trick: list[int], win: int, win_pos: int, led: int, out: int,
    first: bool, voids: list[int], threat: int, win_free_last: bool,
) -> int:
    n = len(trick)
    last = n == 3
    if first:
        # Nobody may drop points on the first trick: shed the highest club.
        return high(follow)
    below = follow & ((1 << win) - 1)
    pts = trick_points(trick)
    if threat >= 0 and pts:
        # Stop a moon: take this trick (it holds a point) if one of my cards can win it.
        above = follow & ~((1 << (win + 1)) - 1)
        if above:
            return high(above)
    if last and pts == 0 and win_free_last:
        # Last to play on a trick without points: win it with the highest card (not the Q♠),
        # which would otherwise catch points on a later trick.
        safe = follow & ~QS_BIT
        if safe and high(safe) > win:
            return high(safe)
    if led == 3:
        if follow & QS_BIT and win > QS:
            return QS
        if below:
            return high(below)
        rest = follow & ~QS_BIT
        if not rest:
            return QS
        if hand & QS_BIT or not (out & QS_BIT) or (last and pts == 0):
            return high(rest)
        return low(rest)
    if below:
        return high(below)
    if last:
        return high(follow)
    # I will win unless someone behind me goes higher.
    higher_out = out & SUIT_MASK[led] & ~((1 << high(follow)) - 1)
    behind_void = True
    for k in range(1, 4 - n):
        if not voids[(me + k) % 4] >> led & 1:
            behind_void = False
    if led == 2:
        return low(follow) if higher_out and not behind_void else high(follow)
    if behind_void or not (out & SUIT_MASK[led] & ~((1 << low(follow)) - 1)):
        return high(follow)
    if pts == 0 and _suit_is_fresh(out, led):
        return high(follow)
    return low(follow)


def _suit_is_fresh(out: int, suit: int) -> bool:
    """Most of the suit is still out: nobody is likely to be void yet."""
    return count(out & SUIT_MASK[suit]) >= 7


def _discard(
    me: int, legal: int, trick: list[int], win_pos: int, out: int, first: bool, threat: int
) -> int:
    n = len(trick)
    winner_seat = (me - n + win_pos) % 4
    feeding_threat = threat >= 0 and winner_seat == threat
    if feeding_threat:
        # Do not hand points to a seat going for the moon: shed a high safe card instead.
        safe = legal & ~POINTS
        if safe:
            return _most_dangerous(safe, out)
    if legal & QS_BIT:
        return QS
    if out & QS_BIT and legal & AKS:
        return high(legal & AKS)
    hearts = legal & HEARTS_MASK
    if hearts and not first:
        hh = high(hearts)
        # A high heart is a liability; a low one is an exit: keep 2H-5H when other cards are bad.
        if hh >= 26 + 5 or not (legal & ~HEARTS_MASK):
            return hh
    return _most_dangerous(legal, out)


def _most_dangerous(cards: int, out: int) -> int:
    """The card most likely to win a trick later: high, few outstanding cards above it."""
    best = -1
    best_score = -1000
    for suit in range(4):
        mine = cards & SUIT_MASK[suit]
        if not mine:
            continue
        c = high(mine)
        above = count(out & SUIT_MASK[suit] & ~((1 << (c + 1)) - 1))
        below = count(out & SUIT_MASK[suit] & ((1 << c) - 1))
        length = count(mine)
        score = (c % 13) * 2 - above * 3 + (3 if below else -6) - length
        if suit == 2:
            score += 3
        if score > best_score:
            best_score = score
            best = c
    return best


def _lead(
    me: int, hand: int, legal: int, out: int, voids: list[int], threat: int, points: list[int]
) -> int:
    if threat >= 0 and legal & HEARTS_MASK:
        # Take a heart from the shooter: lead the top heart if nobody can beat it.
        hh = high(legal & HEARTS_MASK)
        if not (out & HEARTS_MASK & ~((1 << hh) - 1)):
            return hh
    best = -1
    best_score = 1e9
    for suit in range(4):
        mine = legal & SUIT_MASK[suit]
        if not mine:
            continue
        out_s = out & SUIT_MASK[suit]
        c = _lead_card(mine, out_s, suit, hand, out)
        higher = count(out_s & ~((1 << (c + 1)) - 1))
        score = 0.0
        if higher == 0:
            score += 20.0 if out_s else 12.0
        else:
            score += 6.0 / higher
        void_opps = 0
        for k in (1, 2, 3):
            if voids[(me + k) % 4] >> suit & 1:
                void_opps += 1
        score += void_opps * (4.0 if higher <= 1 else 1.5)
        if suit == 3:
            if hand & QS_BIT:
                score += 4.0 if c != QS else 30.0
                if count(hand & SPADES_MASK) >= 5:
                    score -= 2.0
            elif out & QS_BIT:
                if c > QS:
                    score += 25.0
                elif not hand & AKS:
                    score -= 3.0  # fish for the queen
        elif suit == 2:
            score += 1.5 + (c - 26) * 0.3
        score += (c % 13) * 0.1
        if score < best_score:
            best_score = score
            best = c
    return best


def _lead_card(mine: int, out_s: int, suit: int, hand: int, out: int) -> int:
    """Within a suit, the highest card that still has two or more outstanding cards above it."""
    if suit == 3:
        safe = mine & ~QS_BIT & ~(AKS if out & QS_BIT else 0)
        if safe:
            mine = safe
    c = low(mine)
    m = mine & ~(1 << c)
    while m:
        d = low(m)
        m &= m - 1
        if count(out_s & ~((1 << (d + 1)) - 1)) >= 3:
            c = d
        else:
            break
    return c


def pass_cards(hand: int) -> int:
    """The Normal robot's pass: a mask of 3 cards of ``hand`` (classic Hearts advice).

    Give Q♠ away unless four low spades guard it, and A♠/K♠ when spades are short; make a void in a
    short side suit; shed the high hearts; then the cards most likely to win tricks.
    """
    if moon_hand(hand):
        # Going for the moon: pass the lowest side cards, the ones that cannot win a trick.
        side = sorted((c for c in range(52) if hand >> c & 1 and c // 13 != 2 and c < QS),
                      key=lambda c: (c % 13, c))
        if len(side) >= 3:
            return (1 << side[0]) | (1 << side[1]) | (1 << side[2])
    sel = 0
    low_spades = (hand & LOW_SPADES).bit_count()
    keep_queen = bool(hand & QS_BIT) and low_spades >= 4
    if hand & QS_BIT and not keep_queen:
        sel |= QS_BIT
    if not keep_queen and low_spades < 3:
        for b in (AS_BIT, KS_BIT):
            if hand & b and sel.bit_count() < 3:
                sel |= b
    # A void in a short side suit (clubs or diamonds) that the free slots can empty.
    free = 3 - sel.bit_count()
    best_suit = -1
    best_val = 0.0
    for suit in (0, 1):
        mine = hand & SUIT_MASK[suit] & ~sel
        n = mine.bit_count()
        if 0 < n <= free:
            val = (high(mine) % 13) * 0.6 + (3 - n) * 2.0 + (1.0 if n == 1 else 0.0)
            if suit == 0 and mine & 1:  # 2C leads the first trick: no danger in it
                val -= 2.0
            if val > best_val:
                best_val = val
                best_suit = suit
    if best_suit >= 0 and best_val >= 4.0:
        sel |= hand & SUIT_MASK[best_suit]
    while sel.bit_count() < 3:
        rest = hand & ~sel
        sel |= 1 << pass_danger(rest, hand, keep_queen)
    return sel


def pass_danger(rest: int, hand: int, keep_queen: bool) -> int:
    """The card of ``rest`` most worth passing: high ranks, high hearts, the Q♠ unless guarded."""
    best = -1
    best_score = -1e9
    m = rest
    while m:
        c = low(m)
        m &= m - 1
        suit, r = divmod(c, 13)
        length = (rest & SUIT_MASK[suit]).bit_count()
        score = float(r)
        if suit == 2:
            score += 2.5 if r >= 9 else 0.5
        elif suit == 3:
            if c == QS:
                score = -5.0 if keep_queen else 30.0
            elif c > QS:
                score += -4.0 if keep_queen else 4.0
            else:
                score -= 3.0  # low spades guard against the queen
        score += (4 - min(length, 6)) * 0.7 if r >= 6 else 0.0
        if score > best_score:
            best_score = score
            best = c
    return best


def moon_pass(hand: int) -> int | None:
    """The three lowest side cards when a moon is plausible with what is left, else None.

    Five or more hearts headed by A♥ and K♥ or Q♥, and once the three lowest side cards are
    gone at most three side cards below the jack (the Q♠ is never passed this way).
    """
    hearts = hand & HEARTS_MASK
    if hearts.bit_count() < 5 or not hearts >> 38 & 1 or not hearts >> 36 & 3:
        return None
    side = sorted((c for c in range(52) if hand >> c & 1 and c // 13 != 2 and c != QS),
                  key=lambda c: (c % 13, c))
    if len(side) < 3 or sum(1 for c in side[3:] if c % 13 < 9) > 3:
        return None
    return (1 << side[0]) | (1 << side[1]) | (1 << side[2])


def easy_play(hand: int, legal: int, trick: list[int], roll: float) -> int:
    """The Fácil robot: legal, with a little sense (ducks, dumps high), and sometimes careless."""
    cards = [c for c in range(52) if legal >> c & 1]
    if len(cards) == 1:
        return cards[0]
    if roll < 0.3:
        return cards[int(roll / 0.3 * len(cards)) % len(cards)]
    if not trick:
        return low(legal)
    led = trick[0] // 13
    follow = legal & SUIT_MASK[led]
    if follow:
        win = max(c for c in trick if c // 13 == led)
        below = follow & ((1 << win) - 1)
        return high(below) if below else low(follow)
    if legal & QS_BIT:
        return QS
    return high(legal & HEARTS_MASK) if legal & HEARTS_MASK else high(legal)


def easy_pass(hand: int) -> int:
    """The Fácil robot's pass: its three highest-ranked cards."""
    ranked = sorted((c for c in range(52) if hand >> c & 1), key=lambda c: (c % 13, c))
    sel = 0
    for c in ranked[-3:]:
        sel |= 1 << c
    return sel
