"""A deal anyone can check: commitments, the deck as a function of the seeds, and the verifier.

docs/FAIR_DEAL.md is the specification; this module is its reference implementation.

* Every seed is 32 bytes.  Before a hand the server publishes ``commit(server_seed, ...)``; each
  seat then publishes ``commit(seat_seed, ..., seat=s)``.  A commitment is SHA-256 over
  length-prefixed fields: a versioned role tag, the table id, game and hand number, (the seat,)
  the seed.
* :func:`derive_deck` turns the five seeds into the 52 cards in dealing order (card ``i`` goes to
  seat ``i % 4``, as ``Game.deal`` does): SHA-256 in counter mode over a key hashed from all the
  seeds feeds a Fisher-Yates shuffle that draws by rejection sampling (no modulo bias).
* After the count closes every seed is revealed and :func:`verify` checks a record (JSON).

    python -m rules.deal verify RECORD.json     # «reparto verificado», or what fails (exit 1)
    python -m rules.deal example [RECORD.json]  # a valid example record

Standard library only.  Import it as ``rules.deal`` (the package does not re-export it: when
``rules/__init__`` imports it, ``python -m rules.deal`` warns that the module was already imported).
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from .cards import DECK, card_label

RECORD_FORMAT: Final = "corazones/deal-record/v1"
SERVER_TAG: Final = b"corazones/deal-commit/v1"
SEAT_TAG: Final = b"corazones/seat-commit/v1"
KEY_TAG: Final = b"corazones/deal-key/v1"
SERVER_SEAT_TAG: Final = b"corazones/server-seat-seed/v1"
TABLE_REF_TAG: Final = b"corazones/table-ref/v1"
SEED_BYTES: Final = 32
SEATS: Final = 4

#: (log version, ISO 8601 UTC time) of an event in the table's log.
Stamp = tuple[int, str]


def field(data: bytes) -> bytes:
    """One field of a hashed message: its length as 4 bytes big-endian, then the bytes."""
    return len(data).to_bytes(4, "big") + data


def u64(n: int) -> bytes:
    """A number (game, hand, seat, counter) as 8 bytes big-endian."""
    return n.to_bytes(8, "big")


def table_reference(table_id: str) -> str:
    """The table's public name in commitments and records (32 hex digits): the first 16 bytes of
    SHA-256(field(tag) field(id)). The id itself is the capability that opens the table, so it is
    never published; the reference is fixed for the table's life and reveals nothing of the id."""
    digest = hashlib.sha256(field(TABLE_REF_TAG) + field(table_id.encode("utf-8"))).digest()
    return digest[:16].hex()


def _context(table: str, game: int, hand: int) -> bytes:
    return field(table.encode("utf-8")) + field(u64(game)) + field(u64(hand))


def _check_seed(seed: bytes) -> None:
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a seed has {SEED_BYTES} bytes, not {len(seed)}")


def commit(seed: bytes, table: str, game: int, hand: int, seat: int | None = None) -> str:
    """The published commitment to ``seed`` (hex): the server's with no seat, else that seat's."""
    _check_seed(seed)
    if seat is None:
        message = field(SERVER_TAG) + _context(table, game, hand) + field(seed)
    else:
        message = field(SEAT_TAG) + _context(table, game, hand) + field(u64(seat)) + field(seed)
    return hashlib.sha256(message).hexdigest()


def server_seat_seed(server_seed: bytes, table: str, game: int, hand: int, seat: int) -> bytes:
    """The seed the server contributes for a robot or a silent page: fixed by its own seed, so it
    cannot be chosen after the players' seeds are known."""
    _check_seed(server_seed)
    message = field(SERVER_SEAT_TAG) + _context(table, game, hand) + field(u64(seat))
    return hashlib.sha256(message + field(server_seed)).digest()


