"""A deal anyone can check (docs/FAIR_DEAL.md): the document's test vectors, every kind of
tampering the verifier must catch, the command line, and the uniformity of the derived deals."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import DECK, Game, Options, cards_of
from rules.deal import (
    EXAMPLE_SEAT_SEEDS,
    EXAMPLE_SERVER_SEED,
    EXAMPLE_TABLE,
    commit,
    deal_key,
    derive_deck,
    example_record,
    field,
    keystream,
    make_record,
    server_seat_seed,
    shuffle,
    table_reference,
    u64,
    verify,
)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from deal_stats import ALPHA, RNG_SEED, chi2_sf, random_deals, uniformity  # noqa: E402

T = EXAMPLE_TABLE
ROBOT_SEED = server_seat_seed(EXAMPLE_SERVER_SEED, T, 1, 1, 3)
EXAMPLE_SEEDS = [*EXAMPLE_SEAT_SEEDS[:3], ROBOT_SEED]

# --- Test vectors (docs/FAIR_DEAL.md «Vectores de prueba») ------------------------------------

SERVER_MESSAGE = (
    "00000018" + b"corazones/deal-commit/v1".hex()
    + "0000000c" + b"mesa-ejemplo".hex()
    + "00000008" + "0000000000000001"
    + "00000008" + "0000000000000001"
    + "00000020" + bytes(range(32)).hex()
)
SERVER_COMMITMENT = "9496ad0cf3d6968d0509ed0b47a45585a56afff7ce79068fb0bb1f16a40c8310"
SEAT_COMMITMENTS = [
    "6ac7e7a646ad132900f6d1491e5482cf04af94db3f2ae88e9e8ac782d09d98e7",
    "c9f2a3762249a9282ca1fc411462f0e7d23364beca4ff5094c63817c06ee123a",
    "0b7b3117b96d31808ae62d2f88abff195a8944505d242987c68dda130be1f68f",
    "4cad2d9467d723c34129fe8f6a765d79a9f816b37fc65785554ad6092d03ca93",
]
ROBOT_SEED_HEX = "9820380d59fb819b5e5bc438ffd80b2e4e49637c3a018ff25770421170d2ffe3"
EXAMPLE_KEY = "774092c9548e166b325859c320c7b07d9162bbe53663ec7cc163b5761571df8c"
EXAMPLE_WORDS = [0xA6C111F4, 0xDB12F061, 0x4EF5E866, 0xB9D60690]
EXAMPLE_DECK = (
    "6S JC 2C 8D 7D 3S 7C KS QH 6C KH 4H 7H QS TS JS 4D 4C 9D 4S JD 9H 6D 8H TC 3C "
    "JH 9C 5D KC 5C 7S AS 8S 3D QD AH 8C 2H AD 5H 2S TD QC 3H TH 5S 6H 9S AC 2D KD"
).split()
EXAMPLE_HANDS = [
    "6S 7D QH 7H 4D JD TC 5D AS AH 5H 3H 9S",
    "JC 3S 6C QS 4C 9H 3C KC 8S 8C 2S TH AC",
    "2C 7C KH TS 9D 6D JH 5C 3D 2H TD 5S 2D",
    "8D KS 4H JS 4S 8H 9C 7S QD AD QC 6H KD",
]
# Second vector: server seed 32 zero bytes, seat s's seed 32 bytes of value s+1, table «t», 0, 0.
ZERO_SEEDS = [bytes([s + 1]) * 32 for s in range(4)]
ZERO_SERVER_COMMITMENT = "7cef4c72b00d2e724ef9b509e951484fec1f36ce107c13bfd3c1a08df249e7df"
ZERO_SEAT0_COMMITMENT = "93ab5dc26a9be624a7564da2f2421534203f54679efd3776e1ba18cb7b286a8d"
ZERO_KEY = "ae89ff332cc659b897984f1632aa80286b9568f5dbc4c38667509f09d8812b3d"
ZERO_DECK = (
    "8D 2D 6D 4C QH KD AD 5H KH 2C 5D 9C QD JC 7D 7H 3H 5C 6S AC 5S 3S 4H JD TH 7C "
    "TD 9D 9S QC TS 8S 2H KC JH AH 9H KS 2S 7S 3C 4S AS 3D QS 8H 6H JS 4D 6C TC 8C"
).split()


def test_commitment_bytes_are_the_documented_encoding() -> None:
    message = field(b"corazones/deal-commit/v1") + field(T.encode()) + field(u64(1)) * 2
    message += field(EXAMPLE_SERVER_SEED)
    assert message.hex() == SERVER_MESSAGE
    assert hashlib.sha256(bytes.fromhex(SERVER_MESSAGE)).hexdigest() == SERVER_COMMITMENT
    assert commit(EXAMPLE_SERVER_SEED, T, 1, 1) == SERVER_COMMITMENT


def test_seat_commitments_and_the_robot_seed() -> None:
    assert ROBOT_SEED.hex() == ROBOT_SEED_HEX
    assert [commit(EXAMPLE_SEEDS[s], T, 1, 1, s) for s in range(4)] == SEAT_COMMITMENTS
    seat0 = (
        field(b"corazones/seat-commit/v1") + field(T.encode()) + field(u64(1)) + field(u64(1))
        + field(u64(0)) + field(EXAMPLE_SEEDS[0])
    )
    assert hashlib.sha256(seat0).hexdigest() == SEAT_COMMITMENTS[0]
    robot = (
        field(b"corazones/server-seat-seed/v1") + field(T.encode()) + field(u64(1))
        + field(u64(1)) + field(u64(3)) + field(EXAMPLE_SERVER_SEED)
    )
    assert hashlib.sha256(robot).digest() == ROBOT_SEED


def test_key_stream_and_deck_of_the_example() -> None:
    key = deal_key(EXAMPLE_SERVER_SEED, EXAMPLE_SEEDS, T, 1, 1)
    assert key.hex() == EXAMPLE_KEY
    message = field(b"corazones/deal-key/v1") + field(T.encode()) + field(u64(1)) + field(u64(1))
    message += b"".join(field(s) for s in [EXAMPLE_SERVER_SEED, *EXAMPLE_SEEDS])
    assert hashlib.sha256(message).digest() == key
    first_block = hashlib.sha256(key + bytes(8)).digest()
    assert [int.from_bytes(first_block[i : i + 4], "big") for i in range(0, 16, 4)] == EXAMPLE_WORDS
    words = keystream(key)
    assert [next(words) for _ in range(4)] == EXAMPLE_WORDS
    assert derive_deck(EXAMPLE_SERVER_SEED, EXAMPLE_SEEDS, T, 1, 1) == EXAMPLE_DECK
    assert example_record()["deck"] == EXAMPLE_DECK


def test_second_vector() -> None:
    assert commit(bytes(32), "t", 0, 0) == ZERO_SERVER_COMMITMENT
    assert commit(ZERO_SEEDS[0], "t", 0, 0, 0) == ZERO_SEAT0_COMMITMENT
    assert deal_key(bytes(32), ZERO_SEEDS, "t", 0, 0).hex() == ZERO_KEY
    assert derive_deck(bytes(32), ZERO_SEEDS, "t", 0, 0) == ZERO_DECK


#: table_reference("mesa-ejemplo"), checked with `xxd -r -p | sha256sum` over the field bytes.
TABLE_REF = "b161a427e36322ac65d92b9f056dad25"


def test_table_reference_vector() -> None:
    assert table_reference("mesa-ejemplo") == TABLE_REF
    message = field(b"corazones/table-ref/v1") + field(b"mesa-ejemplo")
    assert message.hex().startswith("00000016" + b"corazones/table-ref/v1".hex() + "0000000c")
    assert table_reference("mesa-ejemplo2") != TABLE_REF and len(table_reference("x")) == 32


def test_the_document_carries_the_same_vectors() -> None:
    doc = (ROOT / "docs" / "FAIR_DEAL.md").read_text(encoding="utf-8")
    vectors = [
        SERVER_COMMITMENT, *SEAT_COMMITMENTS, ROBOT_SEED_HEX, EXAMPLE_KEY,
        " ".join(f"{w:08x}" for w in EXAMPLE_WORDS), " ".join(EXAMPLE_DECK), *EXAMPLE_HANDS,
        ZERO_SERVER_COMMITMENT, ZERO_SEAT0_COMMITMENT, ZERO_KEY, " ".join(ZERO_DECK),
        "`" + "` `".join(SERVER_MESSAGE[i : i + n] for i, n in _message_fields()) + "`",
        TABLE_REF,
    ]
    for vector in vectors:
        assert vector in doc, vector


def _message_fields() -> list[tuple[int, int]]:
    """(offset, length) in hex digits of the server message's parts, seed shortened in the doc."""
    sizes = [8, 48, 8, 24, 8, 16, 8, 16, 8]
    offsets = [sum(sizes[:k]) for k in range(len(sizes))]
    return list(zip(offsets, sizes, strict=True))


