"""A stream asked for patches (``?patch=1``, what the table page asks for) sends a whole state
first and then only what changed (tables/patches.py): rebuilt on the page's side, every state is
exactly the one the page would read, through a whole hand, for a seat and for a spectator."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robots
from tables import patches
from tests.kit import HttpPlayer

pytestmark = pytest.mark.db

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["a", "b", "2C"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["x", "y", "z", "version"]), inner, max_size=4),
    max_leaves=12)
OBJECTS = st.dictionaries(st.sampled_from(["x", "y", "z", "version"]), JSON, max_size=4)


@settings(max_examples=300, deadline=None)
@given(OBJECTS, OBJECTS)
def test_a_patch_rebuilds_the_new_state_and_leaves_the_old_one_alone(old, new):
    frozen = json.dumps(old, sort_keys=True)
    patch = patches.diff(old, new)
    if patch is None:  # the new state lost a key at the top: the stream sends it whole
        assert not old.keys() <= new.keys()
        return
    # compared as JSON: Python's == takes True for 1, JSON and the page do not
    assert json.dumps(patches.apply(old, patch), sort_keys=True) == json.dumps(new, sort_keys=True)
    assert json.dumps(old, sort_keys=True) == frozen
    if json.dumps(old, sort_keys=True) == json.dumps(new, sort_keys=True):
        assert patch == {}


@settings(max_examples=500, deadline=None)
@given(JSON, JSON)
def test_same_is_equality_as_json(a, b):
    """The comparison the patches rest on says equal exactly when the JSON texts are."""
    as_json = json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert patches._same(a, b) is as_json
    assert patches._same(a, json.loads(json.dumps(a))) is True  # an equal copy, not the object


def test_a_flag_that_becomes_a_number_is_sent():
    assert patches.diff({"a": True, "b": [0]}, {"a": 1, "b": [False]}) == {"a": 1, "b": [False]}


def test_null_values_and_lost_keys_survive_a_patch():
    old = {"view": {"deadline": "12:00", "result": {"a": 1, "b": 2}}, "log": [1, 2]}
    new = {"view": {"deadline": None, "result": {"a": 1}}, "log": [1, 2, 3]}
    patch = patches.diff(old, new)
    assert patch is not None
    assert patch == {"view": {"deadline": None, "result": {"$set": {"a": 1}}}, "log": [1, 2, 3]}
    assert patches.apply(old, patch) == new


class Page:
    """A page's stream with patches, read line by line; ``state`` is the page's rebuilt state."""

    def __init__(self, player: HttpPlayer, tid: str, since: int, page: str | None = None) -> None:
        params: dict[str, Any] = {"since": since, "patch": "1"}
        if page is not None:
            params["page"] = page
        self.r = player.s.get(f"{player.base}/api/tables/{tid}/stream", params=params,
                              stream=True, timeout=(5, 60))
        assert self.r.status_code == 200
        self.lines: Iterator[str] = self.r.iter_lines(chunk_size=1, decode_unicode=True)
        self.state: dict[str, Any] | None = None
        self.bytes = {"state": 0, "patch": 0}
        self.events = {"state": 0, "patch": 0}
        self.versions: list[int] = []  # the version of each state or patch event
        self.logged: list[int] = []  # the version of each log entry the events brought

    def until(self, version: int) -> dict[str, Any]:
        """Read events until the rebuilt state is at ``version``."""
        event = ""
        while self.state is None or self.state["version"] < version:
            line = next(self.lines)
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:") and event in ("state", "patch"):
                data = json.loads(line[5:])
                self.bytes[event] += len(line) - 5
                self.events[event] += 1
                self.versions.append(int(data["state"]["version"] if event == "state"
                                         else data["version"]))
                self.logged += [int(e["version"]) for e in data["log"]]
                if event == "state":  # the state's keys stay: a whole state only opens it
                    assert self.state is None
                    self.state = data["state"]
                else:
                    assert self.state is not None and data["base"] == self.state["version"]
                    self.state = patches.apply(self.state, data["patch"])
                    assert self.state["version"] == data["version"]
        assert self.state["version"] == version
        return self.state


def without_now(state: dict[str, Any]) -> dict[str, Any]:
    """A state without the moment it was made (the clock's ``now``)."""
    out = dict(state)
    out["table"] = dict(out["table"])
    out["table"]["clock"] = {k: v for k, v in out["table"]["clock"].items() if k != "now"}
    return out


def _table_of_four(base: str) -> tuple[str, list[HttpPlayer]]:
    """A table at ``base`` with Ana hosting and three more people seated (P1-P3), not started."""
    ana = HttpPlayer(base)
    r = ana.post("/api/tables", {"host_name": "Ana", "target": 50})
    assert r.status_code == 201, r.text
    tid = r.json()["table_id"]
    players = [ana] + [HttpPlayer(base) for _ in range(3)]
    for i, p in enumerate(players[1:], 1):
        assert p.act(tid, "sit", name=f"P{i}").status_code == 200
    return tid, players


def _act_once(players: list[HttpPlayer], tid: str, rng: random.Random) -> tuple[int, Any] | None:
    """One seat whose turn it is acts (Fácil's choice): the seat and its answer; None once the
    hand is over."""
    views = [p.state(tid)["view"] for p in players]
    if views[0]["phase"] not in ("passing", "playing"):
        return None
    seat = rng.choice(views[0]["to_act"])
    action = robots.decide(views[seat], "facil", rng)
    answer = players[seat].act(tid, action.pop("type"), **action)
    assert answer.status_code == 200, answer.text
    return seat, answer


def test_patched_streams_rebuild_every_state_of_a_hand(shared_server):
    base = shared_server.url
    rng = random.Random(7)
    tid, players = _table_of_four(base)
    ana = players[0]
    watcher = HttpPlayer(base)
    version = ana.state(tid)["version"]
    # seat 1's page and a spectator's page, open through the whole hand
    pages = [(players[1], Page(players[1], tid, version)), (watcher, Page(watcher, tid, version))]
    answer = ana.act(tid, "start")
    assert answer.status_code == 200
    compared = 0
    for _ in range(80):  # a hand: 4 confirmed passes and 52 cards
        version = answer.json()["state"]["version"]
        for viewer, page in pages:
            rebuilt = page.until(version)
            assert without_now(rebuilt) == without_now(viewer.state(tid))
            compared += 1
        acted = _act_once(players, tid, rng)
        if acted is None:
            break
        _, answer = acted
    assert players[0].state(tid)["view"]["phase"] == "counting", "the hand was played out"
    for _, page in pages:
        page.r.close()
        assert page.events["state"] == 1 and page.events["patch"] >= 50
        # what a patch saves: the whole state is ~4.7 KB, a card's patch a fraction of it
        per_patch = page.bytes["patch"] / page.events["patch"]
        assert per_patch < page.bytes["state"] / 3, (per_patch, page.bytes["state"])
    assert compared >= 2 * 56
    assert "hand" not in (watcher.state(tid)["view"] or {})


def test_a_pages_own_actions_are_left_out_of_its_stream(shared_server):
    """A page that names itself (``?page=``, and ``X-Page-Id`` on its actions) is not sent the
    changes its own actions made: their answers brought them. Its next event is the patch from
    the state its stream sent last, and rebuilt it is the page's state. Another page of the same
    browser, and another browser naming the same page id, hear every change."""
    base = shared_server.url
    rng = random.Random(11)
    tid, players = _table_of_four(base)
    ana, me = players[0], players[1]
    page_id = "pagina-" + "a1" * 8
    me.s.headers["X-Page-Id"] = page_id  # every action of seat 1 comes from this page
    copycat = HttpPlayer(base)  # a spectator's browser that names the same page id
    version = ana.state(tid)["version"]
    mine = Page(me, tid, version, page=page_id)
    other_tab = Page(me, tid, version, page="otra-pestana-1")
    spy = Page(copycat, tid, version, page=page_id)
    answer = ana.act(tid, "start")
    assert answer.status_code == 200
    own: list[int] = []  # the versions seat 1's actions made
    for _ in range(80):  # a hand: 4 confirmed passes and 52 cards
        version = answer.json()["state"]["version"]
        for viewer, page in ((me, other_tab), (copycat, spy)):
            assert without_now(page.until(version)) == without_now(viewer.state(tid))
        if own and own[-1] == version:  # seat 1's own change: its answer has it
            assert without_now(answer.json()["state"]) == without_now(me.state(tid))
        else:  # another seat's: the page of seat 1 rebuilds it from what its stream sent
            assert without_now(mine.until(version)) == without_now(me.state(tid))
        acted = _act_once(players, tid, rng)
        if acted is None:
            break
        seat, answer = acted
        if seat == 1:
            own.append(answer.json()["state"]["version"])
    assert players[0].state(tid)["view"]["phase"] == "counting", "the hand was played out"
    for page in (mine, other_tab, spy):
        page.r.close()
    assert len(own) >= 13  # its pass and its cards
    assert not set(own) & set(mine.versions), "a change of the page's own was sent to it"
    # ... but its log entries come with the next event (it may arrive before the answer)
    assert {v for v in own if v < max(mine.versions)} <= set(mine.logged)
    assert set(own) <= set(other_tab.versions) and set(own) <= set(spy.versions)
    assert mine.events["state"] == 1
    assert len(mine.versions) <= len(other_tab.versions) - len(own) + 1
