"""Fixtures of the bot tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.bots.botcode import spawners_on


@pytest.fixture(params=["started", "spawned"])
def bot_starts(request: pytest.FixtureRequest) -> Iterator[str]:
    """How the test's Python bots start: in their sandbox as before, then forked by a
    spawner (bots.runner.spawner). A module of hostile tests uses it for all its tests,
    so that each holds both ways."""
    if request.param == "started":
        yield request.param
        return
    with spawners_on():
        yield request.param
