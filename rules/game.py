"""The game of Hearts as Corazones plays it: one ``Game`` is one game to 100 or 50 points.

Phases, in order, for each hand:

``dealing``   waiting for a deck order (the table shuffles; the rules stay deterministic)
``passing``   each seat chooses 3 cards, may change them, confirms; the exchange happens when all
              four have confirmed (the 4th hand of each cycle skips this phase)
``playing``   13 tricks; the holder of 2♣ leads it
``counting``  «CONTANDO LOS PUNTOS»: the hand's points are shown; at a ``permitido`` table an
              accusation is still accepted; any seat closes the count (SIGUIENTE MANO)
``game_over`` after a closed count in which a total reached the target

Every change goes through :meth:`Game.apply` with a plain action dict, so a game is replayed from
its action list and a table stores exactly what it applied.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, Final

from .cards import (
    BIT,
    CARD_BIT,
    DECK,
    FULL_MASK,
    HEARTS_MASK,
    INDEX,
    POINTS_MASK,
    QUEEN_OF_SPADES,
    SUIT_MASK,
    SUIT_OF,
    TWO_C_BIT,
    CardError,
    bits,
    cards_of,
    mask_of,
    parse_card,
    points_of_mask,
)
from .play import (
    FOLLOW_SUIT,
    HEARTS_NOT_LED_UNTIL_BROKEN,
    IN_FORCE,
    LEAD_TWO_OF_CLUBS,
    NO_POINTS_ON_FIRST_TRICK,
    PlayRule,
    allowed,
    legal_mask,
    rules_in_force,
)
from .tricks import HAND_POINTS, hand_scores, moon_shooter, trick_winner

PASS_DIRECTIONS: Final = ("left", "right", "across", "none")
PASS_OFFSET: Final = {"left": 1, "right": 3, "across": 2, "none": 0}
TARGETS: Final = (100, 50)
RENEGE_MODES: Final = ("impedido", "permitido")

DEALING: Final = "dealing"
PASSING: Final = "passing"
PLAYING: Final = "playing"
COUNTING: Final = "counting"
GAME_OVER: Final = "game_over"
PHASES: Final = (DEALING, PASSING, PLAYING, COUNTING, GAME_OVER)

ACTION_TYPES: Final = ("deal", "choose_pass", "confirm_pass", "play", "accuse", "close_count")


class RulesError(ValueError):
    """An action the rules refuse. ``code`` is stable for programs, ``message`` is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"RulesError({self.code!r}, {self.message!r})"


@dataclass(frozen=True)
class Options:
    """What the host chose: the target (100 or 50) and the renege rule."""

    target: int = 100
    renege: str = "impedido"

    def __post_init__(self) -> None:
        if self.target not in TARGETS:
            raise RulesError("bad_target", "El juego llega a 100 o a 50 puntos")
        if self.renege not in RENEGE_MODES:
            raise RulesError("bad_renege", "El renuncio es «impedido» o «permitido»")

    @property
    def permitido(self) -> bool:
        return self.renege == "permitido"

    def to_json(self) -> dict[str, Any]:
        return {"target": self.target, "renege": self.renege}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Options:
        return cls(target=int(data.get("target", 100)), renege=str(data.get("renege", "impedido")))


def pass_direction(hand_number: int) -> str:
    """Direction of the pass in the ``hand_number``-th hand of a game (1-based)."""
    return PASS_DIRECTIONS[(hand_number - 1) % 4]


def pass_target(seat: int, direction: str) -> int:
    """The seat that receives what ``seat`` passes. Left is the next seat clockwise."""
    return (seat + PASS_OFFSET[direction]) % 4


def illegal_reason(
    hand: int,
    card: int,
    led_suit: int,
    first_trick: bool,
    hearts_broken: bool,
    permitido: bool = False,
) -> RulesError | None:
    """Why ``card`` (in ``hand``) may not be played now, or None when it may."""
    rules = IN_FORCE[led_suit + 1][first_trick][hearts_broken][permitido]
    for n, rule in enumerate(rules, 1):
        if not allowed(hand, rules[:n]) >> card & 1:
            return RulesError(rule.code, rule.message)
    return None


def _seat(value: Any, field: str = "seat") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise RulesError("bad_seat", "Ese asiento no existe")
    return value


def _card(value: Any) -> int:
    try:
        return parse_card(value)
    except CardError:
        raise RulesError("bad_card", "Esa carta no existe") from None


