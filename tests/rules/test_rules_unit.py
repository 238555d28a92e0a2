"""One test (or a few) per rule of the game, with the rulebook's own examples."""

from __future__ import annotations

import random

import pytest

from rules import (
    DECK,
    Game,
    Options,
    RulesError,
    card_points,
    cards_of,
    illegal_reason,
    legal_mask,
    mask_of,
    parse_card,
    pass_direction,
    pass_target,
    points_of,
    view_for,
)
from rules.cards import CLUBS, SUIT_MASK
from tests.rules.rules_testkit import by_suit, deck_for, h, new_hand, random_game, roundtrip

ROUND_ROBIN = [list(DECK[s::4]) for s in range(4)]
# seat 0: 2C 6C TC AC 5D 9D KD 4H 8H QH 3S 7S JS
# seat 1: 3C 7C JC 2D 6D TD AD 5H 9H KH 4S 8S QS
# seat 2: 4C 8C QC 3D 7D JD 2H 6H TH AH 5S 9S KS
# seat 3: 5C 9C KC 4D 8D QD 3H 7H JH 2S 6S TS AS


def play(g: Game, seat: int, card: str) -> list[dict[str, object]]:
    return g.apply({"type": "play", "seat": seat, "card": card})


def refused(g: Game, action: dict[str, object]) -> RulesError:
    before = g.to_json()
    with pytest.raises(RulesError) as err:
        g.apply(action)
    assert g.to_json() == before, "a refused action must change nothing"
    return err.value


def refused_play(g: Game, seat: int, card: str) -> str:
    e = refused(g, {"type": "play", "seat": seat, "card": card})
    assert g.why_illegal(seat, card) is not None
    assert g.why_illegal(seat, card).message == e.message  # type: ignore[union-attr]
    return e.message


# --------------------------------------------------------------------------- cards and deal


def test_deck_is_52_distinct_cards_ace_high() -> None:
    assert len(DECK) == 52 and len(set(DECK)) == 52
    for suit in "CDHS":
        ranks = [parse_card(r + suit) for r in "23456789TJQKA"]
        assert ranks == sorted(ranks)  # index order is rank order, ace last (high)
    assert parse_card("10h") == parse_card("TH")


def test_deal_gives_the_ith_card_to_seat_i_mod_4() -> None:
    g = new_hand(ROUND_ROBIN, hand_number=1)
    for s in range(4):
        assert g.hands[s] == mask_of(DECK[s::4])
        assert g.hands[s].bit_count() == 13
    assert g.phase == "passing" and g.hand_number == 1


@pytest.mark.parametrize(
    ("deck", "code"),
    [
        (list(DECK[:51]), "bad_deck"),
        (list(DECK[:51]) + ["2C"], "bad_deck"),
        (list(DECK[:51]) + ["ZZ"], "bad_card"),
        ("2C" * 52, "bad_deck"),
        (None, "bad_deck"),
    ],
)
def test_bad_decks_are_refused(deck: object, code: str) -> None:
    g = Game()
    assert refused(g, {"type": "deal", "deck": deck}).code == code
    assert g.phase == "dealing" and g.hand_number == 0


def test_deck_cards_may_be_written_loosely() -> None:
    g = Game()
    g.apply({"type": "deal", "deck": [c.lower().replace("t", "10") for c in DECK]})
    assert [cards_of(m) for m in g.hands] == [sorted(DECK[s::4], key=DECK.index) for s in range(4)]


def test_no_deal_outside_dealing() -> None:
    g = new_hand(ROUND_ROBIN)
    assert refused(g, {"type": "deal", "deck": list(DECK)}).code == "wrong_phase"


# --------------------------------------------------------------------------- passing