def deal_key(
    server_seed: bytes, seat_seeds: Sequence[bytes], table: str, game: int, hand: int
) -> bytes:
    """SHA-256 over the key tag, the hand's context, the server seed and seats 0..3's seeds."""
    if len(seat_seeds) != SEATS:
        raise ValueError("a deal takes exactly four seat seeds")
    for seed in (server_seed, *seat_seeds):
        _check_seed(seed)
    message = field(KEY_TAG) + _context(table, game, hand) + field(server_seed)
    return hashlib.sha256(message + b"".join(field(s) for s in seat_seeds)).digest()


def keystream(key: bytes) -> Iterator[int]:
    """32-bit words (big-endian) of SHA-256(key || counter), counter = 0, 1, 2, ... as 8 bytes."""
    counter = 0
    while True:
        yield from struct.unpack(">8I", hashlib.sha256(key + u64(counter)).digest())
        counter += 1


def shuffle(words: Iterator[int]) -> list[str]:
    """Fisher-Yates over DECK: for i = 51 .. 1 swap card i with a uniform j in 0..i, drawing j as
    ``w % (i + 1)`` from the first word ``w`` below the largest multiple of ``i + 1`` <= 2**32."""
    deck = list(DECK)
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        limit = (1 << 32) - (1 << 32) % n
        w = next(words)
        while w >= limit:
            w = next(words)
        j = w % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def derive_deck(
    server_seed: bytes, seat_seeds: Sequence[bytes], table: str, game: int, hand: int
) -> list[str]:
    """The hand's deck in dealing order: a function of the five seeds and the context alone."""
    return shuffle(keystream(deal_key(server_seed, seat_seeds, table, game, hand)))


def _stamp(stamp: Stamp) -> dict[str, Any]:
    return {"version": stamp[0], "at": stamp[1]}


def make_record(
    table: str,
    game: int,
    hand: int,
    server_seed: bytes,
    seat_seeds: Sequence[bytes | None],
    *,
    server_published: Stamp,
    seats_published: Sequence[Stamp],
    deal: Stamp,
    closed: Stamp,
    revealed: Stamp,
) -> dict[str, Any]:
    """The record an honest server publishes; a ``None`` seat seed means the server shuffled for
    that seat (a robot, or a page that sent nothing in time)."""
    seeds = [
        seed if seed is not None else server_seat_seed(server_seed, table, game, hand, s)
        for s, seed in enumerate(seat_seeds)
    ]
    return {
        "format": RECORD_FORMAT,
        "table": table,
        "game": game,
        "hand": hand,
        "server": {
            "commitment": commit(server_seed, table, game, hand),
            "seed": server_seed.hex(),
            "published": _stamp(server_published),
        },
        "seats": [
            {
                "seat": s,
                "by": "server" if seat_seeds[s] is None else "player",
                "commitment": commit(seeds[s], table, game, hand, s),
                "seed": seeds[s].hex(),
                "published": _stamp(seats_published[s]),
            }
            for s in range(SEATS)
        ],
        "deal": _stamp(deal),
        "deck": derive_deck(server_seed, seeds, table, game, hand),
        "closed": _stamp(closed),
        "revealed": _stamp(revealed),
    }


# --- The verifier -------------------------------------------------------------------------------


class _Bad(Exception):
    """The record's shape is wrong: nothing further can be checked."""


def _get(obj: Any, key: str, where: str) -> Any:
    if not isinstance(obj, Mapping) or key not in obj:
        raise _Bad(f"{where}: falta el campo «{key}»")
    return obj[key]


def _int(obj: Any, key: str, where: str) -> int:
    value = _get(obj, key, where)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << 64:
        raise _Bad(f"{where}: «{key}» debe ser un número entero entre 0 y 2^64-1")
    return value


def _seed(obj: Any, where: str) -> bytes:
    value = _get(obj, "seed", where)
    try:
        seed = bytes.fromhex(value) if isinstance(value, str) else b""
    except ValueError:
        seed = b""
    if len(seed) != SEED_BYTES:
        raise _Bad(f"{where}: la semilla debe ser de {SEED_BYTES} bytes en hexadecimal")
    return seed