def test_the_game_deals_card_i_to_seat_i_mod_4() -> None:
    game = Game(Options())
    game.apply({"type": "deal", "deck": EXAMPLE_DECK})
    for s in range(4):
        assert sorted(cards_of(game.hands[s])) == sorted(EXAMPLE_HANDS[s].split())
        assert EXAMPLE_DECK[s::4] == EXAMPLE_HANDS[s].split()


def test_fisher_yates_rejects_words_above_the_last_full_multiple() -> None:
    # For i = 51 the first accepted word must be below 2**32 - 2**32 % 52 = 4294967252.
    top = (1 << 32) - (1 << 32) % 52
    rejected = iter([top, (1 << 32) - 1, 52 * 7 + 5] + [0] * 60)
    accepted = iter([52 * 7 + 5] + [0] * 60)
    assert shuffle(rejected) == shuffle(accepted)
    assert shuffle(iter([52 * 7 + 5] + [0] * 60))[51] == DECK[5]


def test_every_seed_and_the_context_change_the_deck() -> None:
    rng = random.Random(1)
    server, seats = rng.randbytes(32), [rng.randbytes(32) for _ in range(4)]
    base = derive_deck(server, seats, "t", 1, 1)
    assert sorted(base) == sorted(DECK)
    assert derive_deck(server, seats, "t", 1, 1) == base
    changed = [derive_deck(rng.randbytes(32), seats, "t", 1, 1)]
    for s in range(4):
        other = list(seats)
        other[s] = rng.randbytes(32)
        changed.append(derive_deck(server, other, "t", 1, 1))
    changed += [derive_deck(server, seats, *ctx) for ctx in (("u", 1, 1), ("t", 2, 1), ("t", 1, 2))]
    changed.append(derive_deck(server, [seats[1], seats[0], *seats[2:]], "t", 1, 1))  # order
    assert all(deck != base for deck in changed)


