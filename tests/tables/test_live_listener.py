"""The Redis listener (tables/live.py ``_listen``): a lost subscription is logged when it is
lost and when it is back, not at every attempt in between. Real Redis (the one this machine
runs); the listener's connection is closed from the server's side."""

from __future__ import annotations

import logging
import secrets
import socket
import threading
from collections.abc import Callable, Iterator

import pytest
import redis

from tables import live

REDIS = "redis://127.0.0.1:6379/0"


class Reports:
    """What the listener under test reported (subscribed or not), in order."""

    def __init__(self) -> None:
        self.seen: list[bool] = []
        self.changed = threading.Condition()

    def note(self, up: bool) -> None:
        with self.changed:
            self.seen.append(up)
            self.changed.notify_all()

    def wait(self, done: Callable[[list[bool]], bool]) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: done(self.seen), timeout=30), self.seen


@pytest.fixture()
def reports(monkeypatch: pytest.MonkeyPatch) -> Iterator[Reports]:
    saved = live._epoch, live._listening
    out = Reports()
    real = live._set_listening

    def noting(up: bool) -> None:
        real(up)
        out.note(up)

    monkeypatch.setattr(live, "_set_listening", noting)
    monkeypatch.setattr(live, "RESUBSCRIBE_AFTER", 0.05)
    yield out
    live._epoch, live._listening = saved


def _kill(name: str) -> None:
    """Close the named client's connection from the server's side."""
    admin = redis.Redis.from_url(REDIS)
    ids = [c["id"] for c in admin.client_list() if c.get("name") == name]
    assert ids, name
    for client_id in ids:
        admin.client_kill_filter(_id=client_id)


def test_a_lost_subscription_is_logged_when_lost_and_when_back(
        reports: Reports, caplog: pytest.LogCaptureFixture) -> None:
    name = f"test-listener-{secrets.token_hex(4)}"
    stop = threading.Event()
    listener = threading.Thread(target=live._listen, args=(f"{REDIS}?client_name={name}", stop),
                                daemon=True)
    with caplog.at_level(logging.WARNING, logger="corazones.live"):
        listener.start()
        reports.wait(lambda s: s == [True])
        _kill(name)
        reports.wait(lambda s: s == [True, False, True])
        stop.set()
        _kill(name)
        listener.join(timeout=30)
    assert not listener.is_alive()
    assert reports.seen == [True, False, True, False]
    said = [r.getMessage() for r in caplog.records if r.name == "corazones.live"]
    assert said == [
        "notices: no Redis subscription (ConnectionError); the pages read the versions until "
        "it is back",
        "notices: subscribed to Redis again",
        "notices: no Redis subscription (ConnectionError); the pages read the versions until "
        "it is back",
    ]


def test_attempts_that_keep_failing_are_logged_once(
        reports: Reports, caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as s:  # a port nobody listens on: refused at once
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    stop = threading.Event()
    listener = threading.Thread(target=live._listen, args=(f"redis://127.0.0.1:{port}/0", stop),
                                daemon=True)
    with caplog.at_level(logging.WARNING, logger="corazones.live"):
        listener.start()
        reports.wait(lambda s: len(s) >= 3)
        stop.set()
        listener.join(timeout=30)
    assert not listener.is_alive()
    assert set(reports.seen) == {False}
    said = [r.getMessage() for r in caplog.records if r.name == "corazones.live"]
    assert said == ["notices: no Redis subscription (ConnectionError); the pages read the "
                    "versions until it is back"]