def _when(obj: Any, key: str, where: str) -> tuple[int, datetime]:
    stamp = _get(obj, key, where)
    version = _int(stamp, "version", f"{where} ({key})")
    at = _get(stamp, "at", f"{where} ({key})")
    try:
        moment = datetime.fromisoformat(at) if isinstance(at, str) else None
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise _Bad(f"{where} ({key}): «at» debe ser una fecha ISO 8601 con zona horaria")
    return version, moment


def _parse(record: Any) -> dict[str, Any]:
    """The record's fields, typed; raises _Bad with the first shape error."""
    if not isinstance(record, Mapping):
        raise _Bad("El registro debe ser un objeto JSON")
    if record.get("format") != RECORD_FORMAT:
        raise _Bad(f"Formato desconocido: se esperaba «{RECORD_FORMAT}»")
    table = _get(record, "table", "Registro")
    if not isinstance(table, str) or not table:
        raise _Bad("Registro: «table» debe ser el identificador de la mesa (texto)")
    server = _get(record, "server", "Registro")
    seats_in = _get(record, "seats", "Registro")
    if not isinstance(seats_in, list):
        raise _Bad("Registro: «seats» debe ser una lista con los cuatro asientos")
    seats: dict[int, dict[str, Any]] = {}
    for n, entry in enumerate(seats_in):
        seat = _int(entry, "seat", f"Entrada {n + 1} de «seats»")
        where = f"Asiento {seat}"
        if seat >= SEATS:
            raise _Bad(f"{where}: no existe (los asientos van de 0 a 3)")
        if seat in seats:
            raise _Bad(f"{where}: aparece dos veces")
        by = _get(entry, "by", where)
        if by not in ("player", "server"):
            raise _Bad(f"{where}: «by» debe ser «player» o «server»")
        seats[seat] = {
            "by": by,
            "commitment": _get(entry, "commitment", where),
            "seed": _seed(entry, where),
            "published": _when(entry, "published", where),
        }
    missing = [s for s in range(SEATS) if s not in seats]
    if missing:
        raise _Bad("Falta el asiento " + ", ".join(map(str, missing)))
    deck = _get(record, "deck", "Registro")
    if not isinstance(deck, list) or len(deck) != len(DECK):
        raise _Bad("Registro: «deck» debe ser la lista de las 52 cartas repartidas")
    return {
        "table": table,
        "game": _int(record, "game", "Registro"),
        "hand": _int(record, "hand", "Registro"),
        "server": {
            "commitment": _get(server, "commitment", "Servidor"),
            "seed": _seed(server, "Servidor"),
            "published": _when(server, "published", "Servidor"),
        },
        "seats": [seats[s] for s in range(SEATS)],
        "deal": _when(record, "deal", "Registro"),
        "closed": _when(record, "closed", "Registro"),
        "revealed": _when(record, "revealed", "Registro"),
        "deck": deck,
    }


def _at(when: tuple[int, datetime]) -> str:
    return f"versión {when[0]}, {when[1].isoformat(timespec='milliseconds')}"


def _before(first: tuple[int, datetime], then: tuple[int, datetime]) -> bool:
    """``first`` came strictly earlier in the log (its clock not later either)."""
    return first[0] < then[0] and first[1] <= then[1]