def test_seeds_must_be_32_bytes() -> None:
    with pytest.raises(ValueError):
        commit(b"short", "t", 1, 1)
    with pytest.raises(ValueError):
        derive_deck(bytes(32), ZERO_SEEDS[:3], "t", 1, 1)


# --- The verifier -----------------------------------------------------------------------------


def test_the_example_record_is_verified() -> None:
    assert verify(example_record()) == []
    assert verify(json.loads(json.dumps(example_record()))) == []


def test_records_with_any_seats_shuffled_by_the_server_verify() -> None:
    rng = random.Random(5)
    for server_seats in ([], [0], [1, 3], [0, 1, 2, 3]):
        seeds = [None if s in server_seats else rng.randbytes(32) for s in range(4)]
        record = make_record(
            "x7", 3, 9, rng.randbytes(32), seeds,
            server_published=(1, "2025-01-01T00:00:00+00:00"),
            seats_published=[(2 + s, "2025-01-01T00:00:01+00:00") for s in range(4)],
            deal=(6, "2025-01-01T00:00:02+00:00"),
            closed=(90, "2025-01-01T00:03:00+00:00"),
            revealed=(90, "2025-01-01T00:03:00+00:00"),
        )
        assert [e["by"] for e in record["seats"]].count("server") == len(server_seats)
        assert verify(record) == []


def test_the_order_of_the_seat_entries_in_the_list_does_not_matter() -> None:
    record = example_record()
    record["seats"].reverse()
    assert verify(record) == []


def _seat(record: dict[str, Any], s: int) -> dict[str, Any]:
    entry: dict[str, Any] = record["seats"][s]
    return entry


def _swap_seeds(r: dict[str, Any]) -> None:
    _seat(r, 0)["seed"], _seat(r, 1)["seed"] = _seat(r, 1)["seed"], _seat(r, 0)["seed"]


def _swap_seeds_and_commitments(r: dict[str, Any]) -> None:
    a, b = _seat(r, 0), _seat(r, 1)
    a["seed"], b["seed"] = b["seed"], a["seed"]
    a["commitment"], b["commitment"] = b["commitment"], a["commitment"]


