"""A game's record as OpenSpiel ``hearts`` action sequences (docs/RECORDS.md, «OpenSpiel»).

OpenSpiel's Hearts plays one hand: a chance action for the pass direction, 52 chance actions that
deal the cards (the k-th dealt card goes to player k mod 4), then the passes (player 0's three
cards, then player 1's, 2's and 3's; none in a hand without a pass), then the 52 cards played.
A card is the action ``rank * 4 + suit`` (ranks 2..A = 0..12, suits C D H S = 0..3); our seat s
is OpenSpiel's player s. The parameters below make its rules ours (no J♦ bonus, no bonus for
taking no trick, no points on the first trick, Q♠ does not break hearts…); tests replay every
exported hand in ``pyspiel`` and get our points.

Our renuncio ``permitido`` has no OpenSpiel counterpart (it never lets a seat leave the suit it
holds), and an accusation ends a hand and rules its points: such hands are listed with the reason
they are not exported.
"""

from __future__ import annotations

from typing import Any, Final

from rules.cards import INDEX

OPENSPIEL_GAME: Final = "hearts"
OPENSPIEL_PARAMETERS: Final[dict[str, bool]] = {
    "avoid_all_tricks_bonus": False,
    "can_lead_any_club": False,
    "can_lead_hearts_instead_of_qs": False,
    "jd_bonus": False,
    "must_break_hearts": True,
    "no_pts_on_first_trick": True,
    "pass_cards": True,
    "qs_breaks_hearts": False,
}
#: The chance action that sets the hand's pass direction.
PASS_ACTION: Final = {"none": 0, "left": 1, "across": 2, "right": 3}
#: Points a hand shares out (OpenSpiel's return is this minus the seat's points).
HAND_POINTS: Final = 26
EXPORT_FORMAT: Final = "corazones-openspiel"
EXPORT_VERSION: Final = 1


def card_action(card: str) -> int:
    """OpenSpiel's action for ``card``: our index is suit * 13 + rank, theirs rank * 4 + suit."""
    i = INDEX[card]
    return (i % 13) * 4 + i // 13


def game_string() -> str:
    """The string ``pyspiel.load_game`` takes to make this very game."""
    params = ",".join(f"{k}={v}" for k, v in sorted(OPENSPIEL_PARAMETERS.items()))
    return f"{OPENSPIEL_GAME}({params})"


def why_not_exported(hand: dict[str, Any]) -> str | None:
    """Why OpenSpiel cannot play ``hand`` as it was played, or None when it can."""
    if not hand.get("complete"):
        return "incomplete"
    if hand.get("accusation") is not None:
        return "accusation"
    if hand.get("reneges"):
        return "renege"
    if len(hand.get("plays", ())) != 52:
        return "incomplete"
    return None


def hand_actions(hand: dict[str, Any]) -> list[int]:
    """The whole action sequence of one hand, chance actions included."""
    actions = [PASS_ACTION[hand["pass"]]]
    actions += [card_action(c) for c in hand["deck"]]
    if hand["pass"] != "none":
        by_seat = {p["from"]: p["cards"] for p in hand["passes"]}
        for seat in range(4):
            actions += [card_action(c) for c in sorted(by_seat[seat], key=INDEX.__getitem__)]
    actions += [card_action(p["card"]) for p in hand["plays"]]
    return actions


def openspiel_export(record: dict[str, Any]) -> dict[str, Any]:
    """Every hand of a finished game's record that OpenSpiel can play, as its action sequence."""
    hands = []
    for hand in record["hands"]:
        reason = why_not_exported(hand)
        if reason is not None:
            hands.append({"number": hand["number"], "exported": False, "reason": reason})
            continue
        scores = list(hand["scores"])
        hands.append({
            "number": hand["number"],
            "exported": True,
            "pass": hand["pass"],
            "actions": hand_actions(hand),
            "points": scores,
            "returns": [HAND_POINTS - p for p in scores],
        })
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "game": OPENSPIEL_GAME,
        "parameters": dict(OPENSPIEL_PARAMETERS),
        "game_string": game_string(),
        "encoding": {
            "card": "rank * 4 + suit; ranks 2..A = 0..12, suits C D H S = 0..3",
            "pass_direction": dict(PASS_ACTION),
            "players": "OpenSpiel player p is seat p of the record",
            "sequence": "pass direction, 52 dealt cards (card k to player k mod 4), "
                        "3 passed cards of players 0, 1, 2, 3 (none without a pass), "
                        "52 cards played",
        },
        "game_number": record["game_number"],
        "players": [s["label"] for s in record["seats"]],
        "hands": hands,
    }


__all__ = ["OPENSPIEL_PARAMETERS", "card_action", "game_string", "hand_actions",
           "openspiel_export", "why_not_exported"]
