"""One notification permission per device: a subscription made once (Mis mesas) brings «Te toca»
from a table the device sat at afterwards, to the same endpoint, opening that table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.kit import Player, close_app, make_app
from tests.push.pushkit import PushService, Subscriber, verify_vapid


@pytest.fixture()
def papp(migrated: str) -> Iterator[Any]:
    app = make_app(migrated, PUSH_INSECURE_ENDPOINTS=True, PUSH_SWEEP=0.2,
                        PUSH_BACKOFF=0.5, ROBOT_DELAY=0.0)
    yield app
    close_app(app)


@pytest.mark.db
def test_one_subscription_brings_the_turn_of_a_table_joined_later(
        papp: Any, push_service: PushService) -> None:
    ana, beto = Player(papp), Player(papp)
    first = ana.create("Ana")
    beto.act(first, "sit", name="Beto")
    sub = Subscriber(push_service, "beto-phone")
    r = beto.post("/api/push/device", {"subscription": sub.subscription()})  # the one prompt
    assert r.status_code == 200 and r.get_json()["subscribed"] is True
    # Later Beto sits at a second table: no subscribe call, no prompt
    second = ana.create("Ana")
    beto.act(second, "sit", name="Beto")
    for seat in (2, 3):
        ana.act(second, "add_robot", seat=seat)
    ana.act(second, "start")  # Beto must pass there now, because of Ana's action
    (push,) = push_service.wait_for(sub.path)
    payload = sub.decrypt(push)
    assert payload["url"] == f"/t/{second}" and payload["table"] == second
    assert payload["tag"] == f"corazones-{second}" and payload["turn"] == "g1:h1:pass"
    verify_vapid(push, sub.endpoint, papp.config["VAPID_PUBLIC_KEY"])
    # and the first table too, with the same subscription
    for seat in (2, 3):
        ana.act(first, "add_robot", seat=seat)
    ana.act(first, "start")
    pushes = push_service.wait_for(sub.path, 2)
    assert sub.decrypt(pushes[1])["url"] == f"/t/{first}"
