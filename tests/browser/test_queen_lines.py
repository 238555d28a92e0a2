"""The Queen of Hearts' lines agree in number and person, for one to four winners and one to
three players over the limit: static/js/queen.js run in Chromium against the real page's module."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser

from tests.browser.browserkit import new_context

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Tito", "Luna", "Beto"]

# (winners, totals, target) -> the exact lines
CASES: list[tuple[list[int], list[int], int, list[str]]] = [
    ([0], [20, 30, 40, 55], 50, [
        "¡Ana! Te llevaste la mesa con 20 puntos. Ni mis corazones pudieron contigo.",
        "Beto: te pasaste de 50. Mis corazones pesan, ¿eh? Se te nota el susto."]),
    ([0], [1, 30, 52, 55], 50, [
        "¡Ana! Te llevaste la mesa con 1 punto. Ni mis corazones pudieron contigo.",
        "Luna y Beto: se pasaron de 50. Mis corazones pesan, ¿eh? Se les nota el susto."]),
    ([2], [104, 110, 40, 101], 100, [
        "¡Luna! Te llevaste la mesa con 40 puntos. Ni mis corazones pudieron contigo.",
        "Ana, Tito y Beto: se pasaron de 100. Mis corazones pesan, ¿eh? Se les nota el susto."]),
    ([0, 1], [20, 20, 40, 50], 50, [
        "¡Ana y Tito! Empataron en lo más bajo con 20 puntos: la mesa es de ustedes dos. "
        "Mis respetos.",
        "Beto: te pasaste de 50. Mis corazones pesan, ¿eh? Se te nota el susto."]),
    ([1, 3], [60, 10, 70, 10], 50, [
        "¡Tito y Beto! Empataron en lo más bajo con 10 puntos: la mesa es de ustedes dos. "
        "Mis respetos.",
        "Ana y Luna: se pasaron de 50. Mis corazones pesan, ¿eh? Se les nota el susto."]),
    ([0, 1, 2], [0, 0, 0, 52], 50, [
        "¡Ana, Tito y Luna! Empataron en lo más bajo con 0 puntos: la mesa es de ustedes tres. "
        "Mis respetos.",
        "Beto: te pasaste de 50. Mis corazones pesan, ¿eh? Se te nota el susto."]),
    ([0, 1, 2, 3], [50, 50, 50, 50], 50, [
        "¡Ana, Tito, Luna y Beto! Empataron en lo más bajo con 50 puntos: la mesa es de ustedes "
        "cuatro. Mis respetos."]),
]

# Forms that must never appear: a singular verb or pronoun for many, a plural one for one,
# the vosotros forms, and the mixed «pasasteron» that started this.
WRONG = ("pasasteron", "pasasteis", "llevasteis", "os ", "vosotros")


@pytest.mark.parametrize(("winners", "totals", "target", "expected"), CASES)
def test_queen_lines(server: str, browser: Browser, winners: list[int], totals: list[int],
                     target: int, expected: list[str]) -> None:
    ctx = new_context(browser, 390, 844)
    page = ctx.new_page()
    page.goto(server + "/")
    version = page.evaluate(
        "() => document.querySelector('script[type=module]').src.split('/js/')[0]")
    game: dict[str, Any] = {"winners": winners, "totals": totals, "target": target,
                            "names": NAMES}
    lines = page.evaluate(
        "async ([base, game]) => (await import(`${base}/js/queen.js`)).queenLines(game)",
        [version, game])
    ctx.close()
    assert lines == expected
    over = [s for s in range(4) if totals[s] >= target and s not in winners]
    text = " ".join(lines)
    for bad in WRONG:
        assert bad not in text
    # number and person follow the count of people each line is about
    assert ("Te llevaste" in text) == (len(winners) == 1)
    assert ("Empataron" in text) == (len(winners) > 1)
    assert ("te pasaste" in text) == (len(over) == 1)
    assert ("se pasaron" in text) == (len(over) > 1)
    assert ("Se les nota" in text) == (len(over) > 1)
