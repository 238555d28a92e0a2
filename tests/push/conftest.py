"""The push tests' fixture: a local push service for one test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.push.pushkit import PushService, running_push_service


@pytest.fixture()
def push_service() -> Iterator[PushService]:
    with running_push_service() as svc:
        yield svc