def verify(record: Any) -> list[str]:
    """Every failed check, explained in Spanish; an empty list means the deal is verified."""
    try:
        r = _parse(record)
    except _Bad as bad:
        return [str(bad)]
    table, game, hand = r["table"], r["game"], r["hand"]
    server, seats, deal = r["server"], r["seats"], r["deal"]
    failed: list[str] = []
    if server["commitment"] != commit(server["seed"], table, game, hand):
        failed.append("Servidor: el compromiso publicado no corresponde a su semilla")
    if not _before(server["published"], deal):
        failed.append(
            f"Servidor: el compromiso se publicó ({_at(server['published'])}) "
            f"después del reparto ({_at(deal)})"
        )
    for s, seat in enumerate(seats):
        if seat["commitment"] != commit(seat["seed"], table, game, hand, s):
            failed.append(f"Asiento {s}: el compromiso publicado no corresponde a su semilla")
        if seat["by"] == "server" and seat["seed"] != server_seat_seed(
            server["seed"], table, game, hand, s
        ):
            failed.append(
                f"Asiento {s}: el servidor barajó por este asiento, pero la semilla no es la "
                "que se deriva de la semilla del servidor"
            )
        if not _before(server["published"], seat["published"]):
            failed.append(
                f"Asiento {s}: el compromiso se publicó ({_at(seat['published'])}) "
                f"antes que el del servidor ({_at(server['published'])})"
            )
        if not _before(seat["published"], deal):
            failed.append(
                f"Asiento {s}: el compromiso se publicó ({_at(seat['published'])}) "
                f"después del reparto ({_at(deal)})"
            )
    if not _before(deal, r["closed"]):
        failed.append(
            f"La cuenta se cerró ({_at(r['closed'])}) antes del reparto ({_at(deal)})"
        )
    if not (r["closed"][0] <= r["revealed"][0] and r["closed"][1] <= r["revealed"][1]):
        failed.append(
            f"Las semillas se revelaron ({_at(r['revealed'])}) antes de cerrarse la cuenta "
            f"({_at(r['closed'])})"
        )
    expected = derive_deck(server["seed"], [s["seed"] for s in seats], table, game, hand)
    for i, (played, derived) in enumerate(zip(r["deck"], expected, strict=True)):
        if played != derived:
            shown = card_label(played) if played in DECK else repr(played)
            failed.append(
                f"Mazo: la carta {i + 1} (para el asiento {i % SEATS}) fue {shown}, pero las "
                f"semillas dan {card_label(derived)}"
            )
            break
    return failed


# --- Command line -------------------------------------------------------------------------------

#: The example's seeds (also the documentation's test vectors): bytes 0..31, and seat s's seed is
#: the bytes 32*(s+1) .. 32*(s+1)+31 modulo 256; seat 3 is a robot (the server shuffles for it).
EXAMPLE_TABLE: Final = "mesa-ejemplo"
EXAMPLE_SERVER_SEED: Final = bytes(range(32))
EXAMPLE_SEAT_SEEDS: Final = tuple(
    bytes((32 * (s + 1) + i) % 256 for i in range(32)) for s in range(SEATS)
)


def example_record() -> dict[str, Any]:
    """A valid record: table «mesa-ejemplo», game 1, hand 1, seat 3 a robot."""
    seeds: list[bytes | None] = [*EXAMPLE_SEAT_SEEDS[:3], None]
    return make_record(
        EXAMPLE_TABLE, 1, 1, EXAMPLE_SERVER_SEED, seeds,
        server_published=(40, "2025-03-01T18:00:00.000Z"),
        seats_published=[
            (42, "2025-03-01T18:00:00.350Z"), (43, "2025-03-01T18:00:00.410Z"),
            (44, "2025-03-01T18:00:00.800Z"), (41, "2025-03-01T18:00:00.001Z"),
        ],
        deal=(45, "2025-03-01T18:00:00.820Z"),
        closed=(120, "2025-03-01T18:04:12.500Z"),
        revealed=(121, "2025-03-01T18:04:12.510Z"),
    )


USAGE: Final = (
    "uso: python -m rules.deal verify REGISTRO.json\n"
    "     python -m rules.deal example [REGISTRO.json]"
)


def main(argv: Iterable[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["example"] and len(args) <= 2:
        text = json.dumps(example_record(), indent=2, ensure_ascii=False) + "\n"
        if len(args) == 2:
            with open(args[1], "w", encoding="utf-8") as out:
                out.write(text)
        else:
            sys.stdout.write(text)
        return 0
    if args[:1] != ["verify"] or len(args) != 2:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        with open(args[1], encoding="utf-8") as f:
            record = json.load(f)
    except OSError as e:
        print(f"No se pudo leer {args[1]}: {e.strerror}")
        return 1
    except (ValueError, RecursionError):
        print(f"{args[1]} no es un JSON válido")
        return 1
    failed = verify(record)
    for line in failed:
        print(line)
    if not failed:
        print("reparto verificado")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