def test_pass_direction_cycles_left_right_across_none() -> None:
    assert [pass_direction(n) for n in range(1, 10)] == [
        "left", "right", "across", "none", "left", "right", "across", "none", "left",
    ]
    assert [pass_target(0, d) for d in ("left", "right", "across")] == [1, 3, 2]
    assert [pass_target(3, d) for d in ("left", "right", "across")] == [0, 2, 1]
    for n, phase in ((1, "passing"), (2, "passing"), (3, "passing"), (4, "playing"),
                     (5, "passing"), (8, "playing")):
        g = new_hand(ROUND_ROBIN, hand_number=n)
        assert g.phase == phase, n
        assert g.pass_dir == pass_direction(n)


@pytest.mark.parametrize(("hand_number", "to"), [(1, 1), (2, 3), (3, 2)])
def test_exchange_only_when_all_four_confirmed(hand_number: int, to: int) -> None:
    g = new_hand(by_suit(), hand_number=hand_number)
    g.apply({"type": "choose_pass", "seat": 0, "cards": h("AC KC QC")})
    # May change its mind until it confirms.
    g.apply({"type": "choose_pass", "seat": 0, "cards": h("2C 3C 4C")})
    assert view_for(g, 0)["pass_selected"] == h("2C 3C 4C")
    g.apply({"type": "confirm_pass", "seat": 0})
    assert refused(g, {"type": "choose_pass", "seat": 0, "cards": h("5C 6C 7C")}).code == (
        "already_passed"
    )
    others = {1: h("2D 3D 4D"), 2: h("2H 3H 4H"), 3: h("2S 3S 4S")}
    for seat in (1, 2, 3):
        # Nothing moved, nobody has received anything yet.
        assert g.hands[0] == SUIT_MASK[CLUBS] and g.hands[to].bit_count() == 13
        assert all(view_for(g, s)["received"] == [] for s in range(4))
        assert g.phase == "passing"
        events = g.apply({"type": "confirm_pass", "seat": seat, "cards": others[seat]})
    assert events[-1]["type"] == "exchange"
    assert g.phase == "playing"
    assert cards_of(g.received[to]) == h("2C 3C 4C")
    assert view_for(g, to)["received"] == h("2C 3C 4C")
    assert all(m.bit_count() == 13 for m in g.hands)
    assert "2C" not in cards_of(g.hands[0])
    # The holder of 2C after the pass leads it.
    assert g.turn == to == g.leader
    assert view_for(g, to)["legal"] == ["2C"]


def test_bad_passes_are_refused() -> None:
    g = new_hand(ROUND_ROBIN, hand_number=1)
    assert refused(g, {"type": "confirm_pass", "seat": 0}).code == "bad_pass"
    assert refused(g, {"type": "choose_pass", "seat": 0, "cards": h("2C 6C")}).code == "bad_pass"
    assert refused(g, {"type": "choose_pass", "seat": 0, "cards": h("2C 2C 6C")}).code == (
        "bad_pass"
    )
    e = refused(g, {"type": "choose_pass", "seat": 0, "cards": h("2C 6C 3C")})
    assert e.message == "Esa carta no está en tu mano"
    assert refused(g, {"type": "play", "seat": 0, "card": "2C"}).code == "wrong_phase"
    assert refused(g, {"type": "choose_pass", "seat": 4, "cards": h("2C 6C TC")}).code == (
        "bad_seat"
    )


# --------------------------------------------------------------------------- play


def test_lead_2c_turns_and_ownership() -> None:
    g = new_hand(ROUND_ROBIN)
    assert g.turn == 0
    assert refused_play(g, 0, "6C") == "Debes salir con el 2 de tréboles"
    assert refused_play(g, 1, "3C") == "No es tu turno"
    assert refused_play(g, 0, "3C") == "Esa carta no está en tu mano"
    assert refused(g, {"type": "play", "seat": 0, "card": "1X"}).code == "bad_card"
    play(g, 0, "2C")
    assert g.turn == 1  # clockwise: to the left
    assert refused_play(g, 0, "6C") == "No es tu turno"
    assert view_for(g, 0)["illegal"] == dict.fromkeys(view_for(g, 0)["hand"], "No es tu turno")
    assert view_for(g, 0)["legal"] == []


