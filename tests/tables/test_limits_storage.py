"""The rate limits' memory storage (tables/limits.py, where there is no Redis) under threads.

limits' own ``MemoryStorage`` restarts its expiry timer at a hit when it has stopped; two threads
that both find it stopped can both start the timer the second one made (the request that hit it
answered 500: "threads can only be started once", or the timer's thread failed). Here each
storage gets a ``timer`` whose assignment waits for the other thread's, which makes that
interleaving happen every time, and the timers count their starts (a second one is not made)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

import pytest
from limits.storage import MemoryStorage

from tables.limits import LockedMemoryStorage


def _two_hits_at_once(cls: type[MemoryStorage], monkeypatch: pytest.MonkeyPatch) -> Counter[int]:
    """Two threads hit a ``cls`` storage whose timer has stopped; how often each timer made
    after that was started (by its id)."""
    starts: Counter[int] = Counter()

    class CountingTimer(threading.Timer):
        def start(self) -> None:
            starts[id(self)] += 1
            if starts[id(self)] == 1:
                super().start()

    second = threading.Event()
    sets = [0]
    count = threading.Lock()

    class Probe(cls):  # type: ignore[valid-type, misc]
        armed = False

        @property
        def timer(self) -> Any:
            return self.__dict__["_timer"]

        @timer.setter
        def timer(self, value: Any) -> None:
            self.__dict__["_timer"] = value
            if not self.armed:
                return
            with count:
                sets[0] += 1
                first = sets[0] == 1
            if first:
                second.wait(0.5)  # the other thread's timer lands here too, unless a lock holds it
            else:
                second.set()

    storage = Probe("corazones-memory://")
    time.sleep(0.1)  # the timer the storage started has run and stopped
    assert not storage.timer.is_alive()
    monkeypatch.setattr(threading, "Timer", CountingTimer)
    storage.armed = True
    start = threading.Barrier(2)

    def hit() -> None:
        start.wait()
        storage.incr("chat/dev:1", 60)

    threads = [threading.Thread(target=hit) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert storage.get("chat/dev:1") == 2  # both hits counted
    storage.timer.join()
    return starts


def test_limits_own_memory_storage_starts_one_timer_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    assert 2 in _two_hits_at_once(MemoryStorage, monkeypatch).values()


def test_the_locked_memory_storage_starts_each_timer_once(monkeypatch: pytest.MonkeyPatch) -> None:
    starts = _two_hits_at_once(LockedMemoryStorage, monkeypatch)
    assert starts and set(starts.values()) == {1}
