from __future__ import annotations

import time

import pytest
from conftest import wait_until

pytestmark = pytest.mark.db


def test_robots_finish_a_game_when_the_host_leaves(player):
    ana = player()
    tid = ana.create()
    for seat in (1, 2, 3):
        ana.act(tid, "add_robot", seat=seat)
    ana.act(tid, "start")
    t0 = time.monotonic()
    ana.act(tid, "leave")
    st = wait_until(lambda: (s := ana.state(tid))["table"]["status"] == "finished" and s, 60)
    print(time.monotonic() - t0, st["version"], st["view"]["totals"])