def test_follow_suit_highest_of_led_suit_wins_no_trumps() -> None:
    g = new_hand(ROUND_ROBIN)
    play(g, 0, "2C")
    assert refused_play(g, 1, "AD") == "Debes seguir tréboles"
    assert view_for(g, 1)["illegal"]["AD"] == "Debes seguir tréboles"
    assert view_for(g, 1)["legal"] == h("3C 7C JC")
    play(g, 1, "3C")
    play(g, 2, "4C")
    events = play(g, 3, "5C")
    assert events[-1] == {"type": "trick", "number": 1, "winner": 3, "points": 0}
    assert g.turn == 3 and g.leader == 3
    play(g, 3, "4D")
    assert refused_play(g, 0, "AC") == "Debes seguir diamantes"
    play(g, 0, "5D")
    play(g, 1, "AD")  # the ace is the highest
    events = play(g, 2, "3D")
    assert events[-1] == {"type": "trick", "number": 2, "winner": 1, "points": 0}
    assert g.turn == 1


def test_ace_high_and_off_suit_never_wins() -> None:
    g = new_hand(by_suit())
    play(g, 0, "2C")
    play(g, 1, "AD")  # void in clubs: an ace of another suit does not win
    play(g, 2, "AH")  # nothing but hearts: may discard a heart in the first trick
    events = play(g, 3, "AS")
    assert events[-1]["winner"] == 0 and events[-1]["points"] == 1
    assert g.hearts_broken
    play(g, 0, "3C")
    play(g, 1, "KD")
    play(g, 2, "KH")
    assert play(g, 3, "QS")[-1]["winner"] == 0
    g2 = new_hand(ROUND_ROBIN)
    for seat, card in enumerate(h("2C 3C 4C 5C")):
        play(g2, seat, card)
    play(g2, 3, "9C")
    play(g2, 0, "AC")
    play(g2, 1, "JC")
    assert play(g2, 2, "QC")[-1]["winner"] == 0  # ace over queen


def test_must_follow_every_suit_in_spanish() -> None:
    found: dict[str, str] = {}
    rng = random.Random(7)
    while len(found) < 4:
        for g, _a, _e in random_game(rng, Options(target=50)):
            if g.phase != "playing" or not g.trick:
                continue
            seat = g.turn
            assert seat is not None
            led = g.led_suit
            other = g.hands[seat] & ~SUIT_MASK[led]
            if g.hands[seat] & SUIT_MASK[led] and other:
                card = cards_of(other)[0]
                found["CDHS"[led]] = refused_play(g, seat, card)
    assert found == {
        "C": "Debes seguir tréboles",
        "D": "Debes seguir diamantes",
        "H": "Debes seguir corazones",
        "S": "Debes seguir picas",
    }


def test_first_trick_no_points_unless_only_points() -> None:
    g = new_hand(by_suit())
    play(g, 0, "2C")
    assert view_for(g, 1)["legal"] == by_suit()[1]  # void in clubs: any diamond
    play(g, 1, "2D")
    # Seat 2 holds nothing but hearts: it may (must) discard one in the first trick.
    assert view_for(g, 2)["legal"] == by_suit()[2]
    play(g, 2, "2H")
    # Seat 3 holds spades: anything but the queen.
    assert refused_play(g, 3, "QS") == "No se juegan puntos en la primera baza"
    assert view_for(g, 3)["illegal"] == {"QS": "No se juegan puntos en la primera baza"}
    play(g, 3, "2S")
    # After the first trick the queen may be discarded.
    play(g, 0, "3C")
    play(g, 1, "3D")
    play(g, 2, "3H")
    play(g, 3, "QS")
    # The pure rule: only hearts and QS in hand, void in the led suit.
    only_points = mask_of(h("2H 3H QS"))
    assert legal_mask(only_points, CLUBS, True, False) == only_points
    mixed = mask_of(h("2H QS 5D"))
    assert legal_mask(mixed, CLUBS, True, False) == mask_of(["5D"])
    e = illegal_reason(mixed, parse_card("QS"), CLUBS, True, False)
    assert e is not None and e.message == "No se juegan puntos en la primera baza"


