"""Nothing a user sends may cause a 500: what test_tables_schemathesis.py cannot reach, i.e.
actions of seated players in a game under way, and the plain pages' forms."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tables import kinds
from tests.kit import Player

pytestmark = pytest.mark.db

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 10**12), st.floats(allow_nan=True),
    st.text(max_size=40), st.sampled_from(["2C", "QS", "10H", "AH", "reino", "facil", "t1", ""]),
)
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12)
fields = st.sampled_from(["name", "seat", "cards", "card", "accused", "text", "taunt_id",
                          "robot_level", "deck", "version", "action_id", "host_name", "target"])
bodies = st.one_of(
    json_values,
    st.fixed_dictionaries({"type": st.sampled_from(list(kinds.ACTION_TYPES))},
                          optional={}).flatmap(
        lambda base: st.dictionaries(fields, json_values, max_size=4).map(
            lambda extra: {**extra, **base})),
)


@pytest.fixture()
def table(app: Any) -> tuple[str, Player, Player]:
    host = Player(app)
    tid = host.create()
    guest = Player(app)
    guest.act(tid, "sit", name="Beto")
    host.act(tid, "add_robot", seat=2)
    host.act(tid, "add_robot", seat=3)
    host.act(tid, "start")
    return tid, host, guest


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(body=bodies, who=st.integers(0, 1))
def test_random_actions_never_cause_a_server_error(table, body, who):
    tid, host, guest = table
    p = (host, guest)[who]
    r = p.post(f"/api/tables/{tid}/actions", body)
    assert r.status_code < 500, (body, r.get_json())
    data = r.get_json()
    if r.status_code >= 400:
        assert set(data) >= {"error", "message"}
    else:
        assert "state" in data


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(form=st.dictionaries(fields | st.just("type"), st.text(max_size=12), max_size=4))
def test_random_plain_page_forms_never_cause_a_server_error(table, form):
    """The plain pages' forms are not in the OpenAPI document (the JSON API's creations and
    ``since`` are: test_tables_schemathesis.py covers them)."""
    tid, host, _ = table
    r = host.client.post(f"/t/{tid}/plain", data={**form, "csrf_token": host.csrf})
    assert r.status_code == 302
    r = host.client.post("/plain/new", data={**form, "csrf_token": host.csrf})
    assert r.status_code == 302