def _swap_seeds_recommitted(r: dict[str, Any]) -> None:
    """A forger who swaps two seeds and recomputes their commitments: only the deck betrays it."""
    _swap_seeds(r)
    for s in (0, 1):
        seed = bytes.fromhex(_seat(r, s)["seed"])
        _seat(r, s)["commitment"] = commit(seed, T, 1, 1, s)


def _other_seed_recommitted(r: dict[str, Any]) -> None:
    seed = random.Random(3).randbytes(32)
    _seat(r, 2)["seed"], _seat(r, 2)["commitment"] = seed.hex(), commit(seed, T, 1, 1, 2)


def _robot_seed_chosen_freely(r: dict[str, Any]) -> None:
    """The server claims to shuffle for seat 3 but picks any seed (grinding): caught even with a
    matching commitment and the matching deck."""
    seed = random.Random(4).randbytes(32)
    _seat(r, 3)["seed"], _seat(r, 3)["commitment"] = seed.hex(), commit(seed, T, 1, 1, 3)
    seeds = [bytes.fromhex(_seat(r, s)["seed"]) for s in range(4)]
    r["deck"] = derive_deck(EXAMPLE_SERVER_SEED, seeds, T, 1, 1)


def _swap_two_cards(r: dict[str, Any]) -> None:
    r["deck"][10], r["deck"][11] = r["deck"][11], r["deck"][10]


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(r: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = r
        for p in parents:
            node = node[int(p)] if p.isdigit() else node[p]
        node[int(last) if last.isdigit() else last] = value

    return apply


def _flip_hex(path: str) -> Callable[[dict[str, Any]], None]:
    def apply(r: dict[str, Any]) -> None:
        node: Any = r
        *parents, last = path.split(".")
        for p in parents:
            node = node[int(p)] if p.isdigit() else node[p]
        text = node[last]
        node[last] = ("1" if text[0] == "0" else "0") + text[1:]

    return apply


COMMIT_0 = "Asiento 0: el compromiso publicado no corresponde a su semilla"
COMMIT_1 = "Asiento 1: el compromiso publicado no corresponde a su semilla"
SERVER_COMMIT = "Servidor: el compromiso publicado no corresponde a su semilla"

TAMPERING: dict[str, tuple[Callable[[dict[str, Any]], None], list[str]]] = {
    "server seed": (_flip_hex("server.seed"), [SERVER_COMMIT, "Mazo: la carta 1"]),
    "server commitment": (_flip_hex("server.commitment"), [SERVER_COMMIT]),
    "player seed": (_flip_hex("seats.1.seed"), [COMMIT_1, "Mazo: la carta 1"]),
    "player commitment": (_flip_hex("seats.0.commitment"), [COMMIT_0]),
    "robot seed": (
        _flip_hex("seats.3.seed"),
        ["Asiento 3: el compromiso", "Asiento 3: el servidor barajó", "Mazo: la carta 1"],
    ),
    "two cards swapped": (_swap_two_cards, ["Mazo: la carta 11 (para el asiento 2) fue"]),
    "a card replaced": (_set("deck.0", "ZZ"), ["Mazo: la carta 1 (para el asiento 0) fue 'ZZ'"]),
    "seeds swapped between seats": (_swap_seeds, [COMMIT_0, COMMIT_1, "Mazo: la carta 1"]),
    "seeds and commitments swapped": (
        _swap_seeds_and_commitments, [COMMIT_0, COMMIT_1, "Mazo: la carta 1"]
    ),
    "seeds swapped and recommitted": (_swap_seeds_recommitted, ["Mazo: la carta 1"]),
    "another seed recommitted": (_other_seed_recommitted, ["Mazo: la carta 1"]),
    "robot seed chosen by the server": (
        _robot_seed_chosen_freely, ["Asiento 3: el servidor barajó por este asiento"]
    ),
    "seat committed after the deal": (
        _set("seats.2.published.version", 46),
        ["Asiento 2: el compromiso se publicó (versión 46, 2025-03-01T18:00:00.800+00:00) "
         "después del reparto (versión 45, 2025-03-01T18:00:00.820+00:00)"],
    ),
    "seat committed after the deal by the clock": (
        _set("seats.2.published.at", "2025-03-01T18:00:01Z"),
        ["Asiento 2: el compromiso se publicó (versión 44, 2025-03-01T18:00:01.000+00:00) "
         "después del reparto"],
    ),
    "server committed after the deal": (
        _set("server.published.version", 50),
        ["Servidor: el compromiso se publicó (versión 50, "] + [
            f"Asiento {s}: el compromiso se publicó (versión {v}, "
            for s, v in ((0, 42), (1, 43), (2, 44), (3, 41))
        ],
    ),
    "seat committed before the server": (
        _set("seats.0.published.version", 39),
        ["Asiento 0: el compromiso se publicó (versión 39, 2025-03-01T18:00:00.350+00:00) "
         "antes que el del servidor (versión 40, 2025-03-01T18:00:00.000+00:00)"],
    ),
    "seeds revealed before the count closed": (
        _set("revealed.version", 119),
        ["Las semillas se revelaron (versión 119, 2025-03-01T18:04:12.510+00:00) antes de "
         "cerrarse la cuenta (versión 120, 2025-03-01T18:04:12.500+00:00)"],
    ),
    "count closed before the deal": (
        _set("closed.version", 44),
        ["La cuenta se cerró (versión 44, 2025-03-01T18:04:12.500+00:00) antes del reparto"],
    ),
    "table id": (_set("table", "otra-mesa"), [SERVER_COMMIT]),
    "hand number": (_set("hand", 2), [SERVER_COMMIT]),
    "game number": (_set("game", 2), [SERVER_COMMIT]),
}


@pytest.mark.parametrize("name", TAMPERING)
def test_tampering_is_caught(name: str) -> None:
    change, expected = TAMPERING[name]
    record = example_record()
    change(record)
    failed = verify(record)
    assert failed, name
    for text in expected:
        assert any(line.startswith(text) for line in failed), (text, failed)


def test_a_changed_context_fails_every_commitment_and_the_deck() -> None:
    record = example_record()
    record["hand"] = 2
    failed = verify(record)
    assert failed[0] == SERVER_COMMIT
    assert sum("compromiso publicado no corresponde" in line for line in failed) == 5
    assert failed[-1].startswith("Mazo: la carta 1 ")


def test_a_swapped_card_is_named_with_its_position() -> None:
    record = example_record()
    _swap_two_cards(record)
    assert verify(record) == [
        "Mazo: la carta 11 (para el asiento 2) fue 4♥, pero las semillas dan K♥"
    ]


SHAPE: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "missing seat": (
        lambda r: r["seats"].pop(2), "Falta el asiento 2"
    ),
    "duplicated seat": (_set("seats.2.seat", 1), "Asiento 1: aparece dos veces"),
    "seat out of range": (_set("seats.2.seat", 4), "Asiento 4: no existe"),
    "unknown contributor": (_set("seats.2.by", "nadie"), "Asiento 2: «by» debe ser"),
    "short seed": (_set("seats.1.seed", "00ff"), "Asiento 1: la semilla debe ser de 32 bytes"),
    "seed not hex": (_set("server.seed", "zz" * 32), "Servidor: la semilla debe ser de 32 bytes"),
    "version not a number": (
        _set("deal.version", True), "Registro (deal): «version» debe ser un número entero"
    ),
    "time without zone": (
        _set("deal.at", "2025-03-01T18:00:00"), "Registro (deal): «at» debe ser una fecha"
    ),
    "no deck": (lambda r: r.pop("deck"), "Registro: falta el campo «deck»"),
    "short deck": (lambda r: r["deck"].pop(), "Registro: «deck» debe ser la lista"),
    "wrong format": (_set("format", "v0"), "Formato desconocido"),
    "table not text": (_set("table", 7), "Registro: «table» debe ser"),
}