def test_hearts_not_broken_qs_may_lead_and_does_not_break() -> None:
    g = new_hand(ROUND_ROBIN)
    for seat, card in enumerate(h("2C 3C 4C 5C")):
        play(g, seat, card)
    assert refused_play(g, 3, "3H") == "Los corazones no están rotos"
    play(g, 3, "9C")
    play(g, 0, "6C")
    play(g, 1, "JC")
    play(g, 2, "8C")
    assert g.turn == 1
    assert "5H" not in view_for(g, 1)["legal"]
    events = play(g, 1, "QS")  # the queen may be led at any time
    assert {"type": "queen_played", "seat": 1} in events
    assert not g.hearts_broken and not view_for(g, 0)["hearts_broken"]
    assert view_for(g, None)["queen_played"]
    play(g, 2, "KS")
    play(g, 3, "2S")
    events = play(g, 0, "3S")
    assert events[-1] == {"type": "trick", "number": 3, "winner": 2, "points": 13}
    assert refused_play(g, 2, "2H") == "Los corazones no están rotos"
    # The pure rule: a hand of nothing but hearts may lead one; hearts and QS must lead QS.
    only_hearts = mask_of(h("2H 9H"))
    assert legal_mask(only_hearts, -1, False, False) == only_hearts
    hearts_and_queen = mask_of(h("2H 9H QS"))
    assert legal_mask(hearts_and_queen, -1, False, False) == mask_of(["QS"])
    assert legal_mask(hearts_and_queen, -1, False, True) == hearts_and_queen


def test_a_heart_discard_breaks_hearts_for_the_next_lead() -> None:
    g = new_hand(ROUND_ROBIN)
    for seat, card in enumerate(h("2C 3C 4C 5C")):
        play(g, seat, card)
    for seat, card in zip((3, 0, 1, 2), h("9C 6C JC 8C"), strict=True):
        play(g, seat, card)
    play(g, 1, "7C")
    play(g, 2, "QC")
    play(g, 3, "KC")
    assert play(g, 0, "TC")[-1]["winner"] == 3
    play(g, 3, "2S")
    play(g, 0, "3S")
    play(g, 1, "4S")
    assert play(g, 2, "KS")[-1]["winner"] == 2
    play(g, 2, "3D")
    play(g, 3, "4D")
    play(g, 0, "5D")
    assert play(g, 1, "6D")[-1]["winner"] == 1
    play(g, 1, "2D")
    play(g, 2, "7D")
    play(g, 3, "8D")
    assert refused_play(g, 0, "4H") == "Debes seguir diamantes"
    assert play(g, 0, "9D")[-1]["winner"] == 0
    assert refused_play(g, 0, "4H") == "Los corazones no están rotos"
    # Seat 0 leads its last club; the others are void in clubs and seat 1 discards a heart.
    play(g, 0, "AC")
    assert {"type": "hearts_broken"} in play(g, 1, "5H")
    assert g.hearts_broken
    play(g, 2, "JD")
    assert play(g, 3, "QD")[-1] == {"type": "trick", "number": 7, "winner": 0, "points": 1}
    assert g.turn == 0 and "4H" in view_for(g, 0)["legal"]


# --------------------------------------------------------------------------- scoring


def test_five_hearts_and_the_queen_score_18() -> None:
    assert points_of(h("2H 5H 9H JH AH QS")) == 18
    assert [card_points(c) for c in h("2H QS KS AC")] == [1, 13, 0, 0]
    # The same in play: find a hand where a seat took exactly five hearts and the queen.
    rng = random.Random(18)
    for _ in range(200):
        for g, _a, events in random_game(rng, Options()):
            end = [e for e in events if e["type"] == "hand_end"]
            if not end:
                continue
            for seat in range(4):
                taken = view_for(g, None)["taken_cards"][seat]
                if "QS" in taken and len(taken) == 6:
                    assert end[0]["scores"][seat] == 18
                    assert g.points_taken()[seat] == 18
                    return
    raise AssertionError("no hand with 5 hearts and Q♠ in 200 games")


