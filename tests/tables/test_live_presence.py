"""Who is watching a table (tables/live.py ``touch``/``present``), shared through Redis: somebody
new is written at once, a page's renewals of its presence go in one pipeline a process now and
then. Real Redis (the one this machine runs)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from tables import live


@pytest.fixture()
def shared(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    client = redis.Redis.from_url("redis://127.0.0.1:6379/0")
    monkeypatch.setattr(live, "_redis", client)
    monkeypatch.setattr(live, "PRESENCE_WINDOW", 6.0)  # a renewal after 1 s
    monkeypatch.setattr(live, "PRESENCE_FLUSH", 1.5)  # what the test moves by hand
    monkeypatch.setattr(live, "_presence_flushed", 0.0)
    live._presence_due.clear()
    yield client
    live._presence_due.clear()


def _scores(client: Any, table_id: str) -> dict[str, float]:
    return {k.decode(): v for k, v in client.zrange(f"corazones:presence:{table_id}", 0, -1,
                                                    withscores=True)}


def test_a_new_viewer_is_shared_at_once_and_renewals_wait_for_the_process_flush(shared):
    a, b = "t" + secrets.token_hex(8), "t" + secrets.token_hex(8)
    live.touch(a, "dev:1")
    first = _scores(shared, a)["dev:1"]  # somebody new: in Redis at once
    live.touch(a, "dev:1")
    assert _scores(shared, a)["dev:1"] == first  # within a sixth of the window: nothing new
    live._presence[a]["dev:1"] -= 1.5  # seen 1.5 s ago: more than a sixth of the window
    live._presence_flushed = time.time()  # the process's renewals just went out
    live.touch(a, "dev:1")  # a renewal: kept in the process
    renewed_at = live._presence_due[a]["dev:1"]
    assert _scores(shared, a)["dev:1"] == first
    live.touch(b, "dev:2")  # somebody new elsewhere is still written at once
    assert set(_scores(shared, b)) == {"dev:2"}
    assert _scores(shared, a)["dev:1"] == first  # the flush is not due yet
    live._presence_flushed -= 2.0  # PRESENCE_FLUSH has passed
    live.touch(b, "dev:3")  # the next touch after PRESENCE_FLUSH writes every renewal
    assert _scores(shared, a)["dev:1"] == pytest.approx(renewed_at)
    assert live._presence_due == {}
    live._present_cache.clear()
    assert live.present(a) >= {"dev:1"} and live.present(b) >= {"dev:2", "dev:3"}
    for tid in (a, b):
        shared.delete(f"corazones:presence:{tid}")


def test_a_table_read_again_brings_the_others_due_in_the_same_pipeline(shared):
    """When a table's count runs out, every table asked about within the TTL and past half of it
    is read again with it (one round trip a process, not one a table); a table nobody asked
    about lately, or one read recently, is not."""
    a, b, c, d = ("t" + secrets.token_hex(8) for _ in range(4))
    now = time.time()
    for tid in (a, b, c, d):
        shared.zadd(f"corazones:presence:{tid}", {"dev:9": now})
    live._present_cache.clear()
    live._present_asked.clear()
    ttl = live.PRESENT_TTL
    live._present_cache.update({a: (now - ttl - 1, set()), b: (now - ttl * 0.6, set()),
                                c: (now - ttl * 0.6, set()), d: (now - ttl * 0.1, set())})
    live._present_asked.update({b: now - 1, c: now - ttl - 1, d: now - 1})
    pipelines: list[int] = []
    real = shared.pipeline

    def counted(*args: Any, **kwargs: Any) -> Any:
        pipe = real(*args, **kwargs)
        pipelines.append(1)
        return pipe

    shared.pipeline = counted  # the real client's pipelines, counted
    try:
        assert live.present(a) == {"dev:9"}
        assert len(pipelines) == 1
        assert live._present_cache[b][1] == {"dev:9"}  # asked lately, past half: read with a
        assert live._present_cache[c][1] == set()  # nobody asked lately: left as it was
        assert live._present_cache[d][1] == set()  # read recently: left as it was
        assert live.present(b) == {"dev:9"} and len(pipelines) == 1  # no read of its own
    finally:
        del shared.pipeline
        live._present_cache.clear()
        live._present_asked.clear()
        for tid in (a, b, c, d):
            shared.delete(f"corazones:presence:{tid}")


def test_a_table_new_here_is_read_alone(shared):
    """A table with no count yet (or one somebody new just dropped) is read by itself: the
    others are read again only when a count runs out."""
    a, b = "t" + secrets.token_hex(8), "t" + secrets.token_hex(8)
    now = time.time()
    shared.zadd(f"corazones:presence:{b}", {"dev:9": now})
    live._present_cache.clear()
    live._present_asked.clear()
    live._present_cache[b] = (now - live.PRESENT_TTL * 0.6, set())
    live._present_asked[b] = now - 1
    try:
        assert live.present(a) == set()
        assert live._present_cache[b][1] == set()  # not read with a
    finally:
        live._present_cache.clear()
        live._present_asked.clear()
        shared.delete(f"corazones:presence:{b}")