@pytest.mark.parametrize("name", SHAPE)
def test_a_malformed_record_gets_one_clear_message(name: str) -> None:
    change, expected = SHAPE[name]
    record = example_record()
    change(record)
    failed = verify(record)
    assert len(failed) == 1 and failed[0].startswith(expected), failed


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=70),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=30,
)
PATHS = [
    "format", "table", "game", "hand", "deck", "deck.3", "server", "server.seed",
    "server.commitment", "server.published", "server.published.at", "seats", "seats.0",
    "seats.1.seat", "seats.2.by", "seats.3.published.version", "deal", "deal.at", "closed",
    "revealed.version",
]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(PATHS), json_values)
def test_any_json_in_any_field_gets_messages_never_an_exception(path: str, value: Any) -> None:
    record = example_record()
    _set(path, value)(record)
    failed = verify(record)
    assert all(isinstance(line, str) and line for line in failed)


@given(json_values)
def test_any_json_document_gets_a_message(value: Any) -> None:
    assert verify(value)


# --- Command line -----------------------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rules.deal", *args], cwd=ROOT, capture_output=True, text=True,
        timeout=60,
    )


def test_cli_verifies_the_example_it_writes(tmp_path: Path) -> None:
    path = tmp_path / "registro.json"
    written = _cli("example", str(path))
    assert written.returncode == 0
    assert json.loads(path.read_text(encoding="utf-8")) == example_record()
    checked = _cli("verify", str(path))
    assert (checked.returncode, checked.stdout, checked.stderr) == (0, "reparto verificado\n", "")