def test_points_sum_to_26_and_moon_gives_26_to_the_others() -> None:
    g = new_hand(by_suit())
    while g.phase == "playing":
        seat = g.turn
        assert seat is not None
        events = g.play_index(seat, min(bits_of(g.legal_mask(seat))))
    assert g.points_taken() == [26, 0, 0, 0]
    assert events[-1] == {"type": "hand_end", "scores": [0, 26, 26, 26], "moon": 0}
    assert view_for(g, 2)["hand_result"]["moon"] == 0
    g.apply({"type": "close_count", "seat": 2})
    assert g.totals == [0, 26, 26, 26] and g.phase == "dealing"
    assert g.history[-1]["moon"] == 0 and g.history[-1]["points"] == [26, 0, 0, 0]


def bits_of(mask: int) -> list[int]:
    return [i for i in range(52) if mask >> i & 1]


# --------------------------------------------------------------------------- end of the game


def false_accusation_hand(totals: list[int], target: int = 100) -> Game:
    """A hand in which seat 0 accuses seat 1 falsely at once: seat 0 takes 26, the rest 0."""
    g = new_hand(ROUND_ROBIN, renege="permitido", totals=totals, target=target)
    play(g, 0, "2C")
    play(g, 1, "3C")
    events = g.apply({"type": "accuse", "seat": 0, "accused": 1})
    assert events[-1] == {"type": "hand_end", "scores": [26, 0, 0, 0], "moon": None}
    return g


def test_100_40_40_90_ends_with_two_winners() -> None:
    g = false_accusation_hand([74, 40, 40, 90])
    assert g.phase == "counting"  # not over until the count is closed
    assert view_for(g, 0)["totals"] == [100, 40, 40, 90]
    events = g.apply({"type": "close_count", "seat": 3})
    assert events[-1] == {"type": "game_over", "winners": [1, 2], "totals": [100, 40, 40, 90]}
    assert g.phase == "game_over" and g.winners == [1, 2]
    result = view_for(g, 1)["game_result"]
    assert result["victory"] and not view_for(g, 0)["game_result"]["victory"]
    assert result["ranking"] == [1, 2, 3, 0]
    assert view_for(g, 2)["game_result"]["victory"] and not view_for(g, 3)["game_result"]["victory"]
    assert refused(g, {"type": "deal", "deck": list(DECK)}).code == "wrong_phase"


def test_104_60_75_88_ends_with_the_60_winning() -> None:
    g = false_accusation_hand([78, 60, 75, 88])
    events = g.apply({"type": "close_count", "seat": 0})
    assert events[-1] == {"type": "game_over", "winners": [1], "totals": [104, 60, 75, 88]}


def test_below_the_target_the_game_goes_on_and_50_is_a_target() -> None:
    g = false_accusation_hand([73, 10, 20, 30])
    g.apply({"type": "close_count", "seat": 0})
    assert g.phase == "dealing" and g.totals == [99, 10, 20, 30] and g.winners == []
    g = false_accusation_hand([24, 10, 20, 30], target=50)
    g.apply({"type": "close_count", "seat": 0})
    assert g.phase == "game_over" and g.winners == [1] and g.totals == [50, 10, 20, 30]
    g = false_accusation_hand([23, 10, 20, 30], target=50)
    g.apply({"type": "close_count", "seat": 0})
    assert g.phase == "dealing"
    with pytest.raises(RulesError):
        Options(target=75)
    with pytest.raises(RulesError):
        Options(renege="a veces")


# --------------------------------------------------------------------------- renuncio


