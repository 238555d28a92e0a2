"""La Pista: GET /api/tables/<id>/hint suggests for the viewer's own seat and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.kit import Player, wait_until

pytestmark = pytest.mark.db


def _table(app: Any) -> tuple[str, Player]:
    host = Player(app)
    tid = host.create("Ana")
    for seat in (1, 2, 3):
        host.act(tid, "add_robot", seat=seat)
    return tid, host


def test_hint_passes_three_of_my_cards_then_plays_a_legal_one(app: Any) -> None:
    tid, ana = _table(app)
    r = ana.client.get(f"/api/tables/{tid}/hint")
    assert r.status_code == 409 and r.get_json()["error"] == "no_decision"
    ana.act(tid, "start")
    before = ana.state(tid)
    hint = ana.client.get(f"/api/tables/{tid}/hint")
    assert hint.status_code == 200
    cards = hint.get_json()["cards"]
    assert len(set(cards)) == 3 and set(cards) <= set(before["view"]["hand"])
    after = ana.state(tid)["view"]  # a GET changes nothing of mine (robots pass meanwhile)
    assert after["hand"] == before["view"]["hand"] and after["pass_selected"] == []
    assert after["pass_confirmed"][0] is False
    ana.act(tid, "confirm_pass", cards=cards)

    def my_turn() -> dict[str, Any] | None:
        st = ana.state(tid)
        return st if st["view"]["turn"] == 0 and st["view"]["phase"] == "playing" else None

    st = wait_until(my_turn)
    card = ana.client.get(f"/api/tables/{tid}/hint").get_json()["card"]
    assert card in st["view"]["legal"]
    ana.act(tid, "play", card=card)


def test_hint_is_for_seated_players_only(app: Any) -> None:
    tid, ana = _table(app)
    ana.act(tid, "start")
    stranger = Player(app)
    r = stranger.client.get(f"/api/tables/{tid}/hint")
    assert r.status_code == 403 and r.get_json()["error"] == "not_seated"
    assert "Solo quien juega" in r.get_json()["message"]
    r = stranger.client.get("/api/tables/nope/hint")
    assert r.status_code == 404


def test_an_empty_or_stripped_table_id_is_a_json_404_not_a_redirect(app: Any) -> None:
    # werkzeug strips a raw newline; with merged slashes '/api/tables//poll' redirected (308) to
    # '/api/tables/poll', an HTML answer on the API (found by the OpenAPI fuzz)
    client = Player(app).client
    for url in ("/api/tables/\n/hint", "/api/tables/\n/poll", "/api/tables//poll"):
        r = client.get(url)
        assert r.status_code == 404 and r.is_json, (url, r.status_code)
        assert r.get_json()["error"] == "not_found"