def test_cli_names_the_failing_check(tmp_path: Path) -> None:
    record = example_record()
    record["seats"][2]["published"]["version"] = 46
    path = tmp_path / "malo.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    checked = _cli("verify", str(path))
    assert checked.returncode == 1
    assert checked.stdout == (
        "Asiento 2: el compromiso se publicó (versión 46, 2025-03-01T18:00:00.800+00:00) "
        "después del reparto (versión 45, 2025-03-01T18:00:00.820+00:00)\n"
    )


def test_cli_bad_input(tmp_path: Path) -> None:
    broken = tmp_path / "roto.json"
    broken.write_text("{", encoding="utf-8")
    assert (_cli("verify", str(broken)).returncode, _cli("verify", str(broken)).stdout) == (
        1, f"{broken} no es un JSON válido\n"
    )
    missing = _cli("verify", str(tmp_path / "no-existe.json"))
    assert missing.returncode == 1 and missing.stdout.startswith("No se pudo leer")
    usage = _cli("comprobar")
    assert usage.returncode == 2 and usage.stderr.startswith("uso: python -m rules.deal")
    example = _cli("example")
    assert json.loads(example.stdout) == example_record()


# --- Statistics (the full 200,000-deal run is bench/deal_stats.py) ----------------------------

SUITE_DEALS = 20_000


def test_chi_square_tail_matches_known_values() -> None:
    # Critical values from standard chi-square tables (3 and 51 degrees of freedom).
    assert chi2_sf(7.815, 3) == pytest.approx(0.05, abs=2e-5)
    assert chi2_sf(16.266, 3) == pytest.approx(0.001, abs=2e-6)
    assert chi2_sf(68.669, 51) == pytest.approx(0.05, abs=2e-5)
    assert chi2_sf(0, 3) == 1.0


@pytest.mark.parametrize("honest_only", [False, True], ids=["all_random", "one_honest"])
def test_each_card_lands_uniformly_on_seats_and_positions(honest_only: bool) -> None:
    result = uniformity(random_deals(SUITE_DEALS, RNG_SEED, honest_only))
    assert result["deals"] == SUITE_DEALS
    assert result["seat_p_bonferroni"] >= ALPHA, result
    assert result["position_p_bonferroni"] >= ALPHA, result
    assert result["passed"]


def test_the_same_statistics_catch_a_server_choosing_between_two_seeds() -> None:
    """A server that may pick the better of two seeds (for seat 0 to get Q♠) is visible."""
    rng = random.Random(RNG_SEED)

    def ground() -> list[str]:
        seats = [rng.randbytes(32) for _ in range(4)]
        first = derive_deck(rng.randbytes(32), seats, "t", 1, 1)
        return first if "QS" in first[0::4] else derive_deck(rng.randbytes(32), seats, "t", 1, 1)

    result = uniformity(ground() for _ in range(2_000))
    assert result["seat_p_bonferroni"] < ALPHA
    assert not result["passed"]


def test_bench_deal_stats_prints_its_json_line() -> None:
    """`make bench-deal` (200,000 deals per scenario) ends with a JSON line; here a tiny run."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "deal_stats.py"), "--deals", "2000"],
        capture_output=True, text=True, timeout=120,
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["deals"] == 2000 and result["alpha"] == ALPHA
    for name in ("all_random", "one_honest"):
        assert result[name]["deals"] == 2000
        assert result[name]["passed"] is True
    assert out.returncode == 0