def test_permitido_allows_a_renege_and_keeps_every_other_rule() -> None:
    g = new_hand(ROUND_ROBIN, renege="permitido")
    play(g, 0, "2C")
    v = view_for(g, 1)
    assert "2D" in v["legal"] and "2D" in v["renege_cards"] and "3C" not in v["renege_cards"]
    assert "QS" not in v["legal"] and "5H" not in v["legal"]
    assert refused_play(g, 1, "QS") == "No se juegan puntos en la primera baza"
    play(g, 1, "2D")  # a renuncio: holds clubs, plays a diamond
    assert view_for(g, 2)["can_accuse"]
    assert refused_play(g, 2, "2H") == "No se juegan puntos en la primera baza"
    play(g, 2, "4C")
    events = play(g, 3, "5C")
    assert events[-1]["winner"] == 3  # the renege does not win: highest of the led suit
    assert refused_play(g, 3, "3H") == "Los corazones no están rotos"
    # Impedido: the same card is refused.
    g2 = new_hand(ROUND_ROBIN)
    play(g2, 0, "2C")
    assert refused_play(g2, 1, "2D") == "Debes seguir tréboles"
    assert view_for(g2, 1)["renege_cards"] == []


def test_true_accusation_gives_26_to_the_reneger_and_ends_the_hand() -> None:
    g = new_hand(ROUND_ROBIN, renege="permitido")
    play(g, 0, "2C")
    play(g, 1, "2D")
    play(g, 2, "4C")
    play(g, 3, "5C")
    play(g, 3, "9C")
    events = g.apply({"type": "accuse", "seat": 3, "accused": 1})
    assert events[0] == {
        "type": "accusation", "accuser": 3, "accused": 1, "guilty": True, "trick": 1, "card": "2D",
    }
    assert events[1] == {"type": "hand_end", "scores": [0, 26, 0, 0], "moon": None}
    assert g.phase == "counting" and g.turn is None
    assert refused(g, {"type": "play", "seat": 0, "card": "6C"}).code == "wrong_phase"
    assert refused(g, {"type": "accuse", "seat": 0, "accused": 2}).code == "already_ruled"
    g.apply({"type": "close_count", "seat": 1})
    assert g.totals == [0, 26, 0, 0] and g.phase == "dealing"
    assert g.history[-1]["accusation"]["guilty"] is True


def test_false_accusation_gives_26_to_the_accuser() -> None:
    g = new_hand(ROUND_ROBIN, renege="permitido")
    play(g, 0, "2C")
    play(g, 1, "2D")  # seat 1 reneged, seat 2 did not
    events = g.apply({"type": "accuse", "seat": 1, "accused": 2})
    assert events[0]["guilty"] is False and events[0]["card"] is None
    assert events[1]["scores"] == [0, 26, 0, 0]


def test_accusation_during_the_count_overrides_a_moon() -> None:
    g = new_hand(by_suit(), renege="permitido")
    while g.phase == "playing":
        seat = g.turn
        assert seat is not None
        g.play_index(seat, min(bits_of(g.legal_mask(seat) & ~g.renege_mask(seat))))
    assert g.hand_scores == [0, 26, 26, 26] and g.phase == "counting"
    assert view_for(g, 1)["can_accuse"]
    events = g.apply({"type": "accuse", "seat": 2, "accused": 0})
    assert events[-1] == {"type": "hand_end", "scores": [0, 0, 26, 0], "moon": None}
    g.apply({"type": "close_count", "seat": 0})
    assert g.totals == [0, 0, 26, 0]
    # Once the count is closed that hand can no longer be accused.
    assert refused(g, {"type": "accuse", "seat": 1, "accused": 0}).code == "wrong_phase"


