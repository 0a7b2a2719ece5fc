"""A fake clock for the tests of deadlines: ``django.utils.timezone.now`` made to return a
time the test sets, so that a day per move passes in an instant and every deadline is
where the test put it (the services and the sweep read the time through it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone

import pytest


@dataclass
class Clock:
    now: datetime

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now

    def set(self, moment: datetime) -> datetime:
        self.now = moment
        return self.now


@pytest.fixture(name="clock")
def clock_fixture(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """Starts at the real time, rounded to the minute, and moves only when told. A test
    module takes it with ``from tests.league.clock import clock_fixture``."""
    fake = Clock(timezone.now().replace(second=0, microsecond=0))
    monkeypatch.setattr(timezone, "now", lambda: fake.now)
    return fake
