"""JSON through orjson (tables/jsonwire.py): the same text the standard library wrote, a fallback
for what orjson refuses, and Flask's answers still sorted, compact and readable by any client."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest
from flask import Flask

from tables import jsonwire
from tests.kit import Player

STATE_LIKE: dict[str, Any] = {
    "version": 12, "seats": [{"name": "Ñandú ♥", "robot": None, "points": [0, 26]}],
    "view": {"hand": ["QS", "AH"], "trick": [], "deadline": None, "ok": True, "x": 1.5},
    "log": [{"type": "chat", "text": "¡REVANCHA! «ya» \u2028 \"comillas\" \\ </script>"}],
}


def test_dumps_writes_what_the_standard_library_wrote() -> None:
    assert jsonwire.dumps(STATE_LIKE) == json.dumps(STATE_LIKE, separators=(",", ":"),
                                                   ensure_ascii=False)
    assert jsonwire.loads(jsonwire.dumps(STATE_LIKE)) == STATE_LIKE


def test_what_orjson_refuses_falls_back_to_the_standard_library() -> None:
    huge = {"n": 2**70, 3: "seat"}
    assert jsonwire.dumps(huge) == '{"n":1180591620717411303424,"3":"seat"}'


def test_flask_answers_keep_flasks_rules(app: Flask) -> None:
    provider = app.json
    assert isinstance(provider, jsonwire.JSONProvider)
    text = provider.dumps({"b": 1, "a": "Ñ", "when": datetime(2026, 12, 5, 10, 0, tzinfo=UTC),
                           "day": date(2026, 12, 5), "d": Decimal("1.5")},
                          separators=(",", ":"))
    assert text == ('{"a":"Ñ","b":1,"d":"1.5","day":"Sat, 05 Dec 2026 00:00:00 GMT",'
                    '"when":"Sat, 05 Dec 2026 10:00:00 GMT"}')
    assert provider.dumps({"b": 1, "a": 2}, indent=2) == '{\n  "a": 2,\n  "b": 1\n}'
    assert provider.dumps({"n": 2**70}, separators=(",", ":")) == '{"n":1180591620717411303424}'
    with pytest.raises(TypeError):
        provider.dumps({"x": object()}, separators=(",", ":"))
    with pytest.raises(ValueError):
        provider.loads('{"v": NaN}')


@pytest.mark.db
def test_a_table_answers_in_utf8_and_a_broken_body_gets_its_spanish_message(app: Flask) -> None:
    ana = Player(app)
    tid = ana.create("Begoña")
    r = ana.client.get(f"/api/tables/{tid}")
    assert r.status_code == 200 and r.mimetype == "application/json"
    assert "Begoña" in r.get_data(as_text=True)  # as it is, not \u escaped
    version = r.get_json()["state"]["version"]
    stranger = Player(app)
    for body in (b'{"type": "sit", "name": "\\ud800"}', b'{"type": NaN}', b'{"type": '):
        r = stranger.client.post(f"/api/tables/{tid}/actions", data=body,
                                 headers={"X-CSRFToken": stranger.csrf,
                                          "Content-Type": "application/json"})
        assert r.status_code == 400, body
        assert r.get_json()["error"] == "bad_json" and "JSON" in r.get_json()["message"]
    assert ana.state(tid)["version"] == version  # nothing changed