def test_a_renege_in_an_earlier_hand_does_not_count() -> None:
    g = new_hand(ROUND_ROBIN, hand_number=3, renege="permitido")
    for s in range(4):
        g.apply({"type": "confirm_pass", "seat": s, "cards": cards_of(g.hands[s])[-3:]})
    reneger = None
    while g.phase == "playing":
        seat = g.turn
        assert seat is not None
        renege = g.renege_mask(seat)
        if renege and reneger is None:
            reneger = seat
            g.play_index(seat, min(bits_of(renege)))
        else:
            g.play_index(seat, min(bits_of(g.legal_mask(seat) & ~renege)))
    assert reneger is not None and g.reneges
    g.apply({"type": "close_count", "seat": 0})
    before = list(g.totals)
    g.apply({"type": "deal", "deck": list(DECK)})  # hand 4: no pass
    play(g, 0, "2C")
    accuser = (reneger + 1) % 4
    events = g.apply({"type": "accuse", "seat": accuser, "accused": reneger})
    assert events[0]["guilty"] is False
    g.apply({"type": "close_count", "seat": 0})
    assert [t - b for t, b in zip(g.totals, before, strict=True)] == [
        26 if s == accuser else 0 for s in range(4)
    ]


def test_accusations_refused_when_they_make_no_sense() -> None:
    g = new_hand(ROUND_ROBIN)
    play(g, 0, "2C")
    e = refused(g, {"type": "accuse", "seat": 1, "accused": 0})
    assert e.message == "Con renuncio impedido no hay acusaciones"
    g = new_hand(ROUND_ROBIN, renege="permitido")
    assert refused(g, {"type": "accuse", "seat": 1, "accused": 0}).code == "nothing_played"
    play(g, 0, "2C")
    assert refused(g, {"type": "accuse", "seat": 1, "accused": 1}).code == "self_accusation"
    assert refused(g, {"type": "accuse", "seat": 1, "accused": 7}).code == "bad_seat"


# --------------------------------------------------------------------------- api odds and ends


def test_malformed_actions_are_refused_in_spanish() -> None:
    g = new_hand(ROUND_ROBIN)
    for action in ({"type": "fly"}, {"type": "play", "seat": True, "card": "2C"},
                   {"type": "play", "seat": "0", "card": "2C"}, {"type": "play", "seat": 0}):
        e = refused(g, action)  # type: ignore[arg-type]
        assert e.message and e.code
    with pytest.raises(RulesError):
        g.apply(["play"])  # type: ignore[arg-type]
    with pytest.raises(RulesError) as err:
        g.play_index(0, 52)
    assert err.value.code == "bad_card"
    with pytest.raises(RulesError):
        g.play_index(0, -1)


def test_repr_and_json_round_trip() -> None:
    g = new_hand(ROUND_ROBIN, renege="permitido")
    play(g, 0, "2C")
    play(g, 1, "2D")
    copy = eval(repr(g), {"Game": Game})
    assert copy == g and roundtrip(g) == g
    assert copy.trick == g.trick == [(0, 0), (1, 13)]
    assert copy.reneges == g.reneges
    play(copy, 2, "4C")
    assert copy != g
    assert deck_for(ROUND_ROBIN) == list(DECK)


def test_public_action_hides_the_deck_and_other_seats_passes() -> None:
    from rules import public_action

    deal = {"type": "deal", "deck": list(DECK)}
    for viewer in (None, 0, 1, 2, 3):
        assert public_action(deal, viewer) == {"type": "deal"}
    assert deal["deck"] == list(DECK)  # the stored action is untouched
    passing = {"type": "confirm_pass", "seat": 2, "cards": h("2C 3C 4C")}
    assert public_action(passing, 2) == passing
    for viewer in (None, 0, 1, 3):
        assert public_action(passing, viewer) == {"type": "confirm_pass", "seat": 2}
    chosen = {"type": "choose_pass", "seat": 0, "cards": h("2C 3C 4C")}
    assert public_action(chosen, None) == {"type": "choose_pass", "seat": 0}
    card = {"type": "play", "seat": 1, "card": "QS"}
    assert public_action(card, None) == card