def _three(cards: Any) -> int:
    if not isinstance(cards, (list, tuple)) or len(cards) != 3:
        raise RulesError("bad_pass", "Elige exactamente 3 cartas para pasar")
    try:
        mask = CARD_BIT[cards[0]] | CARD_BIT[cards[1]] | CARD_BIT[cards[2]]
    except (KeyError, TypeError):
        mask = 0
        for c in cards:
            mask |= 1 << _card(c)
    if mask.bit_count() != 3:
        raise RulesError("bad_pass", "Elige 3 cartas distintas para pasar")
    return mask


def _mask(cards: Sequence[str]) -> int:
    """:func:`mask_of` with a fast path for canonical card strings (as to_json writes them)."""
    m = 0
    try:
        for c in cards:
            m |= CARD_BIT[c]
    except (KeyError, TypeError):
        return mask_of(cards)
    return m


def _index(card: str) -> int:
    """:func:`parse_card` with a fast path for canonical card strings."""
    try:
        return INDEX[card]
    except (KeyError, TypeError):
        return parse_card(card)


class Game:
    """The state of one game. Mutated only by :meth:`apply` (or the methods it dispatches to)."""

    __slots__ = (
        "options", "phase", "hand_number", "totals", "history", "hands", "dealt", "pass_sel",
        "pass_ok", "received", "leader", "turn", "tricks", "taken", "hearts_broken",
        "reneges", "hand_scores", "moon", "accusation", "winners",
        # The current trick's cards in play order (the first one is the leader's).
        "_tcards",
        # Derived, kept for speed: the led suit (-1 when leading), the card winning the current
        # trick and its seat, the options' renege flag.
        "_led", "_best", "_best_seat", "_permitido",
    )

    def __init__(self, options: Options | None = None) -> None:
        self.options: Options = options or Options()
        self._permitido: bool = self.options.permitido
        self.phase: str = DEALING
        self.hand_number: int = 0
        self.totals: list[int] = [0, 0, 0, 0]
        self.history: list[dict[str, Any]] = []
        self.winners: list[int] = []
        self._reset_hand()

    def _reset_hand(self) -> None:
        self.hands: list[int] = [0, 0, 0, 0]
        self.dealt: list[int] = [0, 0, 0, 0]
        self.pass_sel: list[int] = [0, 0, 0, 0]
        self.pass_ok: list[bool] = [False, False, False, False]
        self.received: list[int] = [0, 0, 0, 0]
        self._tcards: list[int] = []
        self.leader: int = 0
        self.turn: int | None = None
        self.tricks: list[tuple[int, tuple[int, ...], int]] = []
        self.taken: list[int] = [0, 0, 0, 0]
        self.hearts_broken: bool = False
        self.reneges: list[tuple[int, int, int]] = []
        self.hand_scores: list[int] | None = None
        self.moon: int | None = None
        self.accusation: dict[str, Any] | None = None
        self._led: int = -1
        self._best: int = -1
        self._best_seat: int = -1

    # ----------------------------------------------------------------- queries

    @property
    def pass_dir(self) -> str:
        return pass_direction(self.hand_number) if self.hand_number else "none"

    @property
    def trick(self) -> list[tuple[int, int]]:
        """The current trick as (seat, card index) pairs in play order."""
        leader = self.leader
        return [((leader + i) & 3, c) for i, c in enumerate(self._tcards)]

    @property
    def played(self) -> int:
        """Mask of the cards played in this hand (kept after it ends, until the next deal)."""
        if self.phase == PASSING or not self.hand_number:
            return 0
        h = self.hands
        return FULL_MASK & ~(h[0] | h[1] | h[2] | h[3])

    @property
    def led_suit(self) -> int:
        return self._led

    @property
    def first_trick(self) -> bool:
        return not self.tricks

    def legal_mask(self, seat: int) -> int:
        """Cards ``seat`` may play now (0 if it is not its turn to play)."""
        # ``turn`` is None in every phase but playing.
        if seat != self.turn:
            return 0
        return legal_mask(
            self.hands[seat], self._led, not self.tricks, self.hearts_broken, self._permitido
        )

    def legal_cards(self, seat: int) -> list[str]:
        return cards_of(self.legal_mask(seat))

    def renege_mask(self, seat: int) -> int:
        """Cards ``seat`` may play now that would be a renuncio (permitido only)."""
        if not self._permitido or self.turn != seat or not self._tcards:
            return 0
        hand = self.hands[seat]
        follow = hand & SUIT_MASK[self.led_suit]
        return self.legal_mask(seat) & ~follow if follow else 0

    def why_illegal(self, seat: int, card: str) -> RulesError | None:
        """The refusal ``play(seat, card)`` would raise, or None if it would be accepted."""
        try:
            self._check_play(seat, _card(card))
        except RulesError as e:
            return e
        return None

    def to_act(self) -> list[int]:
        """Seats whose decision the table waits for (empty in counting: any seat may close it)."""
        if self.phase == PASSING:
            return [s for s in range(4) if not self.pass_ok[s]]
        if self.phase == PLAYING and self.turn is not None:
            return [self.turn]
        return []

    def points_taken(self) -> list[int]:
        return [points_of_mask(m) for m in self.taken]

    def moon_threat(self) -> int | None:
        """The seat holding every point taken so far this hand, if points were taken."""
        pts = self.points_taken()
        holders = [s for s in range(4) if pts[s]]
        return holders[0] if len(holders) == 1 and self.phase == PLAYING else None

    def display_totals(self) -> list[int]:
        """Totals including this hand's scores while they are being counted."""
        if self.phase == COUNTING and self.hand_scores is not None:
            return [t + h for t, h in zip(self.totals, self.hand_scores, strict=True)]
        return list(self.totals)

    # ----------------------------------------------------------------- actions

    def apply(self, action: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Apply one action dict; return the public events it caused. Raises RulesError."""
        if not isinstance(action, Mapping):
            raise RulesError("bad_action", "Acción desconocida")
        kind = action.get("type")
        if kind == "play":
            return self.play(_seat(action.get("seat")), action.get("card"))  # type: ignore[arg-type]
        if kind == "choose_pass":
            return self.choose_pass(_seat(action.get("seat")), action.get("cards"))  # type: ignore[arg-type]
        if kind == "confirm_pass":
            return self.confirm_pass(_seat(action.get("seat")), action.get("cards"))
        if kind == "accuse":
            return self.accuse(_seat(action.get("seat")), _seat(action.get("accused")))
        if kind == "close_count":
            return self.close_count(_seat(action.get("seat")))
        if kind == "deal":
            return self.deal(action.get("deck"))  # type: ignore[arg-type]
        raise RulesError("bad_action", "Acción desconocida")

    def deal(self, deck: Sequence[str]) -> list[dict[str, Any]]:
        """Start the next hand with this deck order: the i-th card goes to seat i mod 4."""
        if self.phase != DEALING:
            raise RulesError("wrong_phase", "Ahora no se reparte")
        if not isinstance(deck, (list, tuple)) or len(deck) != 52:
            raise RulesError("bad_deck", "El mazo debe tener 52 cartas")
        try:
            card_bits = [CARD_BIT[c] for c in deck]
        except (KeyError, TypeError):  # not canonical ("10h"), or not a card at all
            card_bits = [1 << _card(c) for c in deck]
        # 52 powers of two add up to the full mask only when they are all different.
        if sum(card_bits) != FULL_MASK:
            raise RulesError("bad_deck", "El mazo debe tener 52 cartas distintas")
        self._reset_hand()
        self.hand_number += 1
        self.hands = [
            sum(card_bits[0::4]), sum(card_bits[1::4]), sum(card_bits[2::4]), sum(card_bits[3::4])
        ]
        self.dealt = list(self.hands)
        events: list[dict[str, Any]] = [
            {"type": "deal", "hand_number": self.hand_number, "pass": self.pass_dir}
        ]
        if self.pass_dir == "none":
            self._start_play()
        else:
            self.phase = PASSING
        return events

    def _start_play(self) -> None:
        self.phase = PLAYING
        self.leader = next(s for s in range(4) if self.hands[s] & TWO_C_BIT)
        self.turn = self.leader

    def _check_passing(self, seat: int) -> None:
        if self.phase != PASSING:
            raise RulesError("wrong_phase", "Ahora no se pasan cartas")
        if self.pass_ok[seat]:
            raise RulesError("already_passed", "Ya pasaste tus cartas")

    def choose_pass(self, seat: int, cards: Sequence[str]) -> list[dict[str, Any]]:
        """Choose (or change) the 3 cards to pass; nothing moves until all four confirm."""
        self._check_passing(seat)
        mask = _three(cards)
        if mask & ~self.hands[seat]:
            raise RulesError("not_in_hand", "Esa carta no está en tu mano")
        self.pass_sel[seat] = mask
        return [{"type": "pass_chosen", "seat": seat}]

    def confirm_pass(self, seat: int, cards: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Confirm the chosen 3 cards (or these ``cards``). The last confirmation exchanges."""
        pass_ok = self.pass_ok
        if self.phase != PASSING or pass_ok[seat]:
            self._check_passing(seat)
        if cards is not None:
            mask = _three(cards)
            if mask & ~self.hands[seat]:
                raise RulesError("not_in_hand", "Esa carta no está en tu mano")
            self.pass_sel[seat] = mask
        elif not self.pass_sel[seat]:
            raise RulesError("bad_pass", "Elige exactamente 3 cartas para pasar")
        pass_ok[seat] = True
        events: list[dict[str, Any]] = [{"type": "pass_confirmed", "seat": seat}]
        if pass_ok[0] and pass_ok[1] and pass_ok[2] and pass_ok[3]:
            direction = self.pass_dir
            offset = PASS_OFFSET[direction]
            sel = self.pass_sel
            hands = self.hands
            for s in range(4):
                hands[s] &= ~sel[s]
            for s in range(4):
                t = (s + offset) & 3
                hands[t] |= sel[s]
                self.received[t] = sel[s]
            self._start_play()
            events.append({"type": "exchange", "pass": direction, "turn": self.turn})
        return events

    def _check_play(self, seat: int, card: int) -> None:
        if self.phase != PLAYING:
            raise RulesError("wrong_phase", "Ahora no se juegan cartas")
        if self.turn != seat:
            raise RulesError("not_your_turn", "No es tu turno")
        if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 52:
            raise RulesError("bad_card", "Esa carta no existe")
        hand = self.hands[seat]
        if not hand >> card & 1:
            raise RulesError("not_in_hand", "Esa carta no está en tu mano")
        err = illegal_reason(
            hand, card, self._led, not self.tricks, self.hearts_broken, self._permitido
        )
        if err is not None:
            raise err

    def play(self, seat: int, card: str) -> list[dict[str, Any]]:
        """Play ``card`` from ``seat``. Refused with the Spanish reason if it is not allowed."""
        return self.play_index(seat, _card(card))

    def play_index(self, seat: int, card: int) -> list[dict[str, Any]]:
        """:meth:`play` with the card as an index (the fast path robots and benchmarks use)."""
        # A legal card is recognised with a few integer operations; anything else goes through
        # _check_play, which raises the refusal with its reason. ``turn`` is None in every phase
        # but playing.
        if seat != self.turn or not 0 <= card < 52:
            self._check_play(seat, card)
        hands = self.hands
        hand = hands[seat]
        bit = BIT[card]
        led = self._led
        if not legal_mask(hand, led, not self.tricks, self.hearts_broken, self._permitido) & bit:
            self._check_play(seat, card)
        cards = self._tcards
        if led < 0:
            self._led = SUIT_OF[card]
            self._best = card
            self._best_seat = seat
        elif bit & SUIT_MASK[led]:
            if card > self._best:
                self._best = card
                self._best_seat = seat
        elif hand & SUIT_MASK[led]:  # a renuncio: only a permitido table lets it through
            self.reneges.append((seat, len(self.tricks), card))
        hands[seat] = hand ^ bit
        cards.append(card)
        if bit & POINTS_MASK:
            events: list[dict[str, Any]] = [{"type": "play", "seat": seat, "card": DECK[card]}]
            if card == QUEEN_OF_SPADES:
                events.append({"type": "queen_played", "seat": seat})
            elif not self.hearts_broken:
                self.hearts_broken = True
                events.append({"type": "hearts_broken"})
            if len(cards) < 4:
                self.turn = (seat + 1) & 3
                return events
        elif len(cards) < 4:
            self.turn = (seat + 1) & 3
            return [{"type": "play", "seat": seat, "card": DECK[card]}]
        else:
            events = [{"type": "play", "seat": seat, "card": DECK[card]}]
        winner = self._best_seat
        a, b, c, d = cards
        trick_mask = BIT[a] | BIT[b] | BIT[c] | BIT[d]
        tricks = self.tricks
        tricks.append((self.leader, (a, b, c, d), winner))
        self.taken[winner] |= trick_mask
        self._tcards = []
        self._led = -1
        self.leader = self.turn = winner
        pts = points_of_mask(trick_mask) if trick_mask & POINTS_MASK else 0
        events.append({"type": "trick", "number": len(tricks), "winner": winner, "points": pts})
        if len(tricks) == 13:
            events.append(self._end_hand())
        return events

    def finish_hand_randomly(self, rng: Random) -> None:
        """Play random legal cards until the hand ends (robots' rollouts, benchmarks).

        Each card is ``legal[int(rng.random() * len(legal))]`` of the seat's legal cards in index
        order, so the result is exactly that of calling :meth:`play_index` with the same choices
        (a test checks it); it only skips building the events.
        """
        if self.phase != PLAYING:
            raise RulesError("wrong_phase", "Ahora no se juegan cartas")
        random_ = rng.random
        hands = self.hands
        tricks = self.tricks
        taken = self.taken
        reneges = self.reneges
        permitido = self._permitido
        broken = self.hearts_broken
        cards = self._tcards
        leader = self.leader
        seat = self.turn if self.turn is not None else leader
        led = self._led
        best = self._best
        best_seat = self._best_seat
        # The one inlined copy of the rules of play (rules_in_force): calling legal_mask for each
        # card made this loop about 13% slower (make bench-rules). A property test pins this copy
        # to legal_mask over random positions, impedido and permitido.
        not_hearts = HEARTS_NOT_LED_UNTIL_BROKEN.keeps
        not_points = NO_POINTS_ON_FIRST_TRICK.keeps
        while len(tricks) < 13:
            hand = hands[seat]
            first = not tricks
            if led < 0:
                if first:
                    legal = hand & TWO_C_BIT  # the first trick is led with 2♣
                elif broken:
                    legal = hand
                else:
                    legal = hand & not_hearts or hand  # no hearts led until broken, unless forced
            else:
                follow = hand & SUIT_MASK[led]
                if follow and not permitido:
                    legal = follow  # follow suit (a permitido table lets a seat renege)
                elif first:
                    legal = hand & not_points or hand  # no points on the first trick, unless forced
                else:
                    legal = hand
            options = bits(legal)
            card = options[int(random_() * len(options))]
            bit = BIT[card]
            if led < 0:
                led = SUIT_OF[card]
                best = card
                best_seat = seat
            elif bit & SUIT_MASK[led]:
                if card > best:
                    best = card
                    best_seat = seat
            elif hand & SUIT_MASK[led]:
                reneges.append((seat, len(tricks), card))
            if bit & HEARTS_MASK:
                broken = True
            hands[seat] = hand ^ bit
            cards.append(card)
            if len(cards) < 4:
                seat = (seat + 1) & 3
                continue
            a, b, c, d = cards
            tricks.append((leader, (a, b, c, d), best_seat))
            taken[best_seat] |= BIT[a] | BIT[b] | BIT[c] | BIT[d]
            cards = []
            leader = seat = best_seat
            led = -1
        self._tcards = cards
        self.hearts_broken = broken
        self.leader = self.turn = leader
        self._led = -1
        self._end_hand()

    def _end_hand(self) -> dict[str, Any]:
        pts = self.points_taken()
        self.moon = moon_shooter(pts)
        self.hand_scores = hand_scores(pts)
        self.phase = COUNTING
        self.turn = None
        return {"type": "hand_end", "scores": list(self.hand_scores), "moon": self.moon}

    def accuse(self, seat: int, accused: int) -> list[dict[str, Any]]:
        """Accuse ``accused`` of a renuncio in this hand (permitido tables only)."""
        if not self.options.permitido:
            raise RulesError("no_accusations", "Con renuncio impedido no hay acusaciones")
        if self.phase not in (PLAYING, COUNTING):
            raise RulesError("wrong_phase", "Ahora no se puede acusar")
        if self.accusation is not None:
            raise RulesError("already_ruled", "Esta mano ya fue juzgada")
        if accused == seat:
            raise RulesError("self_accusation", "No puedes acusarte a ti mismo")
        if not self.played:
            raise RulesError("nothing_played", "Todavía no se jugó ninguna carta en esta mano")
        found = next((r for r in self.reneges if r[0] == accused), None)
        loser = accused if found else seat
        self.hand_scores = [HAND_POINTS if s == loser else 0 for s in range(4)]
        self.moon = None
        self.accusation = {
            "accuser": seat,
            "accused": accused,
            "guilty": found is not None,
            "trick": found[1] + 1 if found else None,
            "card": DECK[found[2]] if found else None,
        }
        self.phase = COUNTING
        self.turn = None
        return [
            {"type": "accusation", **self.accusation},
            {"type": "hand_end", "scores": list(self.hand_scores), "moon": None},
        ]

    def close_count(self, seat: int) -> list[dict[str, Any]]:
        """SIGUIENTE MANO: add the hand to the totals; the game ends if a total reached the target.

        Every seat with the lowest total wins (a tie shares the victory)."""
        if self.phase != COUNTING or self.hand_scores is None:
            raise RulesError("wrong_phase", "La mano todavía no terminó")
        self.totals = self.display_totals()
        self.history.append(
            {
                "hand_number": self.hand_number,
                "points": self.points_taken(),
                "scores": list(self.hand_scores),
                "moon": self.moon,
                "accusation": self.accusation,
            }
        )
        events: list[dict[str, Any]] = [
            {"type": "count_closed", "seat": seat, "totals": list(self.totals)}
        ]
        if max(self.totals) >= self.options.target:
            low = min(self.totals)
            self.winners = [s for s in range(4) if self.totals[s] == low]
            self.phase = GAME_OVER
            events.append(
                {"type": "game_over", "winners": list(self.winners), "totals": list(self.totals)}
            )
        else:
            self.phase = DEALING
        return events

    # ----------------------------------------------------------------- persistence

    def to_json(self) -> dict[str, Any]:
        """A plain-JSON snapshot; :meth:`from_json` gives back an equal game."""
        return {
            "options": self.options.to_json(),
            "phase": self.phase,
            "hand_number": self.hand_number,
            "totals": list(self.totals),
            "history": [dict(h) for h in self.history],
            "winners": list(self.winners),
            "hands": [cards_of(m) for m in self.hands],
            "dealt": [cards_of(m) for m in self.dealt],
            "pass_sel": [cards_of(m) for m in self.pass_sel],
            "pass_ok": list(self.pass_ok),
            "received": [cards_of(m) for m in self.received],
            "trick": [[s, DECK[c]] for s, c in self.trick],
            "leader": self.leader,
            "turn": self.turn,
            "tricks": [[ld, [DECK[c] for c in cs], w] for ld, cs, w in self.tricks],
            "hearts_broken": self.hearts_broken,
            "reneges": [[s, t, DECK[c]] for s, t, c in self.reneges],
            "hand_scores": None if self.hand_scores is None else list(self.hand_scores),
            "moon": self.moon,
            "accusation": None if self.accusation is None else dict(self.accusation),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Game:
        g = cls(Options.from_json(data["options"]))
        g.phase = data["phase"]
        g.hand_number = data["hand_number"]
        g.totals = list(data["totals"])
        g.history = [dict(h) for h in data["history"]]
        g.winners = list(data["winners"])
        g.hands = [_mask(h) for h in data["hands"]]
        g.dealt = [_mask(h) for h in data["dealt"]]
        g.pass_sel = [_mask(h) for h in data["pass_sel"]]
        g.pass_ok = list(data["pass_ok"])
        g.received = [_mask(h) for h in data["received"]]
        g.leader = data["leader"]
        trick = [(s, _index(c)) for s, c in data["trick"]]
        g._tcards = [c for _, c in trick]
        g.turn = data["turn"]
        g.tricks = [(ld, tuple(_index(c) for c in cs), w) for ld, cs, w in data["tricks"]]
        g.hearts_broken = data["hearts_broken"]
        g.reneges = [(s, t, _index(c)) for s, t, c in data["reneges"]]
        g.hand_scores = None if data["hand_scores"] is None else list(data["hand_scores"])
        g.moon = data["moon"]
        g.accusation = None if data["accusation"] is None else dict(data["accusation"])
        g.taken = [0, 0, 0, 0]
        for _, cs, w in g.tricks:
            for c in cs:
                g.taken[w] |= 1 << c
        if trick:
            g._led = SUIT_OF[trick[0][1]]
            g._best_seat, g._best = trick[trick_winner(g._tcards)]
        return g

    @classmethod
    def replay(cls, options: Options, actions: Sequence[Mapping[str, Any]]) -> Game:
        """The game that results from applying ``actions`` in order to a new game."""
        g = cls(options)
        for a in actions:
            g.apply(a)
        return g

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Game.from_json({self.to_json()!r})"


__all__ = [
    "ACTION_TYPES", "COUNTING", "DEALING", "GAME_OVER", "PASSING", "PASS_DIRECTIONS", "PHASES",
    "PLAYING", "RENEGE_MODES", "TARGETS", "Game", "Options", "RulesError", "bits",
    "illegal_reason", "legal_mask", "pass_direction", "pass_target",
    "FOLLOW_SUIT", "HEARTS_NOT_LED_UNTIL_BROKEN", "LEAD_TWO_OF_CLUBS", "NO_POINTS_ON_FIRST_TRICK",
    "PlayRule", "rules_in_force",
]
